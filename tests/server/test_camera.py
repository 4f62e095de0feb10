"""The camera as a throw source (rendered frames through the real vision pipeline, a real
ledger), and the whole chain: `dicebridge serve --demo` as a process over real HTTP."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from server.camera import CameraSource
from server.camera_notices import BLURS_KEPT, FELT_KEPT
from server.diesets import DieSetStore
from server.ledger import Ledger
from server.table import Table
from server.unsure import confirm_unsure
from tests.server.ledger_faults import refuse_once
from vision.frames import Replay
from vision.reader import DiceReader
from vision.readings import DieReading, ThrowReading
from vision.render import PALETTE, ThrowSpec, render_settling, render_throw
from vision.settle import SettleDetector
from vision.teach_sets import DieSets
from vision.teach_synthetic import taught_from_renders


def _wait(condition: Any, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _watched_table(tmp_path: Path) -> tuple[Ledger, Table, list[dict[str, Any]]]:
    """A real ledger in ``tmp_path``, its table, and the events the table announces."""
    ledger = Ledger(tmp_path)
    table = Table(ledger)
    events: list[dict[str, Any]] = []
    table.subscribe(events.append)
    return ledger, table, events


def test_a_settled_throw_feeds_the_waiting_check_with_its_crops(tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    throw = render_settling(ThrowSpec(dice=("dF",) * 4), rng, moving=5, still=8)
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("peupfudge", {"dice": 4, "level": 2, "bonus": 0, "difficulty": 2})
    frames = Replay([image for image, _ in throw], interval=0.1)
    camera = CameraSource("camera", frames, DiceReader(), table, SettleDetector(0.3))
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))  # all frames seen
    camera.stop()
    assert camera.throws_read == 1  # read once, after the dice stopped
    state = table.get(check["id"])
    throws = [e.body for e in ledger.entries(kind="throw")]
    assert state["status"] == "resolved" and throws and throws[0]["check"] == check["id"]
    for die in throws[0]["dice"]:
        assert die["source"] == "camera" and die["die"] == "dF"
        crop = tmp_path / "crops" / f"{die['crop']}.png"
        assert hashlib.sha256(crop.read_bytes()).hexdigest() == die["crop"]
    assert ledger.verify().ok
    ledger.close()


def test_bad_frames_are_announced_once_and_the_throw_after_them_is_read(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(13)
    throw = render_settling(ThrowSpec(dice=("dF",) * 3), rng, moving=4, still=8)
    bad = [np.zeros((480, 640, 3), np.float32)] * 3  # a driver handing over floats
    grey = [cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) for image, _ in throw]  # a mono camera
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("peupfudge", {"dice": 3, "level": 2, "bonus": 0, "difficulty": 2})
    camera = CameraSource(
        "camera", Replay([*bad, *grey], interval=0.1), DiceReader(), table, SettleDetector(0.3)
    )
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    warned = [e for e in events if e.get("event") == "attention"]
    assert len(warned) == 1 and "float32 pixels" in warned[0]["detail"], warned
    assert camera.throws_read == 1  # the camera kept watching: the throw was read
    assert table.get(check["id"])["status"] == "resolved"
    ledger.close()


def test_a_fault_reading_a_throw_is_announced_and_the_camera_keeps_watching(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(14)
    throws = [render_settling(ThrowSpec(dice=("dF",) * 2), rng, moving=4, still=8)
              for _ in range(2)]  # fmt: skip
    ledger, table, events = _watched_table(tmp_path)
    ledger.close()  # the ledger's database gone from under the service: no throw can be kept
    frames = Replay([image for throw in throws for image, _ in throw], interval=0.1)
    camera = CameraSource("camera", frames, DiceReader(), table, SettleDetector(0.3))
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))  # all frames seen
    camera.stop()
    said = [e["detail"] for e in events if e.get("event") == "attention"]
    assert len(said) == 2, said  # each throw: not read, and why
    assert all(d.startswith("the throw was not read (") and "by hand" in d for d in said)
    assert camera.throws_read == 2  # both throws were read; neither could be kept
    assert events[-1]["detail"] == "no more frames"  # the thread ran to the end of the frames


def test_a_recorded_film_and_a_folder_of_photographs_are_read_throw_by_throw(
    tmp_path: Path,
) -> None:
    from vision.frames import ImageFolder, OpenCVCapture

    rng = np.random.default_rng(16)
    film = tmp_path / "throws.avi"
    writer: cv2.VideoWriter | None = None
    for _ in range(3):  # 10 frames a second: each throw moves 0.5 s, then lies 1.2 s still
        for image, _still in render_settling(ThrowSpec(dice=("d6",) * 3), rng, 5, 12):
            if writer is None:
                size = (image.shape[1], image.shape[0])
                writer = cv2.VideoWriter(str(film), cv2.VideoWriter.fourcc(*"MJPG"), 10, size)
            writer.write(image)
    assert writer is not None
    writer.release()
    photos = tmp_path / "photos"
    photos.mkdir()
    for k in range(4):  # a phone's pictures of four throws
        cv2.imwrite(str(photos / f"{k}.png"), render_throw(ThrowSpec(dice=("d6",) * 2), rng).image)
    for source, throws, dice in ((OpenCVCapture(str(film)), 3, 9), (ImageFolder(photos), 4, 8)):
        ledger, table, events = _watched_table(tmp_path / str(throws))
        camera = CameraSource("camera", source, DiceReader(), table)
        camera.start()
        _wait(lambda events=events: any(e.get("event") == "disconnected" for e in events))
        camera.stop()
        # each throw once (a film was decoded faster than filmed: by the clock none settled;
        # a folder's photographs, each another throw, never held still: none was read)
        assert camera.throws_read == throws, (source, camera.throws_read)
        kept = sum(len(e.body["dice"]) for e in ledger.entries(kind="throw"))
        kept += len(list(ledger.entries(kind="reading")))  # dice it was unsure of
        assert kept == dice, kept  # every die of every throw is in the ledger
        ledger.close()


def test_a_die_set_taught_on_a_tray_that_cut_its_outlines_is_named_once_a_run(
    tmp_path: Path,
) -> None:
    """White d20s taught on a light grey tray (their outlines cut by it: DieSet.aside_note)
    are read with, and the camera says once what to check; a set taught well, nothing."""
    store = DieSetStore(tmp_path)
    store.save(taught_from_renders("d20", 0, "white-d20", design=0, tray=178))
    store.save(taught_from_renders("d20", 2, "red-d20", design=0))
    ledger, table, events = _watched_table(tmp_path)
    reader = DiceReader()
    camera = CameraSource("camera", Replay([]), reader, table, diesets=store)
    throw = render_throw(ThrowSpec(dice=("d20",) * 2), np.random.default_rng(3)).image
    for _ in range(2):
        camera.read_throw(throw)
    notices = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(notices) == 1, notices  # said once, not every throw; not of the red set
    assert notices[0].startswith("die set 'white-d20': the numerals of the faces taught lie ")
    assert "teach the faces again" in notices[0]
    assert isinstance(reader.diesets["d20"], DieSets)  # both sets are read with
    ledger.close()


def test_a_die_set_spoilt_on_disk_is_left_out_and_the_other_dice_are_read(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(14)
    throws = [render_settling(ThrowSpec(dice=("dF",) * 2), rng, moving=4, still=8)
              for _ in range(2)]  # fmt: skip
    store = DieSetStore(tmp_path)
    broken = tmp_path / "diesets" / "broken"
    broken.mkdir(parents=True)
    (broken / "dieset.json").write_text("{")  # a die set spoilt on disk (a power cut mid-save)
    store.save(taught_from_renders("d5", 2, "red-d5"))
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("peupfudge", {"dice": 2, "level": 2, "bonus": 0, "difficulty": 2})
    frames = Replay([image for throw in throws for image, _ in throw], interval=0.1)
    reader = DiceReader()
    camera = CameraSource("camera", frames, reader, table, SettleDetector(0.3), diesets=store)
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    notices = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(notices) == 1, notices  # said once, not every throw
    assert notices[0].startswith("die set 'broken' is not used (cannot load the die set in ")
    assert "teach it again" in notices[0]
    assert not [e for e in events if e.get("event") == "attention"]
    assert camera.throws_read == 2
    assert table.get(check["id"])["status"] == "resolved"  # the first dF throw fed the check
    assert list(reader.diesets) == ["d5"]  # the sound set is still read with
    shutil.rmtree(broken)  # mended: nothing more to say
    camera.read_throw(throws[1][-1][0])
    assert len([e for e in events if e.get("event") == "notice"]) == 1
    ledger.close()


def test_numbered_dice_no_set_reads_are_typed_by_a_person_and_said_once_one_is_seen(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(15)
    store = DieSetStore(tmp_path)
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("decibel", {"pool": 2, "target": 10})  # waits for two d20s
    camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
    spec = ThrowSpec(dice=("d20", "d20"), perspective=0.0, looks=(PALETTE[2],), touching=0.0)
    camera.read_throw(render_throw(ThrowSpec(dice=("d6",)), rng).image)
    # no numbered die seen yet: nothing said (a tower may throw the d20s the check waits for)
    assert not [e for e in events if e.get("event") == "notice"]
    named = []
    for _ in range(3):
        result = camera.read_throw(render_throw(spec, rng).image)
        named += [d for d in result.dice if d.problem == "numbered die, no set"]
    # of 180 numbered dice among pip dice, 8 are still read a sure pip face (docs/vision.md)
    assert len(named) >= 5, named
    assert all(d.die == "d20" and d.advice.startswith("type the face the ") for d in named)
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert said == ["a check waits for d20s: the camera reads d20s once a d20 set is taught on "
                    "the Devices page; till then type their faces on the Table page"]  # fmt: skip
    assert table.get(check["id"])["status"] != "resolved"  # a d6 reading never feeds it
    rows = [e["row"] for e in events if e.get("type") == "uncertain" and e.get("die") == "d20"]
    confirm_unsure(table, rows[0], 14)  # a person types what the two d20s show
    fed = confirm_unsure(table, rows[1], 3)
    assert fed is not None and fed["id"] == check["id"] and fed["status"] == "resolved"
    check = table.create("decibel", {"pool": 2, "target": 10})
    store.save(taught_from_renders("d20", 2, "red-d20"))  # taught: read from the next throw
    after = camera.read_throw(render_throw(spec, rng).image)
    assert [d.die for d in after.dice] == ["d20", "d20"]  # read by the set (some to confirm)
    ledger.close()


def test_a_picture_that_never_holds_still_is_said_once(tmp_path: Path) -> None:
    image = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(16)).image
    brighter = np.clip(image * 1.2, 0, 255).astype(np.uint8)
    flicker = [brighter if i % 2 else image for i in range(40)]  # 40 s of a flickering lamp
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay(flicker, interval=1.0), DiceReader(), table)
        camera.start()
        _wait(lambda: any(e.get("event") == "disconnected" for e in events))
        camera.stop()
        told = [e["detail"] for e in events if e.get("event") == "notice"]
        assert len(told) == 1 and told[0].startswith("the picture has not held still for 30 s")
        assert camera.throws_read == 0


def test_with_the_disk_nearly_full_throws_are_read_and_pictures_not_kept(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(17)
    with Ledger(tmp_path) as ledger:
        ledger.min_free_bytes = 2**62  # more than any disk has free
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay([]), DiceReader(), table)
        for _ in range(2):
            camera.read_throw(render_throw(ThrowSpec(dice=("dF",) * 2), rng).image)
        told = [e["detail"] for e in events if e.get("event") == "notice"]
        assert len(told) == 1 and told[0].startswith("the disk is nearly full"), told
        throws = [e.body for e in ledger.entries(kind="throw")]
        assert len(throws) == 2 and all(d["crop"] for t in throws for d in t["dice"])
        assert not list((tmp_path / "crops").iterdir())


def test_dice_thrown_before_their_check_are_read_again_on_request(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from server.app import create_app

    rng = np.random.default_rng(18)
    throw = render_settling(ThrowSpec(dice=("dF",) * 3), rng, moving=4, still=6)
    frames = Replay([image for image, _ in throw], interval=0.1, hold=True)  # then still
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", frames, DiceReader(), table, SettleDetector(0.3))
        camera.start()
        try:
            _wait(lambda: any(ledger.entries(kind="throw")))  # no check yet: unassigned
            check = table.create("peupfudge", {"dice": 3, "level": 2, "bonus": 0, "difficulty": 2})
            time.sleep(1.0)
            assert camera.throws_read == 1  # a still tray is not read twice by itself
            with TestClient(create_app(table, camera=camera)) as client:
                asked = client.post("/api/camera/read-again")
                assert asked.status_code == 202, asked.text
                _wait(lambda: table.get(check["id"])["status"] == "resolved")
            with TestClient(create_app(table)) as client:
                assert client.post("/api/camera/read-again").status_code == 404
        finally:
            camera.stop()
        first, second = (e.body for e in ledger.entries(kind="throw"))
        assert first["check"] is None and "again" not in first["dice"][0]
        assert second["check"] == check["id"] and all(d["again"] for d in second["dice"])
        assert [d["face"] for d in first["dice"]] == [d["face"] for d in second["dice"]]


def _taken_out(image: np.ndarray, empty: np.ndarray, box: tuple[int, ...]) -> np.ndarray:
    """``image`` with the die in ``box`` taken out: the tray there as it is with no dice."""
    out, pad = image.copy(), 8
    x0, y0, x1, y1 = (max(0, box[0] - pad), max(0, box[1] - pad), box[2] + pad, box[3] + pad)
    out[y0:y1, x0:x1] = empty[y0:y1, x0:x1]
    return out


def _noisy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another frame of the same still tray: only sensor noise differs."""
    return np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)


def test_dice_lying_as_they_lay_in_the_last_throw_are_not_read_again(tmp_path: Path) -> None:
    """Movement is not a throw: a hand passing over the tray settled it again and every die
    on it was read as a new throw; a die taken out, and the two left were."""
    rng = np.random.default_rng(40)
    spec = ThrowSpec(dice=("dF",) * 3, tray=(60, 110, 45), camera=3)
    first = render_settling(spec, np.random.default_rng(41), moving=4, still=6)
    lying = render_throw(spec, np.random.default_rng(41))  # the same throw at rest
    assert np.array_equal(lying.image, first[-1][0])
    boxes = [d.box for d in lying.dice]
    for seed in range(50, 90):  # the third die thrown again, where no die lies
        again = render_throw(replace(spec, dice=("dF",)), np.random.default_rng(seed))
        box = again.dice[0].box
        if all(box[2] + 20 < b[0] or b[2] + 20 < box[0] or box[3] + 20 < b[1]
               or b[3] + 20 < box[1] for b in boxes):  # fmt: skip
            break
    rest = _taken_out(lying.image, lying.empty_tray, boxes[2])  # two dice left
    landed = rest.copy()  # the new die (and its shadow) from its own render
    x0, y0, x1, y1 = (box[0] - 10, box[1] - 10, box[2] + 10, box[3] + 10)
    landed[y0:y1, x0:x1] = again.image[y0:y1, x0:x1]
    hand = lying.image.copy()
    hand[100:400, 150:600] = (40, 60, 90)  # an arm over the tray, the dice untouched
    frames = [image for image, _ in first]
    frames += [hand] * 3 + [_noisy(lying.image, rng) for _ in range(6)]  # a hand passes
    frames += [hand] * 3 + [_noisy(rest, rng) for _ in range(6)]  # a die taken out
    frames += [hand] * 3 + [_noisy(landed, rng) for _ in range(6)]  # and thrown again
    ledger, table, events = _watched_table(tmp_path)
    three = table.create("peupfudge", {"dice": 3, "level": 2, "bonus": 0, "difficulty": 2})
    one = table.create("peupfudge", {"dice": 1, "level": 2, "bonus": 0, "difficulty": 2})
    camera = CameraSource("camera", Replay(frames, interval=0.1), DiceReader(), table,
                          SettleDetector(0.3))  # fmt: skip
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    assert camera.throws_read == 4  # the tray settled four times ...
    throws = [e.body for e in ledger.entries(kind="throw")]
    assert [len(t["dice"]) for t in throws] == [3, 1], throws  # ... two throws were made
    assert throws[0]["check"] == three["id"] and throws[1]["check"] == one["id"]
    assert table.get(one["id"])["status"] == "resolved"
    assert throws[1]["dice"][0]["face"] == again.dice[0].value
    ledger.close()


def test_with_checks_for_two_kinds_of_dice_waiting_the_camera_reads_either(
    tmp_path: Path,
) -> None:
    """A d6 pool set up first and a Fudge check after it: the Fudge dice thrown first were
    read as d6s, the only die expected, and all left to confirm."""
    throw = render_throw(ThrowSpec(dice=("dF",) * 3), np.random.default_rng(44))
    ledger, table, _ = _watched_table(tmp_path)
    pool = table.create("d6pool", {"level": 3, "difficulty": 4})
    fudge = table.create("peupfudge", {"dice": 3, "level": 2, "bonus": 0, "difficulty": 2})
    camera = CameraSource("camera", Replay([]), DiceReader(), table)
    assert camera.expected_die() == "any"
    result = camera.read_throw(throw.image)
    assert sorted(d.value or 0 for d in result.certain) == sorted(d.value for d in throw.dice)
    assert table.get(fudge["id"])["status"] == "resolved"
    assert table.get(pool["id"])["readings"] == 0
    assert camera.expected_die() == "d6"  # one kind waiting: read as that one
    # a numbered die and another kind: the oldest check's (read as any die, a red d5 was
    # read a sure d20 by a red d20 set)
    reader = DiceReader()
    reader.diesets = {"d5": taught_from_renders("d5", 2)}
    table.create("d5", {"at_least": 1})
    assert CameraSource("camera", Replay([]), reader, table).expected_die() == "d6"
    ledger.close()


def test_a_numbered_die_another_waiting_check_needs_goes_to_that_check(tmp_path: Path) -> None:
    """A d5 check set up first and a Decibel check after it, both red sets taught: the camera
    reads for the d5 (the oldest check's die), and the red d20s thrown for the Decibel check
    were left to confirm ("its outline is not a taught d5's"). Now the d20 set reads a die
    the d5 set calls another's shape, and the d20s go to the check that needs them."""
    ledger, table, _ = _watched_table(tmp_path)
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d5", 2, "red d5s", design=0))
    reader.add_dieset(taught_from_renders("d20", 2, "red d20s", design=0))
    stop = table.create("d5", {"at_least": 1})
    decibel = table.create("decibel", {"pool": 2, "target": 10})
    camera = CameraSource("camera", Replay([]), reader, table)
    assert camera.expected_die() == "d5"
    look = (PALETTE[2],)
    d20s = render_throw(ThrowSpec(dice=("d20",) * 2, values=(7, 15), looks=look, touching=0.0,
                                  perspective=0.0), np.random.default_rng(5))  # fmt: skip
    result = camera.read_throw(d20s.image)
    assert sorted((d.die, d.value) for d in result.certain) == [("d20", 7), ("d20", 15)]
    assert table.get(decibel["id"])["status"] == "resolved"
    assert table.get(stop["id"])["readings"] == 0
    d5 = render_throw(ThrowSpec(dice=("d5",), values=(4,), looks=look, perspective=0.0),
                      np.random.default_rng(6))  # fmt: skip
    camera.read_throw(d5.image)
    assert table.get(stop["id"])["readings"] == 1
    ledger.close()


def test_pip_dice_and_numbered_dice_each_go_to_the_check_waiting_for_them(
    tmp_path: Path,
) -> None:
    """A Decibel check set up first and a Fudge check after it: the camera reads for the
    d20s, and the Fudge dice thrown were each "not of the set: take it out". A d6 pool
    first and a Decibel check after it: the d20s thrown were "a numbered die: take it out".
    Now each goes to the check that waits for it."""
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 2, "red d20s", design=0))
    rng = np.random.default_rng(12)
    ledger, table, _ = _watched_table(tmp_path)
    decibel = table.create("decibel", {"pool": 2, "target": 10})
    fudge = table.create("peupfudge", {"dice": 3, "level": 2, "bonus": 0, "difficulty": 2})
    camera = CameraSource("camera", Replay([]), reader, table)
    assert camera.expected_die() == "d20"
    dfs = render_throw(ThrowSpec(dice=("dF",) * 3, looks=(PALETTE[4],), touching=0.0), rng)
    result = camera.read_throw(dfs.image)
    assert sorted(d.value or 0 for d in result.certain) == sorted(d.value for d in dfs.dice)
    assert table.get(fudge["id"])["status"] == "resolved"
    assert table.get(decibel["id"])["readings"] == 0
    table.roll_virtual(decibel["id"])  # (resolved: out of the way)
    pool = table.create("d6pool", {"level": 3, "difficulty": 4})
    decibel = table.create("decibel", {"pool": 2, "target": 10})
    assert camera.expected_die() == "d6"
    d20s = render_throw(ThrowSpec(dice=("d20",) * 2, values=(5, 12), looks=(PALETTE[2],),
                                  touching=0.0, perspective=0.0), rng)  # fmt: skip
    result = camera.read_throw(d20s.image)
    assert sorted((d.die, d.value) for d in result.certain) == [("d20", 5), ("d20", 12)]
    assert table.get(decibel["id"])["status"] == "resolved"
    assert table.get(pool["id"])["readings"] == 0
    ledger.close()


def test_unsure_dice_are_kept_and_announced_never_fed(tmp_path: Path) -> None:
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("d6pool", {"level": 2, "difficulty": 3})
    image = render_throw(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(4)).image
    soft = cv2.GaussianBlur(image, (0, 0), 6)  # pips blurred away
    camera = CameraSource("camera", Replay([]), DiceReader(), table)
    result = camera.read_throw(soft)
    assert result.uncertain
    assert table.get(check["id"])["status"] == "need"  # nothing guessed into the check
    kept = [e.body for e in ledger.entries(kind="reading")]
    assert len(kept) == len(result.uncertain) and all(k["uncertain"] for k in kept)
    assert all((tmp_path / "crops" / f"{k['crop']}.png").exists() for k in kept)
    said = [e for e in events if e["type"] == "uncertain"]
    assert said and all(e["advice"] for e in said)
    empty = render_throw(ThrowSpec(dice=()), np.random.default_rng(5)).image
    camera.read_throw(empty)
    assert events[-1] == {"type": "source", "source": "camera", "event": "attention",
                          "detail": "no dice seen"}  # fmt: skip
    ledger.close()


class _ThreeDice(DiceReader):
    """Every settled frame holds a sure d6 showing 4 and two d6s left to confirm."""

    def read(
        self, image: Any, die: str = "d6", empty_tray: Any = None, earlier: Any = (),
        leans: Any = (), also: Any = (),
    ) -> Any:  # fmt: skip
        crop = np.full((20, 20, 3), 128, np.uint8)
        sure = DieReading("d6", 4, 0.99, (10, 10, 30, 30), crop)
        asked = [DieReading("d6", v, 0.5, (x, 10, x + 20, 30), crop, uncertain=True,
                            advice=f"confirm: {v}?") for v, x in ((5, 50), (2, 90))]  # fmt: skip
        return ThrowReading((sure, *asked), 1.0)


def test_a_throw_the_ledger_failed_part_way_is_kept_whole_later_each_die_once(
    tmp_path: Path,
) -> None:
    """The ledger fails while a throw is kept (a locked database), at the row of its second
    unsure die: none of its rows stays, the check is not fed, and the throw is read whole
    when it settles again (after a hand passed over), each die once.  Rows were kept one
    at a time: the sure die and one unsure die stayed, the other was left to be entered by
    hand; before that, an unsure die's row was kept twice, both confirmable."""
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("d6pool", {"level": 3, "difficulty": 3})  # waits for 3 d6
    refused = refuse_once(ledger, """NEW.kind = 'reading' AND NEW.body LIKE '%"value":2%'""")
    tray = np.full((120, 160, 3), 90, np.uint8)
    hand = np.full((120, 160, 3), 200, np.uint8)  # a hand over the whole tray
    frames = Replay([tray] * 6 + [hand] * 2 + [tray] * 6, interval=0.1)
    camera = CameraSource("camera", frames, _ThreeDice(), table, SettleDetector(0.3))
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    thrown = [[d["face"] for d in e.body["dice"]] for e in ledger.entries(kind="throw")]
    asked = [e.body["value"] for e in ledger.entries(kind="reading") if e.body.get("uncertain")]
    said = [e["detail"] for e in events if e.get("event") == "attention"]
    heard = [e["face"] for e in events if e["type"] == "reading"]
    verified = ledger.verify()
    ledger.close()
    assert refused[0] >= 1  # the ledger did refuse the first try
    assert thrown == [[4]]  # the sure die, once
    assert sorted(asked) == [2, 5]  # each unsure die once
    assert heard == [4]  # told once, when kept: nothing was said of the refused try
    assert table.get(check["id"])["readings"] == 1  # the sure die, fed once
    assert len(said) == 1 and said[0].startswith(
        "the throw was not read (could not write to the ledger: database is locked)"
    )
    assert verified.ok and verified.rows == 1 + 1 + 2  # the check, the throw, two unsure


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def test_serve_demo_runs_the_whole_chain(tmp_path: Path) -> None:
    """Synthetic camera frames and a simulated tower on a pty, through the real pipeline,
    resolve checks in a real `dicebridge serve --demo` process; the ledger verifies."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicebridge", "serve", "--demo", "--port", str(port),
         "--data-dir", str(tmp_path)],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout is not None
        said = [proc.stdout.readline() for _ in range(3)]
        assert "the admin PIN is" in said[0]  # first start: the PIN, once
        # the demo's own die sets, apart from an owner's
        assert "taught the die sets demo-red-d20, demo-red-d5 from renders" in said[1]
        assert str(tmp_path / "demo" / "diesets") in said[1]
        assert f"{base}/api/docs" in said[2]  # and where to look

        def resolved_by_both() -> bool:
            try:
                throws = _get(f"{base}/api/throws?limit=200")
            except OSError:
                return False
            fed = {(d["source"], d["die"]) for t in throws if t["check"] for d in t["dice"]}
            numbered = {("camera", "d20"), ("camera", "d5")} & fed  # read by the demo's sets
            return {source for source, _ in fed} >= {"camera", "tower:demo-tower"} and bool(
                numbered
            )

        _wait(resolved_by_both, 60)

        # a throw is recorded a moment before the source's count goes up (another thread)
        def counted() -> bool:
            details = _get(f"{base}/api/health")["source_details"]
            return all(
                details.get(s, {}).get("readings", 0) > 0 for s in ("camera", "tower:demo-tower")
            )

        _wait(counted, 10)
        health = _get(f"{base}/api/health")
        assert health["sources"]["camera"] == "connected"
        assert health["sources"]["tower:demo-tower"] == "connected"
        details = health["source_details"]
        assert details["camera"]["readings"] >= 1 and details["camera"]["since"]
        assert details["tower:demo-tower"]["readings"] >= 1
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        if proc.stdout is not None:
            proc.stdout.close()
    with Ledger(tmp_path / "demo") as ledger:  # the demo's own ledger, apart from the owner's
        assert ledger.verify().ok
        assert any(e.body.get("status") == "resolved" for e in ledger.entries(kind="resolution"))


def test_the_last_settled_throw_is_a_preview_with_its_dice_outlined(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from server.app import create_app

    ledger = Ledger(tmp_path)
    table = Table(ledger)
    image = render_throw(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(14)).image
    with TestClient(create_app(table)) as client:
        assert client.get("/api/sources/camera/preview.jpg").status_code == 404
        CameraSource("camera", Replay([]), DiceReader(), table).read_throw(image)
        reply = client.get("/api/sources/camera/preview.jpg")
        assert reply.status_code == 200 and reply.headers["content-type"] == "image/jpeg"
        shown = cv2.imdecode(np.frombuffer(reply.content, np.uint8), cv2.IMREAD_COLOR)
        assert shown is not None and shown.shape == image.shape
        green = (shown[:, :, 1] > 150) & (shown[:, :, 0] < 120) & (shown[:, :, 2] < 120)
        assert green.sum() > 100  # the outlines of the dice read
        # the same tray settled again (a hand passed): its dice lie as they lay, outlined grey
        camera = CameraSource("camera", Replay([]), DiceReader(), table)
        assert camera.read_throw(image, before=image).dice == ()
        again = client.get("/api/sources/camera/preview.jpg").content
        shown = cv2.imdecode(np.frombuffer(again, np.uint8), cv2.IMREAD_COLOR)
        assert shown is not None
        grey = (np.abs(shown.astype(int) - 160).max(axis=2) < 25) & ~(
            np.abs(image.astype(int) - 160).max(axis=2) < 25
        )
        green = (shown[:, :, 1] > 150) & (shown[:, :, 0] < 120) & (shown[:, :, 2] < 120)
        assert grey.sum() > 100 and green.sum() < 20
    ledger.close()


class _ReaderSeeingEarlier(DiceReader):
    """The real reader, noting each frame it read and the earlier still frames and earlier
    dice's leans it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[tuple[np.ndarray, list[np.ndarray]]] = []
        self.leans: list[list[tuple[float, float]]] = []

    def read(
        self, image: Any, die: str = "d6", empty_tray: Any = None, earlier: Any = (),
        leans: Any = (), also: Any = (),
    ) -> Any:  # fmt: skip
        self.reads.append((image, list(earlier)))
        self.leans.append(list(leans))
        return super().read(image, die, empty_tray, earlier, leans, also)


def test_a_settled_throw_is_read_with_the_still_frames_before_it(tmp_path: Path) -> None:
    """The reader gets the settled frame and the two frames just before it, both of the
    still tray (a numbered die left to confirm is read again in them: vision/reader.py)."""
    rng = np.random.default_rng(14)
    throw = render_settling(ThrowSpec(dice=("dF",) * 2), rng, moving=4, still=6)
    ledger, table, events = _watched_table(tmp_path)
    reader = _ReaderSeeingEarlier()
    images = [image for image, _ in throw]
    replay = Replay(images, interval=0.1)
    camera = CameraSource("camera", replay, reader, table, SettleDetector(0.3))
    camera.start()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    ledger.close()
    assert camera.throws_read == 1 and len(reader.reads) == 1
    image, earlier = reader.reads[0]
    at = next(i for i, frame in enumerate(images) if frame is image or np.array_equal(frame, image))
    assert len(earlier) == 2 and at >= 6
    assert all(np.array_equal(e, images[at - 2 + k]) for k, e in enumerate(earlier))
    assert all(throw[i][1] for i in (at - 2, at - 1))  # still frames, not the motion


def test_the_camera_hands_the_reader_the_leans_of_the_numbered_dice_it_read_before(
    tmp_path: Path,
) -> None:
    """A throw of one die says nothing about whether the camera looks at a slant; the dice
    it read before do: the camera keeps how far their numerals lay from where flat dice
    have them and hands that to the reader with the next throw (vision/reader.py)."""
    ledger, table, _ = _watched_table(tmp_path)
    table.create("decibel", {"pool": 10, "target": 5})  # waits for d20s throughout
    reader = _ReaderSeeingEarlier()
    reader.add_dieset(taught_from_renders("d20", 0))
    camera = CameraSource("camera", Replay([]), reader, table)  # its throws handed over below
    rng = np.random.default_rng(15)
    results = []
    for _ in range(3):
        spec = ThrowSpec(dice=("d20",), perspective=0.15, camera=1, looks=(PALETTE[0],))
        results.append(camera.read_throw(render_throw(spec, rng).image))
    ledger.close()
    leans = [[d.lean for d in result.dice if d.lean is not None] for result in results]
    assert all(len(each) == 1 for each in leans)  # each die read, its lean measured
    assert reader.leans == [[], leans[0], leans[0] + leans[1]]


def test_the_camera_says_once_when_its_dice_show_it_looks_at_a_slant(tmp_path: Path) -> None:
    """Numbered dice whose numerals all lie off their middles one way tell that the camera
    looks at the tray at a slant, which costs presses ("may be cocked" asked of flat dice):
    said once twelve dice tell it (a few are too noisy), with what to do; a camera straight
    over the tray is not told."""
    for perspective, told in ((0.15, True), (0.0, False)):
        ledger, table, events = _watched_table(tmp_path / str(perspective))
        table.create("decibel", {"pool": 40, "target": 5})  # waits for d20s throughout
        reader = DiceReader()
        reader.add_dieset(taught_from_renders("d20", 2))
        camera = CameraSource("camera", Replay([]), reader, table)
        rng = np.random.default_rng(16)
        for _ in range(5):
            spec = ThrowSpec(dice=("d20",) * 4, perspective=perspective, camera=2,
                             looks=(PALETTE[2],))  # fmt: skip
            camera.read_throw(render_throw(spec, rng).image)
        ledger.close()
        said = [e for e in events if "at a slant" in str(e)]
        assert len(said) == (1 if told else 0), said
        if told:
            assert "Mount the camera straight over the tray" in str(said[0])


def test_the_camera_says_once_when_its_pictures_have_no_colour(tmp_path: Path) -> None:
    """A grey camera's frames, d20s of a set taught in colour awaited: the dice are read, and
    the camera says once that dice are not told apart by colour; in colour it says nothing."""
    for grey, told in ((True, 1), (False, 0)):
        ledger, table, events = _watched_table(tmp_path / str(grey))
        table.create("decibel", {"pool": 40, "target": 5})  # waits for d20s throughout
        reader = DiceReader()
        reader.add_dieset(taught_from_renders("d20", 5))
        camera = CameraSource("camera", Replay([]), reader, table)
        rng = np.random.default_rng(26)
        read = 0
        for _ in range(3):
            spec = ThrowSpec(dice=("d20",) * 3, looks=(PALETTE[5],))
            image = render_throw(spec, rng).image
            result = camera.read_throw(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if grey else image)
            read += len(result.certain)
        ledger.close()
        said = [e for e in events if e.get("event") == "notice" and "no colour" in str(e)]
        assert len(said) == told, said
        assert read >= 7, read  # measured: 9 of 9 sure in grey, 8 in colour


def test_the_camera_says_once_when_its_dice_are_as_dark_as_the_felt(tmp_path: Path) -> None:
    """Black dice on black felt, FELT_KEPT throws in a row: said once, with what to do.
    Dice on the renderer's own trays are not told, nor one such throw among them."""
    rng = np.random.default_rng(18)
    black = PALETTE[1]
    plain = [render_throw(ThrowSpec(dice=("d6",) * 3), rng).image for _ in range(FELT_KEPT + 1)]
    on_black = [render_throw(ThrowSpec(dice=("d6",) * 3, looks=(black,), tray=(26, 26, 28)),
                             rng).image for _ in range(FELT_KEPT + 1)]  # fmt: skip
    for name, images, told in (
        ("plain", plain, 0),
        ("one on black", plain[:2] + on_black[:1] + plain[2:], 0),
        ("on black", on_black, 1),
    ):
        said = _notices(tmp_path / name.replace(" ", "-"), images, "as dark as the felt")
        assert len(said) == told, (name, said)
        if told:
            assert "stands apart" in said[0]


def test_the_camera_says_once_when_its_picture_is_out_of_focus(tmp_path: Path) -> None:
    """Throws whose dice's edges are blurred (a camera out of focus) are said once, with what
    to do, after BLURS_KEPT of them in a row; a sharp camera is not told, and one blurred
    throw among sharp ones is not enough."""
    rng = np.random.default_rng(17)
    throws = [render_throw(ThrowSpec(dice=("d6",) * 3, perspective=0.0), rng).image
              for _ in range(BLURS_KEPT + 2)]  # fmt: skip
    blurred = [cv2.GaussianBlur(image, (0, 0), 2.0) for image in throws]
    for name, images, told in (
        ("sharp", throws, 0),
        ("one blurred", throws[:2] + blurred[:1] + throws[2:], 0),
        ("blurred", blurred, 1),
    ):
        said = _notices(tmp_path / name.replace(" ", "-"), images, "out of focus")
        assert len(said) == told, (name, said)
        if told:
            assert "focus the camera" in said[0]


def _notices(folder: Path, images: list[np.ndarray], text: str) -> list[str]:
    """The notices holding ``text`` that a camera reading ``images``, one throw each, says
    (on a table of its own, in ``folder``)."""
    ledger, table, events = _watched_table(folder)
    camera = CameraSource("camera", Replay([]), DiceReader(), table)
    for image in images:
        camera.read_throw(image)
    ledger.close()
    return [str(e["detail"]) for e in events if e.get("event") == "notice" and text in str(e)]


def test_dice_outside_the_tray_area_are_no_part_of_the_throw(tmp_path: Path) -> None:
    """Three d6s lying apart left to right; the tray's area, marked on the page, ends
    through the middle one: the left one feeds the check, the middle one is asked to be
    moved in, the right one is left out; the settled preview shows the area's outline."""
    from server.tray_areas import TrayAreaStore

    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    ledger, table, events = _watched_table(tmp_path)
    check = table.create("d6pool", {"level": 2, "difficulty": 3})  # throw 2 d6
    areas = TrayAreaStore(tmp_path)
    areas.mark([[0, 0], [342 / 639, 0], [342 / 639, 1], [0, 1]])
    camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
    result = camera.read_throw(throw.image)
    left = min(throw.dice, key=lambda d: d.box[0])
    kept, asked = sorted(result.dice, key=lambda d: d.box[0])
    assert (kept.value, kept.uncertain) == (left.value, False)
    assert asked.uncertain and asked.problem == "half out of the tray"
    fed = [e.body for e in ledger.entries(kind="throw")]
    assert [d["face"] for d in fed[0]["dice"]] == [left.value]  # the left die alone
    assert fed[0]["check"] == check["id"] and len(fed) == 1  # the one asked: thrown after
    told = [e for e in events if e["type"] == "uncertain"]
    assert len(told) == 1 and "fully into the tray" in told[0]["advice"]
    preview = table.preview("camera")
    assert preview is not None
    shown = cv2.imdecode(np.frombuffer(preview, np.uint8), cv2.IMREAD_COLOR)
    assert shown is not None
    edge = shown[:, 338:346]  # the area's outline, drawn (255, 200, 0) down x 342
    assert ((edge[:, :, 0] > 200) & (edge[:, :, 2] < 80)).sum() > 300
    x0, y0, x1, y1 = max(result.beyond)  # the right-hand die, outlined "off the tray"
    frame = shown[y0 - 1 : y1 + 2, x0 - 1 : x1 + 2].astype(int)
    blue = (np.abs(frame - np.array([230, 130, 20])) < 50).all(axis=2)
    assert blue.sum() > 100
    ledger.close()


def test_a_tray_area_spoilt_on_disk_is_said_once_and_the_whole_picture_read(
    tmp_path: Path,
) -> None:
    from server.tray_areas import TrayAreaStore

    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    ledger, table, events = _watched_table(tmp_path)
    areas = TrayAreaStore(tmp_path)
    areas.path.write_text("{", encoding="utf-8")
    camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
    for _ in range(2):
        assert len(camera.read_throw(throw.image).dice) == 3
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(said) == 1 and "cannot read the tray area" in said[0]
    assert "the whole picture is read; mark the area again" in said[0]
    assert (
        areas.describe()["in_use"] == "whole"
        and "mark the area again" in (areas.describe()["problem"])
    )
    ledger.close()


def test_the_tray_area_moves_with_a_camera_knocked_since_it_was_marked(tmp_path: Path) -> None:
    """The area marked on the settled frame (its edge through the middle of three dice);
    the camera knocked 40 px to the left (the tray moves right in its picture): the area
    moves with it, so the same die is asked and the same one left out, said once."""
    from server.tray_areas import TrayAreaStore

    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    ledger, table, events = _watched_table(tmp_path)
    areas = TrayAreaStore(tmp_path)
    areas.mark([[0, 0], [342 / 639, 0], [342 / 639, 1], [0, 1]], throw.image)
    camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
    h, w = throw.image.shape[:2]
    along = np.array([[1, 0, 40], [0, 1, 0]], np.float32)
    knocked = cv2.warpAffine(throw.image, along, (w, h), borderMode=cv2.BORDER_REPLICATE)
    for _ in range(2):
        result = camera.read_throw(knocked)
        problems = [d.problem for d in sorted(result.dice, key=lambda d: d.box[0])]
        assert problems == ["", "half out of the tray"]
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(said) == 1 and said[0].startswith("the camera has moved about 40 px since")
    areas.mark([[0, 0], [342 / 639, 0], [342 / 639, 1], [0, 1]])  # marked anew, no picture
    assert not areas.picture_path.exists()
    problems = [d.problem for d in sorted(camera.read_throw(knocked).dice, key=lambda d: d.box[0])]
    assert problems == [""]  # the area stays where it was marked: the middle die is beyond it
    ledger.close()


def test_the_empty_tray_picture_follows_a_camera_turned_since_it_was_taken(
    tmp_path: Path,
) -> None:
    """The empty tray taken; the camera turned 3 degrees since: the picture is carried onto
    its frames (said once), so the felt's edges are not asked as dice (they had been: 5 in
    these two throws)."""
    from server.empty_tray import EmptyTrayStore

    ledger, table, events = _watched_table(tmp_path)
    trays = EmptyTrayStore(tmp_path)
    camera = CameraSource("camera", Replay([]), DiceReader(), table, trays=trays)
    asked = 0
    for seed in (0, 5):
        throw = render_throw(ThrowSpec(dice=("d6",) * 4), np.random.default_rng([900, seed]))
        h, w = throw.image.shape[:2]
        trays.take(throw.empty_tray, DiceReader())
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0, 1.0)
        turned = cv2.warpAffine(throw.image, turn, (w, h), borderMode=cv2.BORDER_REFLECT)
        for _ in range(2):  # read twice: said once for each picture taken
            result = camera.read_throw(turned)
            asked += sum(d.uncertain for d in result.dice)
        assert sorted(d.value or 0 for d in result.dice) == sorted(d.value for d in throw.dice)
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    moved = "since the empty-tray picture was taken: it is moved with it"
    assert len(said) == 2 and all(moved in s for s in said)
    assert asked == 0
    ledger.close()


def test_a_view_that_is_not_the_one_the_area_was_marked_on_is_said_once(tmp_path: Path) -> None:
    """The area marked on one tray; the camera now sees another (another felt: turned
    away, or the tray swapped): neither the tray's rim nor the whole picture's shift find
    the picture it was marked on, so the area stays as marked and the camera says so once
    for that marking (it had said nothing: the area was used, wrongly placed, unannounced)."""
    from server.tray_areas import TrayAreaStore

    spec = ThrowSpec(dice=("d6",) * 3, touching=0.0)
    marked_on = render_throw(spec, np.random.default_rng([77, 3])).image
    elsewhere = render_throw(spec, np.random.default_rng([78, 3])).image
    ledger, table, events = _watched_table(tmp_path)
    areas = TrayAreaStore(tmp_path)
    points = [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]
    areas.mark(points, marked_on)
    placed = areas.in_picture(elsewhere)
    assert placed.lost and placed.moved == 0 and placed.area is not None
    assert placed.area.to_list() == points
    assert not areas.in_picture(marked_on).lost  # the view it was marked on: not lost
    camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
    for _ in range(2):
        camera.read_throw(elsewhere)
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(said) == 1 and said[0].startswith(
        "the camera's view of the tray is not the one the tray's area was marked on"
    )
    assert "mark it again on the Devices page" in said[0]
    ledger.close()


def test_a_view_lost_and_found_again_by_turns_is_said_once_each_for_a_marking(
    tmp_path: Path,
) -> None:
    """The camera knocked 40 px since the area was marked, and something now and then
    hiding the view it was marked on: the move and the lost view are each said once for
    the marking (each had been said again whenever the other came between)."""
    from server.tray_areas import TrayAreaStore

    spec = ThrowSpec(dice=("d6",) * 3, touching=0.0)
    throw = render_throw(spec, np.random.default_rng([77, 3]))
    other = render_throw(spec, np.random.default_rng([78, 3])).image  # the view not found
    ledger, table, events = _watched_table(tmp_path)
    areas = TrayAreaStore(tmp_path)
    areas.mark([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]], throw.image)
    camera = CameraSource("camera", Replay([]), DiceReader(), table, areas=areas)
    h, w = throw.image.shape[:2]
    along = np.array([[1, 0, 40], [0, 1, 0]], np.float32)
    knocked = cv2.warpAffine(throw.image, along, (w, h), borderMode=cv2.BORDER_REPLICATE)
    for image in [knocked, other] * 3:
        camera.read_throw(image)
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(said) == 2, said
    assert said[0].startswith("the camera has moved about 40 px since")
    assert said[1].startswith("the camera's view of the tray is not the one")
    areas.mark([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]], throw.image)  # marked anew
    camera.read_throw(knocked)  # the new marking's move: said again
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    assert len(said) == 3 and said[2].startswith("the camera has moved about 40 px since")
    ledger.close()


def test_a_changed_light_is_said_once_for_a_picture_carried_onto_a_turned_camera(
    tmp_path: Path,
) -> None:
    """The empty tray taken; the camera turned 3 degrees since and a lamp's pool lights
    part of the tray: the picture is carried onto each throw anew, and the light's change
    is said once for the picture taken (it had been said on every throw)."""
    from server.empty_tray import EmptyTrayStore
    from vision.view_change import aligned_tray

    ledger, table, events = _watched_table(tmp_path)
    trays = EmptyTrayStore(tmp_path)
    reader = DiceReader()
    camera = CameraSource("camera", Replay([]), reader, table, trays=trays)
    throw = render_throw(ThrowSpec(dice=("d6",) * 4), np.random.default_rng([900, 1]))
    h, w = throw.image.shape[:2]
    trays.take(throw.empty_tray, reader)
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0, 1.0)
    turned = cv2.warpAffine(throw.image, turn, (w, h), borderMode=cv2.BORDER_REFLECT)
    yy, xx = np.mgrid[0:h, 0:w]
    pool = 1 + 0.5 * np.exp(
        -(((xx - w * 0.3) / (w * 0.25)) ** 2 + ((yy - h * 0.5) / (h * 0.3)) ** 2)
    )
    lit = np.clip(turned.astype(np.float32) * pool[..., None], 0, 255).astype(np.uint8)
    assert aligned_tray(throw.empty_tray, lit) is not None  # carried, not used as taken
    for _ in range(3):
        camera.read_throw(lit)
    said = [e["detail"] for e in events if e.get("event") == "notice"]
    light = [s for s in said if s.startswith("the light on the tray has changed")]
    assert len(light) == 1, said
    ledger.close()


class _TwoDice(DiceReader):
    """Every settled frame holds two sure d6s, a 4 and a 3."""

    def read(
        self, image: Any, die: str = "d6", empty_tray: Any = None, earlier: Any = (),
        leans: Any = (), also: Any = (),
    ) -> Any:  # fmt: skip
        crop = np.full((20, 20, 3), 128, np.uint8)
        return ThrowReading((DieReading("d6", 4, 0.99, (10, 10, 30, 30), crop),
                             DieReading("d6", 3, 0.99, (50, 10, 70, 30), crop)), 1.0)  # fmt: skip


def test_a_read_asked_for_that_the_ledger_refused_is_still_asked_for(tmp_path: Path) -> None:
    """Dice thrown before their check, then "read the tray again": the ledger refuses that
    read once.  The read asked for stays asked for, so the tray's next settling (a hand
    passed over) reads the dice lying where they lay, for the check.  It had been spent on
    the refused read, and the dice, unmoved since the first read, were never read again."""
    ledger, table, events = _watched_table(tmp_path)
    tray = np.full((120, 160, 3), 90, np.uint8)
    hand = np.full((120, 160, 3), 200, np.uint8)
    go = threading.Event()

    def frames() -> Any:
        yield from [tray] * 6  # settles: read before the check, kept unassigned
        go.wait(20)
        yield from [tray] * 6 + [hand] * 2 + [tray] * 6

    camera = CameraSource("camera", Replay(frames()), _TwoDice(), table, SettleDetector(0.3))
    camera.start()
    _wait(lambda: len(list(ledger.entries(kind="throw"))) == 1)
    check = table.create("d6pool", {"level": 3, "difficulty": 3})  # waits for 3 d6
    refused = refuse_once(ledger, "NEW.kind = 'throw'")
    camera.read_again()
    go.set()
    _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    camera.stop()
    thrown = [e.body.get("check") for e in ledger.entries(kind="throw")]
    ledger.close()
    assert refused[0] >= 1  # the read asked for was refused once
    assert thrown == [None, check["id"]]
    assert table.get(check["id"])["readings"] == 2
