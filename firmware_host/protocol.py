"""The dicebridge tower protocol, version 1: messages and their bytes.

Every frame body is a header — protocol version (u8), message type (u8),
sequence number (u16), device uptime in ms (u32), big-endian — followed by the
message's payload.  See docs/protocol.md for the tables.  Decoding never
guesses: an unknown type, a short payload or an impossible value raises
ProtocolError, and the reader counts it and moves on to the next frame.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field
from typing import Any

from firmware_host.wire import pack_frame, unpack_frame

VERSION = 1
HEADER = struct.Struct(">BBHI")


class ProtocolError(ValueError):
    """A frame that is sound on the wire but not a valid message."""


class Kind(enum.IntEnum):
    HELLO = 0x01
    REQUEST_STATE = 0x02
    TUMBLE = 0x03
    IDENTIFY = 0x04
    SET_LED = 0x05
    IAM = 0x81
    ROLL_STATE = 0x82
    ROLL_RESULT = 0x83
    FAULT = 0x84
    HEARTBEAT = 0x85
    ACK = 0x86
    NACK = 0x87


class DieCode(enum.IntEnum):
    D5 = 1
    D6 = 2
    D10 = 3
    D20 = 4
    DF = 5

    @property
    def die(self) -> str:
        return {1: "d5", 2: "d6", 3: "d10", 4: "d20", 5: "dF"}[self.value]

    def face_value(self, index: int) -> int:
        """The host maps a face index to the face's value (the tower only counts faces)."""
        sizes = {1: 5, 2: 6, 3: 10, 4: 20, 5: 3}
        if not 0 <= index < sizes[self.value]:
            raise ProtocolError(f"a {self.die} has no face index {index}")
        if self is DieCode.D10:
            return index  # faces 0–9
        if self is DieCode.DF:
            return index - 1  # −1, 0, +1
        return index + 1


class SlotState(enum.IntEnum):
    UNKNOWN = 0
    ROLLING = 1
    HANDLING = 2
    ROLLED = 3
    CROOKED = 4
    ON_FACE = 5


class FaultCode(enum.IntEnum):
    JAM = 1
    DOOR_OPEN = 2
    SENSOR = 3


# capability bits in IAM
CAN_TUMBLE = 0x01
HAS_LEDS = 0x02
READS_FACES = 0x04


@dataclass(frozen=True)
class Message:
    """One protocol message: its kind, sequence number, uptime and decoded payload."""

    kind: Kind
    seq: int
    uptime_ms: int = 0
    payload: dict[str, Any] = field(default_factory=dict)

    def encode(self) -> bytes:
        """The whole frame for the wire, 0x00 included."""
        if not 0 <= self.seq <= 0xFFFF:
            raise ProtocolError(f"sequence number {self.seq} does not fit 16 bits")
        head = HEADER.pack(VERSION, self.kind, self.seq, self.uptime_ms & 0xFFFFFFFF)
        return pack_frame(head + _encode_payload(self.kind, self.payload))


def decode(frame: bytes) -> Message:
    """A frame (without its 0x00) to a message; WireError or ProtocolError if it is not one."""
    body = unpack_frame(frame)
    if len(body) < HEADER.size:
        raise ProtocolError("frame shorter than the header")
    version, kind_code, seq, uptime = HEADER.unpack_from(body)
    if version != VERSION:
        raise ProtocolError(f"protocol version {version}; this host speaks {VERSION}")
    try:
        kind = Kind(kind_code)
    except ValueError:
        raise ProtocolError(f"unknown message type 0x{kind_code:02x}") from None
    return Message(kind, seq, uptime, _decode_payload(kind, body[HEADER.size :]))


# --- payloads ---------------------------------------------------------------------------------
def _text(value: object) -> bytes:
    raw = str(value).encode("utf-8")
    if len(raw) > 64:
        raise ProtocolError("text fields are at most 64 bytes")
    return bytes((len(raw),)) + raw


def _read_text(data: bytes, at: int) -> tuple[str, int]:
    if at >= len(data):
        raise ProtocolError("payload ends before a text field")
    size = data[at]
    end = at + 1 + size
    if end > len(data):
        raise ProtocolError("text field runs past the payload")
    try:
        return data[at + 1 : end].decode("utf-8"), end
    except UnicodeDecodeError:
        raise ProtocolError("text field is not UTF-8") from None


def _encode_payload(kind: Kind, p: dict[str, Any]) -> bytes:
    try:
        if kind in (Kind.HELLO, Kind.REQUEST_STATE, Kind.HEARTBEAT):
            return b""
        if kind in (Kind.TUMBLE, Kind.IDENTIFY):
            return struct.pack(">H", p.get("duration_ms", 0))
        if kind is Kind.SET_LED:
            return struct.pack(">BBBB", p["led"], p["red"], p["green"], p["blue"])
        if kind is Kind.IAM:
            slots = [DieCode(s) for s in p["slots"]]
            firmware = tuple(p["firmware"])
            return (
                _text(p["device_id"])
                + struct.pack(">BBBB", *firmware, p["protocol"])
                + bytes((len(slots), *slots))
                + struct.pack(">H", p["capabilities"])
            )
        if kind is Kind.ROLL_STATE:
            return struct.pack(">BB", p["slot"], SlotState(p["state"]))
        if kind is Kind.ROLL_RESULT:
            die = DieCode(p["die"])
            die.face_value(p["face_index"])
            return struct.pack(">IBBB", p["roll_id"], p["slot"], die, p["face_index"])
        if kind is Kind.FAULT:
            return bytes((FaultCode(p["code"]),)) + _text(p.get("detail", ""))
        if kind is Kind.ACK:
            return struct.pack(">H", p["acked"])
        if kind is Kind.NACK:
            return struct.pack(">HB", p["acked"], p.get("reason", 0))
    except (KeyError, struct.error, ValueError, TypeError) as err:
        raise ProtocolError(f"bad {kind.name} payload: {err}") from None
    raise ProtocolError(f"no payload layout for {kind.name}")  # pragma: no cover


def _exact(data: bytes, fmt: str, kind: Kind) -> tuple[int, ...]:
    size = struct.calcsize(fmt)
    if len(data) != size:
        raise ProtocolError(f"{kind.name} payload is {len(data)} bytes, not {size}")
    return struct.unpack(fmt, data)


def _decode_payload(kind: Kind, data: bytes) -> dict[str, Any]:
    if kind in (Kind.HELLO, Kind.REQUEST_STATE, Kind.HEARTBEAT):
        _exact(data, ">", kind)
        return {}
    if kind in (Kind.TUMBLE, Kind.IDENTIFY):
        (duration,) = _exact(data, ">H", kind)
        return {"duration_ms": duration}
    if kind is Kind.SET_LED:
        led, r, g, b = _exact(data, ">BBBB", kind)
        return {"led": led, "red": r, "green": g, "blue": b}
    if kind is Kind.IAM:
        device_id, at = _read_text(data, 0)
        if at + 5 > len(data):
            raise ProtocolError("IAM payload too short")
        major, minor, patch, protocol, count = data[at : at + 5]
        slots_end = at + 5 + count
        if slots_end + 2 != len(data):
            raise ProtocolError("IAM payload length does not match its slot count")
        try:
            slots = [DieCode(code) for code in data[at + 5 : slots_end]]
        except ValueError:
            raise ProtocolError("IAM names an unknown die type") from None
        (capabilities,) = struct.unpack(">H", data[slots_end:])
        return {
            "device_id": device_id,
            "firmware": (major, minor, patch),
            "protocol": protocol,
            "slots": slots,
            "capabilities": capabilities,
        }
    if kind is Kind.ROLL_STATE:
        slot, state = _exact(data, ">BB", kind)
        try:
            return {"slot": slot, "state": SlotState(state)}
        except ValueError:
            raise ProtocolError(f"unknown roll state {state}") from None
    if kind is Kind.ROLL_RESULT:
        roll_id, slot, die_code, index = _exact(data, ">IBBB", kind)
        try:
            die = DieCode(die_code)
        except ValueError:
            raise ProtocolError(f"unknown die type {die_code}") from None
        return {
            "roll_id": roll_id,
            "slot": slot,
            "die": die,
            "face_index": index,
            "value": die.face_value(index),
        }
    if kind is Kind.FAULT:
        if not data:
            raise ProtocolError("FAULT payload is empty")
        try:
            code = FaultCode(data[0])
        except ValueError:
            raise ProtocolError(f"unknown fault code {data[0]}") from None
        detail, end = _read_text(data, 1)
        if end != len(data):
            raise ProtocolError("FAULT payload has trailing bytes")
        return {"code": code, "detail": detail}
    if kind is Kind.ACK:
        (acked,) = _exact(data, ">H", kind)
        return {"acked": acked}
    if kind is Kind.NACK:
        acked, reason = _exact(data, ">HB", kind)
        return {"acked": acked, "reason": reason}
    raise ProtocolError(f"no payload layout for {kind.name}")  # pragma: no cover
