"""A simulated dice tower, for demos and tests: speaks either mode over any byte sink.

``TowerSimulator.throw()`` returns the bytes one throw puts on the wire, with
optional noise, crooked dice and repeated frames (a tower retrying), from an
injected random generator.  ``serve_pty`` runs one on a pseudo-terminal so that
real serial code (pyserial) can open it like a USB tower.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_host.protocol import (
    CAN_TUMBLE,
    READS_FACES,
    DieCode,
    FaultCode,
    Kind,
    Message,
    ProtocolError,
    SlotState,
    decode,
)
from firmware_host.wire import FrameSplitter, WireError

SIZES = {DieCode.D5: 5, DieCode.D6: 6, DieCode.D10: 10, DieCode.D20: 20, DieCode.DF: 3}
TEXT_VALUE = {DieCode.DF: ("-", "0", "+")}


@dataclass
class TowerSimulator:
    slots: tuple[DieCode, ...] = (DieCode.D6, DieCode.D6, DieCode.D6)
    mode: str = "binary"
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    noise: float = 0.0  # chance of a burst of garbage before a frame or line
    crooked: float = 0.0  # chance that a die lands cocked (binary mode reports it)
    repeat: float = 0.0  # chance that a result frame is sent twice
    fault_every: int = 0  # send a FAULT (jam) every N throws
    # at a baud rate the host does not use: every byte each side sends arrives as another,
    # so it never hears HELLO and the host reads nothing but garbage
    wrong_baud: bool = False
    device_id: str = "sim-tower"
    _seq: int = 0
    _roll: int = 0
    _start: float = field(default_factory=time.monotonic)

    def _message(self, kind: Kind, **payload: object) -> bytes:
        self._seq = (self._seq + 1) & 0xFFFF
        uptime = int((time.monotonic() - self._start) * 1000)
        return Message(kind, self._seq, uptime, dict(payload)).encode()

    def hello(self) -> bytes:
        if self.mode == "text":
            return b"dicebridge simulated tower, text mode\r\n"
        return self._message(
            Kind.IAM,
            device_id=self.device_id,
            firmware=(1, 0, 0),
            protocol=1,
            slots=list(self.slots),
            capabilities=CAN_TUMBLE | READS_FACES,
        )

    def heartbeat(self) -> bytes:
        return b"" if self.mode == "text" else self._message(Kind.HEARTBEAT)

    def ack(self, seq: int) -> bytes:
        return self._message(Kind.ACK, acked=seq)

    def _garbage(self) -> bytes:
        """Line noise before a frame, then the 0x00 a sender puts first to flush it."""
        if self.rng.random() >= self.noise:
            return b""
        burst = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 40)))
        return burst + (b"\x00" if self.mode == "binary" else b"\r\n")

    def garbled(self, data: bytes) -> bytes:
        """``data`` as the host hears it: with ``wrong_baud``, every byte another."""
        if not self.wrong_baud:
            return data
        return bytes(b ^ self.rng.randrange(1, 256) for b in data)

    def throw(self) -> tuple[bytes, list[tuple[str, int]]]:
        """The bytes of one throw and the (die, value) pairs it truly showed."""
        self._roll += 1
        if self.fault_every and self.mode == "binary" and self._roll % self.fault_every == 0:
            return self._message(Kind.FAULT, code=FaultCode.JAM, detail="tumbler jammed"), []
        faces = [(die, self.rng.randrange(SIZES[die])) for die in self.slots]
        truth = [(die.die, die.face_value(i)) for die, i in faces]
        if self.mode == "text":
            tokens = [
                f"{die.die}:{TEXT_VALUE[die][i] if die in TEXT_VALUE else die.face_value(i)}"
                for die, i in faces
            ]
            return self._garbage() + (" ".join(tokens) + "\r\n").encode(), truth
        out = bytearray()
        shown = []
        for slot, (die, index) in enumerate(faces):
            out += self._garbage()
            if self.rng.random() < self.crooked:
                out += self._message(Kind.ROLL_STATE, slot=slot, state=SlotState.CROOKED)
                continue
            frame = self._message(
                Kind.ROLL_RESULT, roll_id=self._roll, slot=slot, die=die, face_index=index
            )
            out += frame
            if self.rng.random() < self.repeat:
                out += frame  # a retry: same roll id and slot, must not count twice
            shown.append((die.die, die.face_value(index)))
        return bytes(out), shown


def open_pty() -> tuple[int, str]:
    """A pseudo-terminal: the master fd (the tower's side) and the slave's path."""
    import termios
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
    attrs = termios.tcgetattr(slave)
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    return master, os.ttyname(slave)


def wait_for_hello(master: int, stop: threading.Event) -> bool:
    """Block until the host sends HELLO (binary towers answer a host; they do not
    throw into an unopened port, whose buffered bytes a serial open would discard)."""
    import select

    frames = FrameSplitter()
    while not stop.is_set():
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            continue
        try:
            data = os.read(master, 4096)
        except OSError:
            return False
        for chunk in frames.feed(data):
            try:
                if decode(chunk).kind in (Kind.HELLO, Kind.REQUEST_STATE):
                    return True
            except (WireError, ProtocolError):
                continue
    return False


def _answer(sim: TowerSimulator, master: int, frames: FrameSplitter, wait: float) -> int:
    """Wait up to ``wait`` s for host commands and answer them (ACK; TUMBLE also throws).

    Returns how many throws the commands asked for.
    """
    import select

    ready, _, _ = select.select([master], [], [], wait)
    if not ready:
        return 0
    try:
        data = os.read(master, 4096)
    except OSError:
        return 0
    throws = 0
    for chunk in frames.feed(data):
        try:
            command = decode(chunk)
        except (WireError, ProtocolError):
            continue
        if command.kind in (Kind.HELLO, Kind.REQUEST_STATE):
            os.write(master, sim.hello())
        elif command.kind in (Kind.TUMBLE, Kind.IDENTIFY, Kind.SET_LED):
            os.write(master, sim.ack(command.seq))
            throws += command.kind is Kind.TUMBLE
    return throws


def serve(
    sim: TowerSimulator,
    master: int,
    throws: int,
    interval: float,
    stop: threading.Event,
    linger: float = 0.0,
) -> None:
    """Answer the host's HELLO (binary) or greet (text), then ``throws`` throws every
    ``interval`` s (0: until stopped), then heartbeats for ``linger`` s (0: until stopped).
    Commands are answered all along; TUMBLE throws at once.  A tower at the wrong baud
    rate understands no command: it throws unasked, and every byte is garbled."""
    if sim.wrong_baud:
        _babble(sim, master, throws, interval, stop)
        return
    if sim.mode == "binary" and not wait_for_hello(master, stop):
        return
    os.write(master, sim.hello())
    frames = FrameSplitter()
    done = 0
    try:
        while not stop.is_set() and (throws == 0 or done < throws):
            data, _ = sim.throw()
            os.write(master, data)
            done += 1
            extra = _answer(sim, master, frames, interval) if sim.mode == "binary" else 0
            if sim.mode == "text" and stop.wait(interval):
                return
            for _ in range(extra):
                os.write(master, sim.throw()[0])
            os.write(master, sim.heartbeat())
        end = time.monotonic() + linger if linger else None
        beat = min(interval, 1.0) if interval else 1.0
        while not stop.is_set():
            for _ in range(_answer(sim, master, frames, beat) if sim.mode == "binary" else 0):
                os.write(master, sim.throw()[0])
            os.write(master, sim.heartbeat())
            if sim.mode == "text" and stop.wait(beat):
                return
            if end is not None and time.monotonic() >= end:
                return
    except OSError:
        return  # the pty was closed under us: the tower was unplugged


def _babble(
    sim: TowerSimulator, master: int, throws: int, interval: float, stop: threading.Event
) -> None:
    """A tower at the wrong baud rate: its greeting, throws and heartbeats, all garbled."""
    done = 0
    try:
        os.write(master, sim.garbled(sim.hello()))
        while not stop.is_set() and (throws == 0 or done < throws):
            os.write(master, sim.garbled(sim.throw()[0] + sim.heartbeat()))
            done += 1
            stop.wait(interval)
    except OSError:
        return  # unplugged


def serve_tcp(
    sim: TowerSimulator,
    port: int,
    throws: int,
    interval: float,
    stop: threading.Event,
    on_listening: Callable[[int], None] | None = None,
) -> None:
    """The same tower on a TCP port on the loopback (``socket://127.0.0.1:PORT``),
    one host at a time."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(1)
        server.settimeout(0.2)
        if on_listening is not None:
            on_listening(server.getsockname()[1])
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                serve(sim, conn.fileno(), throws, interval, stop)
