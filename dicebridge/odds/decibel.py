"""`dicebridge odds decibel`: (N−X)dB checks against a target or another check."""

from __future__ import annotations

import argparse

from dicebridge.odds import OddsInputError, OddsReport
from mechanics.decibel import (
    Check,
    ModifierPolicy,
    dynamic,
    dynamic_degree_distribution,
    outcome_distribution,
    pool_for,
    static_degree_distribution,
)
from mechanics.decibel_joint import compound_distribution

HELP = "Decibel: (N−X)dB d20 pools against a target number or an opposing pool"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pool", type=int, required=True, metavar="N", help="d20s in the pool")
    parser.add_argument(
        "--discard", type=int, default=0, metavar="X", help="highest dice discarded (default 0)"
    )
    against = parser.add_mutually_exclusive_group(required=True)
    against.add_argument(
        "--target", type=int, metavar="K", help="static roll: succeed when outcome >= K"
    )
    against.add_argument(
        "--versus", type=int, metavar="M", help="dynamic roll against an M-dice pool"
    )
    parser.add_argument(
        "--versus-discard",
        type=int,
        metavar="Y",
        help="with --versus: dice the opposing pool discards (default 0)",
    )
    parser.add_argument(
        "--positive", type=int, default=0, metavar="P", help="positive modifiers (each adds a die)"
    )
    parser.add_argument(
        "--negative",
        type=int,
        default=0,
        metavar="Q",
        help="negative modifiers (each adds a die and a discard)",
    )
    parser.add_argument(
        "--policy",
        choices=("stack", "cancel"),
        default="stack",
        help="opposing modifiers: stack (all apply, default) or cancel one for one first",
    )
    parser.add_argument(
        "--second-target",
        type=int,
        metavar="K2",
        help="with --target: compound check, the second (simple) check needs K2",
    )


def _check(args: argparse.Namespace) -> Check:
    policy: ModifierPolicy = args.policy
    try:
        pool, discard = pool_for(
            args.pool, args.positive, args.negative, policy, base_discard=args.discard
        )
        return Check(pool, discard)
    except ValueError as err:
        raise OddsInputError(str(err)) from None


def compute(args: argparse.Namespace) -> OddsReport:
    if args.versus is None and args.versus_discard is not None:
        raise OddsInputError("--versus-discard goes with --versus (a dynamic roll)")
    check = _check(args)
    notes: list[str] = []
    if args.pool < 3:
        notes.append("the seed asks for pools of three or more dice")
    if args.positive or args.negative:
        notes.append(
            f"{args.positive} positive and {args.negative} negative modifiers "
            f"({args.policy}) make the check {check.label}"
        )
    if args.versus is not None:
        return _dynamic(args, check, notes)
    return _static(args, check, notes)


def _static(args: argparse.Namespace, check: Check, notes: list[str]) -> OddsReport:
    target: int = args.target
    outcomes = outcome_distribution(check.pool, check.discard)
    success = outcomes.p_at_least(target)
    facts: list[tuple[str, object]] = [
        ("check", check.label),
        ("mean outcome", float(outcomes.mean())),
        (
            "mean degree of success",
            float(static_degree_distribution(check.pool, check.discard, target).mean()),
        ),
    ]
    if args.second_target is not None:
        try:
            joint = compound_distribution(check.pool, check.discard)
        except ValueError as err:
            raise OddsInputError(str(err)) from None
        second: int = args.second_target
        facts += [
            ("P(second succeeds)", joint.second().p_at_least(second)),
            ("P(both succeed)", joint.p_where(lambda x, y: x >= target and y >= second)),
        ]
        if check.kept < 5:
            notes.append("the seed allows compound checks when five or more dice are kept")
    return OddsReport(
        system="decibel",
        description=f"{check.label} >= {target}",
        probability=float(success),
        exact=success,
        distribution=outcomes,
        success_from=target,
        facts=tuple(facts),
        notes=tuple(notes),
    )


def _dynamic(args: argparse.Namespace, check: Check, notes: list[str]) -> OddsReport:
    if args.second_target is not None:
        raise OddsInputError("--second-target goes with --target (a compound static check)")
    try:
        other = Check(args.versus, args.versus_discard or 0)
    except ValueError as err:
        raise OddsInputError(f"--versus: {err}") from None
    win, tie, lose = dynamic(check, other)
    degree = dynamic_degree_distribution(check, other)
    return OddsReport(
        system="decibel",
        description=f"{check.label} beats {other.label}",
        probability=float(win),
        exact=win,
        distribution=outcome_distribution(check.pool, check.discard),
        success_from=None,
        facts=(
            ("check", check.label),
            ("versus", other.label),
            ("P(tie)", tie),
            ("P(lose)", lose),
            ("mean degree of success", float(degree.mean())),
        ),
        notes=tuple(notes),
    )
