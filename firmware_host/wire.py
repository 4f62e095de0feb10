"""The tower protocol's framing: COBS-encoded frames ending in 0x00, each with a CRC.

A frame on the wire is ``COBS(body + crc16) + b"\\x00"``.  COBS removes every
zero byte from the encoded frame, so a 0x00 always marks a frame's end and
resynchronises a reader that lost its place.  The CRC is CRC-16/CCITT-FALSE
(polynomial 0x1021, initial 0xFFFF), which is ``binascii.crc_hqx(data, 0xFFFF)``,
sent big-endian.

Deliberately plain (bytes in, bytes out, no dataclasses): the reference
firmware in ``hardware/`` uses the same functions under MicroPython.
"""

import binascii

DELIMITER = b"\x00"
MAX_FRAME = 1024  # bytes of body; anything longer is noise, not a frame


class WireError(ValueError):
    """A frame that cannot be decoded: bad COBS, bad CRC, too short or too long."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no zero bytes."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block = bytearray()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; WireError on a zero byte or a code past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise WireError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise WireError("COBS code runs past the end of the frame")
        block = data[i + 1 : end]
        if 0 in block:
            raise WireError("zero byte inside a COBS frame")
        out += block
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def pack_frame(body: bytes) -> bytes:
    """A body ready for the wire: CRC appended, COBS-encoded, 0x00-terminated."""
    if len(body) > MAX_FRAME:
        raise WireError(f"a frame body of {len(body)} bytes is over {MAX_FRAME}")
    crc = crc16(body)
    return cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + DELIMITER


def unpack_frame(encoded: bytes) -> bytes:
    """The body of one frame (without its 0x00); WireError if it is not a sound frame."""
    if not encoded:
        raise WireError("empty frame")
    if len(encoded) > MAX_FRAME + 8:
        raise WireError("frame too long")
    raw = cobs_decode(encoded)
    if len(raw) < 2:
        raise WireError("frame too short for a CRC")
    body, crc = raw[:-2], (raw[-2] << 8) | raw[-1]
    if crc16(body) != crc:
        raise WireError("CRC mismatch")
    return body


class FrameSplitter:
    """Cuts a byte stream at 0x00 delimiters; keeps the unfinished tail between feeds.

    An overlong run without a delimiter is dropped (counted in ``overflows``) so
    noise cannot grow the buffer without bound.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.overflows = 0

    def reset(self) -> None:
        """Forget a frame half received (the tower was unplugged mid-frame)."""
        self._buffer.clear()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        chunks = []
        while True:
            end = self._buffer.find(0)
            if end < 0:
                break
            chunk = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if chunk:
                chunks.append(chunk)
        if len(self._buffer) > 2 * MAX_FRAME + 16:
            self._buffer.clear()
            self.overflows += 1
        return chunks
