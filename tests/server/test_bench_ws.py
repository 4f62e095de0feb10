"""`dicebridge bench ws` runs and reports what it names (its figures are for people, not tests)."""

from __future__ import annotations

import json

import pytest

from dicebridge.cli import main


def test_bench_ws_times_every_reading_for_every_client(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ws", "--clients", "3", "--samples", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clients"] == 3 and out["samples"] == 5
    assert 0 < out["p50_ms"] <= out["p99_ms"] <= out["max_ms"]
