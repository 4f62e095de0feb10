# dicebridge tower protocol v1: framing and the tower's messages, for MicroPython.
#
# Plain on purpose: no typing, no dataclasses, no binascii.crc_hqx (MicroPython lacks
# it), so the same file runs on an RP2040 or ESP32 and on the host, where
# tests/hardware/test_firmware_codec.py checks it byte for byte against firmware_host.

import struct

VERSION = 1
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


def crc16(data):
    # CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def cobs_encode(data):
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        out.extend(data[i + 1 : i + code])
        i += code
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def frame(kind, seq, uptime_ms, payload=b""):
    body = struct.pack(">BBHI", VERSION, kind, seq & 0xFFFF, uptime_ms & 0xFFFFFFFF) + payload
    crc = crc16(body)
    return cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def unframe(encoded):
    # (kind, seq, payload) of a frame without its 0x00, or None if it is not sound
    raw = cobs_decode(encoded)
    if raw is None or len(raw) < 10:
        return None
    body = raw[:-2]
    if crc16(body) != (raw[-2] << 8) | raw[-1]:
        return None
    version, kind, seq, _uptime = struct.unpack(">BBHI", body[:8])
    if version != VERSION:
        return None
    return kind, seq, body[8:]


def iam(seq, uptime_ms, device_id, firmware, slots, capabilities):
    ident = device_id.encode()
    payload = (
        bytes((len(ident),))
        + ident
        + bytes((firmware[0], firmware[1], firmware[2], VERSION, len(slots)))
        + bytes(slots)
        + struct.pack(">H", capabilities)
    )
    return frame(IAM, seq, uptime_ms, payload)


def roll_result(seq, uptime_ms, roll_id, slot, die_code, face_index):
    return frame(
        ROLL_RESULT, seq, uptime_ms, struct.pack(">IBBB", roll_id, slot, die_code, face_index)
    )


def roll_state(seq, uptime_ms, slot, state):
    return frame(ROLL_STATE, seq, uptime_ms, bytes((slot, state)))


def fault(seq, uptime_ms, code, detail=""):
    text = detail.encode()[:64]
    return frame(FAULT, seq, uptime_ms, bytes((code, len(text))) + text)


def ack(seq, uptime_ms, acked):
    return frame(ACK, seq, uptime_ms, struct.pack(">H", acked))


def nack(seq, uptime_ms, acked, reason):
    return frame(NACK, seq, uptime_ms, struct.pack(">HB", acked, reason))


def heartbeat(seq, uptime_ms):
    return frame(HEARTBEAT, seq, uptime_ms)
