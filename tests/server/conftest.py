"""Fixtures of the service's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server.pages import CHROMIUM, NO_CHROMIUM, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Chromium, one for the test module; the test skips where there is none."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    with chromium() as launched:
        yield launched
