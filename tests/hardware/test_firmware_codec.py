"""The reference firmware's codec (MicroPython code) checked on the host against ours."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host import wire
from firmware_host.protocol import DieCode, FaultCode, Kind, decode

FIRMWARE = Path(__file__).resolve().parents[2] / "hardware" / "tower_firmware" / "dbwire.py"


@pytest.fixture(scope="module")
def dbwire() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dbwire", FIRMWARE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@given(st.binary(max_size=600))
def test_crc_and_cobs_match_the_host(data: bytes) -> None:
    spec = importlib.util.spec_from_file_location("dbwire_h", FIRMWARE)
    assert spec is not None and spec.loader is not None
    fw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fw)
    assert fw.crc16(data) == wire.crc16(data)
    assert fw.cobs_encode(data) == wire.cobs_encode(data)
    assert fw.cobs_decode(wire.cobs_encode(data)) == data


def test_every_tower_message_decodes_on_the_host(dbwire: ModuleType) -> None:
    iam = decode(dbwire.iam(1, 10, "ref-1", (1, 0, 0), [2, 5], 0x07)[:-1])
    assert iam.kind is Kind.IAM and iam.payload["slots"] == [DieCode.D6, DieCode.DF]
    result = decode(dbwire.roll_result(2, 20, 77, 1, 4, 19)[:-1])
    assert (result.payload["roll_id"], result.payload["value"]) == (77, 20)
    crooked = decode(dbwire.roll_state(3, 30, 0, 4)[:-1])
    assert crooked.kind is Kind.ROLL_STATE and crooked.payload["state"].name == "CROOKED"
    fault = decode(dbwire.fault(4, 40, 1, "motor stalled")[:-1])
    assert fault.payload == {"code": FaultCode.JAM, "detail": "motor stalled"}
    assert decode(dbwire.ack(5, 50, 9)[:-1]).payload == {"acked": 9}
    assert decode(dbwire.nack(6, 60, 9, 1)[:-1]).payload == {"acked": 9, "reason": 1}
    assert decode(dbwire.heartbeat(7, 70)[:-1]).kind is Kind.HEARTBEAT


def test_the_firmware_reads_host_commands(dbwire: ModuleType) -> None:
    from firmware_host.protocol import Message

    tumble = Message(Kind.TUMBLE, 12, 0, {"duration_ms": 1500}).encode()
    assert dbwire.unframe(tumble[:-1]) == (dbwire.TUMBLE, 12, b"\x05\xdc")
    bad = bytearray(tumble[:-1])
    bad[3] ^= 0x10
    assert dbwire.unframe(bytes(bad)) is None
