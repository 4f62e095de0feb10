"""The HDMI kiosk's launcher opens the address the settings give, not one built in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


@pytest.mark.parametrize(
    ("settings", "url"),
    [
        ('host = "0.0.0.0"\nport = 8123\n', "http://127.0.0.1:8123"),
        ('host = "192.168.1.20"\nport = 9000\n', "http://192.168.1.20:9000"),
        ('host = "::"\nport = 8001\n', "http://[::1]:8001"),
        ('display = "ssd1306"\n', "http://127.0.0.1:8000"),  # the service's defaults
        (None, "http://127.0.0.1:8000"),  # no file (the service then fails and says why)
    ],
)
def test_the_kiosk_opens_the_configured_host_and_port(
    tmp_path: Path, settings: str | None, url: str
) -> None:
    """dicebridge-kiosk.desktop had http://127.0.0.1:8000 built in: with another port in
    the settings it waited for ever."""
    toml = tmp_path / "dicebridge.toml"
    if settings is not None:
        toml.write_text(settings)
    bin_ = tmp_path / "bin"  # curl and Chromium stand-ins that note how they were called
    bin_.mkdir()
    for name in ("curl", "chromium", "chromium-browser"):
        (bin_ / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{tmp_path}/calls"\n')
        (bin_ / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["sh", DEPLOY / "dicebridge-kiosk", toml], env=env, check=True, timeout=30)
    curl, browser = (tmp_path / "calls").read_text().splitlines()
    assert curl == f"curl -sf {url}/api/health"
    assert browser.startswith(("chromium-browser --kiosk", "chromium --kiosk"))
    assert browser.endswith(f" {url}/kiosk")


def test_the_desktop_entry_starts_the_launcher_the_install_copies() -> None:
    entry = (DEPLOY / "dicebridge-kiosk.desktop").read_text()
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert exec_line == (
        "Exec=sh /opt/dicebridge/deploy/dicebridge-kiosk /etc/dicebridge/dicebridge.toml"
    )
    assert (DEPLOY / "dicebridge-kiosk").is_file() and "8000" not in entry
