"""`dicebridge odds d5` through the real command line entry point."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicebridge.cli import main


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["odds", "d5", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_net_and_single(capsys: pytest.CaptureFixture[str]) -> None:
    assert odds(capsys, "--at-least", "0")["exact"] == "5/9"
    assert odds(capsys, "--single", "--at-least", "3")["exact"] == "64/125"
    assert odds(capsys, "--at-least", "-2")["exact"] == "161/225"


def test_listed_rows_are_exact(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--at-least", "3")
    rows = {r["outcome"]: r for r in out["distribution"]}
    assert rows[0]["exact"] == "1/9"
    assert rows[3]["p_at_least"] == pytest.approx(64 / 225)
    assert sum(r["p"] for r in rows.values()) == pytest.approx(1.0)


def test_d6_approximation_is_labelled(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--at-least", "0", "--stop-die", "d6")
    assert out["exact"] == "6/11"
    assert out["rule_s_chance__d5_or_d10"]["exact"] == "5/9"
    assert any("approximation" in n for n in out["notes"])


def test_pragmatics_shortcut_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--at-least", "8")
    assert out["pragmatics_shortcut__coin_on_a_tie"]["exact"] == "32768/390625"


def test_dice_option_and_its_old_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert odds(capsys, "--at-least", "0", "--dice", "d10")["exact"] == "5/9"
    assert odds(capsys, "--single", "--at-least", "1", "--dice", "d6")["exact"] == "5/6"


def test_level_difference_shows_the_shortcut(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds(capsys, "--level-difference", "8")
    assert out["exact"] == "65536/703125"  # (5/9)(4/5)^8
    assert out["pragmatics_shortcut__d_d10s__coin_on_a_tie"]["exact"] == "32768/390625"
    assert out["rule__exceeds_the_difference__net___d"]["exact"] == "262144/3515625"
    assert out["distribution"][-1]["outcome"] > 8


def test_level_difference_is_counted_from_the_lower_side() -> None:
    with pytest.raises(SystemExit, match="D ≥ 0"):
        main(["odds", "d5", "--level-difference", "-3"])
    with pytest.raises(SystemExit, match="without --single"):
        main(["odds", "d5", "--level-difference", "3", "--single"])


def test_absurd_targets_are_refused() -> None:
    with pytest.raises(SystemExit, match="within"):
        main(["odds", "d5", "--at-least", "99999"])
