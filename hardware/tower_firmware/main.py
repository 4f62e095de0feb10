# dicebridge reference tower firmware (MicroPython, RP2040 or ESP32).
#
# Talks protocol v1 over the board's USB serial (stdin/stdout), tumbles the dice
# with a motor on TUMBLE or a button press, reads each slot's face from its face
# reader, and reports ROLL_RESULT per die; a slot whose reader sees no clean face
# reports ROLL_STATE crooked, so the host asks for a re-throw instead of guessing.
# See hardware/tower_firmware/README.md for wiring and the bill of materials.

import select
import sys
import time

import dbwire
from machine import Pin

MOTOR = Pin(15, Pin.OUT, value=0)
BUTTON = Pin(14, Pin.IN, Pin.PULL_UP)
LED = Pin(25, Pin.OUT, value=0)
# One face reader per slot: three lines carry the face index in binary (0-5 for a d6)
# and a fourth says whether the reading is clean; an external optical reader board
# (see README) drives them.
SLOTS = (
    {"die": 2, "bits": (Pin(2, Pin.IN), Pin(3, Pin.IN), Pin(4, Pin.IN)), "ok": Pin(5, Pin.IN)},
    {"die": 2, "bits": (Pin(6, Pin.IN), Pin(7, Pin.IN), Pin(8, Pin.IN)), "ok": Pin(9, Pin.IN)},
)
DEVICE_ID = "dicebridge-ref-1"
FIRMWARE = (1, 0, 0)
CAPABILITIES = 0x01 | 0x02 | 0x04  # tumbles, has LEDs, reads faces
SETTLE_MS = 800

seq = 0
roll_id = 0
start = time.ticks_ms()


def uptime():
    return time.ticks_diff(time.ticks_ms(), start)


def send(make, *args):
    global seq
    seq = (seq + 1) & 0xFFFF
    sys.stdout.buffer.write(make(seq, uptime(), *args))


def hello():
    send(dbwire.iam, DEVICE_ID, FIRMWARE, [s["die"] for s in SLOTS], CAPABILITIES)


def tumble(duration_ms):
    global roll_id
    for slot in range(len(SLOTS)):
        send(dbwire.roll_state, slot, 1)  # rolling
    MOTOR.value(1)
    time.sleep_ms(duration_ms)
    MOTOR.value(0)
    time.sleep_ms(SETTLE_MS)
    roll_id += 1
    for slot, reader in enumerate(SLOTS):
        if not reader["ok"].value():
            send(dbwire.roll_state, slot, 4)  # crooked: the host asks for a re-throw
            continue
        index = sum(bit.value() << i for i, bit in enumerate(reader["bits"]))
        if index > 5:
            send(dbwire.fault, 3, f"slot {slot} reads index {index}")
            continue
        send(dbwire.roll_result, roll_id, slot, reader["die"], index)


def main():
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    buffer = bytearray()
    last_beat = time.ticks_ms()
    hello()
    while True:
        if poll.poll(10):
            buffer.extend(sys.stdin.buffer.read(1))
            while 0 in buffer:
                end = buffer.index(0)
                message = dbwire.unframe(bytes(buffer[:end]))
                buffer = buffer[end + 1 :]
                if message is None:
                    continue
                kind, their_seq, payload = message
                if kind in (dbwire.HELLO, dbwire.REQUEST_STATE):
                    hello()
                elif kind == dbwire.TUMBLE:
                    send(dbwire.ack, their_seq)
                    duration = (payload[0] << 8 | payload[1]) if len(payload) == 2 else 1500
                    tumble(duration)
                elif kind == dbwire.IDENTIFY:
                    send(dbwire.ack, their_seq)
                    for _ in range(6):
                        LED.toggle()
                        time.sleep_ms(150)
                elif kind == dbwire.SET_LED:
                    send(dbwire.ack, their_seq)
                    LED.value(1 if payload and any(payload[1:]) else 0)
                else:
                    send(dbwire.nack, their_seq, 1)
            if len(buffer) > 2048:
                buffer = bytearray()
        if not BUTTON.value():
            tumble(1500)
        if time.ticks_diff(time.ticks_ms(), last_beat) >= 1000:
            send(dbwire.heartbeat)
            last_beat = time.ticks_ms()


main()
