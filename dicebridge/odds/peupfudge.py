"""`dicebridge odds peupfudge`: L + A + NdF ≥ D, opposed actions, XP."""

from __future__ import annotations

import argparse

from dicebridge.odds import OddsInputError, OddsReport
from mechanics import peupfudge
from mechanics.check_pools import PeupfudgeCheck, PeupfudgeOpposedCheck

HELP = "Peupfudge: L + A + R ≥ D with R = NdF (4dF; opposed actions 3dF)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dice", type=int, metavar="N", help="Fudge dice (default 4; 3 opposed)")
    parser.add_argument("--level", type=int, metavar="L", help="ability level (possibly modified)")
    parser.add_argument("--bonus", type=int, default=0, metavar="A", help="character factors")
    parser.add_argument("--difficulty", type=int, metavar="D", help="difficulty level")
    parser.add_argument(
        "--opposed",
        type=int,
        nargs="+",
        metavar="L+A",
        help="an opposed action: each participant's L + A (at least two)",
    )
    parser.add_argument(
        "--xp", type=int, metavar="X", help="also show the level and progress that X XP buys"
    )


def compute(args: argparse.Namespace) -> OddsReport:
    if args.dice is not None and args.dice < 0:
        raise OddsInputError(f"--dice must be 0 or more, not {args.dice}")
    if args.xp is not None and args.xp < 0:
        raise OddsInputError(f"--xp must be 0 or more, not {args.xp}")
    facts: list[tuple[str, object]] = []
    if args.xp is not None:
        progress = peupfudge.from_xp(args.xp)
        facts.append((f"{args.xp} XP buys level", str(progress)))
    if args.opposed:
        return _opposed(args, facts)
    if args.level is None or args.difficulty is None:
        raise OddsInputError("--level and --difficulty are required (or use --opposed)")
    dice = peupfudge.CHECK_DICE if args.dice is None else args.dice
    try:  # the check's own bounds (a check throws 0 to MAX_DICE dice)
        PeupfudgeCheck(level=args.level, difficulty=args.difficulty, bonus=args.bonus, dice=dice)
    except ValueError as err:
        raise OddsInputError(str(err)) from None
    action = peupfudge.Action(
        level=args.level, difficulty=args.difficulty, bonus=args.bonus, dice=dice
    )
    p = action.p_success()
    facts = [("roll needed", f"R ≥ {action.needed}"), *facts]
    return OddsReport(
        system="peupfudge",
        description=(f"{action.dice}dF + {action.level} + {action.bonus} ≥ {action.difficulty}"),
        probability=float(p),
        exact=p,
        distribution=action.total(),
        success_from=action.difficulty,
        facts=facts,
    )


def _opposed(args: argparse.Namespace, facts: list[tuple[str, object]]) -> OddsReport:
    if len(args.opposed) < 2:
        raise OddsInputError("--opposed needs the L + A of at least two participants")
    dice = peupfudge.OPPOSED_DICE if args.dice is None else args.dice
    try:  # the check's bounds: at most MAX_DICE dice in all, and at most MAX_DICE
        # participants should they throw no dice (the check and `odds` refuse the same)
        PeupfudgeOpposedCheck(scores=tuple(args.opposed), dice=dice)
    except ValueError as err:
        raise OddsInputError(str(err)) from None
    people = [
        peupfudge.Participant(f"#{i}", score, dice) for i, score in enumerate(args.opposed, 1)
    ]
    result = peupfudge.opposed(people)
    facts += [
        (f"P({name} with {score} wins)", chance)
        for name, score, chance in zip(result.names, args.opposed, result.wins, strict=True)
    ]
    facts.append(("P(tie)", result.tie))
    first = result.wins[0]
    return OddsReport(
        system="peupfudge",
        description=(
            f"opposed action on {dice}dF: "
            + " vs ".join(str(s) for s in args.opposed)
            + " (success: #1 strictly highest)"
        ),
        probability=float(first),
        exact=first,
        distribution=people[0].total(),
        facts=facts,
    )
