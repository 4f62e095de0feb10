"""`dicebridge odds d6pool` through the real command line entry point."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from dicebridge.cli import main
from mechanics.d6pool import Fate, Roller, p_check


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["odds", "d6pool", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_a_plain_check(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--level", "5", "--difficulty", "6")
    expected = p_check(Roller(5), 6)
    assert out["exact"] == f"{expected.numerator}/{expected.denominator}"
    assert out["probability"] == pytest.approx(float(expected))
    assert "challenging" in str(out["description"])


def test_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(
        capsys,
        *("--level", "4", "--difficulty", "10", "--fate", "blessed", "--labor", "2"),
        *("--leverage", "1", "--supernatural"),
    )
    roller = Roller(4, Fate.BLESSED, labor=2, leverage=1, supernatural=True)
    assert Fraction(str(out["exact"])) == p_check(roller, 10)
    assert out["dice"] == 6 and out["score_cap"] == 12


def test_contest_with_rerolled_ties(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--level", "4", "--versus", "4", "--reroll-ties")
    assert out["exact"] == "1/2"
    plain = odds(capsys, "--level", "4", "--versus", "4")
    assert plain["probability"] < 0.5
    assert "p_tie" in plain


def test_bad_options_are_clear(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="--difficulty is required"):
        main(["odds", "d6pool", "--level", "3"])
    with pytest.raises(SystemExit, match="negative"):
        main(["odds", "d6pool", "--level", "-2", "--difficulty", "3"])
    with pytest.raises(SystemExit):
        main(["odds", "d6pool", "--level", "2", "--difficulty", "3", "--fate", "jinxed"])
