"""Configuration: laptop defaults, a TOML file, environment overrides, named errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hardware.kiosk import KioskPins
from server.config import Config, ConfigError, TowerConfig, default_data_dir, load_config


def test_defaults_need_nothing() -> None:
    config = load_config()
    assert config == Config()
    assert config.host == "127.0.0.1" and not config.open_to_lan
    assert config.gpio is None and config.display is None and config.data_dir == Path("data")


def test_file_then_environment(tmp_path: Path) -> None:
    path = tmp_path / "dicebridge.toml"
    path.write_text(
        'host = "0.0.0.0"\nport = 8080\ndisplay = "ssd1306"\ntumble_seconds = 2\n'
        "[gpio]\nbutton = 22\nbuzzer = 26\n"
        '[[towers]]\nname = "left"\nport = "/dev/ttyACM0"\n'
        '[[towers]]\nname = "store"\nusb = "2e8a:000a"\nmode = "binary"\n'
        'dice = ["red-d6", "blue-d6"]\n'
    )
    config = load_config(path, env={"DICEBRIDGE_PORT": "9000", "DICEBRIDGE_DATA_DIR": "/srv/d"})
    assert config.open_to_lan and config.port == 9000 and config.data_dir == Path("/srv/d")
    assert config.gpio == KioskPins(button=22, buzzer=26)
    assert config.tumble_seconds == 2.0
    assert config.towers == (
        TowerConfig("left", port="/dev/ttyACM0"),
        TowerConfig("store", usb="2e8a:000a", mode="binary", dice=("red-d6", "blue-d6")),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('hots = "x"', "unknown setting 'hots'"),
        ("port = 'eighty'", "port must be a whole number"),
        ("port = 70000", "between 1 and 65535"),
        ('display = "vga"', "ssd1306 or st7789"),
        ('tumbler = "crank"', "relay, motor or servo"),
        ("tumbler_speed = 1.5", "at most 1"),
        ("[gpio]\nbuton = 3", "unknown gpio pin 'buton'"),
        ('[[towers]]\nname = "x"', "needs a port or a usb id"),
        ('[[towers]]\nname = "x"\nport = "/dev/x"\nmode = "fast"', "auto, binary or text"),
        ("port = ", "not valid TOML"),
        ('[[towers]]\nname = "x"\nport = "/dev/x"\ndice = "red"', "list of registered dice"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_bad_environment_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="DICEBRIDGE_PORT must be a whole number"):
        load_config(env={"DICEBRIDGE_PORT": "lots"})
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")


def test_the_shipped_pi_settings_load() -> None:
    shipped = Path(__file__).resolve().parents[2] / "deploy" / "dicebridge.toml"
    config = load_config(shipped)
    assert config.display == "ssd1306" and config.gpio is not None


def test_how_long_the_dice_must_lie_still(tmp_path: Path) -> None:
    assert load_config(None).settle_seconds == 0.6
    assert load_config(None, {"DICEBRIDGE_SETTLE_SECONDS": "0.3"}).settle_seconds == 0.3
    with pytest.raises(ConfigError, match="settle_seconds must be 0 to 10"):
        load_config(None, {"DICEBRIDGE_SETTLE_SECONDS": "60"})


def test_how_long_dice_pictures_are_kept(tmp_path: Path) -> None:
    assert load_config(None).keep_crops_days == 365
    path = tmp_path / "keep.toml"
    path.write_text("keep_crops_days = 30\n")
    assert load_config(path).keep_crops_days == 30.0
    assert load_config(path, {"DICEBRIDGE_KEEP_CROPS_DAYS": "0"}).keep_crops_days == 0
    for days in ("-1", "nan"):  # NaN had been taken, and pruned nothing, unsaid
        path.write_text(f"keep_crops_days = {days}\n")
        with pytest.raises(ConfigError, match=r"keep_crops_days must be 0 \(kept for ever\)"):
            load_config(path)


def test_camera_settings(tmp_path: Path) -> None:
    path = tmp_path / "cam.toml"
    path.write_text('camera = "picamera2"\nempty_tray = "/srv/tray.jpg"\n')
    config = load_config(path, env={"DICEBRIDGE_CAMERA": "0"})
    assert config.camera == "0" and config.empty_tray == Path("/srv/tray.jpg")
    path.write_text("camera = 0\n")
    with pytest.raises(ConfigError, match="camera must be text"):
        load_config(path)
    path.write_text('camera = "0"\ncamera_size = [1280, 960]\n')
    assert load_config(path).camera_size == (1280, 960)
    assert load_config(path, {"DICEBRIDGE_CAMERA_SIZE": "640x480"}).camera_size == (640, 480)
    for bad in ("[1280]", '"big"', "[1280, -960]"):
        path.write_text(f"camera_size = {bad}\n")
        with pytest.raises(ConfigError, match="camera_size must be"):
            load_config(path)


def test_a_camera_that_cannot_open_is_a_source_state_not_a_crash(tmp_path: Path) -> None:
    from dicebridge.serve import _sources
    from server.ledger import Ledger
    from server.table import Table

    config = load_config(None, {"DICEBRIDGE_CAMERA": str(tmp_path / "missing.avi")})
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        towers, camera = _sources(False, config, table, [])
        assert camera is None and towers == ()  # a file that is not there will not come
        assert table.sources()["camera"] == "disconnected"
        # a live camera that is not there (yet) is tried again until it is
        config = load_config(None, {"DICEBRIDGE_CAMERA": "http://127.0.0.1:9/tray.mjpg"})
        towers, camera = _sources(False, config, table, [])
        assert camera is not None
        camera.start()
        deadline = time.monotonic() + 20
        while table.sources()["camera"] != "retrying":
            assert time.monotonic() < deadline, table.source_details()
            time.sleep(0.05)
        camera.stop()


def test_the_hdmi_kiosk_autostart_runs_the_launcher_on_the_shipped_settings() -> None:
    """The launcher reads the port from the settings at each start (it had 8000 built in:
    a changed port was waited on for ever); tests/deploy/test_kiosk.py runs it."""
    import configparser
    import shlex

    deploy = Path(__file__).resolve().parents[2] / "deploy"
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(deploy / "dicebridge-kiosk.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application"
    command = shlex.split(desktop["Exec"])
    assert command[-2:] == ["/opt/dicebridge/deploy/dicebridge-kiosk",
                            "/etc/dicebridge/dicebridge.toml"]  # fmt: skip
    load_config(deploy / "dicebridge.toml")  # the shipped settings load
    assert "dicebridge-kiosk.desktop" in (deploy / "install.sh").read_text()


def test_a_tray_area_that_makes_no_tray_is_named(tmp_path: Path) -> None:
    path = tmp_path / "area.toml"
    for text, said in (
        ("tray_area = [[0, 0], [1, 1]]\n", "tray_area: a tray area has 3 to 64 corners"),
        ('tray_area = "0,0;1,0"\n', "tray_area: a tray area has 3 to 64 corners"),
        ("tray_area = [[0, 0], [1, 0], [1, 5]]\n", "tray_area: corner 3"),
    ):
        path.write_text(text)
        with pytest.raises(ConfigError, match=said):
            load_config(path)
    with pytest.raises(ConfigError, match="DICEBRIDGE_TRAY_AREA: a tray area is corners"):
        load_config(None, {"DICEBRIDGE_TRAY_AREA": "left half"})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # a tumble of inf or 1e300 had ended the kiosk's thread at the first press (a
        # timestamp out of range), NaN or a negative one had tumbled nothing
        ("tumble_seconds = inf", "tumble_seconds must be above 0 and at most 10, not inf"),
        ("tumble_seconds = nan", "tumble_seconds must be above 0 and at most 10, not nan"),
        ("tumble_seconds = -1", "tumble_seconds must be above 0 and at most 10, not -1.0"),
        ("tumble_seconds = 30", "tumble_seconds must be above 0 and at most 10, not 30.0"),
        # an empty host had listened on every network, an empty folder meant "."
        ('host = ""', "host cannot be empty in the settings"),
        ('data_dir = " "', "data_dir cannot be empty in the settings"),
        # the first of two towers of one name had been dropped, unsaid
        (
            '[[towers]]\nname = "left"\nport = "/dev/a"\n[[towers]]\nname = "left"\n'
            'port = "/dev/b"',
            "towers named 'left' more than once",
        ),
        # these had been tracebacks, the usb ones only once the towers were started
        ('[[towers]]\nport = "/dev/ttyACM0"', "towers\\[0\\] needs a name"),
        ('[[towers]]\nname = " "\nport = "/dev/ttyACM0"', "towers\\[0\\] needs a name"),
        ('[[towers]]\nname = "a"\nusb = "hello"', "towers\\[0\\].usb must be vid:pid"),
        ('[[towers]]\nname = "a"\nusb = "2e8a:000g"', "towers\\[0\\].usb must be vid:pid"),
    ],
)
def test_settings_that_cannot_work_are_refused_naming_the_key(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=said):
        load_config(path)


def test_a_usb_tower_id_as_lsusb_shows_it_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "usb.toml"
    path.write_text('[[towers]]\nname = "a"\nusb = "2E8A:000a:E66038B7"\n')
    assert load_config(path).towers[0].usb == "2E8A:000a:E66038B7"


def test_an_environment_variable_set_to_nothing_is_not_set(tmp_path: Path) -> None:
    """DICEBRIDGE_HOST= had opened the service to every network, and DICEBRIDGE_DATA_DIR=
    put the service's ledger in the current folder while the ledger commands looked in
    ./data."""
    env = {"DICEBRIDGE_HOST": "", "DICEBRIDGE_DATA_DIR": " ", "DICEBRIDGE_PORT": ""}
    config = load_config(None, env)
    assert (config.host, config.port, config.data_dir) == ("127.0.0.1", 8000, Path("data"))
    assert default_data_dir(env) == config.data_dir
