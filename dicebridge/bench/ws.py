"""`dicebridge bench ws`: from a reading entering the service to its event reaching every
WebSocket client (loopback only).

A real `dicebridge serve` process (its own data folder, so the ledger's
fsync is part of the path, as on the appliance) and N clients on /ws.  Each
sample posts one die to a waiting check and times, from just before the POST,
until the last of the N clients has its `reading` event; p50, p99 and the
worst over the samples.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from dicebridge.bench import machine, machine_line


def add_subcommand(kinds: Any) -> None:
    parser = kinds.add_parser("ws", help="WebSocket fan-out latency with many clients")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--samples", type=int, default=199, help="readings timed (at most 199)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return dict(json.loads(reply.read()))


async def _measure(base: str, clients: int, samples: int) -> list[float]:
    import websockets

    ws_url = base.replace("http", "ws", 1) + "/ws"
    sockets = [await websockets.connect(ws_url, max_queue=None) for _ in range(clients)]
    for ws in sockets:
        await ws.recv()  # hello
    loop = asyncio.get_running_loop()
    waiting_check = {"system": "decibel", "params": {"pool": 200, "target": 5}}  # 200 dice
    check = await loop.run_in_executor(None, _post, f"{base}/api/checks", waiting_check)
    for ws in sockets:  # the "check" event of the creation
        await ws.recv()
    times: list[float] = []
    url = f"{base}/api/checks/{check['id']}/dice"
    for n in range(min(samples, 199)):
        start = time.perf_counter()

        async def first_reading(ws: Any) -> float:
            while True:
                event = json.loads(await ws.recv())
                if event.get("type") == "reading":
                    return time.perf_counter()

        waiting = [asyncio.ensure_future(first_reading(ws)) for ws in sockets]
        die = {"dice": [{"die": "d20", "value": 1 + n % 20}]}
        await loop.run_in_executor(None, _post, url, die)
        arrived = await asyncio.gather(*waiting)
        times.append((max(arrived) - start) * 1000)
        for ws in sockets:  # each client also gets the check's new state
            while json.loads(await ws.recv()).get("type") != "check":
                pass
    for ws in sockets:
        await ws.close()
    return times


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.clients <= 1000 or not 1 <= args.samples <= 199:
        raise SystemExit("dicebridge bench ws: --clients 1..1000, --samples 1..199")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    # the service on its own defaults: a DICEBRIDGE_CAMERA or a slow settle set for the
    # appliance would otherwise run (and be timed) in the benchmark too
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICEBRIDGE_")}
    with tempfile.TemporaryDirectory(prefix="dicebridge-bench-") as data:
        said = Path(data) / "service.log"
        with said.open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "dicebridge", "serve", "--port", str(port),
                 "--data-dir", str(Path(data) / "data")],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"{base}/api/health", timeout=2).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        tail = said.read_text(errors="replace").strip().splitlines()[-3:]
                        why = "; ".join(tail) or ("it ended" if proc.poll() is not None
                                                  else "it did not answer in 30 s")  # fmt: skip
                        raise SystemExit(
                            f"dicebridge bench ws: the service did not start: {why}"
                        ) from None
                    time.sleep(0.2)
            times = asyncio.run(_measure(base, args.clients, args.samples))
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    ordered = sorted(times)
    result = {
        "clients": args.clients,
        "samples": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        "max_ms": round(ordered[-1], 2),
        "machine": machine(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(machine_line())
        print(f"{args.clients} WebSocket clients, {len(times)} readings: from the POST to the "
              f"last client's event p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
              f"worst {result['max_ms']} ms")  # fmt: skip
    return 0
