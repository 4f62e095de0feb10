"""Configuration: one TOML file plus environment overrides, with laptop defaults.

The defaults need nothing: no GPIO, no camera, no display, data in ./data, the
API on 127.0.0.1 only.  The file and the environment only ever narrow that
down; an unknown key, an unknown DICEBRIDGE_* variable or a value of the wrong type is an
error that names it.
The configuration is a value passed to whoever needs it — never a global.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from hardware.kiosk import KioskPins

if TYPE_CHECKING:
    from vision.tray_area import TrayArea

ENV_PREFIX = "DICEBRIDGE_"
USB_ID = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}(:[^:]+)?")  # vid:pid[:serial]
MOST_TUMBLE_S = 10.0  # a tumble longer than this is no tumble (the watchdog allows 20 s)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


@dataclass(frozen=True)
class TowerConfig:
    name: str
    port: str | None = None  # a device path or socket://host:port
    usb: str | None = None  # "vid:pid" or "vid:pid:serial", found again when replugged
    mode: str = "auto"
    dice: tuple[str, ...] = ()  # registered dice by slot: slot 0 is dice[0], …


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    display: str | None = None  # ssd1306, st7789 or None
    gpio: KioskPins | None = None  # None: no kiosk hardware
    tumble_seconds: float = 1.5
    tumbler: str = "relay"  # what drives the tumble: relay, motor (PWM) or servo
    tumbler_speed: float = 1.0  # a motor's PWM duty, above 0 and at most 1
    towers: tuple[TowerConfig, ...] = field(default_factory=tuple)
    camera: str | None = None  # "0" (a webcam), "picamera2", a video file or URL; None: none
    empty_tray: Path | None = None  # a photo of the empty tray, for the camera
    camera_size: tuple[int, int] | None = None  # [width, height] asked of a live camera
    settle_seconds: float = 0.6  # the dice still this long: the throw is read
    keep_crops_days: float = 365.0  # dice pictures older than this are removed; 0: kept for ever
    tray_area: TrayArea | None = None  # the tray's corners in the camera's picture; None: all
    camera_dice: dict[str, str] = field(default_factory=dict)
    # die type -> the registered die the camera reads for it: a throw's one die of that type
    # names it, for its audit (two or more of the type in a throw: none, they are not told apart)

    @property
    def open_to_lan(self) -> bool:
        return self.host not in ("127.0.0.1", "localhost", "::1")


SCALARS: dict[str, type] = {
    "host": str,
    "port": int,
    "data_dir": str,
    "display": str,
    "tumble_seconds": float,
    "tumbler": str,
    "tumbler_speed": float,
    "camera": str,
    "empty_tray": str,
    "keep_crops_days": float,
    "settle_seconds": float,
}


KIND_WORDS = MappingProxyType({int: "a whole number", float: "a number", str: "text"})
FILE_ONLY = ("gpio", "towers", "camera_dice")  # tables: the settings file only, never the env
# DICEBRIDGE_* variables that are no setting of the service but read elsewhere: a variable
# with the prefix that is neither a setting nor one of these is refused (a misspelled one
# had been ignored, unsaid, and the default used)
READ_ELSEWHERE = MappingProxyType(
    {"DICEBRIDGE_PHOTOS": "vision/datasets.py: the photo crops' folder for training"}
)
GPIO_PINS = range(28)  # BCM GPIO0 to GPIO27, the 40-pin header's
# the BCM pins each display takes, as hardware/display.open_display opens it: the SSD1306
# on I2C bus 1, the ST7789 on SPI0 (both chip selects are the SPI driver's) with DC and RST
DISPLAY_PINS: Mapping[str, Mapping[int, str]] = MappingProxyType(
    {
        "ssd1306": MappingProxyType({2: "I2C SDA", 3: "I2C SCL"}),
        "st7789": MappingProxyType(
            {
                7: "SPI0 CE1",
                8: "SPI0 CE0",
                9: "SPI0 MISO",
                10: "SPI0 MOSI",
                11: "SPI0 SCLK",
                24: "DC",
                25: "RST",
            }
        ),
    }
)


# the Pi's own UART, on GPIO14 (TXD) and GPIO15 (RXD): a tower on one of these ports talks
# over those two pins (one on a USB serial adapter, /dev/ttyUSB* or /dev/ttyACM*, does not)
PI_UART_PORTS = frozenset({"/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"})
PI_UART_PINS: Mapping[int, str] = MappingProxyType({14: "TXD", 15: "RXD"})


def _typed(key: str, value: Any, kind: type) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConfigError(f"{key} must be {KIND_WORDS[kind]}, not {value!r}")
    return value


def default_data_dir(env: Mapping[str, str]) -> Path:
    """The data folder the service uses without a settings file: DICEBRIDGE_DATA_DIR, else
    ./data (the command line's ledger and admin commands default to it too).  It refuses
    nothing (the command line calls it building its parser, --help too): a command that
    uses it is marked ``reads_data_dir_env`` and dicebridge.cli.main checks the variables
    with check_env_names before running it."""
    return Path(env.get(ENV_PREFIX + "DATA_DIR", "").strip() or Config.data_dir)


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Defaults, then the TOML file (if given), then DICEBRIDGE_* environment variables."""
    values: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as err:
            raise ConfigError(f"cannot read {path}: {err.strerror}") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path} is not valid TOML: {err}") from None
        values.update(_from_file(data))
    check_env_names(env or {})
    for key, kind in SCALARS.items():
        raw = (env or {}).get(ENV_PREFIX + key.upper())
        if raw is None or not raw.strip():  # set to nothing: not set (as default_data_dir)
            continue
        try:
            values[key] = kind(raw)
        except ValueError:
            raise ConfigError(f"{ENV_PREFIX}{key.upper()} must be {KIND_WORDS[kind]}") from None
    size = (env or {}).get(ENV_PREFIX + "CAMERA_SIZE")
    if size is not None:
        values["camera_size"] = _size(size)
    area = (env or {}).get(ENV_PREFIX + "TRAY_AREA")
    if area is not None:
        values["tray_area"] = _tray_area(area, ENV_PREFIX + "TRAY_AREA")
    for key in ("data_dir", "empty_tray", "host"):
        if key in values and not str(values[key]).strip():
            # an empty host had opened the service to every network; "" as a folder is "."
            raise ConfigError(f"{key} cannot be empty in the settings (leave it out for the "
                              "default)")  # fmt: skip
    for key in ("data_dir", "empty_tray"):
        if key in values:
            values[key] = Path(values[key])
    config = Config(**values)
    check_port(config.port)
    if not 0 < config.tumble_seconds <= MOST_TUMBLE_S:  # NaN too
        raise ConfigError(
            f"tumble_seconds must be above 0 and at most {MOST_TUMBLE_S:g}, "
            f"not {config.tumble_seconds}"
        )
    names = [t.name for t in config.towers]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(f"towers named {', '.join(map(repr, twice))} more than once: each "
                          "tower needs a name of its own")  # fmt: skip
    if config.tumbler not in ("relay", "motor", "servo"):
        raise ConfigError(f"tumbler must be relay, motor or servo, not {config.tumbler!r}")
    if not 0 < config.tumbler_speed <= 1:
        raise ConfigError(
            f"tumbler_speed must be above 0 and at most 1, not {config.tumbler_speed}"
        )
    if not 0 <= config.settle_seconds <= 10:  # NaN too
        raise ConfigError(f"settle_seconds must be 0 to 10, not {config.settle_seconds}")
    if not config.keep_crops_days >= 0:  # NaN too (it had pruned nothing, unsaid)
        raise ConfigError(
            f"keep_crops_days must be 0 (kept for ever) or more, not {config.keep_crops_days}"
        )
    if config.display not in (None, "ssd1306", "st7789"):
        raise ConfigError(f"display must be ssd1306 or st7789, not {config.display!r}")
    if config.gpio is not None:
        _check_pins(config.gpio, config.display, config.towers)
    return config


def env_names() -> tuple[str, ...]:
    """Every DICEBRIDGE_* variable the service reads as a setting."""
    return tuple(ENV_PREFIX + key.upper() for key in (*SCALARS, "camera_size", "tray_area"))


def check_env_names(env: Mapping[str, str]) -> None:
    """ConfigError for a DICEBRIDGE_* variable that is no setting (set to nothing: not set),
    naming it, the setting it may have meant, and the known ones: the service's settings
    check, and the command line's before a command whose --data-dir defaults to
    default_data_dir (a misspelled DICEBRIDGE_DATA_DIR had verified ./data, unsaid)."""
    known = env_names()
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or name in known or name in READ_ELSEWHERE:
            continue
        if not env[name].strip():
            continue
        key = name.removeprefix(ENV_PREFIX).lower()
        if key in FILE_ONLY:
            raise ConfigError(f"{name}: [{key}] is set in the settings file (--config), not "
                              "from the environment")  # fmt: skip
        # matched on the part after the prefix, which every candidate shares
        keys = [k.removeprefix(ENV_PREFIX) for k in (*known, *READ_ELSEWHERE)]
        near = difflib.get_close_matches(key.upper(), keys, n=1)
        meant = ENV_PREFIX + near[0] if near else ""
        use = f", {READ_ELSEWHERE[meant].partition(': ')[2]}" if meant in READ_ELSEWHERE else ""
        hint = f" (did you mean {meant}{use}?)" if meant else ""
        raise ConfigError(f"unknown environment variable {name}{hint}; the settings from the "
                          f"environment are {', '.join(sorted(known))}")  # fmt: skip


def check_port(port: int) -> None:
    """ConfigError unless ``port`` is one a service can listen on (the command line's too:
    --port 70000 had listened on 4464, printing 70000)."""
    if not 0 < port < 65536:
        raise ConfigError(f"port must be between 1 and 65535, not {port}")


def _from_file(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in SCALARS:
            values[key] = _typed(key, value, SCALARS[key])
        elif key == "camera_size":
            values["camera_size"] = _size(value)
        elif key == "tray_area":
            values["tray_area"] = _tray_area(value, "tray_area")
        elif key == "gpio":
            values["gpio"] = _gpio(value)
        elif key == "towers":
            values["towers"] = tuple(_tower(i, t) for i, t in enumerate(value))
        elif key == "camera_dice":
            values["camera_dice"] = _camera_dice(value)
        else:
            tables = ("camera_dice", "camera_size", "gpio", "towers", "tray_area")
            known = ", ".join(sorted([*SCALARS, *tables]))
            raise ConfigError(f"unknown setting {key!r}; settings are {known}")
    return values


def _camera_dice(table: Any) -> dict[str, str]:
    """``[camera_dice]``: a die type the camera reads -> the name of the registered die it
    is (``d20 = "lucky-d20"``)."""
    from mechanics.reading import DIE_TYPES

    if not isinstance(table, dict):
        raise ConfigError('[camera_dice] must be a table of die type = "registered die"')
    for die, name in table.items():
        if die not in DIE_TYPES or die == "d100":
            types = ", ".join(t for t in DIE_TYPES if t != "d100")
            raise ConfigError(f"camera_dice.{die}: not a die type the camera reads ({types})")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"camera_dice.{die} must be the name of a registered die "
                              f"(`dicebridge dice add`), not {name!r}")  # fmt: skip
    return {die: name.strip() for die, name in table.items()}


def _size(value: Any) -> tuple[int, int]:
    """A camera resolution: [width, height] in the file, "WIDTHxHEIGHT" in the environment."""
    if isinstance(value, str):
        from vision.frames import parse_size  # the camera's own parser (cv2: only when used)

        with contextlib.suppress(ValueError):
            value = list(parse_size(value))
    ok = isinstance(value, list) and len(value) == 2
    if not ok or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 16 for v in value):
        raise ConfigError(f"camera_size must be [width, height] in pixels, not {value!r}")
    return (value[0], value[1])


def _tray_area(value: Any, key: str) -> TrayArea:
    """The tray's corners: [[x, y], ...] in the file, "x,y;x,y;…" in the environment."""
    from vision.tray_area import TrayArea, TrayAreaError  # cv2: only when used

    try:
        return TrayArea.parse(value)
    except TrayAreaError as err:
        raise ConfigError(f"{key}: {err}") from None


def _gpio(table: Any) -> KioskPins:
    if not isinstance(table, dict):
        raise ConfigError("[gpio] must be a table of pin numbers")
    names = {f.name for f in dataclasses.fields(KioskPins)}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"unknown gpio pin {key!r}; pins are {', '.join(sorted(names))}")
        _typed(f"gpio.{key}", value, int)
        if value not in GPIO_PINS:  # gpiozero had said only "not a valid pin", on the Pi
            raise ConfigError(f"gpio.{key} must be a BCM GPIO number, 0 to 27, not {value}")
    return KioskPins(**table)


def _check_pins(pins: KioskPins, display: str | None, towers: tuple[TowerConfig, ...] = ()) -> None:
    """ConfigError for a kiosk pin the display's bus takes, one the Pi's UART takes where a
    tower is on it, or two kiosk devices on one pin (a pin left out of [gpio] is its
    default, and counts too), naming both uses."""
    used: dict[int, str] = {}
    bus = DISPLAY_PINS.get(display or "", {})
    uart = next((t for t in towers if t.port in PI_UART_PORTS), None)
    for f in dataclasses.fields(KioskPins):
        pin = getattr(pins, f.name)
        if pin is None:
            continue
        named = f"gpio.{f.name}" + (" (by default)" if pin == f.default else "")
        if pin in bus:
            raise ConfigError(f"{named} is GPIO{pin}, the {display} display's {bus[pin]}: "
                              f"give the {f.name} another pin (the {display} takes GPIO "
                              f"{', '.join(map(str, bus))})")  # fmt: skip
        if uart is not None and pin in PI_UART_PINS:
            raise ConfigError(f"{named} is GPIO{pin}, the Pi's UART {PI_UART_PINS[pin]}, "
                              f"which tower {uart.name!r} uses (port {uart.port}): give "
                              f"the {f.name} another pin (the UART takes GPIO 14, 15), or "
                              "connect the tower through a USB serial adapter")  # fmt: skip
        if pin in used:
            raise ConfigError(f"{used[pin]} and {named} are both GPIO{pin}: each needs a pin "
                              "of its own")  # fmt: skip
        used[pin] = named


def _tower(index: int, table: Any) -> TowerConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"towers[{index}] must be a table")
    names = {f.name for f in dataclasses.fields(TowerConfig)}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"unknown setting towers[{index}].{key}")
        if key == "dice":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"towers[{index}].dice must be a list of registered dice names")
        else:
            _typed(f"towers[{index}].{key}", value, str)
    if not str(table.get("name", "")).strip():
        raise ConfigError(f"towers[{index}] needs a name (the Devices page and the ledger "
                          "name its throws tower:NAME)")  # fmt: skip
    tower = TowerConfig(**{**table, "dice": tuple(table.get("dice", ()))})
    if tower.usb is not None and not USB_ID.fullmatch(tower.usb):
        raise ConfigError(f"towers[{index}].usb must be vid:pid or vid:pid:serial in hex "
                          f"(as lsusb shows it, e.g. 2e8a:000a), not {tower.usb!r}")  # fmt: skip
    if (tower.port is None) == (tower.usb is None):
        raise ConfigError(f"towers[{index}] needs a port or a usb id (one of them)")
    if tower.mode not in ("auto", "binary", "text"):
        raise ConfigError(f"towers[{index}].mode must be auto, binary or text")
    return tower
