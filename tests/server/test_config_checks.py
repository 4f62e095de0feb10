"""Settings refused before they fail on the Pi: a misspelled DICEBRIDGE_* variable, and kiosk
pins that the display's bus takes, that a tower on the Pi's UART takes, that two devices
share, or that no Pi has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hardware.kiosk import KioskPins
from server.config import (
    ENV_PREFIX,
    READ_ELSEWHERE,
    ConfigError,
    env_names,
    load_config,
)

ROOT = Path(__file__).resolve().parents[2]
# where the project names its variables: code, tests, deploy, CI, docs (not .venv, build, data)
SCANNED = ("audit", "dicebridge", "firmware_host", "hardware", "mechanics", "server", "vision",
           "tests", "deploy", "scripts", "docs", ".ci", "Makefile", "README.md",
           "pyproject.toml")  # fmt: skip
TEXT = {"", ".py", ".sh", ".md", ".toml", ".service", ".desktop", ".yml", ".yaml", ".rules"}


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("PROT", "DICEBRIDGE_PORT"),
        ("DATADIR", "DICEBRIDGE_DATA_DIR"),
        ("port", "DICEBRIDGE_PORT"),  # names are case-sensitive: this one had been ignored too
        ("SETTLE_SECOND", "DICEBRIDGE_SETTLE_SECONDS"),
        ("CAMERASIZE", "DICEBRIDGE_CAMERA_SIZE"),
    ],
)
def test_a_misspelled_environment_variable_is_refused_naming_the_one_meant(
    name: str, meant: str
) -> None:
    """It had been ignored, unsaid: the service ran on the default (PROT=9000 with the
    prefix listened on 8000, DATADIR kept the ledger in ./data)."""
    wrong = ENV_PREFIX + name  # made here: the scan below finds no misspelling in this file
    with pytest.raises(ConfigError) as refused:
        load_config(None, {wrong: "9000", "DICEBRIDGE_HOST": "127.0.0.1"})
    said = str(refused.value)
    assert said.startswith(f"unknown environment variable {wrong} (did you mean {meant}?)")
    assert "DICEBRIDGE_PORT, DICEBRIDGE_SETTLE_SECONDS, DICEBRIDGE_TRAY_AREA" in said  # listed


def test_what_is_no_setting_and_what_is_read_elsewhere() -> None:
    with pytest.raises(ConfigError, match=f"unknown environment variable {ENV_PREFIX}FOO; "):
        load_config(None, {ENV_PREFIX + "FOO": "1"})  # nothing near: no guess
    with pytest.raises(ConfigError, match=r"\[gpio\] is set in the settings file"):
        load_config(None, {ENV_PREFIX + "GPIO": "17"})
    with pytest.raises(ConfigError, match=r"did you mean DICEBRIDGE_PHOTOS, the photo crops"):
        load_config(None, {ENV_PREFIX + "PHOTO": "/srv/photos"})
    assert load_config(None, {"DICEBRIDGE_PHOTOS": "/srv/photos"}).port == 8000  # training's
    assert load_config(None, {ENV_PREFIX + "PROT": ""}).port == 8000  # set to nothing: not set
    assert load_config(None, {"OTHER_PORT": "1", "dicebridge_port": "1"}).port == 8000


def test_every_dicebridge_variable_the_project_names_is_accepted() -> None:
    """The service refuses a DICEBRIDGE_* variable it does not know; one that another part
    reads (a bench, training, the deploy files, a test) must not stop it starting."""
    named: set[str] = set()
    for top in SCANNED:
        base = ROOT / top
        for path in [base] if base.is_file() else base.rglob("*"):
            if path.is_file() and path.suffix in TEXT and "__pycache__" not in path.parts:
                text = path.read_text(encoding="utf-8", errors="ignore")
                named |= set(re.findall(r"\bDICEBRIDGE_[A-Z][A-Z0-9_]*", text))
    assert {"DICEBRIDGE_DATA_DIR", "DICEBRIDGE_PHOTOS", "DICEBRIDGE_TRAY_AREA"} <= named
    assert named <= {*env_names(), *READ_ELSEWHERE}
    load_config(None, dict.fromkeys(named - set(env_names()), "x"))  # the others' values


@pytest.mark.parametrize(
    ("display", "pins", "said"),
    [
        # the SSD1306's I2C bus: the OLED went dark, or the button read its clock
        ("ssd1306", "button = 2", "gpio.button is GPIO2, the ssd1306 display's I2C SDA"),
        ("ssd1306", "buzzer = 3", "gpio.buzzer is GPIO3, the ssd1306 display's I2C SCL"),
        # the ST7789's SPI0 and its DC and RST lines
        ("st7789", "led_idle = 10", "gpio.led_idle is GPIO10, the st7789 display's SPI0 MOSI"),
        ("st7789", "buzzer = 7", "gpio.buzzer is GPIO7, the st7789 display's SPI0 CE1"),
        ("st7789", "actuator = 24", "gpio.actuator is GPIO24, the st7789 display's DC"),
        ("st7789", "button = 25", "gpio.button is GPIO25, the st7789 display's RST"),
        # two kiosk devices on one pin, a default among them
        (None, "button = 22\nled_idle = 22", "gpio.button and gpio.led_idle are both GPIO22"),
        (None, "buzzer = 17", r"gpio.button \(by default\) and gpio.buzzer are both GPIO17"),
        (None, "led_idle = 27", r"gpio.actuator \(by default\) and gpio.led_idle are both"),
        # no such GPIO on a Pi's header
        (None, "button = 28", "gpio.button must be a BCM GPIO number, 0 to 27, not 28"),
        (None, "buzzer = -1", "gpio.buzzer must be a BCM GPIO number, 0 to 27, not -1"),
    ],
)
def test_kiosk_pins_that_cannot_work_are_refused_naming_both_uses(
    tmp_path: Path, display: str | None, pins: str, said: str
) -> None:
    """They had been taken: gpiozero claimed the display's bus lines (the OLED went dark, or
    the button read its clock), or two devices drove one pin, or a pin no Pi has failed
    only when the service opened it."""
    path = tmp_path / "pins.toml"
    path.write_text((f"display = {display!r}\n" if display else "") + f"[gpio]\n{pins}\n")
    with pytest.raises(ConfigError, match=said):
        load_config(path)


def test_pins_clear_of_the_display_are_taken(tmp_path: Path) -> None:
    path = tmp_path / "pins.toml"
    path.write_text('display = "st7789"\n[gpio]\nbutton = 2\nbuzzer = 26\n')  # I2C: free here
    assert load_config(path).gpio == KioskPins(button=2, buzzer=26)
    path.write_text('display = "ssd1306"\n[gpio]\nbutton = 10\nled_idle = 0\n')  # SPI: free
    assert load_config(path).gpio == KioskPins(button=10, led_idle=0)
    # the display from the environment is checked against the file's pins too
    with pytest.raises(ConfigError, match="the st7789 display's SPI0 MOSI"):
        load_config(path, {"DICEBRIDGE_DISPLAY": "st7789"})


@pytest.mark.parametrize(
    ("port", "pins", "said"),
    [
        ("/dev/serial0", "button = 14",
         r"gpio.button is GPIO14, the Pi's UART TXD, which tower 'left' uses \(port "
         r"/dev/serial0\): give the button another pin \(the UART takes GPIO 14, 15\), or "
         "connect the tower through a USB serial adapter"),
        ("/dev/ttyAMA0", "led_idle = 15", "gpio.led_idle is GPIO15, the Pi's UART RXD"),
        ("/dev/ttyS0", "buzzer = 14", "gpio.buzzer is GPIO14, the Pi's UART TXD"),
    ],
)  # fmt: skip
def test_kiosk_pins_on_the_pi_s_uart_are_refused_with_a_tower_on_it(
    tmp_path: Path, port: str, pins: str, said: str
) -> None:
    """A button or LED on GPIO14/15 had been taken while a tower read the Pi's own UART on
    them: the two drove one line, and the tower's bytes read as presses (or were lost)."""
    path = tmp_path / "uart.toml"
    # a USB tower listed first: the one on the UART is still found
    towers = '[[towers]]\nname = "store"\nusb = "2e8a:000a"\n' if port == "/dev/ttyS0" else ""
    path.write_text(f'{towers}[[towers]]\nname = "left"\nport = "{port}"\n[gpio]\n{pins}\n')
    with pytest.raises(ConfigError, match=said):
        load_config(path)


@pytest.mark.parametrize(
    "towers",
    [
        "",  # no tower: GPIO14 and 15 are pins like any other
        '[[towers]]\nname = "left"\nport = "/dev/ttyUSB0"\n',  # a USB serial adapter
        '[[towers]]\nname = "left"\nport = "/dev/ttyACM0"\n',  # a Pico, on USB
        '[[towers]]\nname = "left"\nusb = "2e8a:000a"\n',
        '[[towers]]\nname = "left"\nport = "socket://10.0.0.2:7000"\n',
    ],
)
def test_gpio14_and_15_are_free_without_a_tower_on_the_pi_s_uart(
    tmp_path: Path, towers: str
) -> None:
    path = tmp_path / "uart.toml"
    path.write_text(f"{towers}[gpio]\nbutton = 14\nled_idle = 15\n")
    assert load_config(path).gpio == KioskPins(button=14, led_idle=15)


def test_a_tower_on_the_pi_s_uart_leaves_the_other_pins_free(tmp_path: Path) -> None:
    path = tmp_path / "uart.toml"
    path.write_text('[[towers]]\nname = "left"\nport = "/dev/serial0"\n[gpio]\nbutton = 16\n')
    assert load_config(path).gpio == KioskPins(button=16)  # the defaults: none on 14 or 15
    path.write_text('[[towers]]\nname = "left"\nport = "/dev/serial0"\n')  # no kiosk pins
    assert load_config(path).gpio is None
