"""A throw is one record: its dice, the resolution they bring and its unsure dice are kept
in one ledger transaction, or none of them is and no check changes (a real SQLite file,
refusing a row as a locked database would)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from mechanics.reading import Reading
from server.ledger import Ledger, LedgerError
from server.table import Table
from tests.server.ledger_faults import refuse_once


def _kinds(ledger: Ledger) -> list[str]:
    return [e.kind for e in ledger.entries()]


def test_rows_appended_together_are_all_kept_or_none(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.append("check", {"check": "a"})
        asked = refuse_once(ledger, "NEW.kind = 'resolution'")
        rows: list[tuple[str, dict[str, Any]]] = [
            ("throw", {"n": 1}), ("resolution", {"n": 2}), ("reading", {"n": 3})
        ]  # fmt: skip
        with pytest.raises(LedgerError, match="database is locked"):
            ledger.append_many(rows)
        assert asked[0] == 1 and _kinds(ledger) == ["check"]  # the throw went with it
        kept = ledger.append_many(rows)  # the next try: all of them, chained
        assert [e.id for e in kept] == [2, 3, 4]
        assert [e.prev_hash for e in kept[1:]] == [e.hash for e in kept[:-1]]
        assert _kinds(ledger) == ["check", "throw", "resolution", "reading"]
        with pytest.raises(ValueError, match="unknown ledger entry kind 'roll'"):
            ledger.append_many([("throw", {"n": 5}), ("roll", {"n": 6})])
        assert ledger.count() == 4 and ledger.verify().ok


def test_a_throw_whose_resolution_was_refused_is_not_kept_and_the_check_waits(
    tmp_path: Path,
) -> None:
    """The throw's row had been kept and its resolution refused: the check in memory
    waited for the die, while the ledger held it, so a restart brought the check back
    resolved with no resolution recorded."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        check = table.create("d6pool", {"level": 1, "difficulty": 1})
        refuse_once(ledger, "NEW.kind = 'resolution'")
        with pytest.raises(LedgerError):
            table.add_dice(check["id"], [Reading("d6", 3)])
        assert _kinds(ledger) == ["check"]
        assert table.get(check["id"])["status"] == "need"
        assert [e["type"] for e in events] == ["check"]  # its creation only
        with Ledger(tmp_path, read_only=True) as again:
            assert [c["id"] for c in Table(again).waiting()] == [check["id"]]
        state = table.add_dice(check["id"], [Reading("d6", 3)])  # thrown again
        assert state["status"] == "resolved"
        assert _kinds(ledger) == ["check", "throw", "resolution"]


def test_a_throw_of_two_kinds_and_unsure_dice_is_kept_whole_or_not_at_all(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        pool = table.create("d6pool", {"level": 3, "difficulty": 3})  # 3 d6
        fudge = table.create("peupfudge", {"dice": 4, "level": 2, "bonus": 0, "difficulty": 2})
        throw = [Reading("d6", 4), Reading("dF", 1), Reading("d6", 2)] + [Reading("dF", 0)] * 3
        asked = [{"die": "d6", "value": 5, "advice": "confirm: 5?"}]
        refuse_once(ledger, "NEW.kind = 'reading'")  # the last row of the throw
        with pytest.raises(LedgerError):
            table.from_source("camera", throw, None, {"d6": 1}, asked)
        assert _kinds(ledger) == ["check", "check"]
        assert [table.get(c["id"])["readings"] for c in (pool, fudge)] == [0, 0]
        assert [e["type"] for e in events] == ["check", "check"]
        state = table.from_source("camera", throw, None, {"d6": 1}, asked)
        assert state is not None and state["id"] == pool["id"]
        assert table.get(pool["id"])["readings"] == 2  # and one unsure: left to confirm
        assert table.get(fudge["id"])["status"] == "resolved"  # all four dF
        assert _kinds(ledger) == ["check", "check", "throw", "throw", "resolution", "reading"]
        unsure = [e for e in events if e["type"] == "uncertain"]
        assert [(e["value"], e["row"]) for e in unsure] == [(5, 6)]  # its row, to confirm
        assert ledger.verify().ok


def test_a_listener_that_fails_neither_fails_the_throw_nor_deafens_the_others(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A page's event loop closing as it leaves raised into the camera's thread, which
    took the throw, kept already, for one not read and read it again."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        check = table.create("d6pool", {"level": 3, "difficulty": 3})

        def closed(event: dict[str, Any]) -> None:
            raise RuntimeError("Event loop is closed")

        heard: list[dict[str, Any]] = []
        table.subscribe(closed)
        table.subscribe(heard.append)
        with caplog.at_level(logging.ERROR, logger="server.table"):
            state = table.from_source("camera", [Reading("d6", 4), Reading("d6", 2)])
        assert state is not None and state["id"] == check["id"] and state["readings"] == 2
        assert [e["face"] for e in heard if e["type"] == "reading"] == [4, 2]
        assert _kinds(ledger) == ["check", "throw"]
        assert "a listener failed on a reading event" in caplog.text


@pytest.mark.parametrize("d10_first", [False, True])
def test_dice_of_two_kinds_go_by_what_the_checks_waited_for_when_thrown(
    tmp_path: Path, d10_first: bool
) -> None:
    """A d5 stop face thrown with a d10: the d5 check asks for its decimals d10 only once
    the stop is seen, so the d10 thrown with it is not that d10 but the one the d10 check
    waited for, whichever the camera lists first.  Planned one kind after another, the
    d10 had gone to the d5 check when listed after the d5, to the d10 check when before."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        stop = table.create("d5", {"at_least": 1, "single": True, "decimals": 1})
        tens = table.create("d5", {"at_least": 1, "single": True, "die": "d10"})
        throw = [Reading("d5", 1), Reading("d10", 7)]
        state = table.from_source("camera", throw[::-1] if d10_first else throw)
        assert state is not None and state["id"] == (tens if d10_first else stop)["id"]
        assert table.get(stop["id"])["need"] == [{"die": "d10", "count": 1}]  # its decimals
        assert table.get(stop["id"])["readings"] == table.get(tens["id"])["readings"] == 1
        rows = [(e.kind, e.body.get("check")) for e in ledger.entries(kind="throw")]
        assert sorted(rows) == sorted([("throw", stop["id"]), ("throw", tens["id"])])
