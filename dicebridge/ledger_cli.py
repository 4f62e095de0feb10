"""`dicebridge ledger verify|export|prune-crops`: check, read and trim the appliance's record."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from server.config import default_data_dir
from server.ledger import Ledger, LedgerError


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("ledger", help="verify or export the ledger of throws")
    sub = parser.add_subparsers(dest="ledger", metavar="ACTION", required=True)
    verify = sub.add_parser("verify", help="check the hash chain; exit 1 naming the first bad row")
    export = sub.add_parser("export", help="every row, as CSV or JSON, to standard output")
    export.add_argument("--format", choices=("csv", "json"), default="csv")
    prune = sub.add_parser("prune-crops", help="remove dice pictures older than DAYS days")
    prune.add_argument("--days", type=float, required=True, help="keep the pictures this long")
    data_dir = default_data_dir(os.environ)
    for p in (verify, export, prune):  # the service's folder where its setting names one
        p.add_argument("--data-dir", type=Path, default=data_dir,
                       help=f"default {data_dir} ($DICEBRIDGE_DATA_DIR, else ./data)")  # fmt: skip
    verify.set_defaults(handler=run_verify)
    export.set_defaults(handler=run_export)
    prune.set_defaults(handler=run_prune)


def _open(data_dir: Path, read_only: bool = True) -> Ledger | None:
    if not (data_dir / "ledger.sqlite3").exists():
        print(f"dicebridge ledger: no ledger in {data_dir}", file=sys.stderr)
        return None
    try:
        return Ledger(data_dir, read_only=read_only)
    except LedgerError as err:
        print(f"dicebridge ledger: {err}", file=sys.stderr)
        return None


def run_verify(args: argparse.Namespace) -> int:
    ledger = _open(args.data_dir)
    if ledger is None:
        return 2
    with ledger:
        result = ledger.verify()
    if result.ok:
        print(f"ledger intact: {result.rows} rows, every hash and link checks out")
        return 0
    print(f"ledger broken at row {result.first_bad}: {result.why}")
    return 1


def run_export(args: argparse.Namespace) -> int:
    ledger = _open(args.data_dir)
    if ledger is None:
        return 2
    with ledger:
        text = ledger.export(args.format)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as err:  # a full disk, a closed pipe: the export is not whole
        print(f"dicebridge ledger: the export could not be written: {err.strerror or err}",
              file=sys.stderr)  # fmt: skip
        return 2
    return 0


def run_prune(args: argparse.Namespace) -> int:
    if not 0 <= args.days < 10**6:  # NaN and infinity too
        print("dicebridge ledger: --days is a number of days, 0 or more", file=sys.stderr)
        return 2
    ledger = _open(args.data_dir, read_only=False)
    if ledger is None:
        return 2
    with ledger:
        files, size = ledger.prune_crops(args.days)
    print(f"removed {files} dice pictures older than {args.days:g} days ({size / 2**20:.1f} MB); "
          "the ledger's rows are unchanged")  # fmt: skip
    return 0
