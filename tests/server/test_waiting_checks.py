"""Checks still waiting for dice outlive a restart (restored from the ledger, appending
nothing), and a check set up by mistake is withdrawn; on a real SQLite ledger."""

from __future__ import annotations

import json
import logging
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mechanics.reading import Reading
from server.app import create_app
from server.ledger import Ledger
from server.table import AlreadyResolved, Table, UnknownCheck

ROOT = Path(__file__).resolve().parents[2]


def _rows(ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
    return [(e.kind, e.body) for e in ledger.entries()]


def test_a_restart_restores_a_half_fed_check_and_the_next_dice_resolve_it(
    tmp_path: Path,
) -> None:
    """The checks lived in memory only: after a restart their dice could no longer be
    given, and the ledger kept them unresolved for ever."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        dphi = table.create("dphi", {"might": 0.5})["id"]
        table.add_dice(dphi, [Reading("d10", 4)])  # a middle digit: one more d10
        pool = table.create("d6pool", {"level": 3, "difficulty": 6})["id"]
        extras = [{"crop": "ab" * 32, "box": [1, 2, 3, 4]}]
        table.from_source("camera", [Reading("d6", 2, 0.9)], extras)  # one of the three
        fresh = table.create("decibel", {"pool": 2, "target": 13})["id"]  # no dice yet
        before = table.waiting()
    with Ledger(tmp_path) as ledger:
        rows = ledger.count()
        table = Table(ledger)
        assert ledger.count() == rows  # restored, not recorded again
        assert table.waiting() == before  # where they stood, oldest first
        assert [c["readings"] for c in table.waiting()] == [1, 1, 0]
        assert table.unrestored == []
        assert table.waiting()[0]["prompt"] == "throw 1 d10 for the next digit"
        done = table.add_dice(dphi, [Reading("d10", 8)])
        assert done["status"] == "resolved" and done["success"] is True
        assert [(r["die"], r["face"]) for r in done["readings"]] == [("d10", 4), ("d10", 8)]
        # the camera's next throw goes where it would have gone before the restart
        state = table.from_source("camera", [Reading("d6", 3, 0.9), Reading("d6", 1, 0.9)])
        assert state is not None and state["id"] == pool and state["status"] == "resolved"
        assert [(r["face"], r["source"]) for r in state["readings"]] == [
            (2, "camera"),
            (3, "camera"),
            (1, "camera"),
        ]
        assert [c["id"] for c in table.waiting()] == [fresh]
        assert [e.body["check"] for e in ledger.entries(kind="resolution")] == [dphi, pool]
        assert ledger.verify().ok


def test_resolved_and_withdrawn_checks_are_not_restored(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        resolved = table.create("d6pool", {"level": 1, "difficulty": 1})["id"]
        table.add_dice(resolved, [Reading("d6", 2)])
        mistaken = table.create("dphi", {"might": 0.5})["id"]
        table.add_dice(mistaken, [Reading("d10", 4)])  # dice given, then withdrawn
        table.withdraw(mistaken, "set up by mistake")
        waiting = table.create("dphi", {"might": 1.0})["id"]
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        assert [c["id"] for c in table.waiting()] == [waiting]
        for gone in (resolved, mistaken):  # resolved ones are in the ledger, not in memory
            with pytest.raises(UnknownCheck):
                table.get(gone)
        # the withdrawn check takes no throw: the d10 goes to the one still waiting
        state = table.from_source("tower:sim", [Reading("d10", 1)])
        assert state is not None and state["id"] == waiting
        thrown = [e.body["check"] for e in ledger.entries(kind="throw")]
        assert thrown == [resolved, mistaken, waiting]  # its throw stays recorded
        assert ledger.verify().ok


def test_a_check_that_cannot_be_rebuilt_is_left_out_and_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A newer version's parameters, a system no longer known, a throw its check refuses
    now: those checks alone are left out, the rest wait again."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        good = table.create("dphi", {"might": 0.5})["id"]
        ledger.append("check", {"check": "newer", "system": "dphi", "probability": 0.5,
                                "params": {"might": 0.5, "flavour": "umami"}})  # fmt: skip
        ledger.append("check", {"check": "gone", "system": "chess", "params": {},
                                "probability": 0.5})  # fmt: skip
        refused = table.create("dphi", {"might": 0.0})["id"]
        ledger.append("throw", {"check": refused, "dice": [
            {"die": "d6", "face": 3, "confidence": 1.0, "source": "manual"}]})  # fmt: skip
        torn = table.create("dphi", {"might": 0.0})["id"]
        ledger.append("throw", {"check": torn, "dice": [{"face": 3}]})
    with Ledger(tmp_path) as ledger, caplog.at_level(logging.WARNING, logger="server.table"):
        rows = ledger.count()
        table = Table(ledger)
        assert ledger.count() == rows
        assert [c["id"] for c in table.waiting()] == [good]
        problems = {u["id"]: u["problem"] for u in table.unrestored}
        assert list(problems) == ["newer", "gone", refused, torn]
        assert "its parameters" in problems["newer"] and "flavour" in problems["newer"]
        assert "unknown system 'chess'" in problems["gone"]
        assert problems[refused].startswith("its throw 1 of 1:") and "not a d6" in problems[refused]
        assert problems[torn].startswith("its throw 1 of 1: a die recorded as")
        said = [r for r in caplog.records if "could not be restored" in r.getMessage()]
        assert len(said) == 1 and all(name in said[0].getMessage() for name in problems)
        with TestClient(create_app(table)) as client:
            health = client.get("/api/health").json()
            assert [u["id"] for u in health["unrestored_checks"]] == list(problems)
            # one left out is withdrawn like a waiting one: the next start leaves it be
            reply = client.post("/api/checks/gone/withdraw", json={"reason": "old version"})
            assert reply.status_code == 200 and reply.json()["status"] == "withdrawn"
            assert "gone" not in [u["id"] for u in client.get("/api/health").json()[
                "unrestored_checks"]]  # fmt: skip
        table.add_dice(good, [Reading("d10", 4)])  # a middle digit: it waits on
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        assert [u["id"] for u in table.unrestored] == ["newer", refused, torn]
        assert table.get(good)["readings"] == 1
        assert ledger.verify().ok


def test_a_ledger_that_cannot_be_read_through_restores_none_but_the_table_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before checks were restored a Table read nothing at its start: a row spoilt on disk
    must not now keep the service from starting (`ledger verify` names it)."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.create("dphi", {"might": 0.5})
        ledger.append("note", {"text": "a note of another kind"})
        ledger.append("throw", {"check": None, "dice": []})
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:  # as a disk fault or an edit
        db.execute("DROP TRIGGER entries_no_update")
        db.execute("UPDATE entries SET body = '[1, 2]' WHERE id = 2")  # JSON, but no object
    with Ledger(tmp_path) as ledger:
        assert len(Table(ledger).waiting()) == 1  # the spoilt note is no withdrawal
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        db.execute("DROP TRIGGER entries_no_update")  # (opening the ledger made it again)
        db.execute("UPDATE entries SET body = 'not json' WHERE id = 3")
    with Ledger(tmp_path) as ledger, caplog.at_level(logging.WARNING, logger="server.table"):
        table = Table(ledger)
        assert table.waiting() == [] and table.unrestored == []
        assert "no waiting check was restored: the ledger could not be read" in caplog.text
        assert table.create("dphi", {"might": 0.5})["status"] == "need"  # it works on
        assert not ledger.verify().ok


def test_a_check_is_withdrawn_over_the_api(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        heard: list[dict[str, Any]] = []
        table.subscribe(heard.append)
        with TestClient(create_app(table)) as client:
            made = client.post("/api/checks", json={"system": "dphi", "params": {"might": 0.5}})
            check = made.json()["id"]
            url = f"/api/checks/{check}"
            client.post(f"{url}/dice", json={"dice": [{"die": "d10", "value": 4}]})
            reply = client.post(f"{url}/withdraw", json={"reason": "set up by mistake"})
            assert reply.status_code == 200
            body = reply.json()
            assert body["id"] == check and body["status"] == "withdrawn"
            assert body["reason"] == "set up by mistake" and body["readings"] == 1
            assert heard[-1] == {"type": "withdrawn", "check": check,
                                 "reason": "set up by mistake", "row": body["row"]}  # fmt: skip
            assert client.get("/api/checks").json() == []
            assert client.get(url).status_code == 404
            dice = client.post(f"{url}/dice", json={"dice": [{"die": "d10", "value": 8}]})
            assert dice.status_code == 404  # it takes no more dice
            assert client.post(f"{url}/roll").status_code == 404
            assert client.post(f"{url}/withdraw").status_code == 404  # withdrawn already
            assert client.post("/api/checks/nosuch/withdraw").status_code == 404
            long = client.post(f"{url}/withdraw", json={"reason": "x" * 201})
            assert long.status_code == 422
            # a resolved check is not withdrawn: its result stands
            pool = {"system": "d6pool", "params": {"level": 1, "difficulty": 1}}
            other = client.post("/api/checks", json=pool)
            done = f"/api/checks/{other.json()['id']}"
            client.post(f"{done}/dice", json={"dice": [{"die": "d6", "value": 2}]})
            refused = client.post(f"{done}/withdraw")
            assert refused.status_code == 409 and "resolved" in refused.json()["detail"]
            assert client.get(done).json()["status"] == "resolved"
        kinds = [kind for kind, _ in _rows(ledger)]
        assert kinds == ["check", "throw", "note", "check", "throw", "resolution"]
        note = next(body for kind, body in _rows(ledger) if kind == "note")
        assert note == {"note": "withdrawn", "check": check, "reason": "set up by mistake"}
        with pytest.raises(AlreadyResolved):
            table.withdraw(other.json()["id"])
        assert ledger.verify().ok


def test_a_withdrawn_check_takes_no_more_of_the_camera_s_throws(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        mistaken = table.create("d6pool", {"level": 2, "difficulty": 3})["id"]
        table.withdraw(mistaken)
        assert table.needs() == []
        assert table.from_source("camera", [Reading("d6", 4), Reading("d6", 5)]) is None
        later = table.create("d6pool", {"level": 2, "difficulty": 3})["id"]
        state = table.from_source("camera", [Reading("d6", 4), Reading("d6", 5)])
        assert state is not None and state["id"] == later
        assert [e.body["check"] for e in ledger.entries(kind="throw")] == [None, later]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(port: int, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method="GET" if body is None else "POST",
        headers={"Content-Type": "application/json"},
        data=None if body is None else json.dumps(body).encode(),
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.loads(reply.read())


def _serve(port: int, data: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicebridge", "serve", "--port", str(port), "--data-dir", str(data)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            _call(port, "/api/health")
            return proc
        except OSError:
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline, "the service did not come up"
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    said, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, said
    return said


def test_the_service_restarted_still_waits_for_the_dice(tmp_path: Path) -> None:
    """`dicebridge serve` as it is started: the Table it makes restores the checks."""
    port = _free_port()
    proc = _serve(port, tmp_path)
    try:
        check = _call(port, "/api/checks", {"system": "dphi", "params": {"might": 0.5}})
        _call(port, f"/api/checks/{check['id']}/dice", {"dice": [{"die": "d10", "value": 4}]})
    finally:
        _stop(proc)
    proc = _serve(port, tmp_path)
    try:
        waiting = _call(port, "/api/checks")
        assert [(c["id"], c["readings"]) for c in waiting] == [(check["id"], 1)]
        done = _call(port, f"/api/checks/{check['id']}/dice",
                     {"dice": [{"die": "d10", "value": 8}]})  # fmt: skip
        assert done["status"] == "resolved" and done["success"] is True
        assert _call(port, "/api/health")["unrestored_checks"] == []
    finally:
        _stop(proc)


def test_a_check_set_up_before_the_restore_window_is_not_restored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A check left waiting by a game that ended (or lost at an older version's restart)
    would take the camera's throws after every start: only those set up within the
    window come back; the older ones are said once in the log."""
    from datetime import UTC, datetime

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        old = table.create("decibel", {"pool": 2, "target": 13})["id"]
        time.sleep(0.6)
        recent = table.create("decibel", {"pool": 3, "target": 10})["id"]
        made = {e.body["check"]: datetime.fromisoformat(e.at) for e in ledger.entries("check")}
    between = made[old] + (made[recent] - made[old]) / 2
    with Ledger(tmp_path) as ledger, caplog.at_level(logging.WARNING, logger="server.table"):
        table = Table(ledger, restore_within=datetime.now(UTC) - between)
        assert [c["id"] for c in table.waiting()] == [recent]
        assert table.unrestored == []  # not a check that failed to rebuild: an old one
    assert "1 check(s) in the ledger were still waiting" in caplog.text
    with Ledger(tmp_path) as ledger:  # the default window (24 hours) takes both back
        assert [c["id"] for c in Table(ledger).waiting()] == [old, recent]


def test_a_check_that_needs_no_dice_is_recorded_resolved_as_it_is_made(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A d6 pool of level 0 takes no dice: its resolution row had never been written, so
    every start warned of a check "resolved, but no resolution recorded"."""
    with Ledger(tmp_path) as ledger:
        state = Table(ledger).create("d6pool", {"level": 0, "difficulty": 1})
        assert state["status"] == "resolved"
        kinds = [(e.kind, e.body["check"]) for e in ledger.entries()]
        assert kinds == [("check", state["id"]), ("resolution", state["id"])]
        assert ledger.verify().ok
    with Ledger(tmp_path) as ledger, caplog.at_level(logging.WARNING, logger="server.table"):
        assert Table(ledger).waiting() == []
    assert caplog.text == ""
