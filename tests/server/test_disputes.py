"""Disputes: the crop each camera die was read from is served by its hash (refused once the
file no longer matches it), and a person's correction shows beside the reading."""

from __future__ import annotations

import hashlib
from pathlib import Path

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
