"""The host driver: keeps one tower connected and turns its bytes into events.

* On connect it says HELLO and REQUEST_STATE, so a tower that was unplugged
  re-announces itself and its slots.
* Three missed heartbeats (or a read error: the tower was unplugged) mean
  disconnected: "no heartbeat" where nothing came, "receiving data but none of it
  is readable" where only garbage did (the wrong baud rate or mode, a broken
  cable); it reconnects with exponential backoff, finding the port again
  through the ``open_port`` function it was given (for USB towers,
  :func:`find_port` looks the device up by vendor, product and serial number).
* One TowerReader lives across reconnections, so a result the tower re-sends
  after a replug is dropped by its roll id: no reading lost or doubled.
* Commands are retried when no ACK arrives.
* What could not be read is counted and reported (:class:`ReadCounts`): with each
  connection change, and when it changes, at most every ``report_s`` seconds.

The driver owns no port, no thread and no clock of its own: all are passed in,
so tests run it on a real pty and a real thread.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware_host.health import ReadCounts, Tally, garbage_words
from firmware_host.port import BytePort, TowerIOError
from firmware_host.protocol import Kind, Message
from firmware_host.reader import TowerEvent, TowerReader, TowerReading

Event = TowerReading | TowerEvent | ReadCounts


@dataclass(frozen=True)
class Status:
    """Connection changes: "connected", "disconnected" (with why), "retrying"; with the
    counts of what could not be read as the change happened (none while retrying)."""

    state: str
    detail: str = ""
    counts: ReadCounts | None = None


@dataclass
class TowerDriver:
    open_port: Callable[[], BytePort]
    on_event: Callable[[Event | Status], None]
    heartbeat_s: float = 1.0
    missed_heartbeats: int = 3
    backoff_start: float = 0.05
    backoff_max: float = 5.0
    ack_timeout: float = 0.3
    ack_retries: int = 3
    mode: str = "auto"
    report_s: float = 2.0  # counts that changed are reported at most this often
    reader: TowerReader = field(init=False)
    _port: BytePort | None = field(default=None, init=False)
    _seq: int = field(default=0, init=False)
    _acks: set[int] = field(default_factory=set, init=False)
    _waiting: set[int] = field(default_factory=set, init=False)  # commands awaiting an ACK
    _ack_ready: threading.Condition = field(default_factory=threading.Condition, init=False)
    connections: int = field(default=0, init=False)
    _tally: Tally = field(default_factory=Tally, init=False)
    _garbage_only: bool = field(default=False, init=False)  # until something is read
    _reported: tuple[float, ReadCounts] = field(default=(0.0, ReadCounts()), init=False)

    def __post_init__(self) -> None:
        self.reader = TowerReader(self.mode)

    # --- what could not be read -----------------------------------------------------------
    def counts(self) -> ReadCounts:
        """What this tower sent that could not be read (called on the driver's thread)."""
        r = self.reader
        unit = "lines" if r.mode == "text" else "frames"
        now = time.monotonic()
        return self._tally.counts(now, r.unreadable, r.refused, unit, self._garbage_only)

    def _report(self) -> None:
        """Counts that changed, said: at once where garbage-only began or ended, else at
        most every ``report_s`` (a noisy line must not flood the page with news)."""
        counts = self.counts()
        at, last = self._reported
        if counts == last:
            return
        if counts.garbage_only == last.garbage_only and time.monotonic() - at < self.report_s:
            return
        self._reported = (time.monotonic(), counts)
        self.on_event(counts)

    def _status(self, state: str, detail: str = "") -> None:
        counts = self.counts()
        self._reported = (time.monotonic(), counts)  # carried by the status: said already
        self.on_event(Status(state, detail, counts))

    # --- commands -------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq = (self._seq % 0xFFFF) + 1
        return self._seq

    def _write(self, message: Message) -> None:
        port = self._port
        if port is None:
            raise TowerIOError("no tower connected")
        port.write(message.encode())

    def command(self, kind: Kind, **payload: Any) -> bool:
        """Send a command and wait for its ACK, retrying; False if it never came."""
        message = Message(kind, self._next_seq(), 0, dict(payload))
        with self._ack_ready:
            self._waiting.add(message.seq)
        try:
            for _ in range(self.ack_retries):
                try:
                    self._write(message)
                except TowerIOError:
                    return False
                with self._ack_ready:
                    if self._ack_ready.wait_for(
                        lambda: message.seq in self._acks, self.ack_timeout
                    ):
                        return True
            return False
        finally:
            with self._ack_ready:
                self._waiting.discard(message.seq)
                self._acks.discard(message.seq)

    # --- the loop -------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Connect, read, reconnect — until ``stop`` is set."""
        delay = self.backoff_start
        while not stop.is_set():
            try:
                self._port = self.open_port()
            except TowerIOError as err:
                self.on_event(Status("retrying", f"{err}; next try in {delay:.2f} s"))
                stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            delay = self.backoff_start
            self.reader.reset()  # a frame or line cut off by the last unplugging is no start
            self.connections += 1
            self._tally.connected(self.reader.unreadable, self.reader.refused)
            self._status("connected")
            why = self._read_until_lost(stop)
            port, self._port = self._port, None
            with contextlib.suppress(OSError):
                port.close()
            if not stop.is_set():
                self._status("disconnected", why)

    def _read_until_lost(self, stop: threading.Event) -> str:
        port = self._port
        assert port is not None
        try:
            if self.mode != "text":
                port.write(Message(Kind.HELLO, self._next_seq()).encode())
                port.write(Message(Kind.REQUEST_STATE, self._next_seq()).encode())
        except TowerIOError as err:
            return str(err)
        last_heard = time.monotonic()
        silence = self.heartbeat_s * self.missed_heartbeats
        unread = 0  # bytes since the last thing read: garbage, if the silence runs out
        while not stop.is_set():
            try:
                data = port.read(4096)
            except TowerIOError as err:
                return str(err)
            if data:
                understood = self.reader.understood
                events = self.reader.feed(data)
                # any frame is a sign of life (a result sent again too, though it gives no
                # event); bytes that make none are garbage so far
                if self.reader.understood > understood:
                    last_heard = time.monotonic()
                    unread = 0
                    self._garbage_only = False
                else:
                    unread += len(data)
                for event in events:
                    if isinstance(event, TowerEvent) and event.kind == "ack":
                        with self._ack_ready:  # only ACKs awaited are kept: a tower ACKing
                            # what it was never sent would grow the set for ever
                            if event.detail["acked"] in self._waiting:
                                self._acks.add(event.detail["acked"])
                                self._ack_ready.notify_all()
                    self.on_event(event)
            # a text tower's only sign of life is a throw: quiet, it is never called lost
            if self.reader.mode != "text" and time.monotonic() - last_heard > silence:
                # checked with data coming too: a tower babbling garbage non-stop was
                # never called lost, and a silent one and a garbled one read the same
                self._garbage_only = unread > 0
                if self._garbage_only:
                    return garbage_words(self.counts())
                return f"no heartbeat for {silence:.1f} s"
            self._report()
        return "stopped"


def find_port(vid: int, pid: int, serial_number: str | None = None) -> str | None:
    """The device path of a USB tower with these ids, or None if it is not plugged in."""
    from serial.tools import list_ports  # pyserial, imported only when looking

    for info in list_ports.comports():
        same_serial = serial_number is None or info.serial_number == serial_number
        if info.vid == vid and info.pid == pid and same_serial:
            return str(info.device)
    return None


class TowerFleet:
    """Several towers at once: one driver and one thread each, events tagged by name."""

    def __init__(
        self,
        towers: Mapping[str, Callable[[], BytePort]],
        on_event: Callable[[str, Event | Status], None],
        modes: Mapping[str, str] | None = None,
        **options: Any,
    ) -> None:
        """``modes``: a tower's own mode ("auto", "binary" or "text"; auto where none)."""
        self._stop = threading.Event()
        self.drivers = {
            name: TowerDriver(
                opener, _tagged(on_event, name), mode=(modes or {}).get(name, "auto"), **options
            )
            for name, opener in towers.items()
        }
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for name, driver in self.drivers.items():
            thread = threading.Thread(
                target=driver.run, args=(self._stop,), name=f"tower-{name}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout)


def _tagged(
    on_event: Callable[[str, Event | Status], None], name: str
) -> Callable[[Event | Status], None]:
    def forward(event: Event | Status) -> None:
        on_event(name, event)

    return forward


def usb_port_opener(
    vid: int, pid: int, serial_number: str | None = None, baudrate: int = 115_200
) -> Callable[[], BytePort]:
    """An ``open_port`` for TowerDriver that finds a USB tower wherever it was replugged."""
    from firmware_host.port import SerialPort

    def open_port() -> BytePort:
        path = find_port(vid, pid, serial_number)
        if path is None:
            wanted = f"{vid:04x}:{pid:04x}" + (f" serial {serial_number}" if serial_number else "")
            raise TowerIOError(f"no tower with USB id {wanted} is plugged in")
        return SerialPort(path, baudrate=baudrate)

    return open_port
