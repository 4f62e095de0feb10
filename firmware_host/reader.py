"""Turning a tower's bytes into readings: either mode, duplicates dropped, nothing guessed.

The reader is fed bytes (from a serial port, a pty, a test) and returns
events.  It never reads a device itself, so it is the same code under the
host driver, `dicebridge tower watch` and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware_host.protocol import Kind, Message, ProtocolError, SlotState, decode
from firmware_host.text import LineReader, ModeDetector
from firmware_host.wire import FrameSplitter, WireError


@dataclass(frozen=True)
class TowerReading:
    """One die a tower read: ``throw`` is shared by the dice of one throw."""

    die: str
    value: int
    throw: int
    slot: int | None = None
    mode: str = "binary"

    def to_json(self) -> dict[str, Any]:
        return {"die": self.die, "value": self.value, "throw": self.throw, "slot": self.slot}


@dataclass(frozen=True)
class TowerEvent:
    """Anything else worth telling: a crooked die to re-throw, a fault, the tower's IAM."""

    kind: str  # "rethrow", "fault", "iam", "state", "heartbeat", "ack", "nack"
    detail: dict[str, Any] = field(default_factory=dict)


RECENT = 4096  # results remembered against a tower sending one again


class TowerReader:
    """Bytes in, readings and events out, in ``auto``, ``binary`` or ``text`` mode."""

    def __init__(self, mode: str = "auto") -> None:
        if mode not in ("auto", "binary", "text"):
            raise ValueError(f"mode is auto, binary or text, not {mode!r}")
        self.mode: str | None = None if mode == "auto" else mode
        self._detector = ModeDetector()
        self._pending = bytearray()  # bytes seen while still detecting
        self._frames = FrameSplitter()
        self._lines = LineReader()
        # results already read, by (roll id, slot): the recent ones only (a result re-sent
        # after a replug is recent), so a tower throwing for weeks keeps no growing set
        self._seen: dict[tuple[int, int], None] = {}
        self._uptime = -1  # the tower's uptime in its last message: a smaller one is a reboot
        self._slots: tuple[str, ...] | None = None  # the die of each slot, from its IAM
        self._text_throws = 0
        self.bad_frames = 0  # frames that failed their CRC, COBS or message checks
        self.refused = 0  # results for a die the tower never announced
        self.duplicates = 0
        self.understood = 0  # frames decoded and lines read as throws: signs of life
        self._carried = 0  # garbage heard while the mode was unknown, not counted again since

    @property
    def ignored_lines(self) -> int:
        return self._lines.ignored

    @property
    def unreadable(self) -> int:
        """Pieces of the stream that could not be read at all, ever: bad frames and runs too
        long to be one (binary), lines that are no throw (text); while the mode is still
        unknown, the garbage heard in either sense (whichever counted more)."""
        if self.mode is None:
            return self._detector.unreadable
        return self._carried + self._counted()

    def _counted(self) -> int:
        if self.mode == "binary":
            return self.bad_frames + self._frames.overflows
        return self._lines.ignored

    def reset(self) -> None:
        """Forget a frame or line half received: the tower was unplugged mid-way, and its
        first bytes after a replug start afresh.  What was read is still remembered, so a
        result the tower sends again is dropped."""
        self._frames.reset()
        self._lines.reset()

    def feed(self, data: bytes) -> list[TowerReading | TowerEvent]:
        if self.mode is None:
            self._pending += data
            if len(self._pending) > 64 * 1024:  # keep only the recent past while undecided
                del self._pending[: len(self._pending) - 32 * 1024]
            self.mode = self._detector.feed(data)
            if self.mode is None:
                return []
            data, self._pending = bytes(self._pending), bytearray()
            heard = self._detector.unreadable
            out = self._binary(data) if self.mode == "binary" else self._text(data)
            # the bytes heard while undecided were read again just now and counted afresh;
            # what only the detector counted (bytes no longer kept, the other mode's sense of
            # them) is carried, so the count never goes back
            self._carried = max(0, heard - self._counted())
            return out
        if self.mode == "binary":
            return self._binary(data)
        return self._text(data)

    def _binary(self, data: bytes) -> list[TowerReading | TowerEvent]:
        out: list[TowerReading | TowerEvent] = []
        for chunk in self._frames.feed(data):
            try:
                message = decode(chunk)
            except (WireError, ProtocolError):
                self.bad_frames += 1
                continue
            self.understood += 1
            out += self._message(message)
        return out

    def _message(self, m: Message) -> list[TowerReading | TowerEvent]:
        p = m.payload
        if m.uptime_ms < self._uptime:  # the tower started again: its roll ids start again
            self._seen.clear()
        self._uptime = m.uptime_ms
        if m.kind is Kind.ROLL_RESULT:
            key = (p["roll_id"], p["slot"])
            if key in self._seen:
                self.duplicates += 1
                return []
            die, slot = p["die"].die, p["slot"]
            if self._slots is not None and (slot >= len(self._slots) or self._slots[slot] != die):
                # not what the tower said it holds: refused, never a result (docs/protocol.md)
                self.refused += 1
                held = self._slots[slot] if slot < len(self._slots) else "no die"
                why = f"a {die} reported in slot {slot}, which holds {held}: not recorded"
                return [TowerEvent("fault", {"code": "not_announced", "detail": why})]
            self._seen[key] = None
            if len(self._seen) > RECENT:
                del self._seen[next(iter(self._seen))]
            return [TowerReading(die, p["value"], p["roll_id"], slot)]
        if m.kind is Kind.ROLL_STATE:
            if p["state"] is SlotState.CROOKED:
                return [TowerEvent("rethrow", {"slot": p["slot"], "why": "crooked die"})]
            return [TowerEvent("state", {"slot": p["slot"], "state": p["state"].name.lower()})]
        if m.kind is Kind.FAULT:
            return [TowerEvent("fault", {"code": p["code"].name.lower(), "detail": p["detail"]})]
        if m.kind is Kind.IAM:
            self._slots = tuple(code.die for code in p["slots"])
            return [TowerEvent("iam", dict(p))]
        names = {Kind.HEARTBEAT: "heartbeat", Kind.ACK: "ack", Kind.NACK: "nack"}
        return [TowerEvent(names.get(m.kind, m.kind.name.lower()), {"seq": m.seq, **p})]

    def _text(self, data: bytes) -> list[TowerReading | TowerEvent]:
        out: list[TowerReading | TowerEvent] = []
        for throw in self._lines.feed(data):
            self._text_throws += 1
            self.understood += 1
            out += [
                TowerReading(d, v, self._text_throws, slot, mode="text")
                for slot, (d, v) in enumerate(throw.dice)
            ]  # a text line's dice in order: their slots
        return out
