"""`dicebridge serve`: the appliance service (so far: the HTTP API, the WebSocket
and the ledger; the camera, towers and GPIO join it in later issues)."""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the appliance service (HTTP API, ledger)")
    parser.add_argument("--host", help="default 127.0.0.1 (this machine only)")
    parser.add_argument("--port", type=int, help="default 8000")
    parser.add_argument("--data-dir", type=Path, help="default ./data")
    parser.add_argument("--config", type=Path, metavar="FILE", help="a TOML settings file")
    parser.set_defaults(handler=run)


def _tell_systemd(server: Any) -> None:
    """READY=1 once the API listens, then watchdog pings while it runs (no-ops outside
    systemd).  The hardware loop takes the pings over when it joins the service."""
    from server.systemd import Notifier

    notifier = Notifier()
    if not notifier.enabled:
        return
    while not server.started and not server.should_exit:
        time.sleep(0.05)
    notifier.ready()
    interval = (notifier.watchdog_seconds or 0) / 2
    while interval and not server.should_exit:
        notifier.watchdog()
        time.sleep(interval)


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import os

    import uvicorn

    from server.app import create_app
    from server.config import ConfigError, load_config
    from server.ledger import Ledger, LedgerError
    from server.table import Table

    try:
        config = load_config(args.config, os.environ)
    except ConfigError as err:
        raise SystemExit(f"dicebridge serve: {err}") from None
    overrides = {"host": args.host, "port": args.port, "data_dir": args.data_dir}
    config = dataclasses.replace(config, **{k: v for k, v in overrides.items() if v is not None})
    try:
        ledger = Ledger(config.data_dir)
    except LedgerError as err:
        raise SystemExit(f"dicebridge serve: {err}") from None
    table = Table(ledger)
    app = create_app(table)
    from server.sources import tower_fleet

    fleet = tower_fleet(config.towers, table)
    fleet.start()
    print(f"dicebridge: http://{config.host}:{config.port}/api/docs (ledger in {ledger.path})")
    server = uvicorn.Server(
        uvicorn.Config(app, host=config.host, port=config.port, log_level="warning")
    )
    watchdog = threading.Thread(target=_tell_systemd, args=(server,), daemon=True)
    watchdog.start()
    try:
        server.run()
    finally:
        fleet.stop()
        ledger.close()
    return 0
