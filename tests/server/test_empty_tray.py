"""The empty-tray picture taken from the camera's last settled frame, through the API
(admin), kept across restarts, and what the camera does with it (rendered frames, the real
reader, a real ledger and data folder)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from server.admin import AdminPin
from server.app import create_app
from server.camera import CameraSource
from server.empty_tray import EmptyTrayError, EmptyTrayStore
from server.ledger import Ledger
from server.table import Table
from tests.vision.test_tray import _relit
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw

PIN = {"X-Admin-PIN": "2468"}


def test_the_tray_is_taken_only_when_clear_and_only_with_the_pin(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("2468")
    trays = EmptyTrayStore(tmp_path)
    throw = render_throw(ThrowSpec(dice=("d6",) * 3), np.random.default_rng(81))
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
        with TestClient(create_app(table, admin, trays=trays)) as client:
            assert client.get("/api/empty-tray").json()["in_use"] == "none"
            assert client.get("/api/empty-tray.jpg").status_code == 404
            early = client.post("/api/empty-tray", json={}, headers=PIN)
            assert early.status_code == 409 and "no settled throw" in early.json()["detail"]
            camera.read_throw(throw.image)  # three dice lie on the tray
            busy = client.post("/api/empty-tray", json={}, headers=PIN)
            assert busy.status_code == 422, busy.text
            assert busy.json()["detail"] == "clear the tray first: the camera sees 3 dice on it"
            camera.read_throw(throw.empty_tray)  # cleared: "no dice seen", the preview shows it
            assert client.post("/api/empty-tray", json={}).status_code == 401
            taken = client.post("/api/empty-tray", json={}, headers=PIN)
            assert taken.status_code == 201, taken.text
            h, w = throw.empty_tray.shape[:2]
            assert taken.json()["in_use"] == "taken" and taken.json()["size"] == [w, h]
            assert events[-1]["event"] == "empty-tray"
            picture = client.get("/api/empty-tray.jpg")
            assert picture.status_code == 200 and picture.headers["content-type"] == "image/jpeg"
            saved = cv2.imread(str(tmp_path / "empty-tray.png"))
            assert saved is not None and np.array_equal(
                saved, throw.empty_tray
            )  # PNG: the frame itself, unchanged
            assert client.delete("/api/empty-tray").status_code == 401
            forgot = client.delete("/api/empty-tray", headers=PIN)
            assert forgot.status_code == 200 and forgot.json()["in_use"] == "none"
            assert not (tmp_path / "empty-tray.png").exists()


def test_a_taken_picture_outlives_a_restart_and_wins_over_the_settings_one(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(82)
    settings_photo = tmp_path / "tray.jpg"
    cv2.imwrite(str(settings_photo), render_throw(ThrowSpec(dice=()), rng).empty_tray)
    empty = render_throw(ThrowSpec(dice=()), rng).empty_tray
    EmptyTrayStore(tmp_path / "data", settings_photo).take(empty, DiceReader())
    again = EmptyTrayStore(tmp_path / "data", settings_photo)  # the service started again
    assert again.describe()["in_use"] == "taken"
    picture = again.current()
    assert picture is not None and np.array_equal(picture, empty)
    assert again.forget()["in_use"] == "settings"  # back to the settings' photo
    picture = again.current()
    assert picture is not None and picture.shape == empty.shape
    (tmp_path / "spoilt.jpg").write_bytes(b"not a picture")
    with pytest.raises(EmptyTrayError, match="cannot read the empty-tray photo"):
        EmptyTrayStore(tmp_path / "data", tmp_path / "spoilt.jpg")


def test_the_camera_compares_with_the_picture_in_use_and_says_when_it_does_not_fit(
    tmp_path: Path,
) -> None:
    throw = render_throw(ThrowSpec(dice=("dF",) * 3), np.random.default_rng(83))
    trays = EmptyTrayStore(tmp_path)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
        assert len(camera.read_throw(throw.image).dice) == 3  # no picture: the finder alone
        # a picture of the tray with these very dice on it (as if they had lain there when
        # it was taken), written while the service runs: the camera now drops all three
        cv2.imwrite(str(trays.path), throw.image)
        assert camera.read_throw(throw.image).problem == "no dice seen"
        time.sleep(0.01)  # a new modification time: the store reloads the file
        small = cv2.resize(throw.empty_tray, (320, 240))
        cv2.imwrite(str(trays.path), small)
        before = len(events)
        assert len(camera.read_throw(throw.image).dice) == 3  # another size: not used
        assert len(camera.read_throw(throw.image).dice) == 3
        unfit = [e for e in events[before:] if e.get("event") == "notice"]
        assert len(unfit) == 1, unfit  # said once, not on every throw
        assert "320 x 240 px" in unfit[0]["detail"] and "take it again" in unfit[0]["detail"]


def test_a_taken_picture_spoilt_on_disk_is_not_used_and_the_page_says_why(
    tmp_path: Path,
) -> None:
    throw = render_throw(ThrowSpec(dice=("dF",) * 3), np.random.default_rng(85))
    AdminPin(tmp_path).set("2468")
    trays = EmptyTrayStore(tmp_path)
    trays.path.write_bytes(b"\x89PNG half written")  # a power cut while it was saved
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
        for _ in range(2):  # read with the finder alone, as with no picture
            assert len(camera.read_throw(throw.image).dice) == 3
        said = [e["detail"] for e in events if e.get("event") == "notice"]
        assert len(said) == 1, said  # said once, not on every throw
        assert "empty-tray.png is not a picture" in said[0] and "take it again" in said[0]
        app = create_app(table, AdminPin(tmp_path), trays=trays, camera=camera)
        with TestClient(app) as client:
            state = client.get("/api/empty-tray").json()
            assert state["in_use"] == "none" and "not a picture" in state["problem"]
            assert client.get("/api/empty-tray.jpg").status_code == 404
            assert client.delete("/api/empty-tray", headers=PIN).json()["in_use"] == "none"
        assert not trays.path.exists() and "problem" not in trays.describe()


def test_the_camera_says_once_when_the_light_has_moved_since_the_picture(tmp_path: Path) -> None:
    rng = np.random.default_rng(84)
    throw = render_throw(ThrowSpec(dice=("d6",) * 4), rng)
    trays = EmptyTrayStore(tmp_path)
    trays.take(throw.empty_tray, DiceReader())
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
        camera.read_throw(throw.image)  # the picture's own light: nothing to say
        assert not [e for e in events if e.get("event") == "notice"]
        for _ in range(2):
            camera.read_throw(_relit(throw.image, rng))
        told = [e["detail"] for e in events if e.get("event") == "notice"]
        assert len(told) == 1, told  # once per picture, not on every throw
        assert told[0].startswith("the light on the tray has changed since the empty-tray")
        assert "take the picture again" in told[0]


def test_a_full_disk_answers_507_and_keeps_the_picture_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taking the empty tray on a full disk was a bare 500."""
    import errno

    from dicebridge import files

    def full(part: Path, data: bytes, mode: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    admin = AdminPin(tmp_path)
    admin.set("2468")
    trays = EmptyTrayStore(tmp_path)
    first, second = (
        render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(seed)).empty_tray
        for seed in (4, 5)
    )
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
        app = create_app(table, admin, trays=trays, camera=camera)
        with TestClient(app, raise_server_exceptions=False) as client:
            assert not np.array_equal(first, second)
            camera.read_throw(first)
            assert client.post("/api/empty-tray", json={}, headers=PIN).status_code == 201
            camera.read_throw(second)
            monkeypatch.setattr(files, "write_part", full)
            reply = client.post("/api/empty-tray", json={}, headers=PIN)
            assert reply.status_code == 507, reply.text
            assert reply.json()["detail"] == (
                "the disk is full (No space left on device): the empty tray is not taken, "
                "and the picture in use is kept; free some space"
            )
            monkeypatch.undo()
    kept = cv2.imread(str(tmp_path / "empty-tray.png"))
    assert kept is not None and np.array_equal(kept, first)
