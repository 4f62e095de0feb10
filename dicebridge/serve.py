"""`dicebridge serve`: the appliance service (so far: the HTTP API, the WebSocket
and the ledger; the camera, towers and GPIO join it in later issues)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the appliance service (HTTP API, ledger)")
    parser.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1 (this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--data-dir", type=Path, default=Path("data"), help="default ./data")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app
    from server.ledger import Ledger, LedgerError
    from server.table import Table

    try:
        ledger = Ledger(args.data_dir)
    except LedgerError as err:
        raise SystemExit(f"dicebridge serve: {err}") from None
    app = create_app(Table(ledger))
    print(f"dicebridge: http://{args.host}:{args.port}/api/docs (ledger in {ledger.path})")
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        ledger.close()
    return 0
