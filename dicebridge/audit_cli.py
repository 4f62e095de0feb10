"""`dicebridge audit FILE --sides K [--json]`: is this die fair?

FILE holds one face per line (in throw order), or a CSV with `face,count`;
or audit a registered die (`dicebridge dice add`) from every reading of it in
the ledger: `dicebridge audit --die NAME [--data-dir DIR]`.
For a finished log the verdict follows the fixed-sample test at α = 0.05
(Monte Carlo when expected counts are below 5); the e-value is the
anytime-valid evidence that governs live audits.

--sides K (2 to 100: d2 to d100) goes with a FILE only; with --die the die's
registered type gives its sides, and --sides is refused. --bias B is from 0.05
to 1. A log with copied stretches (a log imported twice, say) says so in its
verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from audit.fairness import homogeneity
from audit.logs import MAX_SIDES, MIN_SIDES, LogError, parse_integer, read_log
from audit.recognizer import RecognizerReport
from audit.verdict import MAX_BIAS, MIN_BIAS, Audit, audit


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="fairness audit of a die's throw log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE", nargs="?")
    parser.add_argument(
        "--sides",
        type=_whole_number,
        metavar="K",
        help=f"the die's faces, {MIN_SIDES} to {MAX_SIDES} (with FILE only: with --die the "
        "registered type gives them, and --sides is refused)",
    )
    parser.add_argument("--die", metavar="NAME", help="a registered die, from the ledger")
    parser.add_argument(
        "--data-dir", type=Path, default=Path("data"), help="the ledger's folder (default ./data)"
    )
    parser.add_argument(
        "--bias",
        type=float,
        default=0.2,
        metavar="B",
        help="smallest bias you care about: one face B off its fair share, from "
        f"{MIN_BIAS} to {MAX_BIAS:g} (default 0.2)",
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


def _whole_number(text: str) -> int:
    """An argument in ASCII digits (int() would take "1_0" and full-width digits)."""
    value = parse_integer(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a whole number")
    return value


def _from_ledger(args: argparse.Namespace) -> tuple[Audit, RecognizerReport | None, str, dict]:
    from audit.ledger_audit import audit_die
    from server.ledger import Ledger
    from server.registry import DiceRegistry

    if not (args.data_dir / "ledger.sqlite3").exists():
        raise LogError(f"no ledger in {args.data_dir}; register dice with `dicebridge dice add`")
    with Ledger(args.data_dir) as ledger:
        done = audit_die(ledger, DiceRegistry(ledger), args.die, bias=args.bias)
    extra = {k: v for k, v in done.to_json().items() if k in ("die", "recognizer")}
    return done.result, done.recognizer, done.title, extra


def _audit(args: argparse.Namespace) -> tuple[Audit, RecognizerReport | None, str, dict]:
    if (args.file is None) == (args.die is None):
        raise LogError("give a throw log FILE (with --sides K) or a registered die (--die NAME)")
    if args.die is not None and args.sides is not None:
        raise LogError(
            "--sides is for a FILE: a registered die's type gives its sides (leave --sides "
            "out with --die)"
        )
    if args.die is None and args.sides is None:
        raise LogError("--sides K is needed with a FILE: how many faces has the die?")
    if args.sides is not None and not MIN_SIDES <= args.sides <= MAX_SIDES:
        shown = str(args.sides) if len(str(args.sides)) <= 24 else f"{str(args.sides)[:23]}…"
        raise LogError(
            f"--sides must be from {MIN_SIDES} to {MAX_SIDES} (a d{MIN_SIDES} to a "
            f"d{MAX_SIDES}: every real die), not {shown}"
        )
    if not MIN_BIAS <= args.bias <= MAX_BIAS:
        raise LogError(
            f"--bias must be from {MIN_BIAS} to {MAX_BIAS:g} (one face 5% to 100% off its fair "
            f"share), not {args.bias:g}"
        )
    if args.die is not None:
        return _from_ledger(args)
    return (
        audit(read_log(args.file, args.sides), bias=args.bias),
        None,
        f"Audit of {args.file.name}",
        {},
    )


def run(args: argparse.Namespace) -> int:
    from server.ledger import LedgerError
    from server.registry import RegistryError

    try:
        result, recognizer, title, extra = _audit(args)
        other = read_log(args.compare, result.log.sides) if args.compare else None
    except (LogError, ValueError, LedgerError, RegistryError) as err:
        print(f"dicebridge audit: {err}", file=sys.stderr)
        return 2
    if args.report is not None:
        from audit.report import render

        try:
            args.report.write_text(render(result, title, recognizer), encoding="utf-8")
        except OSError as err:
            print(f"dicebridge audit: cannot write {args.report}: {err.strerror}", file=sys.stderr)
            return 2
    data = {**result.to_json(), **extra}
    if other is not None:
        chi2, p = homogeneity(result.log.counts, other.counts)
        data["homogeneity"] = {"file": str(args.compare), "chi2": chi2, "p_value": p}
    if args.json:
        print(json.dumps(data))
        return 0
    if "die" in data:
        print(title)
    print(result.words())
    if recognizer is not None and (recognizer.camera_readings or recognizer.uncertain_excluded):
        print(_camera_words(recognizer))
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


def _camera_words(r: RecognizerReport) -> str:
    words = f"Camera: {r.camera_readings:,} readings, {r.uncertain_excluded:,} uncertain left out"
    if r.error_rate is not None and r.error_ci is not None:
        low, high = r.error_ci
        words += (
            f"; {r.misread} of {r.confirmed} confirmed were misread "
            f"({100 * r.error_rate:.1f}%, 95% interval {100 * low:.1f}–{100 * high:.1f}%)"
        )
    return words + "."
