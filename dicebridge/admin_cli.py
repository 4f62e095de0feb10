"""`dicebridge admin pin [--data-dir DIR]`: set the admin PIN (store staff only)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from typing import Any

from server.admin import AdminError, AdminPin
from server.config import default_data_dir


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("admin", help="the admin PIN")
    sub = parser.add_subparsers(dest="admin", metavar="ACTION", required=True)
    pin = sub.add_parser("pin", help="set a new admin PIN (asked twice, unless --pin)")
    data_dir = default_data_dir(os.environ)
    pin.add_argument("--data-dir", type=Path, default=data_dir,
                     help=f"default {data_dir} ($DICEBRIDGE_DATA_DIR, else ./data)")  # fmt: skip
    pin.add_argument("--pin", help="the new PIN, 4 to 12 digits (for scripts)")
    pin.set_defaults(handler=run_pin, reads_data_dir_env=True)  # checked in cli.main


def run_pin(args: argparse.Namespace) -> int:
    new = args.pin
    if new is None:
        try:
            new = getpass.getpass("new admin PIN (4-12 digits): ")
            again = getpass.getpass("again: ")
        except EOFError:  # no one to ask (input from a file or /dev/null)
            print("dicebridge admin: no PIN typed; give --pin for scripts", file=sys.stderr)
            return 2
        if again != new:
            print("dicebridge admin: the two PINs differ; nothing changed", file=sys.stderr)
            return 2
    try:
        AdminPin(args.data_dir).set(new)
    except (AdminError, OSError) as err:
        print(f"dicebridge admin: {err}", file=sys.stderr)
        return 2
    print(f"admin PIN set for {args.data_dir}")
    return 0
