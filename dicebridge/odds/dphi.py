"""`dicebridge odds dphi`: the chance of a σdφ + μ check."""

from __future__ import annotations

import argparse
import math

from dicebridge.odds import OddsInputError, OddsReport
from mechanics import dphi
from mechanics.check_dphi import MAX_HOPS, refuse_for_split

HELP = "dφ: one roll of σdφ + μ succeeds when positive (swing 8, hops, static, critical)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--might", type=float, required=True, metavar="M", help="the roll's might μ"
    )
    parser.add_argument(
        "--swing",
        type=float,
        default=dphi.BASE_SWING,
        metavar="S",
        help=f"the base swing σ before modifiers (default {dphi.BASE_SWING:g})",
    )
    parser.add_argument(
        "--hops", type=float, default=0.0, metavar="H", help="swing modifier in hops (20ℏ = ×2)"
    )
    parser.add_argument(
        "--static",
        action="store_true",
        help="against a static challenge (a trap, a wall): −10ℏ",
    )
    parser.add_argument(
        "--critical",
        type=float,
        default=0.0,
        metavar="C",
        help="critical boost: the chance stays within [C, 1−C] (0.05 = a d20's crits)",
    )
    repeatable = (
        ("--ally", "a collaborator's might, added; each character widens the swing (repeatable)"),
        ("--opponent", "an opponent's might, subtracted; widens the swing too (repeatable)"),
        ("--against", "compare the one roll with each of several mights (repeatable)"),
    )
    for flag, text in repeatable:
        parser.add_argument(flag, type=float, action="append", default=[], metavar="M", help=text)
    parser.add_argument(
        "--versus",
        type=float,
        metavar="M2",
        help="PC against PC, both rolling at −10ℏ: the chance that --might beats M2",
    )


def _signed(x: float) -> str:
    return f"- {abs(x):g}" if x < 0 else f"+ {x:g}"


def compute(args: argparse.Namespace) -> OddsReport:
    if not abs(args.hops) <= MAX_HOPS:  # a check's bound (NaN too): 2^(H/20) overflows
        raise OddsInputError(f"hops must be within ±{MAX_HOPS}, as for a check, not {args.hops}")
    for flag, mights in (
        ("--ally", args.ally),
        ("--opponent", args.opponent),
        ("--against", args.against),
    ):
        bad = [m for m in mights if not math.isfinite(m)]
        if bad:
            raise OddsInputError(f"{flag} takes finite mights, not {bad[0]}")
    try:
        if args.versus is not None:
            return _versus(args)
        result = dphi.check(
            [args.might, *args.ally],
            args.opponent,
            swing=args.swing,
            hops=args.hops,
            static=args.static,
            critical=args.critical,
        )
    except ValueError as err:
        raise OddsInputError(str(err)) from None
    roll = result.roll
    facts: list[tuple[str, object]] = [
        ("swing", roll.swing),
        ("might", roll.might),
        ("might / swing", roll.z),
    ]
    if roll.swing > 0:
        facts += [(f"{q:.0%} of rolls fall below", roll.quantile(q)) for q in (0.05, 0.5, 0.95)]
    # The roll stands for every character's (docs/mechanics/dphi.md): one against one
    # takes 0ℏ, one against a static challenge −10ℏ, and each more character more.
    characters = dphi.rolling_characters(1 + len(args.ally), len(args.opponent), args.static)
    if args.ally or args.opponent:
        facts.append(("characters rolling", characters))
    notes = []
    if args.static and characters == 1:
        notes.append("static challenge: −10ℏ applied, since objects do not roll")
    elif characters != 2:
        notes.append(
            f"{characters} characters roll{' against a static challenge' * args.static}, each"
            f" at −10ℏ, merged into one roll: {dphi.characters_hops(characters):+.4g}ℏ"
        )
    if args.critical:
        notes.append(f"critical boost {args.critical:g}: chance clamped to [C, 1−C]")
    if args.against:
        each, all_of_them = dphi.against_each(roll, args.against)
        c = args.critical  # the critical strips decide whatever the might beaten (as --beat)
        facts += [
            (f"P(beats {m:g})", dphi.clamp_chance(p, c))
            for m, p in zip(args.against, each, strict=True)
        ]
        facts.append(("P(beats all)", dphi.clamp_chance(all_of_them, c)))
    description = f"{roll.swing:.4g}dφ {_signed(roll.might)} > 0"
    return OddsReport(
        system="dphi",
        description=description,
        probability=result.p_success,
        exact=None,
        facts=facts,
        notes=notes,
    )


def _versus(args: argparse.Namespace) -> OddsReport:
    try:  # what the check (`resolve dphi --versus`) refuses, refused here in its words
        refuse_for_split({"static": args.static, "critical": args.critical})
    except ValueError as err:
        raise OddsInputError(f"--{err}") from None
    if args.ally or args.opponent or args.against:
        raise OddsInputError("--versus (PC against PC) cannot be combined with other opponents")
    contest = dphi.pc_vs_pc(args.might, args.versus, swing=args.swing, hops=args.hops)
    s = contest.first.swing
    notes = ["each PC rolls at −10ℏ, so the chance is the same as one unsplit roll"]
    if s == 0:
        notes = ["a zero swing: no die is rolled, the higher might wins, equal mights tie"]
    return OddsReport(
        system="dphi",
        description=(
            f"{s:.4g}dφ {_signed(args.might)} against {s:.4g}dφ {_signed(args.versus)}:"
            " higher roll wins"
        ),
        probability=contest.p_first_wins,
        exact=None,
        facts=(
            ("split swing", s),
            ("P(second wins)", contest.p_second_wins),
            ("P(tie)", contest.p_tie),
        ),
        notes=notes,
    )
