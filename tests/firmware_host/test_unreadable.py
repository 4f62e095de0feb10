"""What a tower sent that could not be read, on real ptys: counted, and a tower sending
nothing but garbage (the wrong baud rate) told apart from a silent one."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from firmware_host.driver import Status
from firmware_host.health import ReadCounts, Tally
from firmware_host.port import SerialPort
from firmware_host.protocol import DieCode, Kind, Message
from firmware_host.reader import TowerReader
from firmware_host.simulator import TowerSimulator, open_pty, serve
from tests.firmware_host.test_driver import Bench, start_driver

GARBAGE = "receiving data but none of it is readable"


@contextmanager
def _tower(sim: TowerSimulator, interval: float = 0.01) -> Iterator[str]:
    """``sim`` throwing until stopped on a real pty: the path to open."""
    master, path = open_pty()
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(sim, master, 0, interval, stop, 0.0))
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)


def _garbled() -> TowerSimulator:
    return TowerSimulator(slots=(DieCode.D6, DieCode.D20), rng=random.Random(7), wrong_baud=True)


def _statuses(bench: Bench, state: str) -> list[Status]:
    return [e for e in bench.events if isinstance(e, Status) and e.state == state]


def _garbage_only_now(bench: Bench) -> bool:
    """What the counts last reported (alone or with a connection change) say."""
    for e in reversed(bench.events):
        if isinstance(e, ReadCounts):
            return e.garbage_only
        if isinstance(e, Status) and e.counts is not None:
            return e.counts.garbage_only
    return False


def test_a_reader_fed_garbage_over_a_pty_counts_it_and_reads_nothing() -> None:
    with _tower(_garbled()) as path:
        port = SerialPort(path, timeout=0.01)
        auto, binary = TowerReader("auto"), TowerReader("binary")
        port.write(Message(Kind.HELLO, 1).encode())  # unheard: it is at another baud rate
        events = []
        deadline = time.monotonic() + 5
        while binary.bad_frames < 20:
            assert time.monotonic() < deadline, f"{binary.bad_frames} bad frames only"
            data = port.read(4096)
            events += auto.feed(data) + binary.feed(data)
        port.close()
    assert events == []  # nothing guessed from the garbage
    assert auto.mode is None  # garbage decides no mode...
    assert auto.unreadable >= 20  # ...but is counted all the same (it was 0: never seen)
    assert binary.unreadable >= binary.bad_frames >= 20


def test_a_tower_sending_only_garbage_is_told_apart_from_a_silent_one() -> None:
    bench = Bench()
    with _tower(_garbled()) as path:
        bench.path = path
        driver, stop, thread = start_driver(bench, heartbeat_s=0.05, report_s=0.05)
        try:
            assert bench.wait_for(lambda: len(_statuses(bench, "disconnected")) >= 2)
        finally:
            stop.set()
            thread.join(timeout=5)
    lost = _statuses(bench, "disconnected")[0]
    assert lost.detail.startswith(GARBAGE), lost.detail  # it read "no heartbeat for 0.1 s"
    assert "unreadable frames in the last minute" in lost.detail
    assert "115,200 baud" in lost.detail and "heartbeat" not in lost.detail
    assert lost.counts is not None and lost.counts.garbage_only
    assert lost.counts.unreadable > 0 and lost.counts.last_minute >= lost.counts.unreadable
    # the next connection still says so (nothing was read since): the page does not flicker
    again = _statuses(bench, "connected")[1].counts
    assert again is not None and again.garbage_only and again.unreadable == 0
    reported = [e for e in bench.events if isinstance(e, ReadCounts)]
    assert reported and max(c.unreadable for c in reported) > 0
    assert driver.reader.mode is None  # no mode was ever made out of it

    silent = Bench()
    master, silent.path = open_pty()
    _, stop, thread = start_driver(silent, heartbeat_s=0.05)
    try:
        assert silent.wait_for(lambda: bool(_statuses(silent, "disconnected")))
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)
    quiet = _statuses(silent, "disconnected")[0]
    assert quiet.detail.startswith("no heartbeat")
    assert quiet.counts == ReadCounts()  # nothing heard, nothing unreadable


def test_a_noisy_tower_reads_on_and_its_unreadable_frames_are_counted() -> None:
    bench = Bench()
    sim = TowerSimulator(slots=(DieCode.D6,), rng=random.Random(3), noise=0.6)
    with _tower(sim, interval=0.02) as path:
        bench.path = path
        _, stop, thread = start_driver(bench, heartbeat_s=0.2, report_s=0.05)
        try:
            assert bench.wait_for(
                lambda: any(isinstance(e, ReadCounts) and e.unreadable >= 5 for e in bench.events)
            )
            assert bench.wait_for(lambda: len(bench.readings()) >= 20)
        finally:
            stop.set()
            thread.join(timeout=5)
    counts = [e for e in bench.events if isinstance(e, ReadCounts)]
    assert not any(c.garbage_only for c in counts)  # noisy, but it reads
    assert not _statuses(bench, "disconnected")  # and stays connected
    assert all(c.unit == "frames" for c in counts)


def test_a_tower_read_again_is_no_longer_said_to_send_garbage() -> None:
    """Its cable mended (a new port): the first thing read clears the garbage-only state."""
    bench = Bench()
    with _tower(_garbled()) as path:
        bench.path = path
        _, stop, thread = start_driver(bench, heartbeat_s=0.05, report_s=0.05)
        try:
            assert bench.wait_for(lambda: bool(_statuses(bench, "disconnected")))
            assert _garbage_only_now(bench)
            sim = TowerSimulator(slots=(DieCode.D6,), rng=random.Random(4))
            with _tower(sim) as good:
                bench.path = good
                assert bench.wait_for(lambda: len(bench.readings()) >= 3)
                assert bench.wait_for(lambda: not _garbage_only_now(bench))
        finally:
            stop.set()
            thread.join(timeout=5)


def test_counts_since_connected_and_over_the_last_minute() -> None:
    tally = Tally(window_s=60.0)
    assert tally.counts(100.0, 0, 0, "frames", False) == ReadCounts()
    assert tally.counts(100.5, 4, 1, "frames", False) == ReadCounts(4, 4, 1)
    tally.connected(4, 1)  # a new connection: its own count starts at 0, the minute goes on
    assert tally.counts(130.0, 6, 1, "frames", False) == ReadCounts(2, 6, 0)
    assert tally.counts(161.0, 6, 1, "frames", False) == ReadCounts(2, 2, 0)  # 100.5 is past
    assert tally.counts(191.0, 6, 1, "lines", True) == ReadCounts(2, 0, 0, "lines", True)


def test_the_count_never_goes_back_when_the_mode_is_found() -> None:
    reader = TowerReader("auto")
    garbage = bytes(random.Random(5).randrange(1, 256) for _ in range(3000))
    reader.feed(garbage + b"\x00" + garbage + b"\n\x00")
    heard = reader.unreadable
    assert heard > 0 and reader.mode is None
    reader.feed(Message(Kind.HEARTBEAT, 1).encode())
    assert reader.mode == "binary" and reader.unreadable >= heard


def test_an_unplugged_garbled_tower_is_lost_not_garbled() -> None:
    """A read error is an unplugging, whatever the tower sent before it."""
    bench = Bench()
    master, path = open_pty()
    bench.path = path
    _, stop, thread = start_driver(bench, heartbeat_s=5.0)
    try:
        assert bench.wait_for(lambda: bool(_statuses(bench, "connected")))
        os.write(master, b"\x13\x37" * 100)
        time.sleep(0.2)
        bench.path = None
        os.close(master)
        assert bench.wait_for(lambda: bool(_statuses(bench, "disconnected")))
    finally:
        stop.set()
        thread.join(timeout=5)
    assert "read failed" in _statuses(bench, "disconnected")[0].detail


def test_a_result_sent_again_and_again_is_a_sign_of_life_not_garbage() -> None:
    """A frame dropped as sent twice gives no event, but it was read: no garbage, no loss."""
    bench = Bench()
    master, bench.path = open_pty()
    result = Message(Kind.ROLL_RESULT, 2, 9, {"roll_id": 1, "slot": 0, "die": DieCode.D6,
                     "face_index": 2}).encode()  # fmt: skip
    _, stop, thread = start_driver(bench, heartbeat_s=0.05)
    try:
        assert bench.wait_for(lambda: bool(_statuses(bench, "connected")))
        for _ in range(50):  # 0.5 s: more than three heartbeat periods
            os.write(master, result)
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)
    assert len(bench.readings()) == 1  # read once, the rest dropped as sent again
    assert not _statuses(bench, "disconnected") and not _garbage_only_now(bench)
