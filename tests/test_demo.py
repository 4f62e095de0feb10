"""`dicebridge demo`, the tour of the odds: every example runs and prints its odds."""

from __future__ import annotations

import pytest

from dicebridge.cli import main
from dicebridge.demo import EXAMPLES


def test_demo_prints_every_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for title, argv in EXAMPLES:
        assert title in out
        assert "$ dicebridge odds " + " ".join(argv) in out
    assert out.count("P(success) = ") == len(EXAMPLES)
    assert "52.49%" in out and "17.53%" in out and "5/27" in out
