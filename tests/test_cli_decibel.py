"""`dicebridge odds decibel` through the real command line entry point."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dicebridge.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["odds", "decibel", *argv, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_three_against_three(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--pool", "3", "--versus", "3")
    assert out["exact"] == "7519953/16000000"
    assert out["probability"] == pytest.approx(0.4700, abs=5e-5)
    assert out["p_tie"] == {"probability": pytest.approx(0.060005875), "exact": "480047/8000000"}
    assert out["p_lose"] == {
        "probability": pytest.approx(0.4699970625),
        "exact": "7519953/16000000",
    }
    distribution = out["distribution"]
    assert isinstance(distribution, list)
    assert [row["outcome"] for row in distribution] == list(range(20))


def test_static_target_with_discards(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--pool", "7", "--discard", "3", "--target", "6")
    assert out["description"] == "(7−3)dB >= 6"
    exact = out["exact"]
    assert isinstance(exact, str)
    distribution = out["distribution"]
    assert isinstance(distribution, list)
    row6 = next(r for r in distribution if r["outcome"] == 6)
    assert row6["p_at_least"] == pytest.approx(float(Fraction(exact)))


def test_modifiers_follow_the_policy(capsys: pytest.CaptureFixture[str]) -> None:
    stacked = run_json(capsys, "--pool", "5", "--positive", "1", "--negative", "2", "--target", "9")
    cancelled = run_json(
        capsys,
        "--pool",
        "5",
        "--positive",
        "1",
        "--negative",
        "2",
        "--policy",
        "cancel",
        "--target",
        "9",
    )
    assert stacked["check"] == "(8−2)dB"
    assert cancelled["check"] == "(6−1)dB"


def test_compound_second_target(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys, "--pool", "6", "--discard", "1", "--target", "11", "--second-target", "3"
    )
    both, second = out["p_both_succeed"], out["p_second_succeeds"]
    assert isinstance(both, dict) and isinstance(second, dict)
    assert 0 < both["probability"] < min(out["probability"], second["probability"])  # type: ignore[type-var]


def test_text_output_marks_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "decibel", "--pool", "3", "--target", "10"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("3dB >= 10")
    assert "P(success) = 53.62%" in text  # 0.53625 = 429/800 (float formatting), seed: 0.54
    assert "exactly      429/800" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["--pool", "3", "--discard", "2", "--target", "5"],
        ["--pool", "-1", "--target", "5"],
        ["--pool", "3", "--negative", "-1", "--target", "5"],
        ["--pool", "3", "--target", "5", "--second-target", "1"],
        ["--pool", "4", "--versus", "1"],
    ],
)
def test_impossible_input_is_refused_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["odds", "decibel", *argv])
    assert str(exit_info.value.code).startswith("dicebridge odds decibel: ")


def test_a_compound_check_of_200_dice_answers(capsys: pytest.CaptureFixture[str]) -> None:
    """It took 35 s (the order-statistics programme; docs/mechanics/decibel.md)."""
    out = run_json(capsys, "--pool", "200", "--target", "19", "--second-target", "17")
    both, second = out["p_both_succeed"], out["p_second_succeeds"]
    assert isinstance(both, dict) and isinstance(second, dict)
    assert 0 < Fraction(str(both["exact"])) < Fraction(str(second["exact"])) < 1
