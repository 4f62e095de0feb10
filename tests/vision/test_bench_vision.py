"""`dicebridge bench vision` runs every case (no timing is asserted: the figures are the
benchmark's output, docs/vision.md)."""

from __future__ import annotations

import json

import pytest

from dicebridge.cli import main


def test_the_vision_benchmark_times_every_frame_size_and_die(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "vision", "--frames", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cases = [(c["die"], c["frame"], c.get("taught")) for c in out["cases"]]
    sizes = ("640x640", "1280x960", "2400x2400")
    assert cases == [("d6", f, None) for f in sizes] + [("dF", "640x640", None)] + [
        ("d20", f, "two photos a face") for f in sizes
    ] + [("d20", "640x640", "one photo a face")]  # as an owner teaches a real set
    assert all(c["p50_ms"] > 0 and c["p90_ms"] >= c["p50_ms"] for c in out["cases"])
    # what was read is said beside its time (a frame where 1 of 4 dice was found is timed too)
    assert all(c["dice"] == 8 and 0 <= c["read_right"] <= 8 for c in out["cases"])
    assert out["cases"][0]["read_right"] == 8  # d6s at 640 px: every die
    assert out["machine"]["cpu"] and out["machine"]["at"]
    assert [c for c in out["cases"] if "blob_counter_p50_ms" in c] == [out["cases"][0]]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bench", "vision", "--frames", "0"], "--frames: at least 1, not 0"),
        (["bench", "tower", "--samples", "0"], "--samples: at least 1, not 0"),
        (["bench", "tower", "--fuzz-bytes", "lots"], "--fuzz-bytes: a whole number, not 'lots'"),
    ],
)
def test_a_benchmark_with_nothing_to_time_is_refused_before_it_starts(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2  # argparse's usage error, not a traceback mid-run
    assert says in capsys.readouterr().err
