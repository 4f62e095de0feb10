"""The service's settings on the Pi: the TOML file is what counts, data_dir too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from server.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TOOL = DEPLOY / "toml_settings.py"
OLD_SETTINGS = """\
# dicebridge settings on a Raspberry Pi; see docs/appliance.md for every key.
host = "127.0.0.1"   # "0.0.0.0" to let phones at the table reach the page
port = 8000
display = "ssd1306"

[gpio]
button = 17
"""  # as installed before data_dir was in the file (the unit's environment named it)


def _unit_environment() -> dict[str, str]:
    """The variables the systemd unit gives the service."""
    env = {}
    for line in (DEPLOY / "dicebridge.service").read_text().splitlines():
        if line.startswith("Environment="):
            key, _, value = line.removeprefix("Environment=").partition("=")
            env[key] = value
    return env


def test_data_dir_edited_in_the_settings_is_the_one_the_service_uses(tmp_path: Path) -> None:
    """The unit had set DICEBRIDGE_DATA_DIR, which beats the file: an owner's data_dir in
    /etc/dicebridge/dicebridge.toml was silently ignored."""
    shipped = (DEPLOY / "dicebridge.toml").read_text()
    config = load_config(DEPLOY / "dicebridge.toml", _unit_environment())
    assert config.data_dir == Path("/var/lib/dicebridge")  # the unit's StateDirectory
    assert "StateDirectory=dicebridge\n" in (DEPLOY / "dicebridge.service").read_text()
    edited = tmp_path / "dicebridge.toml"
    edited.write_text(shipped.replace('"/var/lib/dicebridge"', '"/srv/dice"'))
    assert load_config(edited, _unit_environment()).data_dir == Path("/srv/dice")


def _add_data_dir(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, TOOL, "add-data-dir", path, "/var/lib/dicebridge"],
                          capture_output=True, text=True, check=True)  # fmt: skip


def test_an_older_settings_file_gets_the_data_dir_the_unit_used_to_give(tmp_path: Path) -> None:
    """Without the unit's variable, a file naming no data_dir would put the ledger in
    ./data under /opt/dicebridge; install.sh adds the folder the service had used."""
    settings = tmp_path / "dicebridge.toml"
    settings.write_text(OLD_SETTINGS)
    settings.chmod(0o640)
    said = _add_data_dir(settings)
    assert said.stdout == f'dicebridge: added data_dir = "/var/lib/dicebridge" to {settings}\n'
    config = load_config(settings, {})
    assert config.data_dir == Path("/var/lib/dicebridge")
    assert config.gpio is not None and config.gpio.button == 17  # the rest as it was
    assert settings.read_text().endswith(OLD_SETTINGS) and settings.stat().st_mode & 0o777 == 0o640
    again = settings.read_text()
    assert _add_data_dir(settings).stdout == "" and settings.read_text() == again
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('data_dir = "/mnt/usb/dice"\n' + OLD_SETTINGS)
    said = _add_data_dir(elsewhere)
    assert "names data_dir = '/mnt/usb/dice'" in said.stdout
    assert load_config(elsewhere, {}).data_dir == Path("/mnt/usb/dice")
