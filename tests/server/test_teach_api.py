"""Teaching a numbered die from the camera's last settled throw, through the API (admin)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from server.admin import AdminPin
from server.app import create_app
from server.camera import CameraSource
from server.diesets import PICTURE, DieSetStore
from server.ledger import Ledger
from server.table import Table
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach import DieSetError

PIN = {"X-Admin-PIN": "7777"}


def test_a_face_is_taught_from_the_last_throw_and_then_read(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("7777")
    store = DieSetStore(tmp_path)
    rng = np.random.default_rng(31)
    look = (PALETTE[2],)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        with TestClient(create_app(table, admin, store)) as client:
            url = "/api/diesets/red-d5/teach"
            assert client.post(url, json={"die": "d5", "value": 3}, headers=PIN).status_code == 409
            for value in range(1, 6):  # show each face alone, let it settle, teach it
                spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=look)
                camera.read_throw(render_throw(spec, rng).image)
                taught = client.post(url, json={"die": "d5", "value": value}, headers=PIN)
                assert taught.status_code == 201, taught.text
                assert taught.json()["note"] == ""  # the same die each time: nothing to check
            assert taught.json()["taught"] == [1, 2, 3, 4, 5] and taught.json()["missing"] == []
            assert taught.json()["once"] == [1, 2, 3, 4, 5]  # each from one photo so far
            again = ThrowSpec(dice=("d5",), values=(3,), perspective=0.0, looks=look)
            camera.read_throw(render_throw(again, rng).image)  # face 3 again (turned anew)
            taught = client.post(url, json={"die": "d5", "value": 3}, headers=PIN)
            assert taught.status_code == 201 and taught.json()["once"] == [1, 2, 4, 5]
            assert client.get("/api/diesets").json()[0]["name"] == "red-d5"
            assert client.post(url, json={"die": "d5", "value": 2}).status_code == 401
            two = ThrowSpec(dice=("d5", "d5"), perspective=0.0, looks=look, touching=0.0)
            camera.read_throw(render_throw(two, rng).image)
            refused = client.post(url, json={"die": "d5", "value": 2}, headers=PIN)
            assert refused.status_code == 422 and "exactly one die" in refused.json()["detail"]
            bad = client.post("/api/diesets/Bad Name/teach", json={"die": "d5", "value": 1},
                              headers=PIN)  # fmt: skip
            assert bad.status_code == 422
        # the camera now reads d5s with the set it was just taught
        table.create("d5", {"at_least": 1, "single": True})
        spec = ThrowSpec(dice=("d5",), values=(4,), perspective=0.0, looks=look)
        result = camera.read_throw(render_throw(spec, rng).image)
        assert [d.value for d in result.certain] == [4]


def test_a_face_shown_with_another_die_is_taught_with_a_note_to_check_it(tmp_path: Path) -> None:
    """A die of another colour or outline than the faces taught before (a d20 shown for a
    d5's face, or the blue d5 for the red one) is taught, but the answer says to check it:
    such a face widens what the set takes for its own dice."""
    admin = AdminPin(tmp_path)
    admin.set("7777")
    store = DieSetStore(tmp_path)
    rng = np.random.default_rng(33)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        with TestClient(create_app(table, admin, store)) as client:
            url = "/api/diesets/red-d5/teach"

            def show(die: str, value: int, look: int) -> dict[str, object]:
                """Show a ``die`` of ``look`` showing ``value``, taught as the d5's face."""
                spec = ThrowSpec(dice=(die,), values=(value,), perspective=0.0,
                                 looks=(PALETTE[look],))  # fmt: skip
                camera.read_throw(render_throw(spec, rng).image)
                taught = client.post(url, json={"die": "d5", "value": value}, headers=PIN)
                assert taught.status_code == 201, taught.text
                body: dict[str, object] = taught.json()
                return body

            assert show("d5", 1, 2)["note"] == show("d5", 2, 2)["note"] == ""
            note = str(show("d20", 4, 2)["note"])  # a red d20 taught as the d5's face 4
            assert note.startswith("face 4 is taught, but its outline is not the shape of the "
                                   "2 faces taught before"), note  # fmt: skip
            assert "forget face 4 and show it again with a die of this set" in note
            note = str(show("d5", 5, 4)["note"])  # a blue d5
            assert note.startswith("face 5 is taught, but its colour is not that of the 3 "
                                   "faces taught before"), note  # fmt: skip
            assert store.get("red-d5").crops.keys() == {1, 2, 4, 5}  # taught all the same


def test_a_die_set_spoilt_on_disk_is_listed_with_why_and_not_taught_into(
    tmp_path: Path,
) -> None:
    from vision.teach_synthetic import taught_from_renders

    admin = AdminPin(tmp_path)
    admin.set("7777")
    store = DieSetStore(tmp_path)
    store.save(taught_from_renders("d5", 2, "red-d5"))
    store.save(taught_from_renders("d10", 2, "old-d10"))
    folder = tmp_path / "diesets" / "old-d10"
    (lost,) = folder.glob("face7-0-*.png")
    lost.unlink()  # a face's picture lost
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    rng = np.random.default_rng(32)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        with TestClient(create_app(table, admin, store)) as client:
            listed = {d["name"]: d for d in client.get("/api/diesets").json()}
            assert listed["red-d5"]["problem"] == "" and listed["red-d5"]["missing"] == []
            spoilt = listed["old-d10"]
            assert spoilt["taught"] == [] and f"{lost.name}: no such file" in spoilt["problem"]
            assert "teach it again" in spoilt["problem"]
            spec = ThrowSpec(dice=("d10",), values=(3,), perspective=0.0, looks=(PALETTE[2],))
            camera.read_throw(render_throw(spec, rng).image)
            refused = client.post("/api/diesets/old-d10/teach", json={"die": "d10", "value": 3},
                                  headers=PIN)  # fmt: skip
            assert refused.status_code == 422 and lost.name in refused.json()["detail"]
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing over it


def test_a_face_shown_by_mistake_is_forgotten_and_a_set_removed(tmp_path: Path) -> None:
    """A d5 whose 2 was taught from a photo of its 3 (the face typed wrong) asks "confirm: 2
    or 3?" of a 3; with face 2 forgotten (to be shown again) the 3 is read.  A set no longer
    used is removed."""
    from vision.teach_synthetic import taught_from_renders

    admin = AdminPin(tmp_path)
    admin.set("7777")
    store = DieSetStore(tmp_path)
    wrong = taught_from_renders("d5", 2, "red-d5")
    wrong.crops[2] = wrong.crops[3][:1]  # the 3 shown when 2 was named
    store.save(wrong)
    store.save(taught_from_renders("d10", 2, "old-d10"))
    folder = store.path("red-d5")
    spec = ThrowSpec(dice=("d5",), values=(3,), perspective=0.0, looks=(PALETTE[2],))
    three = render_throw(spec, np.random.default_rng(35)).image
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        table.create("d5", {"at_least": 1, "single": True})  # the camera reads d5s for it
        asked = camera.read_throw(three).dice
        assert [(d.value, d.advice) for d in asked] == [(2, "confirm: 2 or 3? (the red d5)")]
        with TestClient(create_app(table, admin, store)) as client:
            url = "/api/diesets/red-d5/faces/2"
            shown = client.get(f"{url}.png")  # what face 2 was taught from: one photo
            assert shown.status_code == 200 and shown.headers["content-type"] == "image/png"
            picture = cv2.imdecode(np.frombuffer(shown.content, np.uint8), cv2.IMREAD_COLOR)
            assert picture is not None and picture.shape == (PICTURE, PICTURE, 3)
            photos = client.get("/api/diesets/red-d5/faces/3.png").content
            strip = cv2.imdecode(np.frombuffer(photos, np.uint8), cv2.IMREAD_COLOR)
            side_by_side = (PICTURE, PICTURE * len(wrong.crops[3]), 3)  # its photos
            assert strip is not None and strip.shape == side_by_side
            assert client.delete(url).status_code == 401
            forgot = client.delete(url, headers=PIN)
            assert forgot.status_code == 200, forgot.text
            assert forgot.json()["missing"] == [2] and 2 not in forgot.json()["taught"]
            assert not list(folder.glob("face2-*.png"))  # its pictures go with it
            assert len(list(folder.glob("face3-*.png"))) == len(wrong.crops[3])
            again = client.delete(url, headers=PIN)
            assert again.status_code == 422 and "face 2 of 'red-d5' is not taught" in again.text
            assert client.delete("/api/diesets/nope/faces/2", headers=PIN).status_code == 404
            gone = client.get(f"{url}.png")
            assert gone.status_code == 404 and "face 2 of 'red-d5' is not taught" in gone.text
            assert client.get("/api/diesets/nope/faces/2.png").status_code == 404
            assert client.delete("/api/diesets/red-d5/faces/500", headers=PIN).status_code == 422
            assert client.delete("/api/diesets/old-d10").status_code == 401
            assert client.delete("/api/diesets/old-d10", headers=PIN).json() == {
                "removed": "old-d10"
            }
            assert client.delete("/api/diesets/old-d10", headers=PIN).status_code == 404
            assert [s["name"] for s in client.get("/api/diesets").json()] == ["red-d5"]
        # the camera reads with what is left: the same 3 is read 3
        assert [(d.value, d.uncertain) for d in camera.read_throw(three).dice] == [(3, False)]
        assert list(camera._reader.diesets) == ["d5"]  # the removed d10 set is read no more


def test_faces_shown_through_a_steep_camera_are_taught_with_a_note_to_mount_it_overhead(
    tmp_path: Path,
) -> None:
    """Faces shown through a camera at a steep slant (the renderer's 0.3) have their numerals
    all one way off their dice's middles: from the fourth face on, the answer says so and
    what to do (DieSet.aside_note); shown straight from above, nothing to check."""
    admin = AdminPin(tmp_path)
    admin.set("7777")
    store = DieSetStore(tmp_path)
    look = (PALETTE[2],)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        with TestClient(create_app(table, admin, store)) as client:
            notes: dict[float, list[str]] = {}
            for slant in (0.3, 0.0):
                url = f"/api/diesets/red-d20-{int(slant * 10)}/teach"
                for value in range(1, 7):
                    spec = ThrowSpec(dice=("d20",), values=(value,), perspective=slant,
                                     looks=look, tray=(90, 90, 90), camera=3)  # fmt: skip
                    camera.read_throw(render_throw(spec, np.random.default_rng(value)).image)
                    taught = client.post(url, json={"die": "d20", "value": value}, headers=PIN)
                    assert taught.status_code == 201, taught.text
                    notes.setdefault(slant, []).append(taught.json()["note"])
    assert notes[0.0] == [""] * 6
    assert notes[0.3][:3] == [""] * 3  # too few faces to judge by
    assert all("camera looks at the tray at a slant" in note for note in notes[0.3][3:])


def test_faces_taught_at_once_are_all_kept_and_a_face_the_die_lacks_is_said_first(
    tmp_path: Path,
) -> None:
    """Two requests teaching one set at once each loaded it, added their face and saved it:
    one face was lost, a face's picture was read half written, and the shared reader's
    network failed under two callers."""
    store = DieSetStore(tmp_path)
    reader = DiceReader()
    rng = np.random.default_rng(32)
    shown = {value: render_throw(ThrowSpec(dice=("d20",), values=(value,), perspective=0.0,
                                           looks=(PALETTE[2],)), rng).image
             for value in range(1, 13)}  # fmt: skip
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda v: store.teach("red", "d20", v, shown[v], reader), shown))
    assert len(done) == 12
    assert sorted(store.get("red").crops) == list(range(1, 13))  # none lost
    assert all(len(crops) == 1 for crops in store.get("red").crops.values())
    empty = np.full_like(shown[1], 200)  # no die in view: the face is what is wrong
    with pytest.raises(DieSetError, match="a d20 has no face 21"):
        store.teach("red", "d20", 21, empty, reader)
