"""`dicebridge resolve` through the real entry point: the issue's contract examples."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicebridge.cli import main


def resolve(capsys: pytest.CaptureFixture[str], *argv: str, rc: int = 0) -> dict[str, Any]:
    assert main(["resolve", *argv, "--json"]) == rc
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_dphi_contract_examples(capsys: pytest.CaptureFixture[str]) -> None:
    failed = resolve(capsys, "dphi", "--might", "0.5", "--dice", "d10:3")
    assert failed["status"] == "resolved" and failed["success"] is False
    assert failed["probability"] == pytest.approx(0.52492, abs=1e-5)
    more = resolve(capsys, "dphi", "--might", "0.5", "--dice", "d10:4")
    assert more["status"] == "need" and more["need"] == [{"die": "d10", "count": 1}]
    won = resolve(capsys, "dphi", "--might", "0.5", "--dice", "d10:4", "d10:8")
    assert won["status"] == "resolved" and won["success"] is True
    assert isinstance(won["value"], float)


def test_nothing_thrown_yet_asks_for_dice(capsys: pytest.CaptureFixture[str]) -> None:
    out = resolve(capsys, "peupfudge", "--level", "2", "--difficulty", "4")
    assert out["need"] == [{"die": "dF", "count": 4}]
    out = resolve(capsys, "d6pool", "--level", "5", "--difficulty", "6")
    assert out["need"] == [{"die": "d6", "count": 5}]
    out = resolve(capsys, "decibel", "--pool", "5", "--target", "13")
    assert out["need"] == [{"die": "d20", "count": 5}]


def test_every_system_resolves(capsys: pytest.CaptureFixture[str]) -> None:
    fudge = resolve(
        capsys, "peupfudge", "--level", "2", "--difficulty", "4",
        "--dice", "dF:+", "dF:+", "dF:0", "dF:-",
    )  # fmt: skip
    assert (fudge["value"], fudge["success"], fudge["exact"]) == (3, False, "5/27")
    three = resolve(
        capsys, "peupfudge", "--level", "2", "--difficulty", "4", "--dice", "3", "d6:6", "d6:5",
        "d6:6",
    )  # fmt: skip
    assert three["value"] == 5 and three["success"] is True
    pool = resolve(
        capsys, "d6pool", "--level", "2", "--difficulty", "3", "--dice", "d6:5", "d6:3", "d6:4",
    )  # fmt: skip
    assert (pool["value"], pool["success"], pool["explosions"]) == (3, True, 1)
    db = resolve(
        capsys, "decibel", "--pool", "5", "--target", "13",
        "--dice", "d20:20", "d20:17", "d20:12", "d20:8", "d20:5",
    )  # fmt: skip
    assert (db["value"], db["degree"], db["success"]) == (15, 2, True)
    net = resolve(capsys, "d5", "--at-least", "1", "--dice", "d5:3", "d5:2", "d5:1", "d5:1")
    assert (net["value"], net["success"], net["exact"]) == (2, True, "4/9")


def test_refused_readings_exit_2_and_say_why(capsys: pytest.CaptureFixture[str]) -> None:
    out = resolve(capsys, "dphi", "--might", "1", "--dice", "d10:3", "d10:4", rc=2)
    assert out["status"] == "refused" and "not needed" in out["error"]
    out = resolve(capsys, "d6pool", "--level", "2", "--difficulty", "3", "--dice", "d6:9", rc=2)
    assert "no face 9" in out["error"]
    out = resolve(capsys, "peupfudge", "--level", "1", "--difficulty", "1", "--dice", "d20:3", rc=2)
    assert "needs a dF" in out["error"]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "d6pool", "--level", "3", "--difficulty", "4",
                 "--dice", "d6:5", "d6:6", "d6:1"]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip() == "throw 2 more d6 for the explosions"


def test_peupfudge_opposed(capsys: pytest.CaptureFixture[str]) -> None:
    out = resolve(capsys, "peupfudge", "--opposed", "3", "4", "--dice", "dF:+", "dF:0", "dF:0")
    assert out["status"] == "need" and out["prompt"] == "throw 3 dF for participant #2"
    tie = resolve(
        capsys, "peupfudge", "--opposed", "3", "4",
        "--dice", "dF:+", "dF:0", "dF:0", "dF:0", "dF:0", "dF:0",
    )  # fmt: skip
    assert tie["success"] is None and tie["winners"] == [1, 2]


def test_a_capped_pool_asks_for_no_more_explosions(capsys: pytest.CaptureFixture[str]) -> None:
    """Nine 5s at level 9 reached the cap, yet it said "throw 9 more d6 for the explosions"."""
    nines = ("d6pool", "--level", "9", "--difficulty", "9", "--dice", *["d6:5"] * 9)
    out = resolve(capsys, *nines)
    assert out["status"] == "resolved" and (out["value"], out["success"]) == (9, True)
    assert "9 more d6 could not change the score and were not thrown" in out["explanation"]
    refused = resolve(capsys, *nines, "d6:1", rc=2)
    assert "not needed" in refused["error"]
    # below the cap the explosions are still asked for
    out = resolve(capsys, "d6pool", "--level", "9", "--difficulty", "9", "--dice", *["d6:5"] * 8)
    assert out["status"] == "need" and out["prompt"] == "throw 9 more d6"
    assert main(["resolve", *nines]) == 0
    assert capsys.readouterr().out.startswith("9 d6 (9 from explosions) gave 9 wins;")


@pytest.mark.parametrize("bad", ["1.5", "-0.5", "nan", "inf"])
def test_min_confidence_outside_0_to_1_is_refused(
    capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    """--min-confidence 1.5 refused every die, even one typed in (confidence 1.0)."""
    out = resolve(capsys, "d6pool", "--level", "2", "--difficulty", "3", "--min-confidence", bad,
                  "--dice", "d6:3", rc=2)  # fmt: skip
    assert out["status"] == "refused" and "min_confidence" in out["error"]
    ok = resolve(capsys, "d6pool", "--level", "2", "--difficulty", "3", "--min-confidence", "1",
                 "--dice", "d6:3", "d6:1")  # fmt: skip
    assert ok["status"] == "resolved"
