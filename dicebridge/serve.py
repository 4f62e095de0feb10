"""`dicebridge serve [--demo]`: the appliance service: the HTTP API and WebSocket,
the ledger, the serial towers and the camera from the settings (or, with
--demo, a synthetic camera and a simulated tower, so the whole chain runs on
a laptop with nothing attached)."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
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
    parser.add_argument(
        "--demo",
        action="store_true",
        help="a synthetic camera and a simulated tower feed demo checks (nothing attached)",
    )
    parser.set_defaults(handler=run)


def _tell_systemd(server: Any, hardware_pings: bool) -> None:
    """READY=1 once the API listens, then watchdog pings while it runs (no-ops outside
    systemd) — unless a hardware loop runs: then that loop pings, so a hung display or
    GPIO loop gets the service restarted."""
    from server.systemd import Notifier

    notifier = Notifier()
    if not notifier.enabled:
        return
    while not server.started and not server.should_exit:
        time.sleep(0.05)
    notifier.ready()
    interval = (notifier.watchdog_seconds or 0) / 2
    while interval and not hardware_pings and not server.should_exit:
        notifier.watchdog()
        time.sleep(interval)


def run(args: argparse.Namespace) -> int:
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
    from server.admin import AdminPin

    admin = AdminPin(config.data_dir)
    first_pin = admin.ensure()
    if first_pin is not None:
        print(
            f"dicebridge: first start: the admin PIN is {first_pin} (for registering dice, "
            "corrections and exports; change it with `dicebridge admin pin`)",
            flush=True,
        )
    from server.collect import FaceCollector
    from server.diesets import DieSetStore
    from server.empty_tray import EmptyTrayError, EmptyTrayStore

    # the demo's die sets (and any taught while trying it) live apart from an owner's
    diesets = DieSetStore(config.data_dir / "demo" if args.demo else config.data_dir)
    if args.demo:
        from server.demo import teach_demo_sets

        if taught := teach_demo_sets(diesets):
            print(f"dicebridge (demo): taught the die sets {', '.join(taught)} from renders "
                  f"into {diesets.folder}", flush=True)  # fmt: skip
    collector = FaceCollector(config.data_dir, diesets)
    try:
        trays = EmptyTrayStore(config.data_dir, config.empty_tray)
    except EmptyTrayError as err:
        ledger.close()
        raise SystemExit(f"dicebridge serve: {err}") from None
    from server.sources import tower_fleet
    from server.tray_areas import TrayAreaStore

    areas = TrayAreaStore(config.data_dir, config.tray_area)

    stoppers: list[Any] = []
    try:
        towers, camera = _sources(
            args.demo, config, table, stoppers, diesets, trays, collector, areas
        )
    except Exception as err:  # a camera or model that cannot start: say which, start nothing
        for stop in reversed(stoppers):
            stop()
        ledger.close()
        raise SystemExit(f"dicebridge serve: {err}") from None
    settings = _plain_settings(config, args.config)
    app = create_app(
        table, admin, diesets, settings, trays, camera, collector if camera else None, areas
    )
    fleet = tower_fleet(towers, table)
    fleet.start()
    stoppers.append(fleet.stop)
    from server.housekeeping import Housekeeping

    upkeep = Housekeeping(ledger, config.keep_crops_days, say=lambda line: print(line, flush=True))
    upkeep.start()
    stoppers.append(upkeep.stop)
    if camera is not None:
        camera.start()
        stoppers.append(camera.stop)
    try:
        hardware = _hardware_loop(config, table, camera)
    except Exception as err:  # a display or GPIO pins that cannot be opened: say which
        for stop in reversed(stoppers):
            stop()
        ledger.close()
        raise SystemExit(f"dicebridge serve: {err}") from None
    if hardware is not None:
        hardware.start()
        stoppers.append(hardware.stop)
    url = f"http://{config.host}:{config.port}"
    mode = " (demo: a synthetic camera and a simulated tower)" if args.demo else ""
    print(f"dicebridge{mode}: open {url}/ (the table; {url}/kiosk for a big screen, "
          f"{url}/api/docs for the API; ledger in {ledger.path})", flush=True)  # fmt: skip
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            timeout_graceful_shutdown=3,
        )  # open WebSockets must not hold a stop
    )
    watchdog = threading.Thread(
        target=_tell_systemd, args=(server, hardware is not None), daemon=True
    )
    watchdog.start()
    try:
        server.run()
    finally:
        for stop in reversed(stoppers):
            stop()
        ledger.close()
    return 0


def _sources(
    demo: bool,
    config: Any,
    table: Any,
    stoppers: list[Any],
    diesets: Any = None,
    trays: Any = None,
    collector: Any = None,
    areas: Any = None,
) -> tuple[tuple[Any, ...], Any]:
    """The towers to drive and the camera source (or None), from the settings or the demo."""
    towers = tuple(config.towers)
    frames: Any = None  # a vision.frames.FrameSource
    if demo:
        from server.demo import DemoTower, Director, SyntheticCamera

        tower = DemoTower()
        tower.start()
        stoppers.append(tower.stop)
        towers += (tower.config,)
        director = Director(table)
        director.start()
        stoppers.append(director.stop)
        frames = SyntheticCamera(lambda: next(iter(_camera_needs(table, diesets)), None))
    reopen = None
    if not demo and config.camera is not None:
        from vision.frames import CameraError, is_live, open_camera

        spec = str(config.camera)
        if is_live(spec):  # unplugged or not there yet: opened again until it is back
            reopen = functools.partial(open_camera, spec, config.camera_size)
        try:
            frames = open_camera(spec, config.camera_size)
        except CameraError as err:  # the rest of the appliance runs on; the camera says why
            table.source_event("camera", "disconnected", {"detail": str(err)})
            print(f"dicebridge serve: {err}", flush=True)
    if frames is None and reopen is None:
        return towers, None
    from server.camera import CameraSource
    from vision.reader import DiceReader
    from vision.settle import SettleDetector

    return towers, CameraSource(
        "camera",
        frames,
        DiceReader(),
        table,
        SettleDetector(config.settle_seconds),
        trays=trays,
        diesets=diesets,
        reopen=reopen,
        collector=collector,
        areas=areas,
    )


def _plain_settings(config: Any, path: Path | None) -> dict[str, Any]:
    """The settings as JSON-ready data, and the file they came from."""
    plain = json.loads(json.dumps(dataclasses.asdict(config), default=str))
    return {"file": str(path) if path else None, **plain}


def _hardware_loop(config: Any, table: Any, camera: Any) -> Any:
    """The loop owning the display and the kiosk's GPIO, when the settings name either."""
    if config.display is None and config.gpio is None:
        return None
    from hardware.display import DisplayError, open_display
    from hardware.kiosk import KioskPanel
    from server.hardware_loop import HardwareLoop, display_down

    display = reopen = None
    if config.display is not None:
        reopen = functools.partial(open_display, config.display)
        try:
            display = reopen()
        except DisplayError as err:  # no OLED answering is no reason to stop the appliance:
            # said (as a camera that cannot open), and the loop opens it again until it answers
            display_down(table, str(err))
            print(f"dicebridge serve: {err} (running on without it, trying it again every "
                  "few seconds)", flush=True)  # fmt: skip
    panel = None
    if config.gpio is not None:
        panel = KioskPanel(config.gpio, tumbler=config.tumbler, speed=config.tumbler_speed)
    moved = camera.moved_since if camera is not None else None
    return HardwareLoop(table, display, panel, tumble_s=config.tumble_seconds, moved_since=moved,
                        reopen_display=reopen)  # fmt: skip


def _camera_needs(table: Any, diesets: Any = None) -> list[tuple[str, int]]:
    """The dice waiting checks need (die type, how many now) that the demo camera throws:
    pip dice, and numbered dice the demo's sets read (its die sets' store, `diesets`)."""
    from server.camera import PIP_DICE
    from server.demo import DEMO_SETS

    taught = {die for name, die in DEMO_SETS if diesets is not None and name in diesets.names()}
    return [(n.die, n.count) for n in table.pending() if n.die in PIP_DICE or n.die in taught]
