"""A tower's unreadable data, from its pty to the Devices page: the service's device status
(`GET /api/health`) counts what each tower sent that could not be read and says where a
tower sends nothing but garbage; the page (real Chromium, through Playwright) shows the
counts only where there are some.  Towers are simulated on real ptys."""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_host.protocol import DieCode
from firmware_host.simulator import TowerSimulator, open_pty, serve
from server.app import create_app
from server.config import TowerConfig
from server.ledger import Ledger
from server.sources import tower_fleet
from server.table import Table
from tests.server.pages import CHROMIUM, in_process

GARBAGE = "receiving data but none of it is readable"
COUNTED = re.compile(r"^\d+ unreadable frames? since connected( \(\d+ in the last minute\))?$")
SIMS = {  # the settings' default heartbeat (three missed seconds), as in the service
    "clean": TowerSimulator(slots=(DieCode.D6,), rng=random.Random(1)),
    "noisy": TowerSimulator(slots=(DieCode.D6,), rng=random.Random(2), noise=0.6),
    "garbled": TowerSimulator(slots=(DieCode.D6,), rng=random.Random(3), wrong_baud=True),
}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service (uvicorn on a thread) with three towers on ptys: its base URL."""
    stop = threading.Event()
    masters, towers = [], []
    for name, sim in SIMS.items():
        master, path = open_pty()
        thread = threading.Thread(target=serve, args=(sim, master, 0, 0.05, stop, 0.0))
        thread.start()
        masters.append(master)
        towers.append((thread, TowerConfig(name, port=path)))
    ledger = Ledger(tmp_path_factory.mktemp("data"))
    table = Table(ledger)
    app = create_app(table)
    fleet = tower_fleet(tuple(config for _, config in towers), table)
    fleet.start()
    try:
        with in_process(app) as url:
            yield url
    finally:
        fleet.stop()
        stop.set()
        for (thread, _), master in zip(towers, masters, strict=True):
            thread.join(5)
            os.close(master)
        ledger.close()


def _details(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/health", timeout=5) as reply:
        return dict(json.load(reply)["source_details"])


def _until_details(base: str, ready: Any, seconds: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        details = _details(base)
        if ready(details):
            return details
        assert time.monotonic() < deadline, f"timed out: {json.dumps(details, indent=1)}"
        time.sleep(0.1)


def _faults_shown(d: dict[str, Any]) -> bool:
    return d.get("tower:garbled", {}).get("garbage_only") is True and (
        d.get("tower:noisy", {}).get("unreadable", 0) > 0
    )


def test_the_device_status_counts_what_each_tower_could_not_read(service: str) -> None:
    details = _until_details(service, _faults_shown)
    garbled, noisy, clean = (details[f"tower:{n}"] for n in ("garbled", "noisy", "clean"))
    # garbage only: said so, not taken for a silent tower ("no heartbeat")
    assert garbled["problem"].startswith(GARBAGE), garbled
    assert "unreadable frames in the last minute" in garbled["problem"]
    assert garbled["unreadable_last_minute"] > 0 and garbled["readings"] == 0
    assert "heartbeat" not in garbled["detail"]
    # noisy: read on, its unreadable frames counted since it connected and in the last minute
    assert noisy["state"] == "connected" and noisy["readings"] > 0
    assert noisy["unreadable_last_minute"] >= noisy["unreadable"] > 0
    assert (noisy["garbage_only"], noisy["problem"], noisy["unreadable_unit"]) == (
        False, "", "frames")  # fmt: skip
    # clean: counted too, at nothing
    assert clean["state"] == "connected"
    assert (clean["unreadable"], clean["refused"], clean["garbage_only"]) == (0, 0, False)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (`make test` installs it)")
def test_the_devices_page_shows_unreadable_data_only_where_there_is_some(
    service: str, browser: object
) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    _until_details(service, _faults_shown)
    page = browser.new_page()
    page.goto(f"{service}/devices")
    rows = page.locator("#sources tr")
    garbled = rows.filter(has_text="tower:garbled")
    expect(garbled.locator(".problem")).to_contain_text(GARBAGE)
    expect(garbled).to_contain_text("check that the tower sends at 115,200 baud")
    expect(garbled).to_contain_text("nothing readable")
    noisy = rows.filter(has_text="tower:noisy")
    expect(noisy.locator(".unreadable")).to_have_text(COUNTED)
    expect(noisy.locator(".problem")).to_have_count(0)
    # nothing unreadable: no line at all, not "0 unreadable frames"
    expect(rows.filter(has_text="tower:clean")).to_contain_text("connected")
    expect(rows.filter(has_text="tower:clean").locator(".unreadable")).to_have_count(0)
    expect(rows.filter(has_text="manual").locator(".unreadable")).to_have_count(0)
    shots = Path(__file__).resolve().parents[2] / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "devices-unreadable.png"), full_page=True)
