"""`dicebridge ledger verify|export|prune-crops`: check, read and trim the appliance's record."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from typing import Any, TextIO

from server.config import default_data_dir
from server.ledger import HEAD_PREFIX, Ledger, LedgerDamaged, LedgerError, Verification


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("ledger", help="verify or export the ledger of throws")
    sub = parser.add_subparsers(dest="ledger", metavar="ACTION", required=True)
    verify = sub.add_parser(
        "verify",
        help="check the hash chain and the kept dice pictures; print the head (the last row "
        "and its hash) to write down; exit 1 naming the first bad row",
    )
    verify.add_argument(
        "--head",
        metavar="HASH",
        help="a head written down from an earlier verify (the hash, or its first 16 or more "
        "hex digits): exit 1 unless a row still has it",
    )
    verify.add_argument(
        "--no-crops", action="store_true", help="do not hash the kept dice pictures (faster)"
    )
    export = sub.add_parser("export", help="every row, as CSV or JSON, to standard output")
    export.add_argument("--format", choices=("csv", "json"), default="csv")
    export.add_argument(
        "--output",
        "-o",
        type=Path,
        metavar="FILE",
        help="write FILE (whole or not at all) instead of standard output",
    )
    prune = sub.add_parser("prune-crops", help="remove dice pictures older than DAYS days")
    prune.add_argument("--days", type=float, required=True, help="keep the pictures this long")
    data_dir = default_data_dir(os.environ)
    for p in (verify, export, prune):  # the service's folder where its setting names one
        p.add_argument("--data-dir", type=Path, default=data_dir,
                       help=f"default {data_dir} ($DICEBRIDGE_DATA_DIR, else ./data)")  # fmt: skip
        p.set_defaults(reads_data_dir_env=True)  # a misspelled DICEBRIDGE_* refused (cli.main)
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
    head = args.head.strip().lower() if args.head is not None else None
    if head is not None and not HEAD_PREFIX.fullmatch(head):
        print("dicebridge ledger: --head is a row's hash as verify printed it (64 hex digits, "
              "or the first 16 or more)", file=sys.stderr)  # fmt: skip
        return 2
    ledger = _open(args.data_dir)
    if ledger is None:
        return 2
    with ledger:
        try:
            result = ledger.verify(crops=not args.no_crops, head=head)
        except LedgerError as err:  # not damage: a file locked, say
            print(f"dicebridge ledger: {err}", file=sys.stderr)
            return 2
    if result.damaged:
        print(f"ledger damaged: {result.why}; the {result.rows:,} rows before it check out. "
              "Put back a copy of the file from before the damage, or export what can "
              "still be read")  # fmt: skip
        return 1
    if result.head is None and result.rows:  # the chain itself is broken
        print(f"ledger broken at row {result.first_bad}: {result.why}")
        return 1
    print(f"ledger intact: {result.rows} rows, every hash and link checks out")
    chain_ok = _say_crops(result, args.no_crops)
    head_ok = True
    if result.head is not None:
        row, digest = result.head
        print(f"head: row {row}, hash {digest}")
        print("  (write it down: `dicebridge ledger verify --head HASH` shows later that every "
              "row up to it is unchanged)")  # fmt: skip
    if head is not None:
        head_ok = result.head_row is not None
        if head_ok:
            print(f"the head {head[:16]}… is row {result.head_row}: every row up to it is as "
                  "it was when the head was written down")  # fmt: skip
        else:
            print(f"the head {head[:16]}… is in no row of this ledger: the rows up to it were "
                  "rewritten or removed since it was written down (or it is another "
                  "ledger's head)")  # fmt: skip
    return 0 if chain_ok and head_ok else 1


def _say_crops(result: Verification, skipped: bool) -> bool:
    """The kept dice pictures' line(s); False where one was changed."""
    if skipped:
        print("dice pictures: not checked (--no-crops)")
        return True
    gone = (f", {result.crops_gone:,} named no longer kept (pruned after keep_crops_days, "
            "or not kept on a nearly full disk)") if result.crops_gone else ""  # fmt: skip
    unread = (f", {result.crops_unread:,} could not be read (not checked)"
              if result.crops_unread else "")  # fmt: skip
    if not (result.crops_checked or result.crops_gone or result.crops_unread):
        print("dice pictures: none named by the rows")
        return True
    if not result.crops_changed_count:
        print(f"dice pictures: {result.crops_checked:,} kept ones match their hashes{gone}{unread}")
        return True
    print("dice pictures changed after they were recorded (the rows naming them check out):")
    for row, digest in result.crops_changed:
        print(f"  row {row}: crops/{digest}.png no longer hashes to its name")
    if result.crops_changed_count > len(result.crops_changed):
        print(f"  and {result.crops_changed_count - len(result.crops_changed):,} more rows")
    return False


def run_export(args: argparse.Namespace) -> int:
    ledger = _open(args.data_dir)
    if ledger is None:
        return 2
    part = None
    if args.output is not None:
        part = args.output.with_name(f".{args.output.name}.{secrets.token_hex(6)}.part")
    try:
        with ledger:
            if part is None:
                _write(ledger, args.format, sys.stdout)
            else:
                with part.open("x", encoding="utf-8", newline="") as out:
                    _write(ledger, args.format, out)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(part, args.output)
    except LedgerError as err:  # the file damaged part way: what was written is not whole
        where = "nothing was written to " + str(args.output) if part else "the text written is"
        whole = "" if part else " not the whole ledger"
        print(f"dicebridge ledger: the export stopped: {err}; {where}{whole}", file=sys.stderr)
        return 1 if isinstance(err, LedgerDamaged) else 2
    except OSError as err:  # a full disk, a closed pipe: the export is not whole
        print(f"dicebridge ledger: the export could not be written: {err.strerror or err}",
              file=sys.stderr)  # fmt: skip
        return 2
    finally:
        if part is not None:
            part.unlink(missing_ok=True)
    return 0


def _write(ledger: Ledger, fmt: str, out: TextIO) -> None:
    """The export, written piece by piece as the rows are read."""
    for chunk in ledger.export_chunks(fmt):
        out.write(chunk)
    out.flush()


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
