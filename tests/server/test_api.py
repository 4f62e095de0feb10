"""The HTTP API contract and the WebSocket, through FastAPI's test client, on a real ledger."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.ledger import Ledger
from server.table import Table


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    ledger = Ledger(tmp_path)
    with TestClient(create_app(Table(ledger))) as test_client:
        yield test_client
    ledger.close()


def test_health(client: TestClient) -> None:
    reply = client.get("/api/health")
    assert reply.status_code == 200 and reply.json()["status"] == "ok"


def test_every_page_has_its_icon(client: TestClient) -> None:
    import re

    from server.web import PAGES

    icon = client.get("/favicon.ico")  # asked by a browser of a page that names none
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    for route in PAGES:
        named = re.findall(r'<link rel="icon" href="([^"]+)"', client.get(route).text)
        assert len(named) == 1, route
        assert client.get(named[0]).content == icon.content, route


def test_a_check_from_creation_to_resolution(client: TestClient) -> None:
    reply = client.post("/api/checks", json={"system": "dphi", "params": {"might": 0.5}})
    assert reply.status_code == 201
    check = reply.json()
    assert check["status"] == "need" and check["need"] == [{"die": "d10", "count": 1}]
    assert check["probability"] == pytest.approx(0.52492, abs=1e-5)
    url = f"/api/checks/{check['id']}/dice"
    more = client.post(url, json={"dice": [{"die": "d10", "value": 4}]}).json()
    assert more["status"] == "need"
    done = client.post(url, json={"dice": [{"die": "d10", "value": 8}]}).json()
    assert done["status"] == "resolved" and done["success"] is True
    assert client.get(f"/api/checks/{check['id']}").json()["status"] == "resolved"
    throws = client.get("/api/throws?limit=5").json()
    assert [t["dice"][0]["face"] for t in throws] == [8, 4]  # newest first


def test_the_checks_still_waiting_are_listed_oldest_first(client: TestClient) -> None:
    made = [
        client.post("/api/checks", json={"system": "dphi", "params": {"might": m}}).json()
        for m in (0.1, 0.2, 0.3)
    ]
    client.post(f"/api/checks/{made[1]['id']}/dice", json={"dice": [{"die": "d10", "value": 4}]})
    client.post(f"/api/checks/{made[1]['id']}/dice", json={"dice": [{"die": "d10", "value": 8}]})
    waiting = client.get("/api/checks").json()
    assert [c["id"] for c in waiting] == [made[0]["id"], made[2]["id"]]  # the resolved one left
    assert waiting[0] == client.get(f"/api/checks/{made[0]['id']}").json()


def test_the_recent_checks_are_listed_in_the_order_they_last_changed(client: TestClient) -> None:
    """What a kiosk back after a dropped Wi-Fi shows: a check set up and resolved meanwhile
    is listed after one set up before it that still waits; a withdrawn one is not listed."""
    made = [
        client.post("/api/checks", json={"system": "dphi", "params": {"might": m}}).json()
        for m in (0.1, 0.2, 0.3, 0.4)
    ]
    client.post(f"/api/checks/{made[0]['id']}/dice", json={"dice": [{"die": "d10", "value": 4}]})
    client.post(f"/api/checks/{made[3]['id']}/withdraw", json={})
    client.post(f"/api/checks/{made[1]['id']}/dice", json={"dice": [{"die": "d10", "value": 9}]})
    recent = client.get("/api/checks/recent").json()
    assert [c["id"] for c in recent] == [made[i]["id"] for i in (2, 0, 1)]
    assert [c["status"] for c in recent] == ["need", "need", "resolved"]
    assert recent[-1] == client.get(f"/api/checks/{made[1]['id']}").json()
    assert [c["id"] for c in client.get("/api/checks/recent?limit=1").json()] == [made[1]["id"]]
    assert client.get("/api/checks/recent?limit=0").status_code == 422


def test_bad_input_gets_a_4xx_that_says_why(client: TestClient) -> None:
    assert client.post("/api/checks", json={"system": "d8pool", "params": {}}).status_code == 422
    bad = client.post("/api/checks", json={"system": "d6pool", "params": {"levle": 3}})
    assert bad.status_code == 422 and "levle" in bad.json()["detail"]
    assert client.post("/api/checks", json={"nope": 1}).status_code == 422
    assert client.get("/api/checks/missing").status_code == 404
    check = client.post(
        "/api/checks", json={"system": "d6pool", "params": {"level": 2, "difficulty": 3}}
    ).json()
    url = f"/api/checks/{check['id']}/dice"
    refused = client.post(url, json={"dice": [{"die": "d6", "value": 9}]})
    assert refused.status_code == 400 and "no face 9" in refused.json()["detail"]
    wrong = client.post(url, json={"dice": [{"die": "d20", "value": 3}]})
    assert wrong.status_code == 400 and "needs a d6" in wrong.json()["detail"]
    assert client.post(url, json={"dice": []}).status_code == 422
    for die in (
        {"value": True},
        {"value": "3"},
        {"value": 3.0},
        {"value": 3, "confidence": True},
        {"value": 3, "source": "x" * 41},
        {"value": 3, "source": "Kitchen table!"},
    ):
        typed = client.post(url, json={"dice": [{"die": "d6", **die}]})  # a face is a number
        assert typed.status_code == 422, (die, typed.text)
    for own in ("camera", "virtual", "tower:left"):  # the appliance's own sources: not typed in
        posed = client.post(url, json={"dice": [{"die": "d6", "value": 3, "source": own}]})
        assert posed.status_code == 422 and "the appliance's own" in posed.json()["detail"]
    assert client.get("/api/throws?limit=0").status_code == 422
    missing = client.post("/api/odds", json={"system": "dphi", "params": {}})
    assert missing.status_code == 422  # a required option missing is named (was "dphi: 2")
    assert missing.json()["detail"] == "dphi: the following arguments are required: --might"
    typo = client.post("/api/odds", json={"system": "dphi", "params": {"might": "x"}})
    assert typo.status_code == 422 and "invalid float value: 'x'" in typo.json()["detail"]
    # nothing refused was recorded, and the check is untouched
    assert client.get("/api/throws").json() == []
    assert client.get(f"/api/checks/{check['id']}").json()["readings"] == 0


def test_websocket_announces_readings_and_checks(client: TestClient) -> None:
    with client.websocket_connect("/ws") as socket:
        assert socket.receive_json()["type"] == "hello"
        check = client.post(
            "/api/checks",
            json={"system": "peupfudge", "params": {"level": 2, "difficulty": 4}},
        ).json()
        assert socket.receive_json() == {"type": "check", **check}
        client.post(f"/api/checks/{check['id']}/dice", json={"dice": [{"die": "dF", "value": 1}]})
        reading = socket.receive_json()
        assert reading["type"] == "reading" and reading["face"] == 1
        update = socket.receive_json()
        assert update["type"] == "check" and update["readings"] == 1


def test_every_request_is_in_the_ledger(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path)
    with TestClient(create_app(Table(ledger))) as client:
        check = client.post(
            "/api/checks", json={"system": "decibel", "params": {"pool": 3, "target": 5}}
        ).json()
        dice = [{"die": "d20", "value": v} for v in (20, 10, 1)]
        client.post(f"/api/checks/{check['id']}/dice", json={"dice": dice})
    kinds = [e.kind for e in ledger.entries()]
    assert kinds == ["check", "throw", "resolution"]
    assert ledger.verify().ok
    ledger.close()


def test_dicebridge_serve_answers_over_real_http(tmp_path: Path) -> None:
    import json
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicebridge", "serve", "--port", str(port),
         "--data-dir", str(tmp_path)],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health") as reply:
                    assert json.loads(reply.read())["status"] == "ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the service did not come up"
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert (tmp_path / "ledger.sqlite3").exists()


def test_serve_tells_systemd_it_is_ready(tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    notify = str(tmp_path / "notify")
    root = Path(__file__).resolve().parents[2]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(notify)
        systemd.settimeout(20)
        env = {**os.environ, "NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "400000"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "dicebridge", "serve", "--port", str(port),
             "--data-dir", str(tmp_path / "data")],
            cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert systemd.recv(100) == b"READY=1"
            assert systemd.recv(100) == b"WATCHDOG=1"
            assert systemd.recv(100) == b"WATCHDOG=1"  # keeps pinging
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_only_the_newest_resolved_checks_stay_in_memory(tmp_path: Path) -> None:
    from server.table import UnknownCheck

    with Ledger(tmp_path) as ledger:
        table = Table(ledger, keep_resolved=2)
        oldest_waiting = table.create("dphi", {"might": 0.5})["id"]
        made = [table.create("d6pool", {"level": 1, "difficulty": 1})["id"] for _ in range(4)]
        for check in made:
            while table.roll_virtual(check)["status"] != "resolved":
                pass  # a 5 or 6 explodes: throw again
        for gone in made[:2]:
            with pytest.raises(UnknownCheck):
                table.get(gone)
        assert [table.get(c)["status"] for c in made[2:]] == ["resolved", "resolved"]
        assert [c["id"] for c in table.waiting()] == [oldest_waiting]  # waiting ones stay
        resolutions = [e.body["check"] for e in ledger.entries(kind="resolution")]
        assert resolutions == made  # every one is still in the ledger


def test_dice_thrown_together_go_only_to_a_check_that_needs_that_many_now(
    tmp_path: Path,
) -> None:
    """The camera's dice have no order: a d5 stop roll fed three at once took them in the
    order they lay (which came before the 1 decided the result), and a pool fed a fourth d6
    took it as an explosion's when one of the first three listed exploded."""
    from mechanics.reading import Reading

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, object]] = []
        table.subscribe(events.append)
        stop = table.create("d5", {"at_least": 2})
        pool = table.create("d6pool", {"level": 3, "difficulty": 4})
        three = [Reading("d5", face, 1.0, "camera") for face in (4, 1, 3)]
        assert table.from_source("camera", three) is None
        assert table.get(stop["id"])["readings"] == 0  # not fed: any order would decide it
        refused = [e for e in events if e["type"] == "refused"]
        assert refused == [{
            "type": "refused", "check": stop["id"], "source": "camera",
            "detail": "3 d5s were thrown together, but the check needs 1 d5 at a time (in "
            "this roll the order counts): they are recorded, not used; throw 1 d5 for the "
            "positive roll, until a 1 shows",
        }]  # fmt: skip
        unused = table.throws(1)[0]
        assert unused["check"] is None and [d["face"] for d in unused["dice"]] == [4, 1, 3]
        sixes = [Reading("d6", 6, 1.0, "camera")] * 4  # one more than the pool's three
        assert table.from_source("camera", sixes) is None
        assert table.get(pool["id"])["readings"] == 0
        assert "needs 3 d6: they are recorded" in str(events[-1]["detail"])
        # as many as it needs now, or fewer: taken
        assert table.from_source("camera", [Reading("d5", 4, 1.0, "camera")]) is not None
        assert table.from_source("camera", sixes[:2]) is not None
        assert table.get(stop["id"])["readings"] == 1 and table.get(pool["id"])["readings"] == 2
        # the d5 read thrown again with the next one: neither taken, and said so
        again = [Reading("d5", 4, 1.0, "camera"), Reading("d5", 1, 1.0, "camera")]
        assert table.from_source("camera", again) is None
        assert str(events[-1]["detail"]).endswith(
            "(dice already read may stay where they lie: throw only the new ones)"
        )
        assert table.get(stop["id"])["readings"] == 1
        # one d5 read surely, one the camera was unsure of: thrown together, not taken
        one = [Reading("d5", 2, 1.0, "camera")]
        assert table.from_source("camera", one, None, {"d5": 1}) is None
        assert str(events[-1]["detail"]).startswith("2 d5s were thrown together")
        assert table.get(stop["id"])["readings"] == 1
        # a d5 and two d6s thrown together, for the two checks: each kind goes to its own
        mixed = [Reading("d6", 2, 1.0, "camera"), Reading("d5", 3, 1.0, "camera"),
                 Reading("d6", 3, 1.0, "camera")]  # fmt: skip
        table.from_source("camera", mixed, [{"box": [i, 0, 9, 9]} for i in range(3)])
        assert table.get(stop["id"])["readings"] == 2 and table.get(pool["id"])["readings"] == 4
        d6s, d5s = table.throws(2)[1], table.throws(2)[0]
        assert [d["box"][0] for d in d6s["dice"]] == [0, 2] and d5s["dice"][0]["box"][0] == 1
        assert ledger.verify().ok


def test_tower_readings_feed_the_oldest_waiting_check(tmp_path: Path) -> None:
    from mechanics.reading import Reading

    ledger = Ledger(tmp_path)
    table = Table(ledger)
    events: list[dict[str, object]] = []
    table.subscribe(events.append)
    first = table.create("d6pool", {"level": 2, "difficulty": 3})
    second = table.create("d6pool", {"level": 1, "difficulty": 1})
    state = table.from_source("tower:left", [Reading("d6", 3, 1.0, ""), Reading("d6", 4)])
    assert state is not None and state["id"] == first["id"] and state["status"] == "resolved"
    state = table.from_source("tower:left", [Reading("d6", 1)])
    assert state is not None and state["id"] == second["id"]
    # nobody waits for a d20: recorded and announced, not dropped
    assert table.from_source("tower:right", [Reading("d20", 17)]) is None
    assert table.throws(1)[0]["dice"][0]["face"] == 17
    assert any(e.get("check") is None and e.get("face") == 17 for e in events)
    table.source_event("tower:left", "rethrow", {"slot": 0})
    assert events[-1] == {"type": "source", "source": "tower:left", "event": "rethrow", "slot": 0}
    assert ledger.verify().ok
    ledger.close()


def test_a_simulated_tower_resolves_a_check_through_the_service(tmp_path: Path) -> None:
    from firmware_host.protocol import DieCode
    from server.config import TowerConfig
    from server.sources import tower_fleet

    ledger = Ledger(tmp_path)
    table = Table(ledger)
    table.registry.register("Left A", "d6")
    table.registry.register("Left B", "d6")
    check = table.create("decibel", {"pool": 3, "target": 5})  # waits for d20s: not fed
    pool = table.create("d6pool", {"level": 2, "difficulty": 1})
    events: list[dict[str, object]] = []
    table.subscribe(events.append)
    with _tower_on_a_pty((DieCode.D6, DieCode.D6), throws=3, seed=9) as path:
        fleet = tower_fleet((TowerConfig("left", port=path, dice=("left-a", "left-b")),), table)
        fleet.start()
        try:
            _until(lambda: table.get(pool["id"])["status"] == "resolved")
            assert table.sources()["tower:left"] == "connected"
        finally:
            fleet.stop()
    assert table.get(check["id"])["status"] == "need"
    # the tower's greeting is told in words (the Devices page showed "iam")
    greetings = [e for e in events if e.get("event") == "iam"]
    assert greetings and greetings[0]["detail"] == "tower sim-tower, firmware 1.0.0, dice: d6, d6"
    throws = [e.body for e in ledger.entries(kind="throw")]
    assert throws and all(d["source"] == "tower:left" for t in throws for d in t["dice"])
    assert any(t["check"] == pool["id"] for t in throws)
    # each slot's reading names the registered die the settings put there
    named = {d["identity"] for t in throws for d in t["dice"]}
    assert named == {"left-a", "left-b"}
    assert ledger.verify().ok
    ledger.close()


def test_a_towers_news_is_told_in_words() -> None:
    from firmware_host.reader import TowerEvent
    from server.sources import tower_news

    rethrow = tower_news(TowerEvent("rethrow", {"slot": 1, "why": "crooked die"}))
    assert rethrow == {"slot": "1", "why": "crooked die",
                       "detail": "slot 1: crooked die, throw it again"}  # fmt: skip
    fault = tower_news(TowerEvent("fault", {"code": "jam", "detail": "the cup is stuck"}))
    assert fault["detail"] == "jam: the cup is stuck"


def test_the_virtual_source_throws_what_the_check_needs(tmp_path: Path) -> None:
    import random

    ledger = Ledger(tmp_path)
    with TestClient(create_app(Table(ledger, rng=random.Random(4)))) as client:
        check = client.post(
            "/api/checks", json={"system": "d6pool", "params": {"level": 3, "difficulty": 4}}
        )
        url = f"/api/checks/{check.json()['id']}/roll"
        state = client.post(url).json()
        while state["status"] == "need":  # explosions ask for more: roll again
            state = client.post(url).json()
        assert state["status"] == "resolved"
        assert client.post(url).status_code == 409  # resolved: no more dice
        assert client.post("/api/checks/nope/roll").status_code == 404
        throws = client.get("/api/throws").json()
        assert throws and all(d["source"] == "virtual" and 1 <= d["face"] <= 6
                              for t in throws for d in t["dice"])  # fmt: skip
    ledger.close()


@pytest.mark.parametrize(
    ("system", "params", "says"),
    [
        ("d6pool", {"level": 10**6, "difficulty": 3}, "beyond the 200"),
        ("peupfudge", {"dice": 10**5, "level": 1, "bonus": 0, "difficulty": 1}, "0 to 200 dice"),
        ("d5", {"at_least": 10**9}, "within ±1000"),
        ("d5", {"at_least": 2, "decimals": 10**6}, "decimals run from 0 to 15"),
        ("dphi", {"might": 0.5, "hops": 10**9}, "hops must be within"),
        ("dphi", {"might": "x"}, "real number"),
    ],
)
def test_parameters_past_any_table_are_refused_at_once(
    client: TestClient, system: str, params: dict[str, object], says: str
) -> None:
    reply = client.post("/api/checks", json={"system": system, "params": params})
    assert reply.status_code == 422 and says in reply.json()["detail"]


def test_the_demo_keeps_checks_waiting_however_many_were_resolved(tmp_path: Path) -> None:
    from server.demo import Director

    with Ledger(tmp_path) as ledger:
        table = Table(ledger, keep_resolved=1)  # resolved checks soon forgotten
        director = Director(table, waiting=2)
        director.top_up()
        for _ in range(6):  # every waiting check resolved, again and again
            for check in table.waiting():
                while table.roll_virtual(check["id"])["status"] != "resolved":
                    pass
            director.top_up()  # a forgotten check is not asked after (it raised UnknownCheck)
            assert len(table.waiting()) == 2


def test_a_tower_die_that_cannot_be_recorded_is_said_and_the_tower_read_on(
    tmp_path: Path,
) -> None:
    """A failed write to the ledger ended the tower's thread: nothing more was read."""
    from firmware_host.protocol import DieCode
    from server.config import TowerConfig
    from server.sources import tower_fleet

    ledger = Ledger(tmp_path)
    table = Table(ledger)
    ledger.close()  # its database gone from under the service: no die can be kept
    events: list[dict[str, object]] = []
    table.subscribe(events.append)
    with _tower_on_a_pty((DieCode.D6,), throws=4, seed=3) as path:
        fleet = tower_fleet((TowerConfig("left", port=path, mode="binary"),), table)
        fleet.start()
        try:  # every die said, in turn
            _until(lambda: sum(e.get("event") == "fault" for e in events) >= 4)
            assert fleet.drivers["left"].mode == "binary"  # the setting reaches the driver
        finally:
            fleet.stop()
    said = [str(e["detail"]) for e in events if e.get("event") == "fault"]
    assert all(d.startswith("a die was not recorded (") for d in said), said


def test_a_check_that_cannot_be_made_is_refused_and_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    """A check refused as it was turned into its reply was kept unseen (its id never
    given): it failed every later listing of checks and took the camera's throws."""
    ledger = Ledger(tmp_path)
    with TestClient(create_app(Table(ledger))) as client:
        for system, params, says in [
            ("d5", {"at_least": 2.5}, "at_least must be a whole number, not 2.5"),
            ("d5", {"at_least": float("nan")}, "at_least must be a whole number"),
            ("decibel", {"pool": float("nan"), "target": 10}, "pool must be a whole number"),
            ("decibel", {"pool": 2, "target": float("nan")}, "target must be a whole number"),
            ("d6pool", {"level": 2.5, "difficulty": 4}, "level must be a whole number"),
            ("d6pool", {"level": True, "difficulty": 4}, "level must be a whole number, not True"),
            ("d6pool", {"level": "3", "difficulty": 4}, "level must be a whole number, not '3'"),
            ("peupfudge", {"level": float("nan"), "difficulty": 2}, "level must be a whole"),
            ("dphi", {"might": float("inf")}, "might must be a finite real number"),
            ("peupfudge", {"opposed": [3, 4.5]}, "opposed must be a list of whole numbers"),
            ("d6pool", {"difficulty": 4}, "d6pool: missing parameter 'level'"),
            ("peupfudge", {"opposed": [1] * 2000}, "at most 200 dice in all"),  # a minute
            ("peupfudge", {"opposed": [1] * 3000, "dice": 0}, "at most 200 participants"),
            ("d6pool", {"level": 3, "difficulty": 4, "fate": 3}, "fate must be one of"),  # 500
            ("d6pool", {"level": 3, "difficulty": 4, "fate": ["lucky"]}, "fate must be one of"),
            ("d6pool", {"level": 2, "difficulty": 3, "min_confidence": 1.5}, "min_confidence"),
            ("d6pool", {"level": 3, "difficulty": 4, "leverage": 10**6,
                        "leverage_before_cap": True}, "leverage must be within ±1000"),
        ]:  # fmt: skip
            body = json.dumps({"system": system, "params": params})  # NaN as JSON5 writes it
            reply = client.post("/api/checks", content=body,
                                headers={"Content-Type": "application/json"})  # fmt: skip
            assert reply.status_code == 422 and says in reply.json()["detail"], (params, reply.text)
        assert client.get("/api/checks").json() == []
        made = client.post("/api/checks", json={"system": "d5", "params": {"at_least": 2}})
        assert made.status_code == 201
        assert [c["id"] for c in client.get("/api/checks").json()] == [made.json()["id"]]
    assert [e.body["system"] for e in ledger.entries(kind="check")] == ["d5"]
    ledger.close()


def test_an_opposed_action_s_scores_are_a_list_on_the_form_and_in_the_api(
    client: TestClient,
) -> None:
    fields = {p["name"]: p["kind"] for p in client.get("/api/systems").json()["peupfudge"]}
    assert fields["opposed"] == "ints"  # the page asks for several numbers, not one
    odds = client.post("/api/odds", json={"system": "peupfudge", "params": {"opposed": [3, 4]}})
    assert odds.status_code == 200, odds.text
    made = client.post("/api/checks", json={"system": "peupfudge", "params": {"opposed": [3, 4]}})
    assert made.status_code == 201, made.text
    assert made.json()["probability"] == pytest.approx(odds.json()["probability"])


@contextmanager
def _tower_on_a_pty(slots: tuple[Any, ...], throws: int, seed: int) -> Iterator[str]:
    """A simulated tower with ``slots`` on a real pty, throwing ``throws`` times: the path
    to open; switched off when the block ends."""
    import os
    import random
    import threading

    from firmware_host.simulator import TowerSimulator, open_pty, serve

    master, path = open_pty()
    stop = threading.Event()
    sim = TowerSimulator(slots=slots, rng=random.Random(seed))
    tower = threading.Thread(target=serve, args=(sim, master, throws, 0.05, stop, 0.0))
    tower.start()
    try:
        yield path
    finally:
        stop.set()
        tower.join(timeout=5)
        os.close(master)


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
