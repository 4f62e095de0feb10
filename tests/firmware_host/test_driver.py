"""The host driver on real ptys: heartbeats, commands, and a hundred unplug/replug cycles."""

from __future__ import annotations

import functools
import os
import random
import threading
import time
from collections.abc import Callable

from firmware_host.driver import Status, TowerDriver, find_port
from firmware_host.port import SerialPort, TowerIOError
from firmware_host.protocol import DieCode, Kind
from firmware_host.reader import TowerEvent, TowerReading
from firmware_host.simulator import TowerSimulator, open_pty, serve


class Bench:
    """The test's side of the table: plugs simulated towers in and out, collects events."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.events: list[object] = []
        self.changed = threading.Condition()

    def open_port(self) -> SerialPort:
        if self.path is None:
            raise TowerIOError("no tower plugged in")
        return SerialPort(self.path, timeout=0.01)

    def on_event(self, event: object) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def readings(self) -> list[TowerReading]:
        return [e for e in self.events if isinstance(e, TowerReading)]

    def wait_for(self, predicate, timeout: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
        with self.changed:
            return self.changed.wait_for(predicate, timeout)


def start_driver(
    bench: Bench, **options: float
) -> tuple[TowerDriver, threading.Event, threading.Thread]:
    driver = TowerDriver(bench.open_port, bench.on_event, **options)  # type: ignore[arg-type]
    stop = threading.Event()
    thread = threading.Thread(target=driver.run, args=(stop,), daemon=True)
    thread.start()
    return driver, stop, thread


def test_a_hundred_unplug_replug_cycles_lose_and_double_nothing() -> None:
    bench = Bench()
    sim = TowerSimulator(slots=(DieCode.D6, DieCode.D20), rng=random.Random(5))
    driver, stop, thread = start_driver(bench, heartbeat_s=0.2)
    expected = 0
    try:
        for _cycle in range(100):
            master, path = open_pty()
            tower_stop = threading.Event()
            tower = threading.Thread(target=serve, args=(sim, master, 2, 0.002, tower_stop, 0.0))
            tower.start()
            bench.path = path
            expected += 4  # two throws of two dice
            assert bench.wait_for(lambda n=expected: len(bench.readings()) >= n), (
                f"cycle {_cycle}: {len(bench.readings())} of {expected} readings"
            )
            bench.path = None
            tower_stop.set()
            tower.join()
            os.close(master)  # unplug
            assert bench.wait_for(
                lambda c=_cycle: (
                    sum(isinstance(e, Status) and e.state == "disconnected" for e in bench.events)
                    > c
                )
            )
    finally:
        stop.set()
        thread.join(timeout=5)
    readings = bench.readings()
    assert len(readings) == expected == 400
    assert len({(r.throw, r.slot) for r in readings}) == 400  # none doubled
    assert driver.connections == 100


def test_silence_means_disconnected() -> None:
    bench = Bench()
    master, path = open_pty()
    bench.path = path
    driver, stop, thread = start_driver(bench, heartbeat_s=0.05, missed_heartbeats=3)
    try:
        # the tower never answers: after 3 × 0.05 s of silence the driver gives up on it
        assert bench.wait_for(
            lambda: any(isinstance(e, Status) and "heartbeat" in e.detail for e in bench.events)
        )
        assert driver.connections >= 1
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)


def test_commands_are_acknowledged_or_reported_missing() -> None:
    bench = Bench()
    master, path = open_pty()
    sim = TowerSimulator(slots=(DieCode.D10,), rng=random.Random(6))
    tower_stop = threading.Event()
    tower = threading.Thread(target=serve, args=(sim, master, 1, 0.01, tower_stop, 0.0))
    tower.start()
    bench.path = path
    driver, stop, thread = start_driver(bench, heartbeat_s=1.0)
    try:
        assert bench.wait_for(lambda: len(bench.readings()) >= 1)
        assert driver.command(Kind.TUMBLE, duration_ms=500) is True
        assert bench.wait_for(lambda: len(bench.readings()) >= 2)  # the tumble threw again
        assert any(isinstance(e, TowerEvent) and e.kind == "ack" for e in bench.events)
        tower_stop.set()
        tower.join()
        started = time.monotonic()
        assert driver.command(Kind.IDENTIFY, duration_ms=100) is False  # nobody answers now
        assert time.monotonic() - started >= driver.ack_timeout * driver.ack_retries * 0.9
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)


def test_unknown_usb_tower_is_not_found() -> None:
    assert find_port(0xFFFF, 0xFFFF, "no-such-tower") is None


def test_two_towers_at_once_keep_their_readings_apart() -> None:
    from firmware_host.driver import TowerFleet

    events: dict[str, list[object]] = {"left": [], "right": []}
    done = threading.Condition()

    def on_event(name: str, event: object) -> None:
        with done:
            events[name].append(event)
            done.notify_all()

    towers: dict[str, Callable[[], SerialPort]] = {}
    stops = []
    threads = []
    for name, die in (("left", DieCode.D6), ("right", DieCode.D20)):
        master, path = open_pty()
        stop = threading.Event()
        sim = TowerSimulator(slots=(die,), rng=random.Random(len(name)))
        t = threading.Thread(target=serve, args=(sim, master, 5, 0.005, stop, 0.0))
        t.start()
        towers[name] = functools.partial(SerialPort, path, timeout=0.01)
        stops.append((stop, master))
        threads.append(t)
    fleet = TowerFleet(towers, on_event, heartbeat_s=1.0)
    fleet.start()
    try:
        with done:
            assert done.wait_for(
                lambda: all(
                    sum(isinstance(e, TowerReading) for e in evs) >= 5 for evs in events.values()
                ),
                5.0,
            )
    finally:
        fleet.stop()
        for (stop, master), t in zip(stops, threads, strict=True):
            stop.set()
            t.join()
            os.close(master)
    dice = {n: {e.die for e in evs if isinstance(e, TowerReading)} for n, evs in events.items()}
    assert dice == {"left": {"d6"}, "right": {"d20"}}


def test_a_tower_on_tcp_with_faults() -> None:
    from firmware_host.simulator import serve_tcp

    listening: list[int] = []
    ready = threading.Event()
    stop = threading.Event()
    sim = TowerSimulator(slots=(DieCode.D6,), rng=random.Random(8), fault_every=3)

    def on_listening(port: int) -> None:
        listening.append(port)
        ready.set()

    server = threading.Thread(target=serve_tcp, args=(sim, 0, 6, 0.005, stop, on_listening))
    server.start()
    assert ready.wait(5)
    bench = Bench()
    bench.path = f"socket://127.0.0.1:{listening[0]}"
    _, driver_stop, thread = start_driver(bench, heartbeat_s=1.0)
    try:
        assert bench.wait_for(lambda: len(bench.readings()) >= 4)
        assert bench.wait_for(
            lambda: any(isinstance(e, TowerEvent) and e.kind == "fault" for e in bench.events)
        )
    finally:
        driver_stop.set()
        thread.join(timeout=5)
        stop.set()
        server.join(timeout=5)
    faults = [e for e in bench.events if isinstance(e, TowerEvent) and e.kind == "fault"]
    assert faults[0].detail["code"] == "jam"


def test_a_usb_opener_says_which_tower_is_missing() -> None:
    import pytest

    from firmware_host.driver import usb_port_opener

    opener = usb_port_opener(0x2E8A, 0x000A, "E660")
    with pytest.raises(TowerIOError, match="2e8a:000a serial E660"):
        opener()
