"""`dicebridge bench engine`: our exact engine against icepool and dyce.

Every case is run by all three on the same question in one process, one after
the other; the answers are compared (a peer that disagrees is reported, not
timed silently) and each time is the best of several repetitions, so that a
stray scheduler pause does not decide a ratio.  ``ratio`` is the faster peer's
time divided by ours: 10 means we are ten times faster.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from dicebridge.bench import machine_line
from dicebridge.bench.case import BenchCase

CASE_MODULES = ("peupfudge", "d6pool", "decibel", "d5")
TARGET_RATIO = 10.0


def add_subcommand(kinds: Any) -> None:
    parser = kinds.add_parser(
        "engine",
        help="time the mechanics engine against icepool and dyce",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list of cases")
    parser.add_argument("--quick", action="store_true", help="a few cases, few repetitions")
    parser.add_argument("--only", metavar="TEXT", help="only cases whose name contains TEXT")
    parser.add_argument(
        "--budget",
        type=float,
        default=0.2,
        metavar="S",
        help="seconds of repetitions per measurement (default 0.2)",
    )
    parser.set_defaults(handler=run)


def collect(quick: bool) -> list[BenchCase]:
    cases: list[BenchCase] = []
    for name in CASE_MODULES:
        module = importlib.import_module(f"dicebridge.bench.cases_{name}")
        cases.extend(module.cases(quick))
    return cases


def best_time(fn: Callable[[], Any], budget: float) -> tuple[float, Any]:
    """Best time of one call in seconds, the way timeit measures.

    Calls are timed in batches long enough (about a millisecond) that the
    clock's own overhead does not count for fast cases, and the best batch
    over about ``budget`` seconds is kept.
    """
    start = time.perf_counter()
    result = fn()
    first = time.perf_counter() - start
    loops = max(1, int(1e-3 / max(first, 1e-7)))
    best = first
    spent = first
    while spent < budget:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        elapsed = time.perf_counter() - t0
        best = min(best, elapsed / loops)
        spent += elapsed
    return best, result


def _peer_available(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def measure(case: BenchCase, budget: float) -> dict[str, Any]:
    ours_s, ours_result = best_time(case.ours, budget)
    row: dict[str, Any] = {"case": case.case, "ours_ms": ours_s * 1e3, "exact": case.exact}
    peer_times: list[float] = []
    disagreements: list[str] = []
    for peer in ("icepool", "dyce"):
        fn = getattr(case, peer)
        if fn is None or not _peer_available(peer):
            row[f"{peer}_ms"] = None
            continue
        peer_s, peer_result = best_time(fn, budget)
        row[f"{peer}_ms"] = peer_s * 1e3
        peer_times.append(peer_s)
        if case.answer is not None:
            a, b = case.answer(ours_result), case.answer(peer_result)
            worst = max((abs(x - y) for x, y in zip(a, b, strict=False)), default=0.0)
            if len(a) != len(b) or worst > case.tolerance:
                disagreements.append(f"{peer} differs by {worst:.3g}")
    row["ratio"] = min(peer_times) / ours_s if peer_times else None
    if disagreements:
        row["disagreement"] = "; ".join(disagreements)
    if case.notes:
        row["notes"] = list(case.notes)
    return row


def run(args: argparse.Namespace) -> int:
    missing = [p for p in ("icepool", "dyce") if not _peer_available(p)]
    if missing:
        print(
            f"note: {', '.join(missing)} not installed; install the bench extra "
            "(pip install 'dicebridge[bench]') to compare",
            file=sys.stderr,
        )
    every = collect(args.quick)
    cases = [c for c in every if not args.only or args.only in c.case]
    if not cases:
        systems = sorted({c.case.split()[0].split(":")[0] for c in every})
        raise SystemExit(f"dicebridge bench engine: no case's name holds {args.only!r} (the "
                         f"cases' names begin {', '.join(systems)})")  # fmt: skip
    budget = 0.02 if args.quick else args.budget
    rows = []
    for i, case in enumerate(cases, 1):
        if not args.json:
            print(f"[{i}/{len(cases)}] {case.case} ...", file=sys.stderr, end="\r")
        rows.append(measure(case, budget))
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(machine_line())
        print(format_table(rows))
    return 0


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def format_table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'case':<34} {'ours ms':>10} {'icepool ms':>11} {'dyce ms':>10} {'ratio':>8} exact"]
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.1f}x"
        flag = "" if r["ratio"] is None or r["ratio"] >= TARGET_RATIO else "  (< 10x)"
        lines.append(
            f"{r['case']:<34} {_ms(r['ours_ms']):>10} {_ms(r['icepool_ms']):>11} "
            f"{_ms(r['dyce_ms']):>10} {ratio:>8} {'yes' if r['exact'] else 'no'}{flag}"
        )
        if "disagreement" in r:
            lines.append(f"    ! {r['disagreement']}")
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    if ratios:
        lines.append(
            f"\n{len(rows)} cases; slowest ratio {min(ratios):.1f}x, "
            f"{sum(x >= TARGET_RATIO for x in ratios)}/{len(ratios)} "
            f"at or above {TARGET_RATIO:.0f}x"
        )
    return "\n".join(lines)
