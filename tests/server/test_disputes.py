"""Disputes: the crop each camera die was read from is served by its hash (refused once the
file no longer matches it), and a person's correction shows beside the reading."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from fastapi.testclient import TestClient

from server.admin import AdminPin
from server.app import create_app
from server.camera import CameraSource
from server.ledger import Ledger
from server.table import Table
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw

PIN = {"X-Admin-PIN": "1122"}


def test_a_camera_die_is_shown_as_read_and_a_correction_sits_beside_it(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("1122")
    throw = render_throw(ThrowSpec(dice=("d6",) * 3), np.random.default_rng(91))
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        CameraSource("camera", Replay([]), DiceReader(), table).read_throw(throw.image)
        with TestClient(create_app(table, admin)) as client:
            row = client.get("/api/throws").json()[0]
            die = row["dice"][0]
            assert len(row["dice"]) >= 2 and all(d["crop"] for d in row["dice"])
            shown = client.get(f"/api/crops/{die['crop']}")
            assert shown.status_code == 200 and shown.headers["content-type"] == "image/png"
            assert hashlib.sha256(shown.content).hexdigest() == die["crop"]
            assert client.get("/api/crops/not-a-hash").status_code == 422
            missing = client.get(f"/api/crops/{'0' * 64}")
            assert missing.status_code == 404 and "no crop" in missing.json()["detail"]
            other = (die["face"] % 6) + 1
            url = f"/api/throws/{row['id']}/confirm"
            fixed = client.post(url, json={"index": 0, "face": other}, headers=PIN)
            assert fixed.status_code == 201, fixed.text
            again = client.get("/api/throws").json()[0]
            assert again["dice"][0] == {**die, "confirmed": other}
            assert all("confirmed" not in d for d in again["dice"][1:])
            assert again["dice"][0]["face"] == die["face"]  # the reading itself stays
            crop = tmp_path / "crops" / f"{die['crop']}.png"
            crop.write_bytes(crop.read_bytes() + b"\0")  # changed on disk after the throw
            altered = client.get(f"/api/crops/{die['crop']}")
            assert altered.status_code == 409 and "changed after" in altered.json()["detail"]


def test_a_die_the_camera_was_unsure_of_is_confirmed_once_and_feeds_the_check(
    tmp_path: Path,
) -> None:
    image = render_throw(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(4)).image
    soft = cv2.GaussianBlur(image, (0, 0), 6)  # pips blurred away: the camera only guesses
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        check = table.create("d6pool", {"level": 2, "difficulty": 3})
        result = CameraSource("camera", Replay([]), DiceReader(), table).read_throw(soft)
        unsure = [e for e in events if e["type"] == "uncertain"]
        assert len(unsure) == len(result.uncertain) >= 1
        with TestClient(create_app(table)) as client:
            first = unsure[0]
            url = f"/api/readings/{first['row']}/confirm"
            assert (
                client.post(url, json={"face": 9}).json()["detail"].startswith("a d6 has no face 9")
            )
            fed = client.post(url, json={"face": 2})  # no PIN: players settle their own dice
            assert fed.status_code == 201, fed.text
            assert fed.json()["check"]["id"] == check["id"]
            assert fed.json()["check"]["readings"] == 1  # one of the two dice the pool needs
            again = client.post(url, json={})
            assert again.status_code == 409 and "confirmed already" in again.json()["detail"]
            listed = client.get("/api/readings/unsure").json()  # newest first
            assert [r["row"] for r in listed] == sorted((e["row"] for e in unsure), reverse=True)
            settled = {r["row"]: r["confirmed"] for r in listed}
            row = client.get("/api/throws").json()[0]
            assert settled.pop(first["row"]) == {"throw": row["id"], "face": 2}
            assert all(v is None for v in settled.values())
            assert row["check"] == check["id"]
            assert row["dice"][0]["confirms"] == first["row"] and row["dice"][0]["face"] == 2
            assert row["dice"][0]["crop"] == first["crop"]  # the picture stays with it
            not_unsure = client.post(f"/api/readings/{row['id']}/confirm", json={})
            assert not_unsure.status_code == 404
            # "confirm: 5?" answered with one press: the camera's own guess
            asked = table.uncertain("camera", {"die": "d6", "value": 5, "advice": "confirm: 5?"})
            guessed = client.post(f"/api/readings/{asked}/confirm", json={})
            assert guessed.status_code == 201 and guessed.json()["check"]["readings"] == 2
            assert client.get("/api/throws").json()[0]["dice"][0]["face"] == 5
            blind = table.uncertain("camera", {"die": "d6", "value": None, "advice": "re-throw"})
            refused = client.post(f"/api/readings/{blind}/confirm", json={})
            assert refused.status_code == 400 and "no guess" in refused.json()["detail"]


def test_a_numbered_die_seen_among_pip_dice_takes_no_face_from_a_person(
    tmp_path: Path,
) -> None:
    """A d20 thrown with a d6 pool is named "numbered", not a d6: a face typed for it (a
    d20's 4 is no d6's 4) is refused, and the pool gets only its own dice."""
    throw = render_throw(ThrowSpec(dice=("d6", "d6", "d20")), np.random.default_rng(2))
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        check = table.create("d6pool", {"level": 3, "difficulty": 3})  # waits for three d6s
        CameraSource("camera", Replay([]), DiceReader(), table).read_throw(throw.image)
        unsure = [e for e in events if e["type"] == "uncertain"]
        assert [(e["die"], e["problem"]) for e in unsure] == [("numbered", "numbered die")]
        # as ledgers written before numbered dice were named so keep them
        older = table.uncertain("camera", {"die": "d6", "value": None, "problem": "numbered die"})
        with TestClient(create_app(table)) as client:
            for row in (unsure[0]["row"], older):
                typed = client.post(f"/api/readings/{row}/confirm", json={"face": 4})
                assert typed.status_code == 400, typed.text
                assert typed.json()["detail"].startswith("this die is a numbered die (d5, d10")
            state = client.get(f"/api/checks/{check['id']}").json()
        assert state["readings"] == 2  # the two d6s, and no face of the d20
        confirmed = [d for t in ledger.entries(kind="throw") for d in t.body["dice"]
                     if "confirms" in d]  # fmt: skip
        assert confirmed == []
