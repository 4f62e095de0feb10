"""`dicebridge vision teach` and `vision cluster`: photos taught into a folder that holds a set
join its faces; bad folders and face names are said in one line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from tests.vision import needs_photos
from vision.datasets import shared_photos
from vision.pixels import read_image
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach import DieSet, DieSetError


def _photos(folder: Path, values: tuple[int, ...]) -> list[str]:
    """One photo of a red d5 a value, showing it; ``VALUE=PATH`` for each."""
    rng = np.random.default_rng(8)
    shown = []
    for value in values:
        spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=(PALETTE[2],))
        path = folder / f"face{value}.png"
        cv2.imwrite(str(path), render_throw(spec, rng).image)
        shown.append(f"{value}={path}")
    return shown


def test_faces_shown_later_join_the_set_taught_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "red-d5"
    first, second, third = _photos(tmp_path, (1, 2, 3))
    teach = ["vision", "teach", str(out), "--die", "d5"]
    assert main([*teach, "--face", first, "--face", second]) == 0
    assert "faces not shown yet: 3, 4, 5" in capsys.readouterr().out
    assert main([*teach, "--face", third]) == 0
    said = capsys.readouterr().out
    assert "taught 1 photos of a d5 into" in said and "(beside the 2 it had)" in said
    assert "faces not shown yet: 4, 5" in said  # was: the set replaced, 1 and 2 lost
    assert sorted(DieSet.load(out).crops) == [1, 2, 3]
    assert sorted(p.name[:8] for p in out.glob("face*.png")) == [
        "face1-0-", "face2-0-", "face3-0-",
    ]  # fmt: skip


def test_a_folder_holding_another_set_is_not_taught_into(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    (photo,) = _photos(tmp_path, (1,))
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", photo]) == 0
    capsys.readouterr()
    assert main(["vision", "teach", str(out), "--die", "d10", "--face", photo]) == 2
    assert "holds a set of d5s, not d10s: teach into another folder" in capsys.readouterr().err
    (out / "dieset.json").write_text("{", encoding="utf-8")  # spoilt
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", photo]) == 2
    err = capsys.readouterr().err
    assert "cannot load the die set in" in err and "teach into another folder" in err


def test_a_face_the_die_does_not_have_is_refused_before_anything_is_taught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said for what it is ("a d5 has no face 6"), not as "no die found" after the photo
    is searched, and the set taught before is left as it was."""
    out = tmp_path / "set"
    first, second = _photos(tmp_path, (1, 2))
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", first]) == 0
    capsys.readouterr()
    wrong = "6=" + second.partition("=")[2]
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", second,
                 "--face", wrong]) == 2  # fmt: skip
    assert "a d5 has no face 6: its faces are 1 to 5" in capsys.readouterr().err
    assert sorted(DieSet.load(out).crops) == [1]
    assert main(["vision", "teach", str(tmp_path / "d10"), "--die", "d10", "--face",
                 "10=" + second.partition("=")[2]]) == 2  # fmt: skip
    assert "a d10 has no face 10 (its 10 is taught as 0)" in capsys.readouterr().err
    assert not (tmp_path / "d10").exists()


def test_bad_folders_and_face_names_are_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OUT that is a file ended in a traceback, a face written "²" or "--3" too, a margin
    of NaN in dieset.json made every die "not of the set", and a second `vision cluster`
    into the same folder left the first run's groups among the new ones."""
    (photo,) = _photos(tmp_path, (1,))
    path = photo.partition("=")[2]
    afile = tmp_path / "afile"
    afile.write_text("mine", encoding="utf-8")
    for argv, says in [
        ([str(afile), "--die", "d5", "--face", photo], "is a file: OUT is the folder"),
        ([str(tmp_path / "s"), "--die", "d5", "--face", f"²={path}"], "write a face as VALUE="),
        ([str(tmp_path / "s"), "--die", "d5", f"--face=--3={path}"], "write a face as VALUE="),
        ([str(tmp_path / "s"), "--die", "d5", "--synthetic-look", "0", "--face", photo],
         "--synthetic-look teaches every face from renders: give no photos"),
    ]:  # fmt: skip
        assert main(["vision", "teach", *argv]) == 2, argv
        assert says in capsys.readouterr().err, argv
    assert afile.read_text(encoding="utf-8") == "mine" and not (tmp_path / "s").exists()
    out = tmp_path / "set"
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", photo]) == 0
    meta = json.loads((out / "dieset.json").read_text(encoding="utf-8"))
    (out / "dieset.json").write_text(json.dumps({**meta, "margin": float("nan")}))
    with pytest.raises(DieSetError, match="margin nan is not 1 to 5"):
        DieSet.load(out)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "tiny.png"), np.zeros((1, 1, 3), np.uint8))  # among the throws
    rng = np.random.default_rng(9)
    for k in range(3):
        spec = ThrowSpec(dice=("d5",), perspective=0.0, looks=(PALETTE[2],))
        cv2.imwrite(str(frames / f"{k}.png"), render_throw(spec, rng).image)
    groups = tmp_path / "groups"
    assert main(["vision", "cluster", str(frames), str(groups), "--die", "d5"]) == 0
    said = capsys.readouterr()
    assert "left out tiny.png: a frame is 1×1 pixels" in said.err and "3 dice in" in said.out
    assert main(["vision", "cluster", str(frames), str(groups), "--die", "d5"]) == 2
    assert "is not an empty folder" in capsys.readouterr().err


def test_a_photo_whose_die_is_cut_by_its_edge_is_not_taught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    first, second = _photos(tmp_path, (1, 2))
    photo = read_image(second.partition("=")[2])
    found = DiceReader().find(photo)
    assert len(found) == 1
    x0, _, x1, _ = (round(v) for v in found[0].box)
    cut = tmp_path / "cut.png"  # the picture ends half way across the die
    cv2.imwrite(str(cut), photo[:, : (x0 + x1) // 2])
    assert main(["vision", "teach", str(out), "--die", "d5", "--face", first,
                 "--face", f"2={cut}"]) == 2  # fmt: skip
    assert f"no die found whole in {cut}" in capsys.readouterr().err
    assert not out.exists()  # nothing half taught: face 1 was not kept without face 2


def test_a_photo_whose_find_is_not_die_sized_beside_the_others_is_not_taught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    shown = _photos(tmp_path, (1, 2, 3))
    first_two = ["--face", shown[0], "--face", shown[1]]
    photo = read_image(shown[2].partition("=")[2])
    (found,) = DiceReader().find(photo)
    cx, cy = (found.box[0] + found.box[2]) / 2, (found.box[1] + found.box[3]) / 2
    h, w = photo.shape[:2]
    twice = np.array([[2, 0, w / 2 - 2 * cx], [0, 2, h / 2 - 2 * cy]], np.float32)
    closer = tmp_path / "closer.png"  # twice as close, round the die: the die twice as large
    cv2.imwrite(str(closer), cv2.warpAffine(photo, twice, (w, h)))
    assert main(["vision", "teach", str(out), "--die", "d5", *first_two,
                 "--face", f"3={closer}"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert f"what was found in {closer} is" in err and "is a die in it?" in err
    assert not out.exists()
    third = ["--face", shown[2]]  # the die as large as in the others: taught
    assert main(["vision", "teach", str(out), "--die", "d5", *first_two, *third]) == 0


@needs_photos
def test_the_burks_photo_of_the_empty_tower_is_not_taught_as_a_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = shared_photos()
    assert photos is not None
    images = photos / "burks_polyhedral" / "images"
    out = tmp_path / "d10"
    faces = [a for v in range(3) for a in ("--face", f"{v}={images / f'D10_A_{v + 1}.jpg'}")]
    teach = ["vision", "teach", str(out), "--die", "d10", *faces]
    # its surest find (0.72) is the tower's wall, running past the picture's bottom edge
    assert main([*teach, "--face", f"3={images / 'background_1.jpg'}"]) == 2
    assert "no die found whole in" in capsys.readouterr().err
    assert not out.exists()
    assert main(teach) == 0  # the three photos of the d10 alone are taught


def test_a_set_s_name_follows_the_appliance_s_rule_and_is_not_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--name into a folder holding a set was ignored without a word, and a folder's name
    the appliance does not take ("Red_d5") was the set's name unchecked."""
    first, second = _photos(tmp_path, (1, 2))
    made = tmp_path / "Red_d5"
    assert main(["vision", "teach", str(made), "--die", "d5", "--face", first]) == 0
    said = capsys.readouterr().out
    assert "the set is named 'red-d5': 'Red_d5' is not a die set's name (1–40 lower-case " in said
    assert DieSet.load(made).name == "red-d5"
    teach = ["vision", "teach", str(made), "--die", "d5", "--face", second]
    assert main([*teach, "--name", "blue-d5"]) == 2
    said = capsys.readouterr().err
    assert (f"{made} holds the set 'red-d5': --name names a new set, it does not rename one "
            "(leave --name out, or teach into another folder)") in said  # fmt: skip
    assert main([*teach, "--name", "red-d5"]) == 0  # its own name: taught
    assert sorted(DieSet.load(made).crops) == [1, 2]
    capsys.readouterr()
    for bad in ("Blue_d5", "-blue", "x" * 41, "blue d5"):
        out = tmp_path / "blue"
        assert main(["vision", "teach", str(out), "--die", "d5", "--face", first,
                     f"--name={bad}"]) == 2  # fmt: skip
        assert f"--name {bad!r} is not a die set's name: 1–40 lower-case" in (
            capsys.readouterr().err
        )
        assert not out.exists()
    assert main(["vision", "teach", str(tmp_path / "__"), "--die", "d5", "--face", first]) == 2
    assert "no die set's name can be made of '__': give --name" in capsys.readouterr().err


def test_no_face_is_taught_into_an_older_set_nor_read_with_a_set_of_no_faces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A face taught into a set of the older format (no margin: its crops the finder's box
    alone) was cut at twice the box and never read; `vision read --dieset` with a set whose
    faces were all forgotten ended in a traceback."""
    (photo,) = _photos(tmp_path, (1,))
    old = tmp_path / "old"
    assert main(["vision", "teach", str(old), "--die", "d5", "--face", photo]) == 0
    meta = json.loads((old / "dieset.json").read_text(encoding="utf-8"))
    del meta["margin"]
    (old / "dieset.json").write_text(json.dumps(meta), encoding="utf-8")
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    capsys.readouterr()
    assert main(["vision", "teach", str(old), "--die", "d5", "--face", photo]) == 2
    err = capsys.readouterr().err
    assert f"{old}: this set was taught by an older version" in err
    assert "teach it again into a new set" in err
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    empty = tmp_path / "empty"
    DieSet("empty", "d5").save(empty)
    picture = photo.partition("=")[2]
    assert main(["vision", "read", picture, "--dieset", str(empty)]) == 2
    assert f"the die set in {empty} has no faces taught yet" in capsys.readouterr().err
    meta = {"name": "bare", "die": "d5", "faces": {}}  # an older set, every face forgotten
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "dieset.json").write_text(json.dumps(meta), encoding="utf-8")
    assert main(["vision", "teach", str(tmp_path / "bare"), "--die", "d5", "--face", photo]) == 0
    assert DieSet.load(tmp_path / "bare").margin == 2.0  # nothing was cut the old way


def _grouped(folder: Path, shown: dict[str, list[tuple[str, int]]]) -> None:
    """Group folders as `vision cluster` writes them, renamed by the owner: name -> the
    (die, value) of each picture in it."""
    rng = np.random.default_rng(12)
    for name, dice in shown.items():
        (folder / name).mkdir(parents=True)
        for k, (die, value) in enumerate(dice):
            spec = ThrowSpec(dice=(die,), values=(value,), perspective=0.0, looks=(PALETTE[2],))
            throw = render_throw(spec, rng)
            region = DieSet.region(throw.image, throw.dice[0].box)
            cv2.imwrite(str(folder / name / f"{k:03d}.png"), region)


def test_from_clusters_says_which_picture_is_of_another_die(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A d20's picture in the folder named 3 (grouped with a d5's, or named by mistake): the
    set is taught, and the picture to check is said (DieSet.teach's warning was dropped)."""
    groups = tmp_path / "groups"
    _grouped(groups, {"1": [("d5", 1)], "2": [("d5", 2)], "3": [("d20", 7)]})
    teach = ["vision", "teach", str(tmp_path / "set"), "--die", "d5", "--from-clusters"]
    assert main([*teach, str(groups)]) == 0
    said = capsys.readouterr().out
    assert f"check {groups / '3' / '000.png'}: face 3 is taught, but its outline" in said
    assert sorted(DieSet.load(tmp_path / "set").crops) == [1, 2, 3]


def test_from_clusters_does_not_replace_a_set_of_another_die(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A five-face d5 set became a d20 set of one face, unasked; --face refuses a die-type
    change, and so does --from-clusters."""
    out = tmp_path / "set"
    assert main(["vision", "teach", str(out), "--die", "d5", "--synthetic-look", "2"]) == 0
    capsys.readouterr()
    groups = tmp_path / "groups"
    _grouped(groups, {"7": [("d20", 7)]})
    assert main(["vision", "teach", str(out), "--die", "d20", "--from-clusters",
                 str(groups)]) == 2  # fmt: skip
    assert f"{out} holds a set of d5s, not d20s: teach into another folder" in (
        capsys.readouterr().err
    )
    kept = DieSet.load(out)
    assert kept.die == "d5" and sorted(kept.crops) == [1, 2, 3, 4, 5]
