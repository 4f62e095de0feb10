"""`dicebridge odds peupfudge` through the real command line entry point."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicebridge.cli import main


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["odds", "peupfudge", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_the_arrow(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--dice", "4", "--level", "2", "--bonus", "0", "--difficulty", "4")
    assert out["exact"] == "5/27"
    assert out["probability"] == pytest.approx(5 / 27)
    rows = {r["outcome"]: r for r in out["distribution"]}
    assert sorted(rows) == list(range(-2, 7))
    assert rows[4]["p_at_least"] == pytest.approx(5 / 27)


def test_defaults_are_four_dice_and_no_bonus(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--level", "3", "--difficulty", "3")
    assert out["exact"] == "50/81"
    assert out["description"] == "4dF + 3 + 0 ≥ 3"


def test_two_hundred_dice(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--dice", "200", "--level", "0", "--difficulty", "0")
    assert 0.5 < out["probability"] < 0.53


def test_opposed_race(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--opposed", "3", "4", "8")
    wins = [out[k]["probability"] for k in out if k.startswith("p_") and "wins" in k]
    assert len(wins) == 3
    assert sum(wins) + out["p_tie"]["probability"] == pytest.approx(1.0)


def test_xp(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--level", "4", "--difficulty", "3", "--xp", "26")
    assert out["26_xp_buys_level"] == "4 (+11/16)"


def test_missing_or_bad_options_are_clear(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="--level and --difficulty are required"):
        main(["odds", "peupfudge", "--level", "2"])
    with pytest.raises(SystemExit, match="--dice must be 0 or more"):
        main(["odds", "peupfudge", "--dice", "-1", "--level", "2", "--difficulty", "1"])
    with pytest.raises(SystemExit, match="at least two"):
        main(["odds", "peupfudge", "--opposed", "3"])
