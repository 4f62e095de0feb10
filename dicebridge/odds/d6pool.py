"""`dicebridge odds d6pool`: an exploding d6 pool against a difficulty, or a contest."""

from __future__ import annotations

import argparse

from dicebridge.odds import OddsInputError, OddsReport
from mechanics import d6pool
from mechanics.check_pools import D6PoolCheck

HELP = "exploding d6 pool: 3–6 win, 5–6 roll again; score capped at 9 (12 supernatural)"
FATES = [f.name.lower() for f in d6pool.Fate]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", type=int, required=True, metavar="N", help="skill level")
    parser.add_argument("--difficulty", type=int, metavar="D", help="difficulty (1–10)")
    parser.add_argument("--fate", choices=FATES, default="neutral", help="default neutral")
    parser.add_argument("--labor", type=int, default=0, metavar="K", help="dice added or removed")
    parser.add_argument("--leverage", type=int, default=0, metavar="V", help="added to the score")
    parser.add_argument("--supernatural", action="store_true", help="score cap 12 instead of 9")
    parser.add_argument(
        "--leverage-before-cap",
        action="store_true",
        help="cap score + leverage at the cap (default: leverage is added after the cap)",
    )
    parser.add_argument(
        "--versus", type=int, metavar="LEVEL", help="a contest against a neutral roll of LEVEL"
    )
    parser.add_argument(
        "--versus-leverage",
        type=int,
        metavar="V",
        help="with --versus: the opponent's leverage (default 0)",
    )
    parser.add_argument(
        "--reroll-ties",
        action="store_true",
        help="with --versus: where a tie is impossible, ties are rerolled",
    )


def compute(args: argparse.Namespace) -> OddsReport:
    if args.versus is None:
        contest_only = [
            flag
            for flag, given in (
                ("--versus-leverage", args.versus_leverage is not None),
                ("--reroll-ties", args.reroll_ties),
            )
            if given
        ]
        if contest_only:
            verb = "go" if len(contest_only) > 1 else "goes"
            raise OddsInputError(
                f"{' and '.join(contest_only)} {verb} with --versus LEVEL (a contest)"
            )
    elif args.difficulty is not None:
        raise OddsInputError("a contest (--versus) has no difficulty: the higher total wins")
    try:
        roller = d6pool.Roller(
            level=args.level,
            fate=d6pool.Fate.named(args.fate),
            labor=args.labor,
            leverage=args.leverage,
            supernatural=args.supernatural,
            leverage_before_cap=args.leverage_before_cap,
        )
        dice = roller.dice
        D6PoolCheck(roller=roller, difficulty=0)  # a check's bounds: at most MAX_DICE dice
        if args.versus is not None:
            return _contest(args, roller)
        if args.difficulty is None:
            raise OddsInputError("--difficulty is required (or use --versus LEVEL)")
        total = roller.total()
    except ValueError as err:
        raise OddsInputError(str(err)) from None
    p = total.p_at_least(args.difficulty)
    lev = f" + leverage {args.leverage}" if args.leverage else ""
    return OddsReport(
        system="d6pool",
        description=(
            f"{dice}d6 pool ({args.fate}{', supernatural' if args.supernatural else ''}){lev}"
            f" vs difficulty {args.difficulty} ({d6pool.difficulty_name(args.difficulty)})"
        ),
        probability=float(p),
        exact=p,
        distribution=total,
        success_from=args.difficulty,
        facts=(("dice", dice), ("score cap", roller.cap), ("mean total", float(total.mean()))),
    )


def _contest(args: argparse.Namespace, roller: d6pool.Roller) -> OddsReport:
    opponent = d6pool.Roller(level=args.versus, leverage=args.versus_leverage or 0)
    try:
        D6PoolCheck(roller=opponent, difficulty=0)
    except ValueError as err:
        raise OddsInputError(f"--versus: {err}") from None
    odds = d6pool.contest([roller], [opponent])
    facts: list[tuple[str, object]] = [("P(tie)", odds.tie), ("P(opponent wins)", odds.second)]
    p = odds.first
    notes = []
    if args.reroll_ties:
        p, other = odds.rerolling_ties()
        facts = [("P(opponent wins)", other)]
        notes.append("ties are rerolled until someone wins")
    return OddsReport(
        system="d6pool",
        description=f"contest: level {args.level} ({args.fate}) against level {args.versus}",
        probability=float(p),
        exact=p,
        distribution=roller.total(),
        facts=facts,
        notes=notes,
    )
