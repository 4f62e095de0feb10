"""`dicebridge demo`: a tour of the exact odds (`make run` starts `serve --demo`).

A tour of the five systems through the same `odds` commands a user types,
using the worked examples of the seed documents.
"""

from __future__ import annotations

import argparse
from typing import Any

EXAMPLES: tuple[tuple[str, list[str]], ...] = (
    ("dφ: Jarvil's rapier, 8dφ + 0.5 (the seed says 52.5%)", ["dphi", "--might", "0.5"]),
    (
        "dφ: Xihaia against the dragon with Chaos, 8dφ - 13 at +16ℏ (17.5%)",
        ["dphi", "--might", "-13", "--hops", "16"],
    ),
    (
        "Peupfudge: Adam's arrow, L=2 against D=4 on 4dF (about 1/5)",
        ["peupfudge", "--dice", "4", "--level", "2", "--bonus", "0", "--difficulty", "4"],
    ),
    (
        "d6 pool: level 5 against a challenging (6) difficulty",
        ["d6pool", "--level", "5", "--difficulty", "6"],
    ),
    ("Decibel: 5dB against a target of 13", ["decibel", "--pool", "5", "--target", "13"]),
    ("d5: a net result of at least +3", ["d5", "--at-least", "3"]),
)


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="a tour of the exact odds of every system")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dicebridge.cli import main

    print("dicebridge demo: exact odds for the seed documents' examples.")
    print("`dicebridge odds --help` lists every option; `dicebridge serve --demo` (make run)")
    print("runs the appliance with a synthetic camera and a simulated tower.\n")
    for title, argv in EXAMPLES:
        print("=" * 72)
        print(title)
        print("$ dicebridge odds " + " ".join(argv))
        main(["odds", *argv])
        print()
    return 0
