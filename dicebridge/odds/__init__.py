"""`dicebridge odds SYSTEM ...`: one module per dice system.

Each system module (``dicebridge/odds/<system>.py``) exposes:

* ``HELP``: one line for ``dicebridge odds --help``;
* ``add_arguments(parser)``: its options (argparse);
* ``compute(args) -> OddsReport``: the exact answer, from ``mechanics``.

This package only formats; the mathematics lives in ``mechanics``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from mechanics.distribution import Distribution

SYSTEMS = ("dphi", "peupfudge", "d6pool", "decibel", "d5")


class OddsInputError(ValueError):
    """A parameter combination that has no answer; the message says why."""


@dataclass(frozen=True)
class OddsReport:
    """What `dicebridge odds` prints, as a plain value.

    ``probability`` is the success chance as a float; ``exact`` is the same
    chance as a Fraction when it is rational (None for dφ, whose chances are
    values of Φ).  ``distribution`` is the outcome table when there is one,
    with ``success_from`` marking the first succeeding outcome for the chart.
    ``facts`` are extra labelled lines (and JSON fields) such as P(tie).
    """

    system: str
    description: str
    probability: float
    exact: Fraction | None
    distribution: Distribution | None = None
    success_from: int | None = None
    facts: Sequence[tuple[str, Any]] = field(default_factory=tuple)
    notes: Sequence[str] = field(default_factory=tuple)


def load(system: str) -> ModuleType:
    return importlib.import_module(f"dicebridge.odds.{system}")


def add_subcommand(subparsers: Any) -> None:
    odds = subparsers.add_parser(
        "odds",
        help="exact odds of a check in one of the five dice systems",
        description="Print the exact distribution and success chance of a check.",
    )
    systems = odds.add_subparsers(dest="system", metavar="SYSTEM", required=True)
    for name in SYSTEMS:
        module = load(name)
        parser = systems.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(parser)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    module = load(args.system)
    try:
        report: OddsReport = module.compute(args)
    except OddsInputError as err:
        raise SystemExit(f"dicebridge odds {args.system}: {err}") from None
    print(json.dumps(to_json(report)) if args.json else to_text(report))
    return 0


def fraction_text(value: Fraction | None) -> str | None:
    """The text "p/q"; None when there is no exact value, or when it is too long to print.

    Python refuses to write an integer of more than ``sys.get_int_max_str_digits()``
    digits (4,300 by default), a guard against slow conversions that this module
    leaves in place for the whole process; such a fraction is left out, said by
    :func:`too_long`, never a crash.
    """
    if value is None:
        return None
    try:
        return f"{value.numerator}/{value.denominator}"
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return None


def too_long(value: Fraction) -> str:
    """Why a fraction's exact text is left out: about how many digits it has."""
    bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    return (
        f"about {int(bits * math.log10(2)) + 1} digits, more than the "
        f"{sys.get_int_max_str_digits()} Python writes out"
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return {"probability": float(value), "exact": fraction_text(value)}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def to_json(report: OddsReport) -> dict[str, Any]:
    out: dict[str, Any] = {
        "system": report.system,
        "description": report.description,
        "probability": report.probability,
        "exact": fraction_text(report.exact),
    }
    for key, value in report.facts:
        out[_key(key)] = _jsonable(value)
    if report.distribution is not None:
        d = report.distribution
        total = d.total
        tails = d.tail_weights()
        out["distribution"] = [
            {
                "outcome": x,
                "p": w / total,
                "p_at_least": tails[x - d.low] / total,
                "exact": fraction_text(Fraction(w, total)),
            }
            for x, w in d.items()
        ]
    notes = [*report.notes, *_left_out(report)]
    if notes:
        out["notes"] = notes
    return out


def _left_out(report: OddsReport) -> list[str]:
    """A note for each exact value too long to write (its text is then null)."""
    values = [("exact", report.exact)]
    values += [(label, v) for label, v in report.facts if isinstance(v, Fraction)]
    if report.distribution is not None:
        d = report.distribution
        values += [(f"P(= {x})", Fraction(w, d.total)) for x, w in d.items()]
    long = [(label, v) for label, v in values if v is not None and fraction_text(v) is None]
    if not long:
        return []
    (label, value), more = long[0], len(long) - 1
    others = f" (and {more} more)" if more else ""
    return [f"{label}{others}: the exact fraction has {too_long(value)}, so it is null"]


def _key(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label.lower()).strip("_")


def _percent(p: float) -> str:
    if p == 0:
        return "0"
    if p < 0.0001:
        return f"{p:.2e}"
    return f"{100 * p:.2f}%"


def to_text(report: OddsReport, bar_width: int = 40) -> str:
    lines = [report.description, ""]
    lines.append(f"  P(success) = {_percent(report.probability)}")
    if report.exact is not None:
        lines.append(f"  exactly      {fraction_text(report.exact) or '(too long to write)'}")
    for label, value in report.facts:
        if isinstance(value, Fraction):
            shown = f"{_percent(float(value))}  ({fraction_text(value) or 'too long to write'})"
        elif isinstance(value, float):
            shown = f"{value:.6g}"
        else:
            shown = str(value)
        lines.append(f"  {label} = {shown}")
    if report.distribution is not None:
        d = report.distribution
        total = d.total
        tails = d.tail_weights()
        peak = max(d.weights)
        lines += ["", f"  {'outcome':>8}  {'P(=)':>9}  {'P(>=)':>9}"]
        for x, w in d.items():
            mark = "#" if report.success_from is not None and x >= report.success_from else "."
            bar = mark * max(1 if w else 0, round(bar_width * w / peak))
            at_least = _percent(tails[x - d.low] / total)
            lines.append(f"  {x:>8}  {_percent(w / total):>9}  {at_least:>9}  {bar}")
        if report.success_from is not None:
            lines.append("  (# marks the outcomes that succeed)")
    for note in report.notes:
        lines.append(f"  note: {note}")
    if report.exact is not None and fraction_text(report.exact) is None:
        lines.append(f"  note: the exact fraction has {too_long(report.exact)}")
    return "\n".join(lines)
