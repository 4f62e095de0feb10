"""`dicebridge odds dphi` through the real command line entry point."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from dicebridge.cli import main
from mechanics.dphi import phi


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["odds", "dphi", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_jarvil(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--might", "0.5")
    assert out["probability"] == pytest.approx(0.52491, abs=1e-5)
    assert out["exact"] is None
    assert out["swing"] == 8.0


def test_hops_static_and_critical(capsys: pytest.CaptureFixture[str]) -> None:
    assert odds(capsys, "--might", "-13", "--hops", "16")["probability"] == pytest.approx(
        0.175, abs=5e-4
    )
    static = odds(capsys, "--might", "-1", "--static")
    assert static["swing"] == pytest.approx(8 / math.sqrt(2))
    assert odds(capsys, "--might", "-40", "--critical", "0.05")["probability"] == 0.05


def test_allies_opponents_and_several_targets(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--might", "5", "--ally", "3", "--opponent", "6")
    assert out["might"] == 2.0
    out = odds(capsys, "--might", "8", "--against", "5", "--against", "11")
    assert out["p_beats_5"] == pytest.approx(phi(3 / 8))
    assert out["p_beats_all"] == pytest.approx(phi(-3 / 8))


def test_versus_splits_the_swing(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--might", "6", "--versus", "4")
    assert out["split_swing"] == pytest.approx(5.6569, abs=5e-5)
    assert out["probability"] == pytest.approx(phi(2 / 8))


def test_text_output_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "dphi", "--might", "0.5"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "8dφ + 0.5 > 0"
    assert "P(success) = 52.49%" in text


def test_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="critical boost must be in"):
        main(["odds", "dphi", "--might", "1", "--critical", "0.7"])
    with pytest.raises(SystemExit, match="negative"):
        main(["odds", "dphi", "--might", "1", "--swing", "-2"])


def resolve(capsys: pytest.CaptureFixture[str], *argv: str, rc: int = 0) -> dict[str, Any]:
    assert main(["resolve", "dphi", *argv, "--json"]) == rc
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_resolve_versus_reads_each_u_to_sixteen_digits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both PCs throwing 9s asked for dice forever; 16 d10s each end it (docs/mechanics/dphi.md)."""
    versus = ("--might", "6", "--versus", "4", "--dice")
    more = resolve(capsys, *versus, *["d10:9"] * 31)
    assert more["status"] == "need" and more["prompt"] == "throw 1 d10 for the second PC's roll"
    out = resolve(capsys, *versus, *["d10:9"] * 32)
    assert out["status"] == "resolved" and out["success"] is True and out["read_to_limit"]
    assert "both u read to 10⁻¹⁶ (16 d10s each)" in out["explanation"]
    assert out["probability"] == pytest.approx(phi(2 / 8))
    refused = resolve(capsys, *versus, *["d10:0"] * 33, rc=2)
    assert refused["status"] == "refused" and "not needed" in refused["error"]
    tie = resolve(capsys, "--might", "5", "--versus", "5", "--dice", *["d10:0"] * 32)
    assert tie["outcome"] == "tie" and tie["success"] is None
    hops = resolve(capsys, "--might", "6", "--versus", "4", "--hops", "1001", rc=2)
    assert "hops must be within ±1000" in hops["error"]


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        (["--static"], "static True does not apply to PC against PC"),
        (["--critical", "0.05"], "critical 0.05 does not apply to PC against PC"),
        (["--beat", "1"], "beat 1.0 does not apply to PC against PC"),
        (["--mode", "value"], "mode 'value' does not apply to PC against PC"),
        (["--mode", "table"], "mode 'table' does not apply to PC against PC"),
        (["--precision", "0.5"], "precision 0.5 does not apply to PC against PC"),
    ],
)
def test_resolve_versus_refuses_what_a_split_check_cannot_take(
    capsys: pytest.CaptureFixture[str], flag: list[str], says: str
) -> None:
    """`resolve --versus` dropped these without a word, where `odds --versus` clamped the
    chance to --critical: the two reported different chances for one check."""
    out = resolve(capsys, "--might", "6", "--versus", "4", *flag, rc=2)
    assert out["status"] == "refused" and says in out["error"]


def test_odds_versus_refuses_what_resolve_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"--critical 0\.05 does not apply to PC against PC"):
        main(["odds", "dphi", "--might", "6", "--versus", "4", "--critical", "0.05"])
    with pytest.raises(SystemExit, match="--static True does not apply to PC against PC"):
        main(["odds", "dphi", "--might", "6", "--versus", "4", "--static"])
    # what changes nothing is taken by both, and both give the same chance
    odds_p = odds(capsys, "--might", "6", "--versus", "4", "--critical", "0")["probability"]
    out = resolve(capsys, "--might", "6", "--versus", "4", "--critical", "0", "--mode", "adaptive")
    assert out["status"] == "need" and out["probability"] == odds_p == pytest.approx(phi(2 / 8))


def test_versus_at_a_zero_swing_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    """odds said ½ and ½ for equal mights, where resolve (and the docs) said a sure tie."""
    even = odds(capsys, "--might", "1", "--swing", "0", "--versus", "1")
    assert (even["probability"], even["p_second_wins"]) == (0, 0)  # were 0.5 and 0.5
    assert even["p_tie"] == 1
    ahead = odds(capsys, "--might", "2", "--swing", "0", "--versus", "1")
    assert (ahead["probability"], ahead["p_second_wins"], ahead["p_tie"]) == (1, 0, 0)
    tie = resolve(capsys, "--might", "1", "--swing", "0", "--versus", "1")
    assert tie["outcome"] == "tie" and (tie["probability"], tie["exact"]) == (0, "0/1")
    won = resolve(capsys, "--might", "2", "--swing", "0", "--versus", "1")
    assert won["outcome"] == "success" and (won["probability"], won["exact"]) == (1, "1/1")


def test_each_character_widens_the_swing(capsys: pytest.CaptureFixture[str]) -> None:
    """Five characters in one roll kept swing 8: each rolls σ/√2 and the rolls merge."""
    out = odds(capsys, "--might", "5", "--ally", "3", "--ally", "4", "--opponent", "10",
               "--opponent", "2")  # fmt: skip
    assert out["swing"] == pytest.approx(8 * math.sqrt(5 / 2))
    assert out["characters_rolling"] == 5 and out["might"] == 0
    two = odds(capsys, "--might", "5", "--opponent", "4")
    assert two["swing"] == 8.0 and two["probability"] == pytest.approx(phi(1 / 8))
    trap = odds(capsys, "--might", "5", "--ally", "3", "--opponent", "6", "--static")
    assert trap["swing"] == pytest.approx(8.0) and trap["characters_rolling"] == 2
