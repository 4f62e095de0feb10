"""The tray's area in the camera's picture, marked through the API (admin), kept across
restarts in the data folder, or given in the settings (a real data folder, the real app)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.admin import AdminPin
from server.app import create_app
from server.config import load_config
from server.ledger import Ledger
from server.table import Table
from server.tray_areas import TrayAreaStore
from tests.vision import needs_photos
from vision.datasets import shared_photos
from vision.pixels import read_image
from vision.tray_area import TrayArea

PIN = {"X-Admin-PIN": "2468"}
LEFT = [[0, 0], [0.5, 0], [0.5, 1], [0, 1]]


def _bounds_near(found: dict[str, Any], box: tuple[float, float, float, float]) -> None:
    """The suggested area's corners span ``box`` (shares of the picture), each side within
    2% of the picture."""
    xs = [x for x, _ in found["points"]]
    ys = [y for _, y in found["points"]]
    x0, y0, x1, y1 = box
    assert abs(min(xs) - x0) < 0.02 and abs(max(xs) - x1) < 0.02, found
    assert abs(min(ys) - y0) < 0.02 and abs(max(ys) - y1) < 0.02, found


def test_the_area_is_marked_only_with_the_pin_and_kept_across_restarts(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("2468")
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        with TestClient(create_app(table, admin, areas=TrayAreaStore(tmp_path))) as client:
            assert client.get("/api/tray-area").json() == {"in_use": "whole", "points": None}
            assert client.put("/api/tray-area", json={"points": LEFT}).status_code == 401
            marked = client.put("/api/tray-area", json={"points": LEFT}, headers=PIN)
            assert marked.status_code == 200, marked.text
            assert marked.json() == {"in_use": "marked", "points": LEFT, "share": 0.5}
        # a new service over the same data folder (a restart) uses it
        store = TrayAreaStore(tmp_path)
        assert store.current() == TrayArea.parse(LEFT)
        with TestClient(create_app(table, admin, areas=store)) as client:
            assert client.get("/api/tray-area").json()["in_use"] == "marked"
            assert client.delete("/api/tray-area").status_code == 401
            whole = client.delete("/api/tray-area", headers=PIN)
            assert whole.status_code == 200 and whole.json()["in_use"] == "whole"
        assert not (tmp_path / "tray-area.json").exists() and store.current() is None
        assert store.picture() is None  # no camera here: no picture kept to follow it by


def test_corners_that_make_no_tray_are_refused_and_the_area_in_use_kept(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("2468")
    store = TrayAreaStore(tmp_path)
    store.mark(LEFT)
    with Ledger(tmp_path) as ledger, TestClient(
        create_app(Table(ledger), admin, areas=store)
    ) as client:  # fmt: skip
        for points, said in (
            ([[0, 0], [1, 1]], "a tray area has 3 to 64 corners"),
            ([[0, 0], [1, 0], [1, 2]], "corner 3 of the tray area is [1.0, 2.0]"),
            ([[0.5, 0.5], [0.51, 0.5], [0.5, 0.51]], "covers 0.0% of the picture"),
            ([[0, 0], [1, 0], [0.2, 1], [1, 1]], "sides 2 and 4 cross"),  # corners out of order
            # bow ties crossing at a corner: was 200 (share 0.2, its mask 50%), and "covers 0.0%"
            ([[0, 0], [1, 1], [1, 0], [0.3, 0.3], [0, 1]], "sides 1 and 3 cross"),
            ([[0.1, 0.1], [0.9, 0.9], [0.9, 0.1], [0.5, 0.5], [0.1, 0.9]], "sides 1 and 3 cross"),
            ([[True, 0.9], [1, 0], [1, 1]], "valid number"),  # true is no share of the picture
            ([["0.5", 0.9], [1, 0], [1, 1]], "valid number"),
            ([[10**400, 0.9], [1, 0], [1, 1]], "a number that large is none"),  # was a 500
        ):
            reply = client.put("/api/tray-area", json={"points": points}, headers=PIN)
            assert reply.status_code == 422 and said in str(reply.json()["detail"]), reply.text
        typed = client.put("/api/tray-area", json={"points": "0,0;1,0;1,1"}, headers=PIN)
        assert typed.status_code == 422  # the API takes [[x, y], ...] only
        assert client.get("/api/tray-area").json()["points"] == LEFT  # nothing changed
    assert store.current() == TrayArea.parse(LEFT)


def test_the_settings_area_is_used_until_one_is_marked_and_again_after(tmp_path: Path) -> None:
    path = tmp_path / "dicebridge.toml"
    path.write_text("tray_area = [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]\n")
    config = load_config(path)
    assert config.tray_area is not None and config.tray_area.share() == pytest.approx(0.64)
    store = TrayAreaStore(tmp_path, config.tray_area)
    assert store.describe()["in_use"] == "settings" and store.current() == config.tray_area
    store.mark(LEFT)
    assert store.current() == TrayArea.parse(LEFT)
    assert store.forget()["in_use"] == "settings"
    from_env = load_config(None, {"DICEBRIDGE_TRAY_AREA": "0,0; 0.5,0; 0.5,1; 0,1"})
    assert from_env.tray_area == TrayArea.parse(LEFT)


def test_the_empty_tray_is_taken_with_dice_lying_beyond_the_tray_area(tmp_path: Path) -> None:
    """Three dice lie beside a narrow tray (its area x 0–0.06 of the picture): the tray is
    clear, so its picture is taken; with no area marked the dice are on "the tray"."""
    import cv2
    import numpy as np

    from server.camera import CameraSource
    from server.empty_tray import EmptyTrayStore
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    admin = AdminPin(tmp_path)
    admin.set("2468")
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    areas = TrayAreaStore(tmp_path)
    trays = EmptyTrayStore(tmp_path)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays, areas=areas)
        camera.read_throw(throw.image)
        app = create_app(table, admin, trays=trays, camera=camera, areas=areas)
        with TestClient(app) as client:
            busy = client.post("/api/empty-tray", json={}, headers=PIN)
            assert busy.status_code == 422 and "sees 3 dice" in busy.json()["detail"]
            narrow = [[0, 0], [0.06, 0], [0.06, 1], [0, 1]]
            assert client.put("/api/tray-area", json={"points": narrow}, headers=PIN).is_success
            kept = cv2.imread(str(areas.picture_path))  # the settled frame it was marked on
            assert kept is not None and np.array_equal(kept, throw.image)
            taken = client.post("/api/empty-tray", json={}, headers=PIN)
            assert taken.status_code == 201, taken.text
    assert trays.describe()["in_use"] == "taken"


def test_the_tray_is_found_in_the_empty_tray_picture_else_the_last_throw(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from server.camera import CameraSource
    from server.empty_tray import EmptyTrayStore
    from tests.vision.test_tray_area import _tray_on_a_table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    table_view, (x0, y0, x1, y1) = _tray_on_a_table(5)
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), table_view)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        areas = TrayAreaStore(tmp_path)
        with TestClient(create_app(table, areas=areas)) as client:
            early = client.get("/api/tray-area/suggested")
            assert early.status_code == 409 and "no picture of the tray yet" in early.text
        trays = EmptyTrayStore(tmp_path, photo)  # the settings' empty-tray photo
        with TestClient(create_app(table, trays=trays, areas=areas)) as client:
            found = client.get("/api/tray-area/suggested").json()
            assert found["from"] == "the empty-tray picture" and found["points"], found
            _bounds_near(found, (x0, y0, x1, y1))
            assert areas.current() is None  # suggested, not saved
        whole = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(6)).image
        camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
        camera.read_throw(whole)  # its tray fills the picture
        with TestClient(create_app(table, camera=camera, areas=areas)) as client:
            none = client.get("/api/tray-area/suggested").json()
            assert none["points"] is None and none["from"] == "the camera's last settled throw"
            assert "no tray stands apart" in none["detail"]


def test_a_face_is_taught_with_dice_lying_beyond_the_tray_area(tmp_path: Path) -> None:
    """Teaching needs exactly one die on the tray: two more lying beside it, beyond the
    marked area, no longer refuse it."""
    import numpy as np

    from server.camera import CameraSource
    from server.diesets import DieSetStore
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    admin = AdminPin(tmp_path)
    admin.set("2468")
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    left = min(throw.dice, key=lambda d: d.box[0])
    areas, store = TrayAreaStore(tmp_path), DieSetStore(tmp_path)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
        camera.read_throw(throw.image)
        app = create_app(table, admin, store, camera=camera, areas=areas)
        teach = {"die": "d6_numeral", "value": left.value}
        with TestClient(app) as client:
            three = client.post("/api/diesets/my-d6/teach", json=teach, headers=PIN)
            assert three.status_code == 422 and "the camera sees 3" in three.json()["detail"]
            narrow = [[0, 0], [0.3, 0], [0.3, 1], [0, 1]]  # the left-hand die's part
            assert client.put("/api/tray-area", json={"points": narrow}, headers=PIN).is_success
            taught = client.post("/api/diesets/my-d6/teach", json=teach, headers=PIN)
            assert taught.status_code == 201, taught.text
            assert taught.json()["taught"] == [left.value]


@needs_photos
def test_the_area_follows_a_camera_turned_over_the_burks_tower(tmp_path: Path) -> None:
    """Marked on one burks photo: another of the same session is the view unmoved, the same
    photo turned 3 degrees moves the area with it (its corners about 100 px), and a photo
    of the session whose camera stood 40-60 px elsewhere is a view lost."""
    import cv2
    import numpy as np

    photos = shared_photos()
    assert photos is not None
    images = photos / "burks_polyhedral" / "images"
    marked_on = read_image(images / "D20_A_1.jpg")
    h, w = marked_on.shape[:2]
    areas = TrayAreaStore(tmp_path)
    tray = [[0.177, 0.093], [0.795, 0.093], [0.795, 0.916], [0.177, 0.916]]
    areas.mark(tray, marked_on)
    unmoved = areas.in_picture(read_image(images / "D20_A_9.jpg"))
    assert unmoved == (areas.current(), 0.0, False)
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0, 1.0)
    turned = cv2.warpAffine(read_image(images / "D20_A_9.jpg"), turn, (w, h),
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    placed = areas.in_picture(turned)
    corners = TrayArea.parse(tray).corners(w, h).reshape(-1, 2).astype(np.float64)
    truth = corners @ turn[:, :2].T + turn[:, 2]
    assert not placed.lost and placed.moved == pytest.approx(
        np.linalg.norm(truth - corners, axis=1).max(), abs=6
    )
    assert placed.area is not None
    assert np.abs(placed.area.corners(w, h).reshape(-1, 2) - truth).max() < 7
    lost = areas.in_picture(read_image(images / "D10_A_1.jpg"))
    assert lost.lost and lost.area == areas.current()
    # marked again on the turned view: that is now the view unmoved (the marked picture,
    # kept made ready to match between throws, is the new one)
    areas.mark(tray, turned)
    assert areas.in_picture(turned) == (areas.current(), 0.0, False)
    assert areas.in_picture(read_image(images / "D20_A_9.jpg")).moved > 50


def test_a_full_disk_answers_507_and_keeps_the_area_and_its_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marking on a full disk was a bare 500, and the old area's picture was already gone:
    the area in use no longer moved with a knocked camera."""
    import errno

    import cv2
    import numpy as np

    from dicebridge import files
    from server.camera import CameraSource
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    def full(part: Path, data: bytes, mode: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def refused(part: Path, data: bytes, mode: int) -> None:
        raise OSError(errno.EACCES, "Permission denied")

    admin = AdminPin(tmp_path)
    admin.set("2468")
    throw = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(3))
    areas = TrayAreaStore(tmp_path)
    right = [[0.5, 0], [1, 0], [1, 1], [0.5, 1]]
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
        app = create_app(table, admin, camera=camera, areas=areas)
        with TestClient(app, raise_server_exceptions=False) as client:
            table.set_preview("camera", b"", throw.empty_tray)
            assert client.put("/api/tray-area", json={"points": LEFT}, headers=PIN).is_success
            table.set_preview("camera", b"", throw.image)  # a later frame
            before = sorted(p.name for p in tmp_path.iterdir())
            for fail, status, said in (
                (full, 507, "the disk is full (No space left on device): "),
                (refused, 500, "the tray area cannot be written (Permission denied): "),
            ):
                monkeypatch.setattr(files, "write_part", fail)
                reply = client.put("/api/tray-area", json={"points": right}, headers=PIN)
                assert reply.status_code == status, reply.text
                detail = reply.json()["detail"]
                assert detail.startswith(said), detail
                assert "the tray area is not marked, and the area in use is kept" in detail
                assert client.get("/api/tray-area").json()["points"] == LEFT
                kept = cv2.imread(str(areas.picture_path))  # still follows the camera by it
                assert kept is not None and np.array_equal(kept, throw.empty_tray)
                assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing half
            monkeypatch.undo()
            again = client.put("/api/tray-area", json={"points": right}, headers=PIN)
            assert again.status_code == 200 and again.json()["points"] == right
            kept = cv2.imread(str(areas.picture_path))
            assert kept is not None and np.array_equal(kept, throw.image)


def test_an_empty_tray_picture_of_another_size_is_not_suggested_from(tmp_path: Path) -> None:
    """The camera does not use an empty-tray picture of another size than its frames, but
    the suggested area was found in it (another view: its corners wrong for the camera)."""
    import cv2

    from server.camera import CameraSource
    from server.empty_tray import EmptyTrayStore
    from tests.vision.test_tray_area import _tray_on_a_table
    from vision.frames import Replay
    from vision.reader import DiceReader

    view, (x0, y0, x1, y1) = _tray_on_a_table(8)
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), view[:, : view.shape[1] // 2])  # another view of the table
    trays, areas = EmptyTrayStore(tmp_path, photo), TrayAreaStore(tmp_path)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays, areas=areas)
        camera.read_throw(view)
        with TestClient(create_app(table, trays=trays, camera=camera, areas=areas)) as client:
            found = client.get("/api/tray-area/suggested").json()
    assert found["from"] == "the camera's last settled throw" and found["points"], found
    _bounds_near(found, (x0, y0, x1, y1))
