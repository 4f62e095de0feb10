"""`dicebridge resolve SYSTEM [options] --dice d10:3 d10:7 ...`: feed thrown dice to a check.

Prints what the check needs next, or its resolution.  With ``--json`` one
object: ``status`` "need" (with ``need``: a list of {die, count}) or
"resolved" (with ``success``, ``value``, ``probability`` and the rest of the
resolution).  A refused reading exits with status 2 and says why.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from mechanics import d6pool
from mechanics.check import DiceCheck
from mechanics.check_factory import create_check
from mechanics.dphi import BASE_SWING
from mechanics.reading import Reading, ReadingRefused

# Dice a check may be thrown with; the first reading picks one (else the default).
PHYSICAL_DICE = {
    "dphi": ("d10", "d20", "d6", "d100"),
    "peupfudge": ("dF", "d6"),
    "d5": ("d5", "d10", "d6", "d100"),
}


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resolve",
        help="resolve a check from thrown dice (or see what it needs next)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    systems = parser.add_subparsers(dest="system", metavar="SYSTEM", required=True)
    for name, (add, _) in BUILDERS.items():
        sub = systems.add_parser(name, help=f"a {name} check from physical dice")
        add(sub)
        sub.add_argument(
            "--dice",
            nargs="+",
            action="extend",
            default=[],
            metavar="DIE:FACE",
            help="the readings in order, e.g. d10:3 d10:7, dF:+ dF:0, d6:5"
            + (" (a bare number sets how many dF to throw)" if name == "peupfudge" else ""),
        )
        sub.add_argument(
            "--min-confidence",
            type=float,
            default=0.5,
            metavar="C",
            help="refuse readings less certain than this (default 0.5)",
        )
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.set_defaults(handler=run)


# --- each system's options and how they make a check ------------------------------------------
def _dphi_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--might", type=float, required=True, metavar="M")
    p.add_argument("--swing", type=float, default=BASE_SWING, metavar="S")
    p.add_argument("--hops", type=float, default=0.0, metavar="H")
    p.add_argument("--static", action="store_true", help="static challenge: −10ℏ")
    p.add_argument("--critical", type=float, default=0.0, metavar="C")
    p.add_argument("--beat", type=float, default=0.0, metavar="M", help="succeed above M, not 0")
    p.add_argument(
        "--versus", type=float, metavar="M2", help="PC against PC, both rolling their own dice"
    )
    p.add_argument("--mode", choices=("adaptive", "value", "table"), default="adaptive")
    p.add_argument(
        "--precision", type=float, default=0.01, help="value mode: dφ units (default 0.01)"
    )


def _dphi(args: argparse.Namespace, die: str | None) -> DiceCheck:
    if die is None and args.versus is None:
        die = "d100" if args.mode == "table" else "d10"
    # With --versus (PC against PC) every option goes to the check too, which refuses
    # --static, --critical, --beat, --mode and --precision unless they change nothing
    # (they were dropped without a word), as `odds dphi --versus` refuses them.
    return create_check(
        "dphi",
        might=args.might,
        swing=args.swing,
        hops=args.hops,
        die=die,
        versus=args.versus,
        static=args.static,
        critical=args.critical,
        beat=args.beat,
        mode=args.mode,
        precision=args.precision,
        **_confidence(args),
    )


def _confidence(args: argparse.Namespace) -> dict[str, Any]:
    return {"min_confidence": args.min_confidence}


def _peupfudge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", type=int, metavar="L")
    p.add_argument("--bonus", type=int, default=0, metavar="A")
    p.add_argument("--difficulty", type=int, metavar="D")
    p.add_argument(
        "--opposed", type=int, nargs="+", metavar="L+A", help="an opposed action (3dF each)"
    )


def _peupfudge(args: argparse.Namespace, die: str | None) -> DiceCheck:
    if args.opposed:
        return create_check(
            "peupfudge", opposed=args.opposed, dice=args.count, die=die, **_confidence(args)
        )
    if args.level is None or args.difficulty is None:
        raise ValueError("--level and --difficulty are required (or use --opposed)")
    return create_check(
        "peupfudge",
        level=args.level,
        bonus=args.bonus,
        difficulty=args.difficulty,
        dice=args.count,
        die=die,
        **_confidence(args),
    )


def _d6pool_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", type=int, required=True, metavar="N")
    p.add_argument("--difficulty", type=int, required=True, metavar="D")
    p.add_argument("--fate", choices=[f.name.lower() for f in d6pool.Fate], default="neutral")
    p.add_argument("--labor", type=int, default=0, metavar="K")
    p.add_argument("--leverage", type=int, default=0, metavar="V")
    p.add_argument("--supernatural", action="store_true")
    p.add_argument("--leverage-before-cap", action="store_true")


def _d6pool(args: argparse.Namespace, die: str | None) -> DiceCheck:
    names = ("level", "difficulty", "fate", "labor", "leverage", "supernatural")
    return create_check(
        "d6pool",
        **{n: getattr(args, n) for n in names},
        leverage_before_cap=args.leverage_before_cap,
        **_confidence(args),
    )


def _decibel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pool", type=int, required=True, metavar="N")
    p.add_argument("--discard", type=int, default=0, metavar="X")
    side = p.add_mutually_exclusive_group(required=True)
    side.add_argument("--target", type=int, metavar="K")
    side.add_argument("--versus", type=int, metavar="M")
    p.add_argument("--versus-discard", type=int, default=0, metavar="Y")


def _decibel(args: argparse.Namespace, die: str | None) -> DiceCheck:
    names = ("pool", "discard", "target", "versus", "versus_discard")
    return create_check("decibel", **{n: getattr(args, n) for n in names}, **_confidence(args))


def _d5_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--at-least", type=int, required=True, metavar="K")
    p.add_argument("--single", action="store_true", help="one positive roll, not the net")
    p.add_argument("--decimals", type=int, default=0, metavar="N", help="N extra d10s as decimals")


def _d5(args: argparse.Namespace, die: str | None) -> DiceCheck:
    return create_check(
        "d5",
        at_least=args.at_least,
        single=args.single,
        die=die,
        decimals=args.decimals,
        **_confidence(args),
    )


Builder = Callable[[argparse.Namespace, str | None], DiceCheck]
BUILDERS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Builder]] = {
    "dphi": (_dphi_args, _dphi),
    "peupfudge": (_peupfudge_args, _peupfudge),
    "d6pool": (_d6pool_args, _d6pool),
    "decibel": (_decibel_args, _decibel),
    "d5": (_d5_args, _d5),
}


# --- running ------------------------------------------------------------------------------------
def parse_dice(tokens: list[str]) -> tuple[list[Reading], int | None]:
    """Readings from DIE:FACE tokens; a bare number (Peupfudge's dice count) is returned apart."""
    readings: list[Reading] = []
    count: int | None = None
    for token in tokens:
        if ":" not in token and token.isdigit():
            count = int(token)
            continue
        readings.append(Reading.parse(token, source="manual"))
    return readings, count


def run(args: argparse.Namespace) -> int:
    try:
        readings, args.count = parse_dice(args.dice)
        first = readings[0].die if readings else None
        die = first if first in PHYSICAL_DICE.get(args.system, ()) else None
        check = BUILDERS[args.system][1](args, die)
        check = check.accept(*readings)
        state = check.to_dict()  # a check whose parameters have no roll says so here
    except (ReadingRefused, ValueError) as err:
        if args.json:
            print(json.dumps({"status": "refused", "error": str(err)}))
        print(f"dicebridge resolve {args.system}: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(state))
    else:
        print(state["prompt"] if state["status"] == "need" else state["explanation"])
    return 0
