"""A simulated tower on a real pseudo-terminal, read through pyserial like a USB tower."""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Iterator

import pytest

from firmware_host.port import SerialPort, TowerIOError
from firmware_host.protocol import DieCode, Kind, Message
from firmware_host.reader import TowerEvent, TowerReader, TowerReading
from firmware_host.simulator import TowerSimulator, open_pty, serve


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, str]]:
    master, path = open_pty()
    yield master, path
    with contextlib.suppress(OSError):  # a test may have unplugged it already
        os.close(master)


def collect(port: SerialPort, reader: TowerReader, want: int, limit: float = 5.0) -> list:
    events: list[TowerReading | TowerEvent] = []
    deadline = time.monotonic() + limit
    while sum(isinstance(e, TowerReading) for e in events) < want:
        assert time.monotonic() < deadline, f"only {len(events)} events before the deadline"
        events += reader.feed(port.read(4096))
    return events


@pytest.mark.parametrize("mode", ["binary", "text"])
def test_every_die_thrown_is_read_once_despite_noise_and_retries(
    pty_pair: tuple[int, str], mode: str
) -> None:
    master, path = pty_pair
    sim = TowerSimulator(
        slots=(DieCode.D6, DieCode.D20, DieCode.DF),
        mode=mode,
        rng=random.Random(42),
        noise=0.3,
        repeat=0.3 if mode == "binary" else 0.0,
    )
    truth: list[tuple[str, int]] = []
    port = SerialPort(path)
    reader = TowerReader("auto")
    if mode == "binary":
        port.write(Message(Kind.HELLO, 1).encode())
    stop = threading.Event()

    def tower() -> None:
        if mode == "binary":
            from firmware_host.simulator import wait_for_hello

            assert wait_for_hello(master, stop)
        os.write(master, sim.hello())
        for _ in range(40):
            data, shown = sim.throw()
            truth.extend(shown)
            os.write(master, data)

    thread = threading.Thread(target=tower)
    thread.start()
    try:
        events = collect(port, reader, 120)
    finally:
        stop.set()
        thread.join()
        port.close()
    readings = [(e.die, e.value) for e in events if isinstance(e, TowerReading)]
    assert readings == truth
    assert reader.mode == mode
    throws = [e.throw for e in events if isinstance(e, TowerReading)]
    assert throws == sorted(throws) and len(set(throws)) == 40
    if mode == "binary":
        assert reader.duplicates > 0  # the retried frames were seen and dropped


def test_crooked_dice_become_rethrow_requests(pty_pair: tuple[int, str]) -> None:
    master, path = pty_pair
    sim = TowerSimulator(slots=(DieCode.D6,) * 3, rng=random.Random(1), crooked=0.5)
    port = SerialPort(path)
    reader = TowerReader("binary")
    data = b"".join(sim.throw()[0] for _ in range(10))
    os.write(master, data)
    events: list[TowerReading | TowerEvent] = []
    deadline = time.monotonic() + 3
    while len(events) < 30 and time.monotonic() < deadline:
        events += reader.feed(port.read(4096))
    port.close()
    rethrows = [e for e in events if isinstance(e, TowerEvent) and e.kind == "rethrow"]
    readings = [e for e in events if isinstance(e, TowerReading)]
    assert rethrows and len(rethrows) + len(readings) == 30


def test_an_unplugged_tower_is_an_error_not_a_result(pty_pair: tuple[int, str]) -> None:
    master, path = pty_pair
    port = SerialPort(path)
    os.close(master)
    with pytest.raises(TowerIOError, match="read failed"):
        for _ in range(50):
            port.read(4096)
    port.close()
    with pytest.raises(TowerIOError, match="cannot open"):
        SerialPort("/dev/does-not-exist")


def test_the_simulator_serves_until_stopped(pty_pair: tuple[int, str]) -> None:
    master, path = pty_pair
    stop = threading.Event()
    sim = TowerSimulator(rng=random.Random(3))
    thread = threading.Thread(target=serve, args=(sim, master, 2, 0.05, stop, 0.0))
    thread.start()
    port = SerialPort(path)
    port.write(Message(Kind.HELLO, 1).encode())
    events = collect(port, TowerReader("auto"), 6)
    stop.set()
    thread.join(timeout=5)
    port.close()
    assert not thread.is_alive()
    assert any(isinstance(e, TowerEvent) and e.kind == "iam" for e in events)


def test_tower_watch_cli(pty_pair: tuple[int, str], capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from dicebridge.cli import main

    master, path = pty_pair
    stop = threading.Event()
    sim = TowerSimulator(slots=(DieCode.D10, DieCode.DF), rng=random.Random(4), noise=0.2)
    thread = threading.Thread(target=serve, args=(sim, master, 0, 0.02, stop, 0.0))
    thread.start()
    try:
        assert main(["tower", "watch", "--port", path, "--count", "6", "--timeout", "10",
                     "--json"]) == 0  # fmt: skip
    finally:
        stop.set()
        thread.join(timeout=5)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 6
    assert [line["die"] for line in lines] == ["d10", "dF"] * 3
    assert all(-1 <= line["value"] <= 1 for line in lines if line["die"] == "dF")
    assert [line["throw"] for line in lines] == [1, 1, 2, 2, 3, 3]
