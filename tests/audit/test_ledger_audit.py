"""Registered dice and their audits fed by the ledger (a real SQLite file), through
the table, the HTTP API and the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from audit.ledger_audit import audit_die, audit_face, import_log, readings_of
from audit.logs import LogError
from dicebridge.cli import main
from mechanics.reading import Reading, ReadingRefused
from server.app import create_app
from server.ledger import Ledger
from server.registry import AlreadyRegistered, DiceRegistry, NotFound, RegistryError
from server.table import Table


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path) as opened:
        yield opened


def test_identities_are_ledger_rows_and_survive_a_restart(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        registry = DiceRegistry(ledger)
        red = registry.register("Red d6", "d6", "red, white pips", "Chessex 12mm")
        assert red.id == "red-d6"
        with pytest.raises(AlreadyRegistered, match="already registered"):
            registry.register("red  D6", "d6")  # the same id
        with pytest.raises(RegistryError, match="cannot change its type"):
            registry.register("Red d6", "d20", update=True)
        with pytest.raises(RegistryError, match="die type must be one of"):
            registry.register("Odd", "d7")
        registry.register("Red d6", "d6", "dark red", "Chessex 12mm", update=True)
        assert len(list(ledger.entries(kind="die"))) == 2  # the old details stay on record
    with Ledger(tmp_path) as ledger:
        again = DiceRegistry(ledger)
        assert again.get("red-d6").colour == "dark red"
        assert [d.id for d in again.all()] == ["red-d6"]
        with pytest.raises(NotFound):
            again.get("blue-d6")


def test_a_reading_naming_an_unknown_or_wrong_die_changes_nothing(ledger: Ledger) -> None:
    table = Table(ledger)
    table.registry.register("Blue d20", "d20")
    check = table.create("decibel", {"pool": 2, "target": 10})
    rows = ledger.count()
    with pytest.raises(ReadingRefused, match="no registered die 'green-d20'"):
        table.add_dice(check["id"], [Reading("d20", 12, identity="green-d20"), Reading("d20", 3)])
    with pytest.raises(ReadingRefused, match="is a d20, not a d6"):
        table.registry.check_reading(Reading("d6", 2, identity="blue-d20"))
    assert ledger.count() == rows and table.get(check["id"])["status"] == "need"
    state = table.add_dice(
        check["id"], [Reading("d20", 12, identity="blue-d20"), Reading("d20", 3)]
    )
    assert state["status"] == "resolved"
    throw = list(ledger.entries(kind="throw"))[-1]
    assert throw.body["dice"][0]["identity"] == "blue-d20"


def test_a_die_named_as_it_is_spelt_is_recorded_by_its_id_and_audited(ledger: Ledger) -> None:
    """A die named "Red d6" or "RED-D6" is red-d6: such readings were taken, kept as typed, left
    out of its audit (gathered by id), by hand and from a tower's settings alike."""
    table = Table(ledger)
    table.registry.register("Red d6", "d6")
    for spelt in ("Red d6", "RED-D6", "red-d6"):  # typed in by hand
        pool = table.create("d6pool", {"level": 1, "difficulty": 6})["id"]
        table.add_dice(pool, [Reading("d6", 2, identity=spelt)])
    table.from_source("tower:left", [Reading("d6", 5, identity="Red D6")])  # its settings'
    # dice = ["Red D6"]; no check waits: the throw is kept, unassigned
    named = [d["identity"] for e in ledger.entries(kind="throw") for d in e.body["dice"]]
    assert named == ["red-d6"] * 4
    # a row written as typed, before readings were named by id, counts for the die too
    typed = {"die": "d6", "face": 6, "identity": "Red d6"}
    ledger.append("throw", {"check": None, "dice": [typed]})
    faces = [r.face for r in readings_of(ledger, table.registry.get("red-d6"))]
    assert faces == [2, 2, 2, 5, 6]


def test_a_source_naming_an_unknown_die_keeps_the_throw_and_says_so(ledger: Ledger) -> None:
    table = Table(ledger)
    events: list[dict[str, object]] = []
    table.subscribe(events.append)
    table.from_source("tower:left", [Reading("d6", 4, identity="ghost")])
    throw = list(ledger.entries(kind="throw"))[-1].body
    assert throw["dice"][0]["face"] == 4 and "identity" not in throw["dice"][0]
    assert any(e.get("event") == "unknown-die" and "ghost" in str(e) for e in events)


def test_a_loaded_die_thrown_through_the_table_is_found_biased(ledger: Ledger) -> None:
    table = Table(ledger)
    table.registry.register("Loaded", "d6")
    table.registry.register("Honest", "d6")
    rng = np.random.default_rng(5)
    loaded = rng.choice(np.arange(1, 7), size=600, p=[0.1, 0.15, 0.15, 0.15, 0.15, 0.3])
    fair = rng.integers(1, 7, size=600)
    for a, b in zip(loaded, fair, strict=True):  # both dice in one throw, unassigned
        table.from_source(
            "camera:0", [Reading("d6", int(a), 0.97, identity="loaded"), Reading("d6", int(b))]
        )
    done = audit_die(ledger, table.registry, "loaded", rng=np.random.default_rng(1))
    assert done.result.log.n == 600  # the unnamed die's readings are not its
    assert done.result.log.counts == tuple(int((loaded == f).sum()) for f in range(1, 7))
    assert done.result.verdict == "biased" and done.result.p_value < 1e-6
    assert done.to_json()["die"]["name"] == "Loaded"
    with pytest.raises(LogError, match="no readings yet"):
        audit_die(ledger, table.registry, "honest")


def test_uncertain_readings_are_left_out_and_confirmations_measure_the_camera(
    ledger: Ledger,
) -> None:
    registry = DiceRegistry(ledger)
    table = Table(ledger, registry)
    registry.register("Audit d10", "d10")
    faces = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] * 3
    for i, face in enumerate(faces):
        confidence = 0.3 if i % 10 == 9 else 0.95  # three uncertain readings
        table.from_source("camera:0", [Reading("d10", face, confidence, identity="audit-d10")])
    throws = [e.id for e in ledger.entries(kind="throw")]
    registry.confirm(throws[0], 0, 0)  # right
    registry.confirm(throws[1], 0, 7)  # the camera read 1: a misread, corrected to 7
    registry.confirm(throws[9], 0, 9)  # an uncertain one, confirmed: it counts again
    registry.confirm(throws[10], 0, 10)  # 10 means 0 on a d10
    with pytest.raises(RegistryError, match="no face 11"):
        registry.confirm(throws[2], 0, 11)
    with pytest.raises(NotFound, match=r"has 1 die \(1 to 1\), not a die number 2"):
        registry.confirm(throws[2], 1, 3)
    with pytest.raises(NotFound, match="not a throw"):
        registry.confirm(10_000, 0, 3)
    done = audit_die(ledger, registry, "audit-d10", rng=np.random.default_rng(2))
    rec = done.recognizer
    assert (rec.camera_readings, rec.uncertain_excluded, rec.confirmed, rec.misread) == (
        30,
        2,
        4,
        1,
    )
    assert rec.error_rate == pytest.approx(1 / 4)
    counts = done.result.log.counts  # face 10 is the d10's 0
    assert done.result.log.n == 28 and counts[9] == 3 and counts[8] == 1
    assert counts[0] == 2 and counts[6] == 4


def test_imported_logs_join_the_ledger_readings(ledger: Ledger) -> None:
    registry = DiceRegistry(ledger)
    registry.register("Fudge A", "dF")
    with pytest.raises(LogError, match="throw 3: 2 is not a face of a dF"):
        import_log(ledger, registry, "fudge-a", [1, 0, 2])
    assert list(ledger.entries(kind="import")) == []  # a bad log writes nothing
    done = import_log(ledger, registry, "fudge-a", [-1, 0, 1, 1] * 50, "fudge.txt")
    assert done["throws"] == 200
    Table(ledger, registry).from_source("manual", [Reading("dF", -1, identity="fudge-a")])
    readings = readings_of(ledger, registry.get("fudge-a"))
    assert [r.face for r in readings[:4]] == [1, 2, 3, 3] and readings[-1].face == 1
    log = audit_die(ledger, registry, "fudge-a", rng=np.random.default_rng(3)).result.log
    assert log.sides == 3 and log.counts == (51, 50, 100)
    assert ledger.verify().ok


def test_faces_are_counted_one_to_k() -> None:
    assert [audit_face("d10", v) for v in (0, 1, 9, 10)] == [10, 1, 9, 10]
    assert [audit_face("dF", v) for v in (-1, 0, 1)] == [1, 2, 3]
    assert audit_face("d20", 20) == 20


def test_the_api_registers_feeds_audits_and_confirms(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger, TestClient(create_app(Table(ledger))) as client:
        made = client.post(
            "/api/dice", json={"name": "Green d20", "type": "d20", "colour": "green"}
        )
        assert made.status_code == 201 and made.json()["id"] == "green-d20"
        again = client.post("/api/dice", json={"name": "Green d20", "type": "d20"})
        assert again.status_code == 409
        assert client.post("/api/dice", json={"name": "X", "type": "d3"}).status_code == 422
        assert client.post("/api/dice", json={"name": "", "type": "d6"}).status_code == 422
        assert client.get("/api/dice").json()[0]["colour"] == "green"
        assert client.get("/api/dice/green-d20/audit").status_code == 409  # no readings yet
        assert client.get("/api/dice/nope/audit").status_code == 404
        check = client.post(
            "/api/checks", json={"system": "decibel", "params": {"pool": 2, "target": 10}}
        )
        url = f"/api/checks/{check.json()['id']}/dice"
        bad = client.post(
            url,
            json={
                "dice": [{"die": "d20", "value": 4, "identity": "red"}, {"die": "d20", "value": 9}]
            },
        )
        assert bad.status_code == 400 and "no registered die" in bad.json()["detail"]
        good = client.post(
            url,
            json={
                "dice": [
                    {"die": "d20", "value": 4, "identity": "green-d20"},
                    {"die": "d20", "value": 9},
                ]
            },
        )
        assert good.status_code == 200
        throw = client.get("/api/throws?limit=1").json()[0]
        assert throw["dice"][0]["identity"] == "green-d20"
        confirm = f"/api/throws/{throw['id']}/confirm"
        assert client.post(confirm, json={"index": 0, "face": 4}).status_code == 201
        assert client.post(confirm, json={"index": 0, "face": 21}).status_code == 422
        assert client.post(confirm, json={"index": 3, "face": 4}).status_code == 404
        audit = client.get("/api/dice/green-d20/audit").json()
        assert audit["n"] == 1 and audit["sides"] == 20 and audit["verdict"] == "insufficient"
        assert audit["recognizer"]["confirmed"] == 0  # a typed reading is not the camera's


def test_the_command_line_registers_imports_and_audits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["dice", "list", *data]) == 0
    assert "no registered dice" in capsys.readouterr().out
    assert main(["dice", "add", "Red d6", "--type", "d6", "--colour", "red", *data]) == 0
    assert main(["dice", "add", "Red d6", "--type", "d6", *data]) == 2
    assert "already registered" in capsys.readouterr().err
    log = tmp_path / "red.txt"
    rng = np.random.default_rng(8)
    log.write_text("\n".join(str(v) for v in rng.integers(1, 7, size=3000)) + "\n")
    assert main(["dice", "import", "red-d6", str(log), *data]) == 0
    assert "imported 3,000 throws of red-d6" in capsys.readouterr().out
    (tmp_path / "bad.txt").write_text("1\nseven\n")
    assert main(["dice", "import", "red-d6", str(tmp_path / "bad.txt"), *data]) == 2
    assert "line 2: 'seven'" in capsys.readouterr().err
    assert main(["audit", "--die", "red-d6", "--json", *data]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3000 and out["sides"] == 6 and out["die"]["colour"] == "red"
    assert out["verdict"] == "consistent_with_fair"
    assert main(["audit", "--die", "red-d6", *data]) == 0
    said = capsys.readouterr().out
    assert "Audit of Red d6 (d6, red)" in said
    # a registered die's audit is live: the highest e-value so far gives the verdict, and
    # its faces' intervals are anytime-valid (audit/verdict.py)
    assert "e-value: highest 10^" in said and ", now 10^" in said
    assert "95% anytime interval" in said
    assert main(["dice", "list", "--json", *data]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == "red-d6"
    assert main(["audit", *data]) == 2
    assert "give a throw log FILE" in capsys.readouterr().err
    assert main(["audit", str(log), *data]) == 2
    assert "--sides K is needed" in capsys.readouterr().err
