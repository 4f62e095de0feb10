"""`dicebridge dice add|list|import|confirm`: the physical dice the appliance audits.

A registered die is named in readings (by a tower's slot in the settings, by
the camera's taught die set, or by hand on the web page); every reading that
names it feeds `dicebridge audit --die NAME`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from audit.ledger_audit import import_log
from audit.logs import LogError, read_values
from server.config import default_data_dir
from server.ledger import Ledger, LedgerError
from server.registry import AUDITABLE, DiceRegistry, RegistryError


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dice", help="register physical dice for their fairness audits", description=__doc__
    )
    sub = parser.add_subparsers(dest="dice", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="register a die (or change one with --update)")
    add.add_argument("name", help='what people call it, e.g. "red d6"')
    add.add_argument("--type", dest="die_type", required=True, choices=AUDITABLE)
    add.add_argument("--colour", default="", help="body and ink, e.g. 'red, white pips'")
    add.add_argument("--set", dest="set_name", default="", help="the set it belongs to")
    add.add_argument("--update", action="store_true", help="change a registered die's details")
    listing = sub.add_parser("list", help="the registered dice")
    listing.add_argument("--json", action="store_true")
    imp = sub.add_parser(
        "import",
        help="add a throw log of a registered die to the ledger (warns when it repeats "
        "throws already recorded for the die: a log imported twice)",
    )
    imp.add_argument("name")
    imp.add_argument(
        "file",
        type=Path,
        help="one value per line (a d10's 0–9, a dF's -1/0/+1; UTF-8, # comments allowed)",
    )
    confirm = sub.add_parser("confirm", help="confirm or correct one die of a recorded throw")
    confirm.add_argument("throw", type=int, help="the throw's ledger row (see /api/throws)")
    confirm.add_argument("index", type=int, help="which die of the throw, from 0")
    confirm.add_argument("face", type=int, help="the face it really shows")
    data_dir = default_data_dir(os.environ)
    for p in (add, listing, imp, confirm):  # the service's folder, as `dicebridge ledger`
        p.add_argument("--data-dir", type=Path, default=data_dir,
                       help=f"default {data_dir} ($DICEBRIDGE_DATA_DIR, else ./data)")  # fmt: skip
        p.set_defaults(reads_data_dir_env=True)  # a misspelled DICEBRIDGE_* refused (cli.main)
    add.set_defaults(handler=run_add)
    listing.set_defaults(handler=run_list)
    imp.set_defaults(handler=run_import)
    confirm.set_defaults(handler=run_confirm)


def _fail(message: str) -> int:
    print(f"dicebridge dice: {message}", file=sys.stderr)
    return 2


def run_add(args: argparse.Namespace) -> int:
    try:
        with Ledger(args.data_dir) as ledger:
            die = DiceRegistry(ledger).register(
                args.name, args.die_type, args.colour, args.set_name, update=args.update
            )
    except (RegistryError, LedgerError) as err:
        return _fail(str(err))
    print(f"registered {die.name!r} ({die.type}) as {die.id}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    if not (args.data_dir / "ledger.sqlite3").exists():
        print("[]" if args.json else f"no ledger in {args.data_dir}: no registered dice")
        return 0
    try:
        with Ledger(args.data_dir) as ledger:
            dice = DiceRegistry(ledger).all()
    except LedgerError as err:
        return _fail(str(err))
    if args.json:
        print(json.dumps([d.to_dict() for d in dice]))
    elif not dice:
        print("no registered dice: add one with `dicebridge dice add NAME --type d6`")
    for d in dice if not args.json else []:
        details = ", ".join(x for x in (d.colour, d.set) if x)
        print(f"{d.id:20} {d.type:4} {d.name}" + (f" ({details})" if details else ""))
    return 0


def run_import(args: argparse.Namespace) -> int:
    try:
        values = read_values(args.file)  # names the file and line of a bad value
    except LogError as err:
        return _fail(str(err))
    try:
        with Ledger(args.data_dir) as ledger:
            done = import_log(ledger, DiceRegistry(ledger), args.name, values, args.file.name)
    except (RegistryError, LogError, LedgerError) as err:
        return _fail(str(err))
    print(f"imported {done['throws']:,} throws of {done['die']} (ledger row {done['entry']})")
    if done["repeats"]:
        print(_repeat_warning(done), file=sys.stderr)
    return 0


def _repeat_warning(done: dict[str, Any]) -> str:
    """Imported throws that repeat a stretch already recorded: a log imported twice?"""
    shown = "; ".join(
        f"throws {again:,}–{again + length - 1:,} repeat throws {first:,}–{first + length - 1:,}"
        for again, first, length in done["repeats"][:3]
    )
    more = f" and {len(done['repeats']) - 3:,} more" if len(done["repeats"]) > 3 else ""
    copied = sum(length for _, _, length in done["repeats"])
    return (
        f"dicebridge dice: warning: {copied:,} of the imported throws repeat a stretch already "
        f"recorded for {done['die']} (throws numbered over its {done['recorded_before']:,} "
        f"earlier readings, then this log): {shown}{more}. Was this log imported before? "
        "The die's audit will say it holds copied throws."
    )


def run_confirm(args: argparse.Namespace) -> int:
    try:
        with Ledger(args.data_dir) as ledger:
            DiceRegistry(ledger).confirm(args.throw, args.index, args.face)
    except (RegistryError, LedgerError) as err:
        return _fail(str(err))
    print(f"throw {args.throw}, die {args.index}: face {args.face} confirmed")
    return 0
