"""The tower reader at its edges: a tower that reboots, one that reports a die it never
announced, lines too long to be throws, frames cut off by an unplugging, a flood of
results, and text towers' lines with stray control characters."""

from __future__ import annotations

from firmware_host.protocol import DieCode, Kind, Message
from firmware_host.reader import RECENT, TowerEvent, TowerReader, TowerReading


def _iam(uptime: int, *slots: DieCode) -> bytes:
    return Message(Kind.IAM, 1, uptime, {"device_id": "t", "firmware": (1, 0, 0),
                   "protocol": 1, "slots": list(slots), "capabilities": 0}).encode()  # fmt: skip


def _result(uptime: int, roll: int, slot: int, die: DieCode, index: int) -> bytes:
    payload = {"roll_id": roll, "slot": slot, "die": die, "face_index": index}
    return Message(Kind.ROLL_RESULT, 2, uptime, payload).encode()


def _values(events: list[TowerReading | TowerEvent]) -> list[tuple[int, int, int]]:
    return [(e.throw, e.slot or 0, e.value) for e in events if isinstance(e, TowerReading)]


def test_a_tower_that_starts_again_counts_its_throws_afresh() -> None:
    """Its roll ids start at 0 again: its new throws were dropped as results sent twice."""
    reader = TowerReader("binary")
    first = reader.feed(_iam(10, DieCode.D6, DieCode.D6) + _result(20, 1, 0, DieCode.D6, 1)
                        + _result(21, 1, 1, DieCode.D6, 2))  # fmt: skip
    assert _values(first) == [(1, 0, 2), (1, 1, 3)]
    again = reader.feed(_result(22, 1, 1, DieCode.D6, 2))  # sent again after a replug
    assert _values(again) == [] and reader.duplicates == 1
    rebooted = reader.feed(_iam(5, DieCode.D6, DieCode.D6) + _result(9, 1, 0, DieCode.D6, 5)
                           + _result(9, 1, 1, DieCode.D6, 4))  # fmt: skip
    assert _values(rebooted) == [(1, 0, 6), (1, 1, 5)]  # the new throw, not a duplicate


def test_a_die_the_tower_never_announced_is_refused_and_said() -> None:
    reader = TowerReader("binary")
    reader.feed(_iam(1, DieCode.D6, DieCode.D6))
    events = reader.feed(_result(2, 3, 0, DieCode.D10, 7) + _result(3, 3, 5, DieCode.D20, 19)
                         + _result(4, 3, 1, DieCode.D6, 3))  # fmt: skip
    assert _values(events) == [(3, 1, 4)]  # only the d6 in a d6's slot
    said = [e.detail["detail"] for e in events if isinstance(e, TowerEvent)]
    assert said == ["a d10 reported in slot 0, which holds d6: not recorded",
                    "a d20 reported in slot 5, which holds no die: not recorded"]  # fmt: skip
    # counted as refused, apart from the frames that could not be read at all
    assert (reader.refused, reader.bad_frames, reader.unreadable) == (2, 0, 0)


def test_the_tail_of_a_line_too_long_is_no_throw() -> None:
    reader = TowerReader("text")
    assert reader.feed(b"BOOT " + b"x" * 300) == []
    assert reader.feed(b" d6:6 d6:6\r\n") == []  # the rest of that line
    assert _values(reader.feed(b"d6:2\n")) == [(1, 0, 2)]
    assert _values(reader.feed(b"d6:3\rd6:4\n")) == []  # two lines run together: no throw


def test_what_was_half_received_when_unplugged_is_forgotten() -> None:
    text = TowerReader("text")
    text.feed(b"d6:1 ")
    text.reset()  # unplugged and plugged in again
    assert [e.value for e in text.feed(b"d6:3 d6:4\n") if isinstance(e, TowerReading)] == [3, 4]
    binary = TowerReader("binary")
    binary.feed(_result(1, 2, 0, DieCode.D6, 0)[:6])
    binary.reset()
    assert _values(binary.feed(_result(2, 3, 0, DieCode.D6, 1))) == [(3, 0, 2)]
    assert binary.bad_frames == 0


def test_a_tower_throwing_for_weeks_keeps_only_recent_results() -> None:
    reader = TowerReader("binary")
    stream = b"".join(_result(n, n, 0, DieCode.D6, n % 6) for n in range(RECENT * 3))
    assert len(_values(reader.feed(stream))) == RECENT * 3
    assert len(reader._seen) == RECENT  # bounded: not one entry per die ever thrown
    assert _values(reader.feed(_result(10**6, RECENT * 3 - 1, 0, DieCode.D6, 1))) == []
