"""`dicebridge bench ...`: benchmarks that people run (timings never live in tests)."""

from __future__ import annotations

from typing import Any


def add_subcommand(subparsers: Any) -> None:
    from dicebridge.bench import engine, tower, vision, ws

    bench = subparsers.add_parser("bench", help="benchmarks")
    kinds = bench.add_subparsers(dest="bench", metavar="WHAT", required=True)
    engine.add_subcommand(kinds)
    tower.add_subcommand(kinds)
    ws.add_subcommand(kinds)
    vision.add_subcommand(kinds)
