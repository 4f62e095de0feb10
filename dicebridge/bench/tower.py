"""`dicebridge bench tower`: ingest speed, latency and a fuzz run of the tower reader.

* throughput: readings per second the reader ingests from a simulated tower's
  byte stream (binary mode, with noise and retried frames);
* latency: time from the last byte of a result frame being written to a real
  pty to the reading coming out of the reader on the other side (p50, p99);
* fuzz: a million random bytes, truncated frames and bit-flipped frames: the
  reader must not crash, must report no reading that was not sent, and must
  read the next good frame.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time
from typing import Any

from dicebridge.bench import machine, machine_line, positive
from firmware_host.port import SerialPort
from firmware_host.protocol import DieCode, Kind, Message
from firmware_host.reader import TowerReader, TowerReading
from firmware_host.simulator import TowerSimulator, open_pty


def add_subcommand(kinds: Any) -> None:
    parser = kinds.add_parser("tower", help="tower reader: throughput, latency and fuzzing")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--fuzz-bytes", type=positive, default=1_000_000)
    parser.add_argument("--samples", type=positive, default=500, help="latency samples")
    parser.set_defaults(handler=run)


def throughput(throws: int = 20_000) -> float:
    sim = TowerSimulator(slots=(DieCode.D6,) * 5, rng=random.Random(1), noise=0.05, repeat=0.05)
    stream = b"".join(sim.throw()[0] for _ in range(throws))
    reader = TowerReader("binary")
    start = time.perf_counter()
    count = 0
    for i in range(0, len(stream), 4096):
        count += sum(isinstance(e, TowerReading) for e in reader.feed(stream[i : i + 4096]))
    return count / (time.perf_counter() - start)


def latency(samples: int = 500) -> list[float]:
    master, path = open_pty()
    port = SerialPort(path, timeout=0.001)
    reader = TowerReader("binary")
    delays: list[float] = []
    stop = threading.Event()
    sent: dict[int, float] = {}

    def listen() -> None:
        while not stop.is_set():
            for event in reader.feed(port.read(4096)):
                if isinstance(event, TowerReading) and event.throw in sent:
                    delays.append(time.perf_counter() - sent[event.throw])

    thread = threading.Thread(target=listen)
    thread.start()
    try:
        for roll in range(1, samples + 1):
            frame = Message(
                Kind.ROLL_RESULT, roll & 0xFFFF, 0,
                {"roll_id": roll, "slot": 0, "die": DieCode.D20, "face_index": roll % 20},
            ).encode()  # fmt: skip
            sent[roll] = time.perf_counter()
            os.write(master, frame)
            time.sleep(0.002)
        time.sleep(0.1)
    finally:
        stop.set()
        thread.join()
        port.close()
        os.close(master)
    return delays


def fuzz(total: int = 1_000_000, seed: int = 7) -> dict[str, int]:
    """Feed noise, truncated and corrupted frames with good frames between them."""
    rng = random.Random(seed)
    reader = TowerReader("binary")
    good = 0
    false = 0
    fed = 0
    roll = 0
    while fed < total:
        roll += 1
        frame = Message(
            Kind.ROLL_RESULT, roll & 0xFFFF, 0,
            {"roll_id": roll, "slot": 0, "die": DieCode.D6, "face_index": roll % 6},
        ).encode()  # fmt: skip
        damage = rng.random()
        if damage < 0.3:
            chunk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif damage < 0.5:
            chunk = frame[: rng.randrange(1, len(frame))]
        elif damage < 0.7:
            bad = bytearray(frame)
            bad[rng.randrange(len(bad) - 1)] ^= 1 << rng.randrange(8)
            chunk = bytes(bad)
        else:
            chunk = b""
        stream = chunk + b"\x00" + frame  # the good frame after whatever damage
        fed += len(stream)
        readings = [e for e in reader.feed(stream) if isinstance(e, TowerReading)]
        good += sum(r.throw == roll for r in readings)
        false += sum(r.throw != roll for r in readings)
    return {"bytes": fed, "frames": roll, "good_read": good, "false_readings": false}


def run(args: argparse.Namespace) -> int:
    rate = throughput()
    delays = latency(args.samples)
    ms = sorted(d * 1000 for d in delays)
    result = {
        "readings_per_second": rate,
        "latency_ms_p50": statistics.median(ms),
        "latency_ms_p99": ms[int(0.99 * (len(ms) - 1))],
        "latency_samples": len(ms),
        **{f"fuzz_{k}": v for k, v in fuzz(args.fuzz_bytes).items()},
        "machine": machine(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(machine_line())
        print(f"ingest: {rate:,.0f} readings/s (target ≥ 5,000)")
        print(f"latency, last byte to reading: p50 {result['latency_ms_p50']:.2f} ms, "
              f"p99 {result['latency_ms_p99']:.2f} ms over {len(ms)} frames "
              "(target p99 ≤ 5 ms)")  # fmt: skip
        print(f"fuzz: {result['fuzz_bytes']:,} bytes, {result['fuzz_frames']:,} good frames among "
              f"the damage, {result['fuzz_good_read']:,} read, "
              f"{result['fuzz_false_readings']} false readings")  # fmt: skip
    return 0
