"""`dicebridge audit FILE --sides K [--json]`: is this die fair?

FILE holds one face per line (in throw order), or a CSV with `face,count`; its
first line may name the columns (`face,count`, `die,face,count`: --die NAME picks
that die's rows). --type d10 (or dF, d4, d20, …) reads the values as that die
writes them: a d10's 0–9 or 1–10 (0 and 10 are one face), a Fudge die's -1, 0, +1.
Or audit a registered die (`dicebridge dice add`) from every reading of it in
the ledger: `dicebridge audit --die NAME [--data-dir DIR]`.

A FILE is judged once, so its verdict follows the fixed-sample test at α = 0.05
(Monte Carlo when expected counts are below 5). A registered die's audit is
live: computed afresh whenever anyone looks, so its verdict follows the
anytime-valid e-value (biased at E ≥ 20), and the χ² is shown for information.

--sides K (2 to 100: d2 to d100) or --type goes with a FILE only; for a
registered die (--die without FILE) its type gives its faces, and --sides is
refused. --bias B is from 0.05 to 1. A log with copied stretches (a log
imported twice, say) says so in its verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from audit.fairness import homogeneity
from audit.logs import (
    MAX_SIDES,
    MIN_SIDES,
    Faces,
    LogError,
    die_faces,
    parse_integer,
    plain_faces,
    read_log,
)
from audit.recognizer import RecognizerReport
from audit.verdict import MAX_BIAS, MIN_BIAS, Audit, audit
from server.config import default_data_dir


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
        help=f"the die's faces, {MIN_SIDES} to {MAX_SIDES}, with a FILE (a registered die, "
        "--die without FILE, has its type: there --sides is refused)",
    )
    parser.add_argument(
        "--type",
        dest="die_type",
        metavar="TYPE",
        help="with FILE: the die, as its values are written: d4, d6, d10 (0–9 or 1–10), d20, "
        "dF (-1, 0, +1), … (instead of --sides)",
    )
    parser.add_argument(
        "--die",
        metavar="NAME",
        help="a registered die, from the ledger; with FILE, the die whose rows to read from "
        "a file with a die column (die,face,count)",
    )
    data_dir = default_data_dir(os.environ)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=data_dir,
        help=f"the ledger's folder (default {data_dir}: $DICEBRIDGE_DATA_DIR, else ./data)",
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
    parser.add_argument(
        "--compare-die",
        metavar="NAME",
        help="the die whose rows of FILE2 to read, when FILE2 has a die column",
    )
    parser.set_defaults(handler=run, reads_data_dir_env=True)  # checked in cli.main


def _whole_number(text: str) -> int:
    """An argument in ASCII digits (int() would take "1_0" and full-width digits)."""
    value = parse_integer(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a whole number")
    return value


Audited = tuple[Audit, RecognizerReport | None, str, dict[str, Any], Faces]


def _from_ledger(args: argparse.Namespace) -> Audited:
    from audit.ledger_audit import audit_die
    from server.ledger import Ledger
    from server.registry import DiceRegistry

    if not (args.data_dir / "ledger.sqlite3").exists():
        raise LogError(f"no ledger in {args.data_dir}; register dice with `dicebridge dice add`")
    with Ledger(args.data_dir) as ledger:
        done = audit_die(ledger, DiceRegistry(ledger), args.die, bias=args.bias)
    extra = {k: v for k, v in done.to_json().items() if k in ("die", "recognizer")}
    return done.result, done.recognizer, done.title, extra, die_faces(done.die.type)


def _audit(args: argparse.Namespace) -> Audited:
    if args.file is None and args.die is None:
        raise LogError("give a throw log FILE (with --sides K) or a registered die (--die NAME)")
    if args.file is None and (args.sides is not None or args.die_type is not None):
        raise LogError(
            f"{'--sides' if args.sides is not None else '--type'} is for a FILE: a registered "
            "die's type gives its sides (leave --sides and --type out with --die)"
        )
    if args.file is not None and args.sides is not None and args.die_type is not None:
        raise LogError("give --sides K or --type TYPE, not both: a die type gives its sides")
    if args.file is not None and args.sides is None and args.die_type is None:
        raise LogError(
            "--sides K is needed with a FILE (or --type TYPE): how many faces has the die?"
        )
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
    if args.file is None:
        return _from_ledger(args)
    faces = plain_faces(args.sides) if args.sides is not None else die_faces(args.die_type)
    title = f"Audit of {args.file.name}" + (f" ({args.die})" if args.die else "")
    log = read_log(args.file, faces, args.die)
    return audit(log, bias=args.bias), None, title, {}, faces


def _compare(args: argparse.Namespace, result: Audit, faces: Faces) -> dict[str, Any]:
    """The homogeneity test against FILE2, read with the same faces; LogError when it
    holds no throws (there is nothing to compare)."""
    other = read_log(args.compare, faces, args.compare_die, choose="--compare-die")
    if other.n == 0:
        raise LogError(f"{args.compare} holds no throws to compare with")
    chi2, p = homogeneity(result.log.counts, other.counts)
    return {"file": str(args.compare), "n": other.n, "chi2": chi2, "p_value": p}


def run(args: argparse.Namespace) -> int:
    from server.ledger import LedgerError
    from server.registry import RegistryError

    try:
        if args.compare_die is not None and args.compare is None:
            raise LogError("--compare-die names a die of FILE2: give --compare FILE2 too")
        result, recognizer, title, extra, faces = _audit(args)
        compared = _compare(args, result, faces) if args.compare else None
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
    if compared is not None:
        data["homogeneity"] = compared
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
    live = result.live
    print(f"  χ² = {data['chi2']:.2f}, p = {data['p_value']:.3g} ({test}); G-test p = "
          f"{data['g_p_value']:.3g}" + (" (for information: a live audit goes by the e-value)"
                                        if live else ""))  # fmt: skip
    if live and data.get("e_value_max_at") is not None:
        # a live audit goes by the highest E so far (Ville's inequality): once 20, it stands
        crossed = data["e_value_crossed_at"]
        print(f"  e-value: highest 10^{data['log10_e_value_max']:.2f} (at throw "
              f"{data['e_value_max_at']:,}" + (f"; first 20 or more at throw {crossed:,}"
                                               if crossed is not None else "")
              + f"), now 10^{data['log10_e_value']:.2f} (anytime-valid; the highest gives "
              "this verdict: 20 or more rejects)")  # fmt: skip
    else:
        print(f"  e-value = 10^{data['log10_e_value']:.2f} (anytime-valid; 20 or more rejects"
              + ("; gives this verdict)" if live else ")"))  # fmt: skip
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
          f"{data['fixed_sample_throws']:,} with the χ² test, "
          f"{data['sequential_power_throws']:,} with the e-value (which stops after about "
          f"{data['sequential_throws']:,} on average)")  # fmt: skip
    print()
    print(f"  {'face':>4}  {'count':>8}  {'share':>7}  {result.interval_words}")
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
