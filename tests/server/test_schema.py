"""Schemathesis against the OpenAPI schema: whatever a client sends, no 500."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from server.app import create_app
from server.ledger import Ledger
from server.table import Table

_DATA = Path(tempfile.mkdtemp(prefix="dicebridge-schema-"))
_LEDGER = Ledger(_DATA)
_TABLE = Table(_LEDGER, rng=random.Random(1))
_TABLE.create("dphi", {"might": 0.5})  # something for the check and throw routes to find
_TABLE.registry.register("Red d6", "d6")
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(_TABLE))


@pytest.fixture(scope="module", autouse=True)
def _close_ledger() -> object:
    yield None
    _LEDGER.close()


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_produces_a_server_error(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
