"""Teaching a numbered die without naming each face through the API (admin): collect the
camera's settled throws, let the appliance group them by face, name the groups, teach, read
(rendered d5s through the real reader, a real data folder and ledger)."""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
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
from vision.pixels import read_image, write_image
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach import DieSet

PIN = {"X-Admin-PIN": "3579"}


@contextlib.contextmanager
def _admin(tmp_path: Path) -> Iterator[tuple[TestClient, DieSetStore]]:
    """The API over a real data folder (its admin PIN: PIN), and the folder's die sets."""
    AdminPin(tmp_path).set("3579")
    store = DieSetStore(tmp_path)
    collector = FaceCollector(tmp_path, store)
    with Ledger(tmp_path) as ledger:
        app = create_app(Table(ledger), AdminPin(tmp_path), store, collector=collector)
        with TestClient(app) as client:
            yield client, store


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
            named = {"values": {"1": 9}, "grouping": grouped.json()["grouping"]}
            wrong = client.post(f"{url}/groups/teach", json=named, headers=PIN)
            assert wrong.status_code == 422 and "no face 9" in wrong.json()["detail"]
            named = {"values": values, "grouping": grouped.json()["grouping"]}
            taught = client.post(f"{url}/groups/teach", json=named, headers=PIN)
            assert taught.status_code == 201, taught.text
            assert taught.json()["taught"] == [1, 2, 3, 4, 5] and taught.json()["missing"] == []
            assert taught.json()["warnings"] == []  # one die throughout: nothing to check
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
                taught = client.post(f"{url}/groups/teach",
                                     json={"values": {"1": 2}, "grouping": ""},
                                     headers=PIN)  # fmt: skip
                assert taught.status_code == 422, (spoilt, taught.text)
            started = client.post(f"{url}/collect", json={"die": "d5"}, headers=PIN)
            assert started.status_code == 201 and started.json()["die"] == "d5"  # mended


def _crop(rng: np.random.Generator, value: int, die: str = "d5") -> np.ndarray:
    """A die's picture as collecting keeps it (cut around the finder's box)."""
    spec = ThrowSpec(dice=(die,), values=(value,), perspective=0.0, looks=(PALETTE[2],))
    throw = render_throw(spec, rng)
    return DieSet.region(throw.image, throw.dice[0].box)


def _collected(tmp_path: Path, name: str, shown: list[tuple[int, str]]) -> dict[bytes, str]:
    """A collection for ``name`` (a d5) of one picture a (value, die) in ``shown``, kept as
    the camera keeps them: what each picture shows, by its bytes."""
    collector = FaceCollector(tmp_path, DieSetStore(tmp_path))
    collector.start(name, "d5")
    rng = np.random.default_rng(41)
    truth = {}
    for i, (value, die) in enumerate(shown):
        path = tmp_path / "collect" / name / f"{i:03d}.png"
        write_image(path, _crop(rng, value, die))
        truth[path.read_bytes()] = f"{die}:{value}"
    return truth


def _shows(folder: Path, truth: dict[bytes, str]) -> dict[int, list[str]]:
    """What each group's pictures show (group number -> sorted)."""
    return {int(g.name[len("group-"):]): sorted(truth[p.read_bytes()] for p in g.glob("*.png"))
            for g in sorted((folder / "groups").iterdir())}  # fmt: skip


def test_two_teaches_at_once_each_teach_their_own_names(tmp_path: Path) -> None:
    """Two teaches at once had filled one `named/` folder with both's names: 28 of 29 sets
    taught showed a face with other faces' pictures (and were saved), and a group made while
    teaching ended in FileNotFoundError (a 500) or "there is no group 5"."""
    truth = _collected(tmp_path, "x", [(v, "d5") for v in [1, 2, 3, 4, 5] * 3])
    store = DieSetStore(tmp_path)
    collector = FaceCollector(tmp_path, store)
    grouping = collector.group("x")["grouping"]
    folder = tmp_path / "collect" / "x"
    shows = _shows(folder, truth)
    assert all(len(set(f)) == 1 for f in shows.values()), shows  # each group one face
    face = {g: int(f[0].split(":")[1]) for g, f in shows.items()}
    ahead = face  # two owners naming the groups: one right, one each face turned about
    about = {g: 6 - v for g, v in face.items()}
    pictures = {g: [read_image(p) for p in sorted((folder / "groups" / f"group-{g:02d}")
                                                  .glob("*.png"))] for g in face}  # fmt: skip
    failed: list[str] = []

    def teach(taught: dict[str, DieSet], tag: str, values: dict[int, int]) -> None:
        try:
            taught[tag] = collector.teach("x", values, grouping).dieset
        except Exception as err:  # said below, with the others
            failed.append(f"{tag}: {type(err).__name__}: {err}")

    def same(one: DieSet, other: DieSet) -> bool:
        return sorted(one.crops) == sorted(other.crops) and all(
            len(one.crops[v]) == len(other.crops[v])
            and all(np.array_equal(a, b) for a, b in zip(one.crops[v], other.crops[v], strict=True))
            for v in one.crops
        )

    for _ in range(4):
        taught: dict[str, DieSet] = {}
        both = [threading.Thread(target=teach, args=(taught, "ahead", ahead)),
                threading.Thread(target=teach, args=(taught, "about", about)),
                threading.Thread(target=collector.group, args=("x",))]  # fmt: skip
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        for tag, values in (("ahead", ahead), ("about", about)):
            assert tag in taught, failed
            for group, value in values.items():  # each face its own group's pictures only
                assert len(taught[tag].crops[value]) == 3, (tag, value)
                for crop in taught[tag].crops[value]:
                    assert any(np.array_equal(crop, p) for p in pictures[group]), (tag, value)
        saved = DieSet.load(store.path("x"))  # one of the two, whole
        assert same(saved, taught["ahead"]) or same(saved, taught["about"])
    assert not failed, failed


def test_groups_made_again_are_not_taught_by_the_old_numbers(tmp_path: Path) -> None:
    """Groups are numbered largest first: the owner named groups 1-5, the camera kept more
    pictures, Group was pressed again (another tab), and teach with the owner's names put 4 of
    5 faces wrong (201).  Each grouping has an id, sent back with the names."""
    truth = _collected(tmp_path, "x", [(v, "d5") for v in [1, 2, 3, 4, 5] * 2 + [1]])
    folder = tmp_path / "collect" / "x"
    with _admin(tmp_path) as (client, store):
        grouped = client.post("/api/diesets/x/groups", headers=PIN)
        assert grouped.status_code == 200, grouped.text
        seen = grouped.json()["grouping"]
        named = {g: int(f[0].split(":")[1]) for g, f in _shows(folder, truth).items()}
        rng = np.random.default_rng(5)
        for i in range(11, 14):  # kept while the owner named the groups: 4 comes up thrice
            write_image(folder / f"{i:03d}.png", _crop(rng, 4))
            truth[(folder / f"{i:03d}.png").read_bytes()] = "d5:4"
        assert client.get("/api/diesets/x/collect").json()["grouping"] == seen  # not
        # grouped again: the groups named are the groups there
        again = client.post("/api/diesets/x/groups", headers=PIN).json()  # another tab
        assert again["grouping"] != seen and again["pictures"] == 14
        old = {"values": named, "grouping": seen}
        refused = client.post("/api/diesets/x/groups/teach", json=old, headers=PIN)
        assert refused.status_code == 409, refused.text
        assert "regrouped since: look at the groups again" in refused.json()["detail"]
        assert not (store.path("x") / "dieset.json").exists()  # nothing taught
        named = {g: int(f[0].split(":")[1]) for g, f in _shows(folder, truth).items()}
        new = {"values": named, "grouping": again["grouping"]}
        taught = client.post("/api/diesets/x/groups/teach", json=new, headers=PIN)
        assert taught.status_code == 201 and taught.json()["taught"] == [1, 2, 3, 4, 5]


def test_teach_says_which_group_holds_another_die(tmp_path: Path) -> None:
    """A d20 among a d5's pictures grouped alone, and named by mistake: the set is taught,
    and the answer says which group to check (DieSet.teach's warning had been dropped)."""
    truth = _collected(tmp_path, "x", [(v, "d5") for v in [1, 2, 3, 4, 5] * 3] + [(7, "d20")])
    with _admin(tmp_path) as (client, _):
        grouping = client.post("/api/diesets/x/groups", headers=PIN).json()["grouping"]
        shows = _shows(tmp_path / "collect" / "x", truth)
        (d20,) = [g for g, f in shows.items() if f == ["d20:7"]]
        values = {g: int(f[0].split(":")[1]) for g, f in shows.items() if g != d20}
        values[d20] = 5  # the owner took the d20's picture for a 5
        named = {"values": values, "grouping": grouping}
        taught = client.post("/api/diesets/x/groups/teach", json=named, headers=PIN)
        assert taught.status_code == 201, taught.text
        (warning,) = taught.json()["warnings"]
        assert warning.startswith(f"check group {d20} (000.png): face 5 is taught, but its")


def test_a_picture_removed_by_hand_is_not_written_over(tmp_path: Path) -> None:
    """Pictures were named by their count: with one removed by hand, every throw after was
    written over the last picture kept."""
    collector = FaceCollector(tmp_path, DieSetStore(tmp_path))
    collector.start("x", "d5")
    reader, rng = DiceReader(), np.random.default_rng(3)
    folder = tmp_path / "collect" / "x"

    def throw(value: int) -> str:
        spec = ThrowSpec(dice=("d5",), values=(value,), looks=(PALETTE[2],))
        return collector.offer(render_throw(spec, rng).image, reader)

    assert [throw(v) for v in (1, 2, 3)][-1] == "picture 3 kept for x"
    (folder / "000.png").unlink()  # a blurred one, removed by the owner
    kept = {p.name: p.read_bytes() for p in folder.glob("*.png")}
    assert throw(4) == "picture 3 kept for x"
    assert sorted(p.name for p in folder.glob("*.png")) == ["001.png", "002.png", "003.png"]
    assert all((folder / name).read_bytes() == data for name, data in kept.items())


def test_a_die_unlike_the_one_collected_is_not_kept(tmp_path: Path) -> None:
    """A d20 thrown while collecting for a d5 was kept, and would be grouped with a face
    and taught as it."""
    collector = FaceCollector(tmp_path, DieSetStore(tmp_path))
    collector.start("x", "d5")
    reader, rng = DiceReader(), np.random.default_rng(3)
    for value in (1, 2, 3):
        spec = ThrowSpec(dice=("d5",), values=(value,), looks=(PALETTE[2],))
        collector.offer(render_throw(spec, rng).image, reader)
    spec = ThrowSpec(dice=("d20",), values=(7,), looks=(PALETTE[2],))
    said = collector.offer(render_throw(spec, rng).image, reader)
    assert said.startswith("not kept: its outline is not the shape of the first 3 pictures kept")
    assert collector.describe("x")["pictures"] == 3


def test_a_folder_made_by_hand_among_the_groups_and_a_group_named_twice(tmp_path: Path) -> None:
    """`groups/group-extra` (made by hand) had answered every look at the collection with a
    500; names {"1": 1, "01": 2} both name group 1, and the last had won unsaid."""
    truth = _collected(tmp_path, "x", [(1, "d5")])
    folder = tmp_path / "collect" / "x" / "groups"
    (folder / "group-01").mkdir(parents=True)
    write_image(folder / "group-01" / "000.png", read_image(tmp_path / "collect/x/000.png"))
    (folder / "group-extra").mkdir()
    assert list(truth.values()) == ["d5:1"]
    with _admin(tmp_path) as (client, store):
        shown = client.get("/api/diesets/x/collect")
        assert shown.status_code == 200, shown.text
        assert shown.json()["groups"] == [{"group": 1, "pictures": 1}]
        twice = {"values": {"1": 1, "01": 2}, "grouping": shown.json()["grouping"]}
        refused = client.post("/api/diesets/x/groups/teach", json=twice, headers=PIN)
        assert refused.status_code == 422
        assert "group 1 is named twice ('1' and '01')" in refused.text
        assert not (store.path("x") / "dieset.json").exists()
