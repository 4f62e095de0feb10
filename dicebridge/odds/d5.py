"""`dicebridge odds d5`: the d5 stop-die system's net result (or one roll)."""

from __future__ import annotations

import argparse
from fractions import Fraction

from dicebridge.odds import OddsInputError, OddsReport
from mechanics import d5, d5_tables
from mechanics.check_d5 import MAX_AT_LEAST
from mechanics.distribution import Distribution

HELP = "d5 stop-die: roll until a 1, count the rest; net = positive − negative"
SHOWN_TAIL = 0.01  # the table lists outcomes until this much mass is left beyond them


def add_arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--at-least", type=int, metavar="K", help="the result to reach or beat")
    target.add_argument(
        "--level-difference",
        type=int,
        metavar="D",
        help="the lower contestant meeting a level difference D (net ≥ D), "
        "beside the pragmatics shortcut (D dice, then a coin)",
    )
    parser.add_argument(
        "--single", action="store_true", help="one positive roll alone, not the net result"
    )
    parser.add_argument(
        "--dice",
        "--stop-die",
        dest="stop_die",
        choices=("d5", "d10", "d6"),
        default="d5",
        help="stop dice: d5 (stop on 1), d10 (stop on 1, 2), d6 (stop on 1: approximate)",
    )


def compute(args: argparse.Namespace) -> OddsReport:
    q = d5.continue_chance(args.stop_die)
    difference = args.level_difference
    if difference is not None and (difference < 0 or args.single):
        raise OddsInputError(
            "--level-difference is a net result counted from the lower contestant: "
            "give it as D ≥ 0, without --single"
        )
    k = args.at_least if difference is None else difference
    if abs(k) > MAX_AT_LEAST:  # a check's bound: beyond it the chance is 0 or 1 to 100 digits
        raise OddsInputError(
            f"--at-least and --level-difference must be within ±{MAX_AT_LEAST}, as for a check"
            f" (beyond it the chance is 0 or 1 to a hundred digits), not {k}"
        )
    roll: d5.StopCount | d5.NetResult = d5.StopCount(q) if args.single else d5.NetResult(q)
    p = roll.p_at_least(k)
    shown = _lumped(roll, max(roll.support_for(SHOWN_TAIL), abs(k) + 1))
    facts: list[tuple[str, object]] = [("continue chance per die", q)]
    ends = f"≥ {shown.high}" if args.single else f"≥ {shown.high} and ≤ {shown.low}"
    notes = [f"the table's end rows hold everything beyond them ({ends})"]
    if args.stop_die == "d6":
        rule = d5.StopCount() if args.single else d5.NetResult()
        exact_rule = rule.p_at_least(k)
        facts += [("rule's chance (d5 or d10)", exact_rule), ("d6 error", float(p - exact_rule))]
        notes.append("d6s stopping on 1 continue 5/6 of the time instead of 4/5: an approximation")
    if difference is not None:
        shortcut = d5_tables.pragmatics(difference)
        facts += [
            ("rule: exceeds the difference (net > D)", shortcut.exact_exceeds),
            ("pragmatics shortcut (D d10s, coin on a tie)", shortcut.shortcut),
            ("shortcut − rule's net ≥ D", float(shortcut.shortcut - shortcut.exact_meets)),
        ]
        notes.append(
            "the shortcut is the rule with a tie at the difference settled by a coin: "
            "9/10 of the chance to meet it"
        )
    elif not args.single and k > 0:
        facts.append(("pragmatics shortcut (coin on a tie)", d5_tables.pragmatics(k).shortcut))
    what = "one roll" if args.single else "net result"
    description = f"{what} ≥ {k} ({args.stop_die}: {_stops(args.stop_die)})"
    if difference is not None:
        description = f"lower contestant meets a level difference of {k}: net ≥ {k}"
        description += f" ({args.stop_die}: {_stops(args.stop_die)})"
    return OddsReport(
        system="d5",
        description=description,
        probability=float(p),
        exact=Fraction(p),
        distribution=shown,
        success_from=k,
        facts=facts,
        notes=notes,
    )


def _lumped(roll: d5.StopCount | d5.NetResult, top: int) -> Distribution:
    """Exact probabilities for outcomes inside ±top; each end row takes its whole tail."""
    low = 0 if isinstance(roll, d5.StopCount) else -top
    weights: dict[int, Fraction] = {x: roll.pmf(x) for x in range(low + 1, top)}
    weights[top] = roll.p_at_least(top)
    weights[low] = 1 - roll.p_at_least(low + 1)
    return Distribution.from_weights(weights)


def _stops(die: str) -> str:
    faces = sorted(d5.stop_faces(die))
    return "stop on " + " or ".join(str(f) for f in faces)
