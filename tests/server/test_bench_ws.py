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


def test_bench_ws_runs_the_service_on_its_defaults_whatever_the_appliance_is_set_to(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DICEBRIDGE_* setting reached the benchmark's own service: one it refuses (as here)
    had left `bench ws` waiting 30 s to say only "the service did not start"."""
    monkeypatch.setenv("DICEBRIDGE_SETTLE_SECONDS", "99")
    assert main(["bench", "ws", "--clients", "1", "--samples", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["samples"] == 1 and out["machine"]["cores"] >= 1 and out["machine"]["python"]
