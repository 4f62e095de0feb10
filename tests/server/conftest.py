"""Fixtures of the service's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.kiosk import KioskPanel, KioskPins
from server.ledger import Ledger
from server.table import Table
from tests.server.pages import CHROMIUM, NO_CHROMIUM, chromium


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A table on a fresh ledger in the test's own folder."""
    with Ledger(tmp_path) as ledger:
        yield Table(ledger)


@pytest.fixture
def panel() -> Iterator[KioskPanel]:
    """The kiosk on its default pins (button 17, actuator 27, LEDs 5, 6, 13 and 19, no
    buzzer), on gpiozero's MockFactory: a fresh factory per test."""
    factory = MockFactory()
    made = KioskPanel(KioskPins(), pin_factory=factory)
    yield made
    made.close()
    factory.reset()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Chromium, one for the test module; the test skips where there is none."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    with chromium() as launched:
        yield launched
