"""`dicebridge bench ...`: benchmarks that people run (timings never live in tests)."""

from __future__ import annotations

import argparse
from typing import Any


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (frames, samples: none is no figure)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {number}")
    return number


def add_subcommand(subparsers: Any) -> None:
    from dicebridge.bench import engine, tower, vision, ws

    bench = subparsers.add_parser("bench", help="benchmarks")
    kinds = bench.add_subparsers(dest="bench", metavar="WHAT", required=True)
    engine.add_subcommand(kinds)
    tower.add_subcommand(kinds)
    ws.add_subcommand(kinds)
    vision.add_subcommand(kinds)
