"""`dicebridge bench ...`: benchmarks that people run (timings never live in tests)."""

from __future__ import annotations

import argparse
import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """What a benchmark ran on, so that a Pi's figures are not taken for a laptop's."""
    cpu = platform.processor() or platform.machine()
    try:  # Linux names its processor here (a Pi's "Model" line names the board)
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        named = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        cpu = named.get("Model") or named.get("model name") or cpu
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def machine_line() -> str:
    m = machine()
    return (f"on {m['cpu']} ({m['cores']} cores), {m['system']}, Python {m['python']}, "
            f"{m['at']}")  # fmt: skip


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
