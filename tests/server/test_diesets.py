"""The die sets' store (server/diesets.py) through the API (admin): a set with no face left,
sets named by their folders, sets of the older format, a full disk."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from dicebridge import files
from server.admin import AdminPin
from server.app import create_app
from server.camera import CameraSource
from server.diesets import DieSetStore
from server.ledger import Ledger
from server.table import Table
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach import MARGIN, DieSet, DieSetError
from vision.teach_sets import DieSets
from vision.teach_synthetic import taught_from_renders

PIN = {"X-Admin-PIN": "2468"}
EMPTY = "no faces taught yet: teach its faces or remove it"


def _d5(value: int, seed: int = 5) -> np.ndarray:
    """A frame of one red d5 showing ``value``, straight from above."""
    spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=(PALETTE[2],))
    return render_throw(spec, np.random.default_rng(seed)).image


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _old_set(folder: Path, values: tuple[int, ...]) -> None:
    """A d5 set as an older version kept it: no margin in dieset.json (read as 1.0)."""
    folder.mkdir(parents=True)
    picture = np.full((128, 128, 3), 40, np.uint8)
    cv2.rectangle(picture, (20, 20), (108, 108), (60, 60, 200), -1)
    faces = {}
    for value in values:
        cv2.imwrite(str(folder / f"face{value}-0.png"), picture)
        faces[str(value)] = [f"face{value}-0.png"]
    meta = {"name": folder.name, "die": "d5", "faces": faces}
    (folder / "dieset.json").write_text(json.dumps(meta), encoding="utf-8")


def test_a_set_whose_last_face_is_forgotten_is_left_out_and_the_other_set_reads(
    tmp_path: Path,
) -> None:
    """The Devices page's "Forget this face" on a set's only face left `"faces": {}`; the
    store still handed it to the reader, which failed every d5 of every throw, the good red
    set's too."""
    AdminPin(tmp_path).set("2468")
    store = DieSetStore(tmp_path)
    store.save(taught_from_renders("d5", 2, "red-d5", design=0))
    blue = taught_from_renders("d5", 4, "blue-d5", design=0)
    store.save(DieSet("blue-d5", "d5", {1: blue.crops[1]}))  # one face shown, named wrong
    image = _d5(4)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.create("d5", {"at_least": 1, "single": True})
        reader = DiceReader()
        camera = CameraSource("camera", Replay([]), reader, table, diesets=store)
        with TestClient(create_app(table, AdminPin(tmp_path), store)) as client:
            forgot = client.delete("/api/diesets/blue-d5/faces/1", headers=PIN)
            assert forgot.status_code == 200, forgot.text
            assert forgot.json()["taught"] == []
            result = camera.read_throw(image)  # was: DieSetError "has no taught faces yet"
            assert result is not None and [(d.value, d.problem) for d in result.dice] == [(4, "")]
            assert isinstance(reader.diesets["d5"], DieSet)  # the red set alone
            assert reader.diesets["d5"].name == "red-d5"
            listed = {d["name"]: d for d in client.get("/api/diesets").json()}
            assert listed["blue-d5"]["problem"] == EMPTY
            assert listed["blue-d5"]["missing"] == [1, 2, 3, 4, 5]
            assert listed["red-d5"]["problem"] == ""
        said = store.use_in(DiceReader.__new__(DiceReader))
        assert said == [f"die set 'blue-d5' is not used: {EMPTY}"]
        # a face taught into it again: it is read with once more
        table.set_preview("camera", b"", _d5(1))
        with TestClient(create_app(table, AdminPin(tmp_path), store)) as client:
            taught = client.post("/api/diesets/blue-d5/teach", json={"die": "d5", "value": 1},
                                 headers=PIN)  # fmt: skip
            assert taught.status_code == 201, taught.text
        assert store.use_in(reader) == [] and isinstance(reader.diesets["d5"], DieSets)


def test_sets_are_named_by_their_folders_and_any_listed_one_can_be_removed(
    tmp_path: Path,
) -> None:
    """A set copied in under another folder name than the name in its dieset.json was
    listed by the latter and could be neither looked at, mended nor removed; two copies
    were listed as two sets of one name; a folder whose name breaks the rule was "not used
    … remove it on the Devices page", and removing it answered 404."""
    AdminPin(tmp_path).set("2468")
    made = tmp_path / "Red_d5"  # `vision teach ~/sets/Red_d5 --die d5` before names were checked
    wrong = taught_from_renders("d5", 2, "Red_d5", design=0)
    DieSet("Red_d5", "d5", {v: wrong.crops[v] for v in (1, 2)}).save(made)
    store = DieSetStore(tmp_path / "data")
    for folder in ("red-d5", "red-d5-copy", "Red_d5"):
        shutil.copytree(made, store.folder / folder)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        with TestClient(create_app(table, AdminPin(tmp_path), store)) as client:
            listed = {d["name"]: d for d in client.get("/api/diesets").json()}
            assert sorted(listed) == ["Red_d5", "red-d5", "red-d5-copy"]
            assert listed["red-d5"]["problem"] == listed["red-d5-copy"]["problem"] == ""
            bad = listed["Red_d5"]
            assert bad["taught"] == [1, 2] and bad["problem"].startswith(
                "its folder's name is not a die set's name (1–40 lower-case letters, digits "
                "and dashes): rename the folder, or remove it"
            )
            assert client.get("/api/diesets/red-d5/faces/1.png").status_code == 200
            assert client.get("/api/diesets/Red_d5/faces/2.png").status_code == 200
            forgot = client.delete("/api/diesets/red-d5/faces/2", headers=PIN)
            assert forgot.status_code == 200, forgot.text
            assert forgot.json()["name"] == "red-d5" and forgot.json()["taught"] == [1]
            saved = json.loads((store.folder / "red-d5" / "dieset.json").read_text("utf-8"))
            assert saved["name"] == "red-d5"  # kept under its folder's name from now on
            reader = DiceReader.__new__(DiceReader)
            said = store.use_in(reader)
            assert said == ["die set 'Red_d5' is not used: its folder's name is not a die "
                            "set's name (1–40 lower-case letters, digits and dashes): rename "
                            "the folder, or remove it on the Devices page"]  # fmt: skip
            assert reader.diesets["d5"].name == "red-d5 + red-d5-copy"
            for name in ("..", "%2E%2E", "..%2Fdata", "%2Ftmp"):
                gone = client.delete(f"/api/diesets/{name}", headers=PIN)
                assert gone.status_code == 404, (name, gone.status_code)
            removed = client.delete("/api/diesets/Red_d5", headers=PIN)
            assert removed.status_code == 200 and removed.json() == {"removed": "Red_d5"}
            assert client.delete("/api/diesets/red-d5-copy", headers=PIN).status_code == 200
            assert [d["name"] for d in client.get("/api/diesets").json()] == ["red-d5"]
    for name in ("..", "../data", str(store.folder / "red-d5"), "red-d5/.", ""):
        with pytest.raises(DieSetError, match="no die set"):
            store.remove(name)
    assert made.is_dir() and (store.folder / "red-d5" / "dieset.json").is_file()


def test_no_face_is_taught_into_a_set_of_the_older_format(tmp_path: Path) -> None:
    """A face shown into a set whose dieset.json has no margin (its crops the finder's box
    alone, read as margin 1.0) was cut at MARGIN but kept as a 1.0 crop, and never read."""
    AdminPin(tmp_path).set("2468")
    store = DieSetStore(tmp_path)
    old = store.folder / "old-d5"
    _old_set(old, (1, 2, 3, 4))
    _old_set(store.folder / "bare-d5", ())  # every face forgotten: nothing cut at 1.0
    before = _files(old)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.set_preview("camera", b"", _d5(5))
        with TestClient(create_app(table, AdminPin(tmp_path), store)) as client:
            listed = {d["name"]: d for d in client.get("/api/diesets").json()}
            assert listed["old-d5"]["taught"] == [1, 2, 3, 4]
            assert "this set was taught by an older version" in listed["old-d5"]["problem"]
            assert "teach it again into a new set" in listed["old-d5"]["problem"]
            refused = client.post("/api/diesets/old-d5/teach", json={"die": "d5", "value": 5},
                                  headers=PIN)  # fmt: skip
            assert refused.status_code == 422
            assert "'old-d5': this set was taught by an older version" in refused.text
            assert "teach it again into a new set" in refused.text
            taught = client.post("/api/diesets/bare-d5/teach", json={"die": "d5", "value": 5},
                                 headers=PIN)  # fmt: skip
            assert taught.status_code == 201, taught.text
    assert _files(old) == before
    assert store.get("bare-d5").margin == MARGIN and store.get("bare-d5").older_note() == ""
    reader = DiceReader.__new__(DiceReader)
    assert store.use_in(reader) == []  # the old set is still read with, as it was
    assert reader.diesets["d5"].name == "bare-d5 + old-d5"


def test_a_full_disk_answers_507_and_leaves_the_set_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OSError of a full disk escaped teaching and forgetting a face: a 500."""
    AdminPin(tmp_path).set("2468")
    store = DieSetStore(tmp_path)
    store.save(taught_from_renders("d5", 2, "red-d5", design=0))
    folder = store.path("red-d5")
    before = _files(folder)

    def full(part: Path, data: bytes, mode: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.set_preview("camera", b"", _d5(3))
        app = create_app(table, AdminPin(tmp_path), store)
        with TestClient(app, raise_server_exceptions=False) as client:
            monkeypatch.setattr(files, "write_part", full)
            for answer, what in [
                (client.post("/api/diesets/red-d5/teach", json={"die": "d5", "value": 3},
                             headers=PIN), "the face is not taught"),
                (client.post("/api/diesets/new-d5/teach", json={"die": "d5", "value": 3},
                             headers=PIN), "the face is not taught"),
                (client.delete("/api/diesets/red-d5/faces/2", headers=PIN),
                 "face 2 is not forgotten"),
            ]:  # fmt: skip
                assert answer.status_code == 507, answer.text
                detail = answer.json()["detail"]
                assert detail.startswith("the disk is full (No space left on device): "), detail
                assert what in detail and "the set is as it was" in detail
            assert _files(folder) == before
            assert not (store.folder / "new-d5").exists()  # not begun
            monkeypatch.undo()
            again = client.delete("/api/diesets/red-d5/faces/2", headers=PIN)
            assert again.status_code == 200 and 2 not in again.json()["taught"]
