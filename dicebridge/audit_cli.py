"""`dicebridge audit FILE --sides K [--json]`: is this die fair?

FILE holds one face per line (in throw order), or a CSV with `face,count`.
For a finished log the verdict follows the fixed-sample test at α = 0.05
(Monte Carlo when expected counts are below 5); the e-value is the
anytime-valid evidence that governs live audits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from audit.fairness import homogeneity
from audit.logs import LogError, read_log
from audit.verdict import audit


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="fairness audit of a die's throw log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--sides", type=int, required=True, metavar="K")
    parser.add_argument(
        "--bias",
        type=float,
        default=0.2,
        metavar="B",
        help="smallest bias you care about: one face B off its fair share (default 0.2)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--report", type=Path, metavar="HTML", help="also write a printable report (HTML, A4)"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="FILE2",
        help="another die (or another run of this one): do both follow one distribution?",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        if not 0 < args.bias < args.sides - 1:
            raise LogError(f"--bias must be above 0 (a share), not {args.bias}")
        result = audit(read_log(args.file, args.sides), bias=args.bias)
        other = read_log(args.compare, args.sides) if args.compare else None
    except (LogError, ValueError) as err:
        print(f"dicebridge audit: {err}", file=sys.stderr)
        return 2
    if args.report is not None:
        from audit.report import render

        try:
            args.report.write_text(render(result, f"Audit of {args.file.name}"), encoding="utf-8")
        except OSError as err:
            print(f"dicebridge audit: cannot write {args.report}: {err.strerror}", file=sys.stderr)
            return 2
    data = result.to_json()
    if other is not None:
        chi2, p = homogeneity(result.log.counts, other.counts)
        data["homogeneity"] = {"file": str(args.compare), "chi2": chi2, "p_value": p}
    if args.json:
        print(json.dumps(data))
        return 0
    print(result.words())
    print()
    print(f"  throws: {data['n']:,} on a d{data['sides']}")
    test = "Monte Carlo exact" if data["monte_carlo"] else "Pearson χ²"
    print(f"  χ² = {data['chi2']:.2f}, p = {data['p_value']:.3g} ({test}); G-test p = "
          f"{data['g_p_value']:.3g}")  # fmt: skip
    print(f"  e-value = 10^{data['log10_e_value']:.2f} (anytime-valid; 20 or more rejects)")
    if "homogeneity" in data:
        same = "differ" if data["homogeneity"]["p_value"] < 0.05 else "no sign they differ"
        print(f"  against {args.compare.name}: {same} (χ² = {data['homogeneity']['chi2']:.2f}, "
              f"p = {data['homogeneity']['p_value']:.3g})")  # fmt: skip
    if data["serial"]["p_value"] is not None:
        flag = "suspicious" if data["serial"]["flag"] else "no sign"
        print(f"  order effects: {flag} (transition p = {data['serial']['p_value']:.3g}, "
              f"repeat rate {100 * data['serial']['repeat_rate']:.1f}%)")  # fmt: skip
    if data["duplicated_stretches"]:
        print(f"  copied stretches in the log: {len(data['duplicated_stretches'])}")
    print(f"  throws for 80% power against a {100 * args.bias:.0f}% bias: "
          f"{data['throws_needed']:,} (sequential test: about "
          f"{data['sequential_throws']:,})")  # fmt: skip
    print()
    print(f"  {'face':>4}  {'count':>8}  {'share':>7}  95% interval")
    for f in data["faces"]:
        print(f"  {f['face']:>4}  {f['count']:>8,}  {100 * f['share']:6.2f}%  "
              f"{100 * f['ci_low']:.2f}–{100 * f['ci_high']:.2f}%")  # fmt: skip
    return 0
