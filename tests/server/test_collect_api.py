"""Teaching a numbered die without naming each face through the API (admin): collect the
camera's settled throws, let the appliance group them by face, name the groups, teach, read
(rendered d5s through the real reader, a real data folder and ledger)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from server.admin import AdminPin
from server.app import create_app
from server.camera import CameraSource
from server.collect import FaceCollector
from server.diesets import PICTURE, DieSetStore, side_by_side
from server.ledger import Ledger
from server.table import Table
from vision.frames import Replay
from vision.pixels import read_image
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw

PIN = {"X-Admin-PIN": "3579"}


def test_a_d5_is_taught_from_grouped_throws_and_then_read(tmp_path: Path) -> None:
    AdminPin(tmp_path).set("3579")
    store = DieSetStore(tmp_path)
    collector = FaceCollector(tmp_path, store)
    rng = np.random.default_rng(41)
    look = (PALETTE[2],)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store,
                              collector=collector)  # fmt: skip
        app = create_app(table, AdminPin(tmp_path), store, camera=camera, collector=collector)
        with TestClient(app) as client:
            url = "/api/diesets/blue-d5"
            assert client.post(f"{url}/collect", json={"die": "d5"}).status_code == 401
            bad = client.post(f"{url}/collect", json={"die": "d7"}, headers=PIN)
            assert bad.status_code == 422 and "teach mode is for" in bad.json()["detail"]
            started = client.post(f"{url}/collect", json={"die": "d5"}, headers=PIN)
            assert started.status_code == 201 and started.json()["collecting"] is True
            thrown = [1, 2, 3, 4, 5] * 3
            for value in thrown:  # one die a throw, as the owner throws it again and again
                spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=look)
                camera.read_throw(render_throw(spec, rng).image)
            two = ThrowSpec(dice=("d5", "d5"), perspective=0.0, looks=look, touching=0.0)
            camera.read_throw(render_throw(two, rng).image)  # two dice: not kept
            assert client.get(f"{url}/collect").json()["pictures"] == 15
            assert not list(ledger.entries())  # collecting is teaching: nothing is recorded
            client.delete(f"{url}/collect", headers=PIN)
            grouped = client.post(f"{url}/groups", headers=PIN)
            assert grouped.status_code == 200, grouped.text
            groups = grouped.json()["groups"]
            assert sorted(g["pictures"] for g in groups) == [3] * 5  # one group a face
            # the owner looks at each group and names its face; here the test knows which
            # throw each collected picture came from
            pictures = {(tmp_path / "collect" / "blue-d5" / f"{i:03d}.png").read_bytes(): v
                        for i, v in enumerate(thrown)}  # fmt: skip
            values = {}
            for g in groups:
                folder = tmp_path / "collect" / "blue-d5" / "groups" / f"group-{g['group']:02d}"
                faces = Counter(pictures[p.read_bytes()] for p in folder.glob("*.png"))
                assert len(faces) == 1, faces  # each group one face
                values[g["group"]] = faces.most_common(1)[0][0]
                shown = client.get(f"{url}/groups/{g['group']}.png")  # named by these
                first = [read_image(p) for p in sorted(folder.glob("*.png"))[:3]]
                assert shown.status_code == 200 and shown.content == side_by_side(first)
                strip = cv2.imdecode(np.frombuffer(shown.content, np.uint8), cv2.IMREAD_COLOR)
                assert strip is not None and strip.shape == (PICTURE, 3 * PICTURE, 3)
            wrong = client.post(f"{url}/groups/teach", json={"values": {"1": 9}}, headers=PIN)
            assert wrong.status_code == 422 and "no face 9" in wrong.json()["detail"]
            taught = client.post(f"{url}/groups/teach", json={"values": values}, headers=PIN)
            assert taught.status_code == 201, taught.text
            assert taught.json()["taught"] == [1, 2, 3, 4, 5] and taught.json()["missing"] == []
        table.create("d5", {"at_least": 1, "single": True})
        spec = ThrowSpec(dice=("d5",), values=(4,), perspective=0.0, looks=look)
        result = camera.read_throw(render_throw(spec, rng).image)
        assert [d.value for d in result.certain] == [4]  # read with the set just taught


def test_dice_beyond_the_tray_s_area_do_not_stop_a_throw_of_one_being_kept(
    tmp_path: Path,
) -> None:
    """Collecting keeps a throw of exactly one die; two more lying beside the tray, beyond
    its marked area, are not on the tray."""
    from vision.tray_area import TrayArea

    collector = FaceCollector(tmp_path, DieSetStore(tmp_path))
    collector.start("red-d5", "d5")
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    reader = DiceReader()
    said = collector.offer(throw.image, reader)
    assert said == "not kept: show one die at a time (the camera sees 3)"
    left = TrayArea.parse([[0, 0], [0.3, 0], [0.3, 1], [0, 1]])  # the left-hand die's part
    assert collector.offer(throw.image, reader, left) == "picture 1 kept for red-d5"
    assert collector.describe("red-d5")["pictures"] == 1


def test_a_collection_file_spoilt_on_disk_is_said_not_a_server_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """collect.json is written whole (a power cut while collecting starts leaves none, not
    half of one); one left empty, cut short or without its die (written by an older
    service, or by hand) is answered with what to do, not a 500 (a ValueError or
    KeyError had reached the server)."""
    import dicebridge.files

    AdminPin(tmp_path).set("3579")
    store = DieSetStore(tmp_path)
    collector = FaceCollector(tmp_path, store)
    meta = tmp_path / "collect" / "red-d5" / "collect.json"

    def cut(part: Path, data: bytes, mode: int) -> None:  # the disk fills half way
        part.write_bytes(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(dicebridge.files, "write_part", cut)
        with pytest.raises(OSError, match="No space left"):
            collector.start("red-d5", "d5")
    assert not meta.exists()  # not half of one
    with Ledger(tmp_path) as ledger:
        app = create_app(Table(ledger), AdminPin(tmp_path), store, collector=collector)
        with TestClient(app, raise_server_exceptions=False) as client:
            url = "/api/diesets/red-d5"
            for spoilt in ("", '{"name": "red-d5", "di', '{"name": "red-d5"}', "[1, 2]"):
                meta.write_text(spoilt)
                shown = client.get(f"{url}/collect")
                assert shown.status_code == 404, (spoilt, shown.text)
                assert "start collecting again" in shown.json()["detail"]
                grouped = client.post(f"{url}/groups", headers=PIN)
                assert grouped.status_code == 422, (spoilt, grouped.text)
                taught = client.post(f"{url}/groups/teach", json={"values": {"1": 2}},
                                     headers=PIN)  # fmt: skip
                assert taught.status_code == 422, (spoilt, taught.text)
            started = client.post(f"{url}/collect", json={"die": "d5"}, headers=PIN)
            assert started.status_code == 201 and started.json()["die"] == "d5"  # mended
