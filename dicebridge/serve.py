"""`dicebridge serve [--demo]`: the appliance service: the HTTP API and WebSocket,
the ledger, the serial towers and the camera from the settings (or, with
--demo, a synthetic camera and a simulated tower, so the whole chain runs on
a laptop with nothing attached)."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import functools
import json
import os
import signal
import socket
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


def _stopped(signum: int, frame: Any) -> None:
    """SIGTERM once uvicorn has stopped (it raises the signal again): nothing more to do."""


def _only_service(data_dir: Path) -> Any:
    """The data folder's lock, held while this service runs (closed: let go); SystemExit where
    another service holds it.  Two services on one folder had both run, both driving the
    same towers and camera and adding their throws to one ledger."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        held = (data_dir / "service.lock").open("a+")
    except OSError as err:
        raise SystemExit(
            f"dicebridge serve: cannot use the data folder {data_dir}: {err.strerror or err}"
        ) from None
    try:
        import fcntl  # POSIX (a Pi, a Mac, Linux); elsewhere two services are not told apart

        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:
        return held
    except OSError:
        held.seek(0)
        other = held.read().strip() or "?"
        held.close()
        raise SystemExit(
            f"dicebridge serve: another dicebridge service (pid {other}) is using {data_dir}: "
            "stop it first, or give this one another --data-dir"
        ) from None
    held.seek(0)
    held.truncate()
    held.write(str(os.getpid()))
    held.flush()
    return held


def _listening(host: str, port: int) -> list[socket.socket]:
    """The service's sockets, bound to ``host``:``port`` and listening, made before anything
    is printed or started and handed to uvicorn; SystemExit, saying why, where they cannot
    be.  uvicorn had bound the port itself, last: a port in use was said after the first
    start's admin PIN and the "open http://…" line, the sources already started.  Made as
    asyncio's create_server (uvicorn's own way) makes them: one per address the host names
    (localhost: 127.0.0.1 and ::1 where both are), SO_REUSEADDR, an IPv6 one IPv6 only."""
    try:
        infos = socket.getaddrinfo(
            host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE
        )
    except socket.gaierror as err:
        raise SystemExit(f"dicebridge serve: cannot listen on {host}: {err.strerror} "
                         "(give --host an address of this machine)") from None  # fmt: skip
    made: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # an address family this machine lacks (asyncio skips it too)
                continue
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen()  # now: two services bound (SO_REUSEADDR) would both get this far
    except OSError as err:
        for sock in made:
            sock.close()
        if err.errno == errno.EADDRINUSE:
            why = (f"port {port} on {host} is in use (another dicebridge, or another "
                   "program): stop it, or give another --port")  # fmt: skip
        elif err.errno == errno.EACCES:
            why = (f"port {port} on {host} is not allowed to this user (ports below 1024 "
                   "need root): give --port 1024 or above")  # fmt: skip
        elif err.errno == errno.EADDRNOTAVAIL:
            why = f"{host} is no address of this machine: give --host one of its own"
        else:
            why = f"cannot listen on port {port} on {host}: {err.strerror or err}"
        raise SystemExit(f"dicebridge serve: {why}") from None
    if not made:
        raise SystemExit(f"dicebridge serve: cannot listen on {host}: no address to listen on")
    return made


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app
    from server.config import ConfigError, check_port, load_config
    from server.ledger import Ledger, LedgerError
    from server.table import Table

    try:
        config = load_config(args.config, os.environ)
    except ConfigError as err:
        raise SystemExit(f"dicebridge serve: {err}") from None
    overrides = {"host": args.host, "port": args.port, "data_dir": args.data_dir}
    config = dataclasses.replace(config, **{k: v for k, v in overrides.items() if v is not None})
    try:  # the command line's values checked as the settings' are (--port 70000 had
        check_port(config.port)  # listened on 4464, an empty --host on every network)
        if not config.host.strip():
            raise ConfigError("--host cannot be empty (127.0.0.1: this machine only)")
    except ConfigError as err:
        raise SystemExit(f"dicebridge serve: {err}") from None
    held = _only_service(config.data_dir)
    try:
        listening = _listening(config.host, config.port)
    except SystemExit:
        held.close()
        raise

    def let_go() -> None:
        for sock in listening:
            sock.close()
        held.close()

    # the demo's throws are its own: they went into the owner's ledger, unmarked, and fed
    # the fairness audits of the owner's dice
    demo_dir = config.data_dir / "demo"
    try:
        ledger = Ledger(demo_dir if args.demo else config.data_dir)
    except LedgerError as err:
        let_go()
        raise SystemExit(f"dicebridge serve: {err}") from None
    table = Table(ledger)  # the checks still waiting in the ledger wait again
    if table.unrestored:
        print(f"dicebridge: {len(table.unrestored)} waiting check(s) in the ledger could not "
              "be restored (GET /api/health lists them; withdraw them)", flush=True)  # fmt: skip
    from server.admin import AdminPin

    admin = AdminPin(config.data_dir)  # the owner's, the demo's too: the appliance's PIN
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
    diesets = DieSetStore(demo_dir if args.demo else config.data_dir)
    if args.demo:
        from server.demo import teach_demo_sets

        if taught := teach_demo_sets(diesets):
            print(f"dicebridge (demo): taught the die sets {', '.join(taught)} from renders "
                  f"into {diesets.folder}", flush=True)  # fmt: skip
    # the demo's camera sees its own rendered tray: an owner's empty-tray picture and tray
    # area were used on it (a throw a minute was read), and taking or marking them in the
    # demo wrote over the owner's
    own = demo_dir if args.demo else config.data_dir
    collector = FaceCollector(own, diesets)
    try:
        trays = EmptyTrayStore(own, None if args.demo else config.empty_tray)
    except EmptyTrayError as err:
        ledger.close()
        let_go()
        raise SystemExit(f"dicebridge serve: {err}") from None
    from server.sources import tower_fleet
    from server.tray_areas import TrayAreaStore

    areas = TrayAreaStore(own, None if args.demo else config.tray_area)

    stoppers: list[Any] = [let_go]
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
    whose = "the demo's own ledger, apart from yours," if args.demo else "ledger"
    print(f"dicebridge{mode}: open {url}/ (the table; {url}/kiosk for a big screen, "
          f"{url}/api/docs for the API; {whose} in {ledger.path})", flush=True)  # fmt: skip
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,  # the sockets are _listening()'s: these name them only
            port=config.port,
            log_level="warning",
            timeout_graceful_shutdown=3,  # open WebSockets must not hold a stop
            ws_max_size=64 * 1024,  # the pages send nothing; 16 MB messages had been taken
        )
    )
    watchdog = threading.Thread(
        target=_tell_systemd, args=(server, hardware is not None), daemon=True
    )
    watchdog.start()
    # uvicorn raises a SIGTERM again once it has stopped: with the default handler that
    # ended the process before the stops below (the ledger unclosed, the tumbler's relay
    # left as it was); this one lets run() return, and the stops run as after Ctrl-C
    signal.signal(signal.SIGTERM, _stopped)
    try:
        server.run(sockets=listening)
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
        dice=None if demo else config.camera_dice,
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
