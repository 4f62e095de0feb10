"""`dicebridge tower simulate|watch`: a simulated tower on a pty, and reading a tower."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from typing import Any

from firmware_host.port import SerialPort, TowerIOError
from firmware_host.protocol import DieCode, Kind, Message
from firmware_host.reader import TowerEvent, TowerReader, TowerReading
from firmware_host.simulator import TowerSimulator, open_pty, serve, serve_tcp

DICE = {code.die: code for code in DieCode}


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("tower", help="serial dice towers: simulate one, or watch one")
    sub = parser.add_subparsers(dest="tower", metavar="ACTION", required=True)

    sim = sub.add_parser("simulate", help="run a simulated tower on a pty and print its path")
    sim.add_argument("--mode", choices=("binary", "text"), default="binary")
    sim.add_argument("--dice", nargs="+", default=["d6", "d6", "d6"], choices=sorted(DICE))
    sim.add_argument("--throws", type=int, default=0, help="stop after N throws (0: never)")
    sim.add_argument("--interval", type=float, default=1.0, metavar="S")
    sim.add_argument("--noise", type=float, default=0.0, help="chance of garbage per frame")
    sim.add_argument("--crooked", type=float, default=0.0, help="chance a die lands cocked")
    sim.add_argument("--repeat", type=float, default=0.0, help="chance a result is sent twice")
    sim.add_argument("--seed", type=int, default=None)
    sim.add_argument("--fault-every", type=int, default=0, metavar="N", help="jam every N throws")
    sim.add_argument(
        "--unplug-every", type=int, default=0, metavar="N",
        help="after every N throws, unplug (close the pty) and plug in again on a new one",
    )  # fmt: skip
    sim.add_argument(
        "--tcp", type=int, metavar="PORT",
        help="serve on 127.0.0.1:PORT (watch with --port socket://127.0.0.1:PORT) instead of a pty",
    )  # fmt: skip
    sim.add_argument(
        "--linger", type=float, default=0.0, metavar="S",
        help="after the throws, stay connected S seconds (default: until Ctrl-C)",
    )  # fmt: skip
    sim.set_defaults(handler=simulate)

    watch = sub.add_parser("watch", help="print each reading as it arrives")
    watch.add_argument("--port", required=True, metavar="PATH")
    watch.add_argument("--mode", choices=("auto", "binary", "text"), default="auto")
    watch.add_argument("--count", type=int, default=0, help="stop after N readings")
    watch.add_argument("--timeout", type=float, default=0.0, metavar="S", help="give up after S")
    watch.add_argument("--json", action="store_true", help="one JSON object per line")
    watch.set_defaults(handler=run_watch)


def simulate(args: argparse.Namespace) -> int:
    sim = TowerSimulator(
        slots=tuple(DICE[d] for d in args.dice),
        mode=args.mode,
        rng=random.Random(args.seed),
        noise=args.noise,
        crooked=args.crooked,
        repeat=args.repeat,
        fault_every=args.fault_every,
    )
    if args.tcp is not None:
        stop_tcp = threading.Event()
        try:
            serve_tcp(
                sim, args.tcp, args.throws, args.interval, stop_tcp,
                on_listening=lambda p: print(f"socket://127.0.0.1:{p}", flush=True),
            )  # fmt: skip
        except KeyboardInterrupt:
            stop_tcp.set()
        return 0
    stop = threading.Event()
    remaining = args.throws
    try:
        while True:
            master, path = open_pty()
            print(path, flush=True)
            if not args.unplug_every:
                serve(sim, master, args.throws, args.interval, stop, linger=args.linger)
                return 0
            batch = args.unplug_every if remaining == 0 else min(args.unplug_every, remaining)
            serve(sim, master, batch, args.interval, stop, linger=args.interval or 0.1)
            os.close(master)  # unplugged; the next pty is the tower plugged in again
            if args.throws:
                remaining -= batch
                if remaining <= 0:
                    return 0
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
    return 0


def run_watch(args: argparse.Namespace) -> int:
    try:
        port = SerialPort(args.port)
    except TowerIOError as err:
        print(f"dicebridge tower watch: {err}", file=sys.stderr)
        return 2
    reader = TowerReader(args.mode)
    if args.mode != "text":  # a binary tower answers HELLO; a text tower ignores it
        try:
            port.write(Message(Kind.HELLO, 1).encode())
        except TowerIOError as err:
            print(f"dicebridge tower watch: {err}", file=sys.stderr)
            return 2
    seen = 0
    deadline = time.monotonic() + args.timeout if args.timeout else None
    try:
        while args.count == 0 or seen < args.count:
            if deadline is not None and time.monotonic() > deadline:
                print(f"dicebridge tower watch: timed out after {seen} readings", file=sys.stderr)
                return 3
            for event in reader.feed(port.read(4096)):
                if isinstance(event, TowerReading):
                    seen += 1
                    _show(event, args.json)
                    if args.count and seen >= args.count:
                        break
                elif isinstance(event, TowerEvent) and event.kind in ("rethrow", "fault"):
                    _show_event(event, args.json)
    except TowerIOError as err:
        print(f"dicebridge tower watch: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        port.close()
    return 0


def _show(reading: TowerReading, as_json: bool) -> None:
    if as_json:
        print(json.dumps(reading.to_json()), flush=True)
    else:
        print(f"throw {reading.throw}: {reading.die} shows {reading.value}", flush=True)


def _show_event(event: TowerEvent, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"event": event.kind, **event.detail}, default=str), flush=True)
    else:
        print(f"{event.kind}: {event.detail}", file=sys.stderr, flush=True)
