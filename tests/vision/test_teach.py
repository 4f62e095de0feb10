"""Teach mode: numbered dice learnt from one photo per face, then read however they lie.

The burks_polyhedral photos (../shared) teach a d20, a d10 and a numeral d6,
which are then found on the tray (wood and tray edges must not pass for dice)
and read back, also turned, rescaled, re-lit and blurred (vision/perturb.py).
Synthetic d5s, d10s and d20s are taught from renders of their faces and read in
throws, straight down and through the renderer's tilted camera.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge import files
from dicebridge.cli import main
from tests.vision import how_read, needs_photos
from vision.advice import FOREIGN, LEANING
from vision.datasets import read_dataset, shared_photos
from vision.finder import Found
from vision.numbered_finds import SAME_BODY, camera_slant
from vision.perturb import perturb
from vision.pixels import FrameError
from vision.reader import DiceReader
from vision.readings import holds, iou
from vision.render import PALETTE, ThrowSpec, render_die, render_settling, render_throw
from vision.teach import DieSet, DieSetError, may_be_cocked
from vision.teach_synthetic import taught_from_renders
from vision.tray_area import TrayArea, within

PHOTOS = shared_photos()
# the burks tower's black floor, its corners marked by eye on one of its photos, as an owner
# marks them on the Devices page (the camera sees the table and the tower's walls round it)
BURKS_TRAY = TrayArea.parse([[0.177, 0.093], [0.795, 0.093], [0.795, 0.916], [0.177, 0.916]])


@needs_photos
def test_burks_dice_are_taught_from_their_photos_and_read_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    tray_path = folder / "images" / "background_1.jpg"
    for die in ("d10", "d20", "d6_numeral"):
        code = main(["vision", "teach", str(tmp_path / die), "--die", die,
                     "--from-labels", str(folder), "--empty-tray", str(tray_path)])  # fmt: skip
        assert code == 0
        # the numerals lie 0.042 (d10) and 0.056 (d20) one way off the dice's middles: the
        # camera's slight slant, well under DieSet.aside_note's bar
        assert "check the set" not in capsys.readouterr().out
    reader = DiceReader()
    for die in ("d10", "d20", "d6_numeral"):
        reader.add_dieset(DieSet.load(tmp_path / die))
    tray = cv2.imread(str(tray_path))
    read = []
    others: list[tuple[str, str]] = []
    asked = Counter[str]()  # without the picture: uncertain readings, the tray's area marked or not
    for item in read_dataset(folder):
        if item.die_type == "none":
            continue
        photo = cv2.imread(str(item.path))
        assert photo is not None
        h, w = photo.shape[:2]
        result = reader.read(photo, item.die_type, tray)
        values = [d.value for d in result.certain]
        read.append((item.path.name, item.values[0], values))
        others.extend((d.problem, d.advice) for d in result.uncertain)
        in_tray = within(result, BURKS_TRAY, w, h)  # the tower's black floor marked
        assert [d.value for d in in_tray.dice] == [item.values[0]], (item.path.name, in_tray)
        # without the picture the tower's parts are found too; none is read for sure (one
        # read "1" at 1.0 from its box, the finder unsure of it, until UNTOLD_FOUND)
        bare = reader.read(photo, item.die_type)
        alone = [d.value for d in bare.certain]
        assert alone == [item.values[0]], (item.path.name, alone)
        asked["whole"] += len(bare.uncertain)
        asked["tray's colour"] += sum(d.problem == "the tray's colour" for d in bare.uncertain)
        asked["area"] += len(within(bare, BURKS_TRAY, w, h).uncertain)
    # measured: 31 uncertain readings off the dice (the tower's walls and parts, the table
    # beside it), 2 inside the area (the tray's front edge, a part of the tower); before
    # teach.UNTOLD_GAP, 74 and 19, with 39 specks on the black floor asked as pink, red or
    # white dice of the tray's colour
    assert asked["area"] <= 0.3 * asked["whole"], asked
    assert asked["tray's colour"] == 0, asked
    missed = [r for r in read if r[1] not in r[2]]
    strays = sum(len(r[2]) - 1 for r in read if r[1] in r[2])
    assert len(read) == 36 and missed == []
    assert strays == 0  # a tray edge the finder takes for a die has no die body: dropped
    # the only uncertain readings: a blue d10 lying beside the tower in the six d6 photos,
    # someone else's die (measured: 6, each "take the blue die out of the tray: ..."), gone
    # with the tray's area marked (above)
    assert len(others) <= 6
    assert all(p == FOREIGN and a.startswith("take the blue die out") for p, a in others), others

    # the camera turned, zoomed, re-exposed and out of focus: still every die, nothing else
    rng = np.random.default_rng(20261123)
    assert tray is not None
    wrong = []
    for item in read_dataset(folder):
        if item.die_type == "none":
            continue
        photo = cv2.imread(str(item.path))
        assert photo is not None
        moved, moved_tray = perturb(photo, tray, rng)
        result = reader.read(moved, item.die_type, moved_tray)
        values = [d.value for d in result.certain]
        if values != [item.values[0]]:
            wrong.append((item.path.name, item.values[0], values))
    assert wrong == []


@needs_photos
def test_a_small_blurred_numbered_die_is_asked_to_be_confirmed_not_read_wrong(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The burks dice, taught from their photos, read in the photos shrunk to 38-px dice and
    blurred (sigma 1.5 px, a camera out of focus): a numeral blurred past its strokes reads
    as another face for sure.  A die whose outline is that blurred is asked to confirm."""
    import vision.reader as reader_module

    photos = shared_photos()
    assert photos is not None
    folder = photos / "burks_polyhedral"
    tray_path = folder / "images" / "background_1.jpg"
    reader = DiceReader()
    for die in ("d10", "d20", "d6_numeral"):  # taught as the owner would, from the photos
        code = main(["vision", "teach", str(tmp_path / die), "--die", die,
                     "--from-labels", str(folder), "--empty-tray", str(tray_path)])  # fmt: skip
        assert code == 0
        reader.add_dieset(DieSet.load(tmp_path / die))
    items = [item for item in read_dataset(folder) if item.die_type != "none"]
    photos_of = {item.path: cv2.imread(str(item.path)) for item in items}
    tray = cv2.imread(str(tray_path))

    def small_and_blurred(image: np.ndarray) -> np.ndarray:
        small = cv2.resize(image, None, fx=0.15, fy=0.15, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (0, 0), 1.5)

    def read_all() -> Counter[str]:
        counts = Counter[str]()
        for item in items:
            shown = photos_of[item.path]
            assert shown is not None and tray is not None
            result = reader.read(small_and_blurred(shown), item.die_type, small_and_blurred(tray))
            sure = [d.value for d in result.certain]
            counts["wrong"] += sum(v != item.values[0] for v in sure)
            for d in result.uncertain:
                if d.problem == reader_module.NUMERAL_BLURRED:
                    counts["asked"] += 1
                    assert d.advice.startswith("confirm: ") and "focus the camera" in d.advice
        return counts

    # measured: 1 read wrong, 9 asked (without the rule: 4 wrong, none asked)
    counts = read_all()
    assert counts["wrong"] <= 1 and counts["asked"] >= 6, counts
    monkeypatch.setattr(reader_module, "NUMERAL_SHARP", 0.0)
    monkeypatch.setattr(reader_module, "NUMERAL_BLUR", {})
    monkeypatch.setattr(reader_module, "NUMERAL_BLUR_ELSE", float("inf"))
    without = read_all()
    assert without["wrong"] >= 3 and without["asked"] == 0, without


@functools.cache
def _taught(die: str, look: int) -> DieSet:
    """A die set taught from the renderer's own dice of one look, every face in every
    design the renderer draws (vision/teach_synthetic.py)."""
    return taught_from_renders(die, look)


def _read_synthetic(
    die: str, throws: int, seed: int, perspective: float
) -> tuple[int, int, int, int]:
    """(dice thrown, found, read right, read wrong) over ``throws`` throws of three dice,
    each throw in the next look (a die set per look), scored as `vision eval` does: per
    throw, the values read for sure against the values thrown."""
    rng = np.random.default_rng(seed)
    reader = DiceReader()
    thrown = found = right = wrong = 0
    for k in range(throws):
        look = k % 12  # the plain looks (not the numeral d6s)
        reader.diesets = {die: _taught(die, look)}
        spec = ThrowSpec(dice=(die,) * 3, perspective=perspective, looks=(PALETTE[look],))
        throw = render_throw(spec, rng)
        result = reader.read(throw.image, die, throw.empty_tray)
        truth = Counter(d.value for d in throw.dice)
        read = Counter(d.value for d in result.certain if d.value is not None)
        thrown += len(throw.dice)
        found += len(result.dice)
        right += sum((truth & read).values())
        wrong += sum(read.values()) - sum((truth & read).values())
    return thrown, found, right, wrong


def test_synthetic_d5_taught_from_renders_reads_what_it_finds_and_nothing_wrong() -> None:
    # measured: straight down 36 thrown, 36 found, 36 right; through the renderer's tilted
    # camera (and its blur) 36 thrown, 35 found (two touching dice found as one), 34 right
    # (32 before the ink's detail was compared), 1 left uncertain; none read wrong
    thrown, found, right, wrong = _read_synthetic("d5", 12, seed=5, perspective=0.0)
    assert (thrown, wrong) == (36, 0) and found >= 34 and right >= found - 1
    thrown, found, right, wrong = _read_synthetic("d5", 12, seed=6, perspective=0.15)
    assert (thrown, wrong) == (36, 0) and found >= 33 and right >= found - 4


def test_synthetic_d10_and_d20_are_mostly_read_and_never_wrong() -> None:
    # measured: d10 (tilted camera) 36 thrown, 36 found, 33 right; d20 (straight down)
    # 36 thrown, 36 found, 32 right (31 before the ink's detail was compared); the rest
    # left uncertain ("confirm: 16?"), none wrong
    thrown, found, right, wrong = _read_synthetic("d10", 12, seed=10, perspective=0.15)
    assert (thrown, wrong) == (36, 0) and found >= 34 and right >= 28
    thrown, found, right, wrong = _read_synthetic("d20", 12, seed=20, perspective=0.0)
    assert (thrown, wrong) == (36, 0) and found >= 34 and right >= 28


def test_a_d20_left_to_confirm_offers_the_face_it_shows_among_two() -> None:
    """A d20 left "confirm: 18 or 10?" names its guess and the next closest face, so that
    one press settles it (over seeds 20-22, both cameras, the face shown was the guess
    16 times and the second face 5 times of 21)."""
    asked = Counter[str]()
    for seed, perspective in ((20, 0.0), (21, 0.15)):
        rng = np.random.default_rng(seed)
        reader = DiceReader()
        for look in range(12):
            reader.diesets = {"d20": _taught("d20", look)}
            spec = ThrowSpec(dice=("d20",) * 3, perspective=perspective, looks=(PALETTE[look],))
            throw = render_throw(spec, rng)
            for die in reader.read(throw.image, "d20", throw.empty_tray).uncertain:
                if not die.advice.startswith("confirm"):
                    continue
                cx, cy = (die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2
                shown = min(
                    throw.dice,
                    key=lambda t: (
                        ((t.box[0] + t.box[2]) / 2 - cx) ** 2
                        + ((t.box[1] + t.box[3]) / 2 - cy) ** 2
                    ),
                ).value
                assert die.runner_up is not None and die.runner_up != die.value
                assert die.advice.startswith(f"confirm: {die.value} or {die.runner_up}?")
                asked["confirm"] += 1
                asked["guess"] += shown == die.value
                asked["second"] += shown == die.runner_up
    # measured: 9 asked, the guess right 7 times, the second face 2
    assert asked["confirm"] >= 3, asked
    assert asked["guess"] + asked["second"] == asked["confirm"], asked
    assert asked["second"] >= 1, asked  # the second face is not there for show


def test_only_an_answer_short_of_certain_is_checked_on_a_closer_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The closer cut is a second comparison: a die whose first answer is at confidence
    1.0 skips it (it never changed one, docs/vision.md); a sure one short of it gets it."""
    import vision.teach as teach

    answers: list[float] = []  # each comparison's confidence, in order
    closer = Counter[str]()
    surest, best = teach._surest, teach.Bank.best

    def noted(*scores: dict[int, float]) -> tuple[int, float, float, float, int | None]:
        answer = surest(*scores)
        answers.append(answer[3])
        return answer

    def counted(
        bank: teach.Bank, query: object, only: set[int] | None = None, near: object = None
    ) -> object:
        closer["looks"] += only is not None
        return best(bank, query, only, near)  # type: ignore[arg-type]

    monkeypatch.setattr(teach, "_surest", noted)
    monkeypatch.setattr(teach.Bank, "best", counted)
    rng = np.random.default_rng(20)
    reader = DiceReader()
    first = Counter[str]()
    for look in range(6):
        reader.diesets = {"d20": _taught("d20", look)}
        throw = render_throw(ThrowSpec(dice=("d20",) * 3, looks=(PALETTE[look],)), rng)
        for found in reader.find(throw.image, throw.empty_tray):
            answers.clear()
            looks = closer["looks"]
            reader.diesets["d20"].read(throw.image, found.box)
            if not answers:
                continue  # no die body there
            checked = closer["looks"] > looks
            if answers[0] >= 1.0:
                first["certain"] += 1
                assert not checked
            elif answers[0] >= 0.7:
                first["sure, short of certain"] += 1
                assert checked
    assert first["certain"] >= 3 and first["sure, short of certain"] >= 1, first


def test_the_closer_cut_compares_the_leading_faces_where_they_fit_the_first_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The closer cut is the same die resampled: its leading faces' views are compared
    where they fit the first look (within a pixel), with no polar or half-resolution
    search, and score what a fresh search over every pose scores (measured: within 0.002
    over 24 faces of 12 dice; the leading face the same every time)."""
    import vision.teach_marks as marks

    best, turns = marks.Bank.best, marks._turns
    searched = Counter[str]()
    gaps: list[float] = []
    leaders: list[bool] = []

    def counted(spectra: np.ndarray) -> np.ndarray:
        searched["polar"] += 1
        return turns(spectra)

    def compared(
        bank: marks.Bank, query: marks.Marks, only: set[int] | None = None,
        near: marks.Best | None = None,
    ) -> marks.Best:  # fmt: skip
        before = searched["polar"]
        found = best(bank, query, only, near)
        if only is None or near is None:
            return found
        assert searched["polar"] == before  # no search for the pose
        fresh = best(bank, query, only)
        gaps.extend(abs(found.ink[v] - fresh.ink[v]) for v in only)
        leaders.append(max(found.ink, key=found.ink.__getitem__)
                       == max(fresh.ink, key=fresh.ink.__getitem__))  # fmt: skip
        return found

    monkeypatch.setattr(marks, "_turns", counted)
    monkeypatch.setattr(marks.Bank, "best", compared)
    rng = np.random.default_rng(20)
    reader = DiceReader()
    for look in range(6):
        reader.diesets = {"d20": _taught("d20", look)}
        for k in range(3):
            spec = ThrowSpec(dice=("d20",) * 3, perspective=0.15 * (k % 2), looks=(PALETTE[look],))
            throw = render_throw(spec, rng)
            reader.read(throw.image, "d20", throw.empty_tray)
    assert len(leaders) >= 6 and all(leaders), leaders
    assert max(gaps) <= 0.01, max(gaps)


def test_the_coarse_stage_compares_the_likeliest_faces_likeliest_views_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A set taught from two designs a face has 12 views a face; the coarse stage compares
    the COARSE_VIEWS the polar image ranks first, of the POLAR_FACES faces it ranks first
    (10 of a d20's 20), and the die is still read."""
    from vision.teach_marks import COARSE_VIEWS, POLAR_FACES, Bank

    compared: list[np.ndarray] = []
    coarse = Bank._coarse_scores

    def noted(
        bank: Bank, query: object, at: np.ndarray, views: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        compared.append(views)
        return coarse(bank, query, at, views)  # type: ignore[arg-type]

    monkeypatch.setattr(Bank, "_coarse_scores", noted)
    dieset = _taught("d20", 0)
    bank = dieset._ready()
    per_face = Counter(bank.values)
    assert min(per_face.values()) > COARSE_VIEWS  # the set has views to leave out ...
    assert len(per_face) > POLAR_FACES  # ... and faces
    throw = render_throw(
        ThrowSpec(dice=("d20",) * 3, looks=(PALETTE[0],)), np.random.default_rng(20)
    )
    reader = DiceReader()
    reader.diesets = {"d20": dieset}
    read = reader.read(throw.image, "d20", throw.empty_tray)
    assert compared
    faces_compared: set[int] = set()
    for views in compared:
        counts = Counter(bank.values[n] for n in set(views.tolist()))
        assert len(counts) == POLAR_FACES and set(counts.values()) == {COARSE_VIEWS}
        faces_compared |= set(counts)
    sure = Counter(d.value for d in read.certain)
    assert set(sure) <= faces_compared
    assert not sure - Counter(d.value for d in throw.dice)  # nothing read wrong
    # measured: 1 of 3 read sure, two left to confirm.  Before the polar image chose the
    # faces, the "20" was read at 0.70 (sure) without being compared with "18"; compared,
    # it is 0.59, "confirm: 20 or 18?"
    assert sum(sure.values()) >= 1


def test_a_set_of_one_design_is_taught_one_photo_a_face_and_its_dice_drawn_in_it() -> None:
    """A real die set has one design: the renderer can hold its numerals to one font, and
    a set taught from it has one photo a face (the two-design set has two)."""
    one, both = taught_from_renders("d20", 0, design=0), _taught("d20", 0)
    assert {v: len(c) for v, c in one.crops.items()} == {v: 1 for v in range(1, 21)}
    assert {v: len(c) for v, c in both.crops.items()} == {v: 2 for v in range(1, 21)}
    look = dataclasses.replace(PALETTE[0], design=0)
    drawn = [render_die("d20", 10, look, 48, np.random.default_rng(s)) for s in range(4)]
    assert all(np.array_equal(drawn[0], d) for d in drawn[1:])
    other = render_die("d20", 10, dataclasses.replace(look, design=1), 48, np.random.default_rng(0))
    assert not np.array_equal(drawn[0], other)


def test_a_d20s_10_is_compared_in_full_beside_the_other_1x_faces_not_read_a_sure_18() -> None:
    """At half resolution a d20's "1x" faces look alike: the coarse stage ranked a clear,
    large "10" fifth among them, and with three faces compared in full it was read "18"
    for sure (0.80, and 1.0 once).  REFINE compares five.  These are the four throws of a
    one-design white set (seeds 20, 41, 50, 60) where three faces read a die wrong."""
    look = dataclasses.replace(PALETTE[0], design=0)
    reader = DiceReader()
    # shown on the light tray that cuts its outlines, as this set was when the case was found
    reader.diesets = {"d20": taught_from_renders("d20", 0, design=0, tray=178)}
    wrong = thrown = 0
    for seed, perspective in ((20, 0.0), (41, 0.15), (50, 0.0), (60, 0.15)):
        rng = np.random.default_rng([seed, int(perspective * 100)])
        spec = ThrowSpec(dice=("d20",) * 3, perspective=perspective, looks=(look,))
        throw = render_throw(spec, rng)
        sure = reader.read(throw.image, "d20", throw.empty_tray).certain
        thrown += len(throw.dice)
        wrong += sum(r.value != d.value for d in throw.dice for r in sure if holds(r.box, d.box))
    # measured, die by die: 2 read wrong for sure with REFINE 3 (a "15" read "18" at 0.92, a
    # "10" at 1.0), 1 with 5: seed 60's "10" read "18" at 0.92.  This white set is taught on
    # the light grey tray that cuts its outlines ("White numbered dice taught on a light tray"
    # in docs/vision.md), so its answers are sure only from 0.9 (DieSet.aside_note; before,
    # REFINE 3 read two more wrong, at 0.79 and 0.81); taught on grey 90, none.  Counted as a
    # multiset of values until session 40, the one left hid behind the throw's real "18".
    assert thrown == 12 and wrong <= 1


def test_a_numbered_die_cut_by_the_edge_is_flagged_and_a_whole_one_by_it_is_read() -> None:
    """A d10 whose picture ends across it (at a half or three quarters of its box) is an
    uncertain "cut by the edge" reading, never a value; the same die whole, 4 px from
    the picture's edge, is read."""
    rng = np.random.default_rng(7)
    reader = DiceReader()
    cut = {"flagged": 0, "certain": 0}
    whole = {"right": 0, "wrong": 0, "called cut": 0}
    for look in range(12):
        reader.diesets = {"d10": _taught("d10", look)}
        spec = ThrowSpec(dice=("d10",), die_px=(40, 56), looks=(PALETTE[look],))
        throw = render_throw(spec, rng)
        (die,) = throw.dice
        x0, _, x1, _ = die.box
        for share in (0.5, 0.75):
            picture = np.ascontiguousarray(throw.image[:, : int(x0 + (x1 - x0) * share)])
            result = reader.read(picture, "d10")
            cut["flagged"] += [d.problem for d in result.dice] == ["cut by the edge"]
            cut["certain"] += len(result.certain)
        result = reader.read(np.ascontiguousarray(throw.image[:, max(0, x0 - 4) :]), "d10")
        whole["right"] += [d.value for d in result.certain] == [die.value]
        whole["wrong"] += sum(d.value != die.value for d in result.certain)
        whole["called cut"] += sum(d.problem == "cut by the edge" for d in result.dice)
    # measured: cut 22 of 24 flagged (two halves not found at all), none read; whole 12
    # of 12 read, none called cut (when the finder's box decided and a cut die's square
    # smeared its edge pixels outwards: 1 of 24 cut dice reported at all, the rest
    # dropped; whole 9 of 12 read, 3 called cut)
    assert cut["certain"] == 0 and cut["flagged"] >= 20, cut
    assert whole["wrong"] == 0 and whole["called cut"] == 0 and whole["right"] >= 10, whole


def test_bad_teaching_is_refused_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(DieSetError, match="teach mode is for"):
        DieSet("x", "d7")
    dieset = DieSet("x", "d10")
    with pytest.raises(DieSetError, match="has no face 11"):
        dieset.teach(11, np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(DieSetError, match="no taught faces"):
        dieset.match(np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(DieSetError, match="nothing holds no die set"):
        DieSet.load(tmp_path / "nothing")
    assert dieset.missing() == list(range(10))
    spoilt = tmp_path / "spoilt"
    spoilt.mkdir()
    for meta, says in [
        ("{", "cannot load the die set in"),  # half written
        ('{"name": "x", "die": "d10"}', r"dieset\.json lacks 'faces'"),
        ('{"name": "x", "die": "d10", "faces": {"3": ["face3-0.png"]}}', r"face3-0\.png: no such"),
    ]:
        (spoilt / "dieset.json").write_text(meta)
        with pytest.raises(DieSetError, match=says):
            DieSet.load(spoilt)
    (spoilt / "face3-0.png").write_bytes(b"not a png")
    with pytest.raises(DieSetError, match=r"face3-0\.png is not a picture OpenCV can read"):
        DieSet.load(spoilt)


def test_a_crop_that_is_no_picture_is_refused_and_the_set_still_reads(tmp_path: Path) -> None:
    """One bad crop once spoilt every later reading of the set (a BGRA crop was taken, then
    each match failed deep inside); a face that is no whole number was saved as "1.0",
    which the set could not load again."""
    taught = taught_from_renders("d20", 2, design=0)
    crop = taught.crops[1][0]
    dieset = DieSet("x", "d20")
    for bad, says in [
        (crop.astype(np.float32) / 255, "float32 pixels"),
        (crop > 0, "bool pixels"),
        (crop[:, :, :2], "its shape is"),
        (crop[:4, :4], "at least 8×8"),
        (None, "not NoneType"),
    ]:
        with pytest.raises(DieSetError, match=says):
            dieset.teach(1, bad)  # type: ignore[arg-type]
    for value in (1.0, True, "1"):
        with pytest.raises(DieSetError, match="a face is a whole number"):
            dieset.teach(value, crop)  # type: ignore[arg-type]
    assert dieset.missing() == list(range(1, 21))  # nothing refused was kept
    # grey and BGRA crops are the same picture, converted as frames are
    dieset.teach(1, cv2.cvtColor(crop, cv2.COLOR_BGR2BGRA))
    dieset.teach(2, taught.crops[2][0])
    assert all(c.shape[2] == 3 for crops in dieset.crops.values() for c in crops)
    dieset.save(tmp_path / "set")
    again = DieSet.load(tmp_path / "set")
    assert sorted(again.crops) == [1, 2]
    assert again.match(crop).value == 1
    with pytest.raises(FrameError, match="float64 pixels"):
        again.match(crop.astype(np.float64))
    with pytest.raises(FrameError, match="four finite numbers"):
        again.read(crop, (float("nan"), 0.0, 10.0, 10.0))


def test_teaching_without_labels_groups_throws_by_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """30 throws of one d5 → `vision cluster` → the owner names the groups → taught → read."""

    rng = np.random.default_rng(3)
    look = (PALETTE[2],)
    frames = tmp_path / "frames"
    frames.mkdir()
    shown = []
    for i in range(30):
        value = int(rng.integers(1, 6))
        spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=look)
        cv2.imwrite(str(frames / f"{i:02d}.png"), render_throw(spec, rng).image)
        shown.append(value)
    assert main(["vision", "cluster", str(frames), str(tmp_path / "groups"), "--die", "d5"]) == 0
    assert "rename each group folder" in capsys.readouterr().out
    groups = sorted((tmp_path / "groups").iterdir())
    assert len(groups) == len(set(shown))  # one group per face that came up
    reader = DiceReader()
    for group in groups:  # the owner looks at each group and names it by its face
        first = cv2.imread(str(next(group.glob("*.png"))))
        assert first is not None
        probe = _taught("d5", 2)
        group.rename(group.with_name(str(probe.match(first).value)))
    assert sorted(int(g.name) for g in (tmp_path / "groups").iterdir()) == sorted(set(shown))
    code = main(["vision", "teach", str(tmp_path / "set"), "--die", "d5",
                 "--from-clusters", str(tmp_path / "groups")])  # fmt: skip
    assert code == 0
    reader.add_dieset(DieSet.load(tmp_path / "set"))
    right = wrong = 0
    for value in sorted(set(shown)) * 2:  # fresh throws of every taught face
        spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=look)
        throw = render_throw(spec, rng)
        read = [d.value for d in reader.read(throw.image, "d5", throw.empty_tray).certain]
        right += read == [value]
        wrong += any(v != value for v in read)
    assert wrong == 0 and right >= 9, (right, wrong)  # measured: 10 of 10


def test_teach_names_the_faces_shown_once_to_be_shown_again_turned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Photos named VALUE=PATH; face 2 shown twice: the others are listed as shown once."""
    rng = np.random.default_rng(8)
    faces = []
    for n, value in enumerate([1, 2, 3, 4, 5, 2]):
        spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0, looks=(PALETTE[2],))
        path = tmp_path / f"{n}.png"
        cv2.imwrite(str(path), render_throw(spec, rng).image)
        faces += ["--face", f"{value}={path}"]
    assert main(["vision", "teach", str(tmp_path / "set"), "--die", "d5", *faces]) == 0
    said = capsys.readouterr().out
    assert "taught 6 photos of a d5" in said
    assert "faces shown once: 1, 3, 4, 5 (a second photo of each, the die turned" in said
    dieset = DieSet.load(tmp_path / "set")
    assert dieset.shown_once() == [1, 3, 4, 5] and len(dieset.crops[2]) == 2


class _TwoFindsOnEachDie:
    """A finder that finds every die twice, once on its left part and once on its right
    (as the real one did on a turned burks d10): the boxes of each throw are set before
    reading it."""

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def find(
        self,
        image: np.ndarray,
        empty_tray: np.ndarray | None = None,
        pips: bool = False,
        dark: bool = False,
    ) -> list[Found]:
        found = []
        for x0, y0, x1, y1 in self.boxes:
            part = 0.7 * (x1 - x0)
            found += [Found((x0, y0, x0 + part, y1), 0.9), Found((x1 - part, y0, x1, y1), 0.9)]
        return found


def test_a_numbered_die_found_twice_is_read_once_from_its_own_centre() -> None:
    """Two finds on one die (each box on a part of it) give one reading of the die, read
    from its body's centre: read from each box, the numeral was sought beside the face's
    and a side face's numeral could be read for sure."""
    rng = np.random.default_rng(12)
    finder = _TwoFindsOnEachDie()
    reader = DiceReader(finder=finder)  # type: ignore[arg-type]
    readings = right = wrong = 0
    for die in ("d10", "d20"):
        for look in range(12):
            reader.diesets = {die: _taught(die, look)}
            spec = ThrowSpec(dice=(die,), die_px=(50, 60), looks=(PALETTE[look],))
            throw = render_throw(spec, rng)
            finder.boxes = [throw.dice[0].box]
            result = reader.read(throw.image, die)
            readings += len(result.dice)
            right += [d.value for d in result.certain] == [throw.dice[0].value]
            wrong += sum(d.value != throw.dice[0].value for d in result.certain)
    # measured: 24 dice, 24 readings, all 24 read right; without reading one die once: 48
    # readings, none of them a sure value
    assert (readings, wrong) == (24, 0) and right >= 20


def test_two_numbered_dice_lying_edge_to_edge_in_one_outline_are_read_as_two() -> None:
    """Two d5s lying edge to edge, with no waist between them, make one solid outline: each
    of their two finds located the same body, and the pair was read once ("1" at 0.72, the
    "2" lost).  Shared out between the body's cores, each find is read from its own die."""
    rng = np.random.default_rng([60, 7])
    for k in range(7):  # the seventh of these throws has the pair
        throw = render_throw(ThrowSpec(dice=("d5",) * 4, touching=1.0, looks=(PALETTE[k],)), rng)
    dieset = _taught("d5", 6)
    reader = DiceReader()
    reader.diesets = {"d5": dieset}
    found = reader.find(throw.image, throw.empty_tray)
    outlines = [dieset.read(throw.image, f.box).outline for f in found]
    shared = [
        (a, b) for i, a in enumerate(outlines) for b in outlines[:i]
        if a and b and iou(a, b) >= SAME_BODY
    ]  # fmt: skip
    assert len(found) == 4 and len(shared) == 1  # two finds, one body: the case named
    readings = reader.read(throw.image, "d5", throw.empty_tray).certain
    assert Counter(d.value for d in readings) == Counter(d.value for d in throw.dice)


def test_a_numbered_die_the_colour_of_its_tray_is_read_or_left_to_confirm_not_lost() -> None:
    # a white d5 on a white felt, a black one on a black felt: no body stands apart from
    # the tray, so the finder's box stands in; the die is sure where its marks match very
    # well, and otherwise asked to be confirmed, saying why (measured over 24 throws of four
    # a type and felt, d5, d10 and d20 on black, white and blue felts: 44 of 864 dice not
    # read at all before, 4 after; right answers the same, none wrong)
    reader = DiceReader()
    thrown = read = wrong = sure = untold = 0
    for look, felt in ((0, (228, 228, 226)), (1, (26, 26, 28))):
        reader.diesets = {"d5": _taught("d5", look)}
        rng = np.random.default_rng(30 + look)
        for _ in range(4):
            spec = ThrowSpec(dice=("d5",) * 3, looks=(PALETTE[look],), tray=felt)
            throw = render_throw(spec, rng)
            result = reader.read(throw.image, "d5")
            thrown += len(throw.dice)
            for d in throw.dice:
                on = [r for r in result.dice if holds(r.box, d.box)]
                read += bool(on)
                wrong += any(not r.uncertain and r.value != d.value for r in on)
                sure += any(not r.uncertain and r.value == d.value for r in on)
                untold += any(
                    r.problem == "the tray's colour" and r.advice.startswith("confirm")
                    and "tray of another colour" in r.advice
                    for r in on
                )  # fmt: skip
    # measured here: 24 of the 24 get a reading (10 before session 21, 21 before session
    # 39); 14 sure and right (2 before session 39: the white d5s' box taken as
    # UNTOLD_SIZE, the black d5s found by the felt finder, DieSet.dark), 6 "confirm: V?
    # (the white d5: it is the tray's colour ...)" (11 before)
    assert wrong == 0 and read >= thrown - 5, (thrown, read, wrong)
    assert sure >= 10 and untold >= 1, (sure, untold)


def test_numbered_dice_the_colour_of_their_felt_are_read_surely_from_the_finders_box() -> None:
    # red d10s on red felt, blue d20s on blue felt, white d5s on white felt, each set taught
    # one photo a face: no body stands apart from the felt, so the finder's box stands in
    # (UNTOLD_SIZE) and a die is sure where its marks match very well (UNTOLD_SURE); on a
    # coloured felt the felt finder finds them.  Measured here: 71 of 72 read, 64 sure and
    # right, none wrong (seed 62: 72, 62, 0); before, 64 read and 8 sure
    thrown = read = sure = wrong = 0
    for die, look in (("d10", 2), ("d20", 4), ("d5", 0)):
        reader = DiceReader()
        reader.diesets = {die: taught_from_renders(die, look, design=0)}
        drawn = dataclasses.replace(PALETTE[look], design=0)
        rng = np.random.default_rng([61, look])
        for _ in range(6):
            spec = ThrowSpec(dice=(die,) * 4, looks=(drawn,), tray=drawn.body)
            throw = render_throw(spec, rng)
            result = reader.read(throw.image, die)
            for d in throw.dice:
                on = [r for r in result.dice if holds(r.box, d.box)]
                thrown += 1
                read += bool(on)
                sure += any(not r.uncertain and r.value == d.value for r in on)
                wrong += any(not r.uncertain and r.value != d.value for r in on)
    assert wrong == 0 and read >= thrown - 3 and sure >= 56, (thrown, read, sure, wrong)


def test_numbered_dice_the_colour_of_their_tray_are_not_lost_to_the_empty_tray_picture() -> None:
    """White d10s on white felt hardly change the empty-tray picture, so it dropped the
    finder's finds on them and the dice got no reading at all; with the picture up to date
    and the finder sure, such a find is read by the die set, kept where it matches a face."""
    rng = np.random.default_rng([95, 5])
    white = (228, 228, 226)
    specs = [ThrowSpec(dice=("d10",) * 4, looks=(PALETTE[k % 12],), tray=white) for k in range(13)]
    throws = [render_throw(spec, rng) for spec in specs][::12]  # the docs' felt run's white dice
    reader = DiceReader()
    reader.diesets = {"d10": _taught("d10", 0)}
    dropped = thrown = read = wrong = 0
    for throw in throws:
        every, kept = reader.find(throw.image), reader.find(throw.image, throw.empty_tray)
        result = reader.read(throw.image, "d10", throw.empty_tray)
        for d in throw.dice:
            dropped += any(holds(f.box, d.box) for f in every) and not any(
                holds(f.box, d.box) for f in kept
            )
            on = [r for r in result.dice if holds(r.box, d.box)]
            thrown, read = thrown + 1, read + bool(on)
            wrong += any(not r.uncertain and r.value != d.value for r in on)
    # measured: 5 of the 8 dropped by the picture; 7 of 8 read (2 before), none wrong
    assert dropped >= 4 and read >= 7 and wrong == 0, (dropped, thrown, read, wrong)


def _cocked_throws(die: str, perspective: float) -> Counter[tuple[str, str]]:
    """Twelve rendered throws of three ``die``s, half of them cocked, through the reader:
    how each cocked and each flat die came out."""
    counts: Counter[tuple[str, str]] = Counter()
    rng = np.random.default_rng(31)
    reader = DiceReader()
    for k in range(12):
        reader.diesets = {die: _taught(die, k)}
        spec = ThrowSpec(dice=(die,) * 3, cocked=0.5, perspective=perspective, looks=(PALETTE[k],))
        throw = render_throw(spec, rng)
        result = reader.read(throw.image, die, throw.empty_tray)
        for d in throw.dice:
            how, reading = how_read(d, result)
            counts["cocked" if d.cocked else "flat", how] += 1
            if how == "leaning":
                assert reading is not None and reading.advice.startswith("confirm: ")
                assert "if it is cocked, re-throw it" in reading.advice
    return counts


@pytest.mark.parametrize("die", ["d5", "d10", "d20"])
def test_a_cocked_numbered_die_is_asked_to_be_confirmed_and_a_flat_one_is_read(die: str) -> None:
    """A cocked die's numeral lies on a face that leans, not where a flat die showing that
    face has it (its taught face's numeral, off the body's middle as much, turned as the
    die's numeral is): the die is left to confirm, with why ("may be cocked").  Flat dice
    straight below the camera are read."""
    counts = _cocked_throws(die, 0.0)
    cocked = sum(n for (kind, _), n in counts.items() if kind == "cocked")
    # measured, cocked dice "may be cocked" of those thrown: d5 11 of 13 (2 left to confirm;
    # before: none, 5 read as the face most up), d10 18 of 18 (15), d20 15 of 15 (9; 2 read
    # as the face most up); flat dice: none "may be cocked" (none before either)
    assert counts["cocked", "wrong"] == 0 and counts["cocked", "leaning"] >= 0.8 * cocked, counts
    assert counts["flat", "leaning"] == 0 and counts["flat", "wrong"] == 0, counts
    assert counts["flat", "right"] >= 15, counts


def test_flat_numbered_dice_seen_at_a_slant_are_seldom_taken_for_cocked() -> None:
    """A camera at a slant shows each die's side faces on one side, which moves its middle
    off its numeral as a lean does: flat dice are seldom asked, cocked ones still are."""
    flat = cocked = leaning_flat = leaning_cocked = 0
    for die in ("d5", "d10", "d20"):
        counts = _cocked_throws(die, 0.15)
        flat += sum(n for (kind, _), n in counts.items() if kind == "flat")
        cocked += sum(n for (kind, _), n in counts.items() if kind == "cocked")
        leaning_flat += counts["flat", "leaning"]
        leaning_cocked += counts["cocked", "leaning"]
        assert counts["cocked", "wrong"] == 0, (die, counts)
    # measured: flat dice asked 1 of 86 (none before), cocked dice 36 of 45 (22 before, and
    # a cocked d5 read wrong)
    assert leaning_flat <= 0.1 * flat and leaning_cocked >= 0.7 * cocked, (
        flat,
        leaning_flat,
        cocked,
        leaning_cocked,
    )


def test_a_camera_at_a_slant_is_told_from_a_cocked_die_by_the_dice_around_it() -> None:
    """Three or more dice whose numerals lie off the same way are flat dice seen at a slant;
    a die off its own way among them may be cocked; two of three off different ways say
    nothing about the camera."""
    slanted = [(0.16, 0.0), (0.12, 0.03), (0.10, -0.02)]
    assert [may_be_cocked(off) for off in slanted] == [True, False, False]  # each alone
    x, y = camera_slant(slanted)
    assert (x, y) == pytest.approx((0.12, 0.0))  # the median of those that agree
    assert not any(may_be_cocked(off, (x, y)) for off in slanted)
    cocked = [(0.12, 0.0), (0.11, 0.03), (0.10, -0.01), (0.05, 0.28)]
    assert may_be_cocked(
        cocked[3], camera_slant(cocked)
    )  # three agree; the fourth leans its own way
    assert camera_slant([(0.12, 0.0), (0.11, 0.03), (-0.1, 0.2)]) == (0.0, 0.0)
    assert camera_slant([(0.12, 0.0), (0.11, 0.03)]) == (0.0, 0.0)  # two dice: too few
    # twelve white d20s read straight down, whose taught faces' middles were told badly
    # from the grey tray they were taught on: each numeral about 0.1 off, each its own
    # way round; the half that agree have a median off the middle, all of them none
    ring = [(0.091, 0.067), (0.012, 0.122), (-0.107, 0.052), (-0.088, 0.076), (0.118, -0.033),
            (0.075, 0.1), (0.022, 0.121), (-0.051, 0.105), (-0.063, -0.095), (0.071, -0.082),
            (-0.015, -0.122), (-0.073, 0.12)]  # fmt: skip
    assert camera_slant(ring) == (0.0, 0.0)


def test_flat_d5s_seen_at_a_slant_are_not_taken_for_cocked() -> None:
    """Through a camera at a slant every die shows its side faces on the side towards it,
    and a d5 prism's band of them moves its middle off its numeral as a lean would: where
    the frame's dice all lie off the same way, that way is the camera's."""
    rng = np.random.default_rng(33)
    reader = DiceReader()
    asked = read = 0
    for touching in (0.0, 1.0):
        for k in range(12):
            reader.diesets = {"d5": _taught("d5", k)}
            spec = ThrowSpec(dice=("d5",) * 4, perspective=0.15, touching=touching,
                             looks=(PALETTE[k],))  # fmt: skip
            throw = render_throw(spec, rng)
            result = reader.read(throw.image, "d5", throw.empty_tray)
            asked += sum(d.problem == LEANING for d in result.dice)
            read += sum(not d.uncertain for d in result.dice)
    # measured: none of 96 asked "may be cocked" (4 judging each die alone), all 96 read sure
    assert asked == 0 and read >= 92, (asked, read)


def test_a_die_thrown_alone_under_a_slanted_camera_is_judged_by_the_dice_read_before() -> None:
    """One die says nothing about the camera's slant; the dice the same camera read on
    earlier throws do (DiceReader.read's ``leans``, which the camera keeps): fewer flat dice
    are asked, and cocked ones still are."""
    counts: Counter[tuple[str, str]] = Counter()
    for die in ("d5", "d10", "d20"):
        for camera in (1, 2, 3):
            rng = np.random.default_rng([5, camera, len(die)])
            leans: list[tuple[float, float]] = []
            for k in range(16):
                reader = DiceReader()
                reader.diesets = {die: _taught(die, k % 12)}
                spec = ThrowSpec(dice=(die,), cocked=0.2, perspective=0.15, camera=camera,
                                 looks=(PALETTE[k % 12],))  # fmt: skip
                throw = render_throw(spec, rng)
                kind = "cocked" if throw.dice[0].cocked else "flat"
                for mode, before in (("alone", []), ("with the dice before", leans[-12:])):
                    result = reader.read(throw.image, die, throw.empty_tray, leans=before)
                    counts[mode, kind] += sum(d.problem == LEANING for d in result.dice)
                    wrong = Counter(d.value for d in result.certain) - Counter(
                        [throw.dice[0].value]
                    )
                    counts[mode, "wrong"] += sum(wrong.values())
                leans.extend(d.lean for d in result.dice if d.lean is not None)
    # measured, of 119 flat dice and 25 cocked ones, asked "may be cocked": flat 4 alone, 3
    # with the dice before; cocked 20 and 21; none read wrong (7 and 1, 21 and 20 while the
    # white sets were taught on the light tray that cut their outlines: until session 40)
    assert counts["alone", "flat"] >= counts["with the dice before", "flat"] + 1, counts
    assert counts["with the dice before", "cocked"] >= counts["alone", "cocked"] - 2, counts
    assert counts["with the dice before", "cocked"] >= 15, counts
    assert counts["alone", "wrong"] == counts["with the dice before", "wrong"] == 0, counts


def test_an_old_die_sets_faces_do_not_say_where_a_flat_dies_numeral_lies() -> None:
    """A die set saved before bodies were found in taught crops (margin 1.0) keeps each
    face's middle where the finder's box had it, not the body's: no lean is measured
    against it, so it never asks "may be cocked" for that reason."""
    taught = _taught("d10", 0)
    old = DieSet("old", "d10", taught.crops, margin=1.0)
    throw = render_throw(ThrowSpec(dice=("d10",), perspective=0.0, looks=(PALETTE[0],)),
                         np.random.default_rng(3))  # fmt: skip
    x0, y0, x1, y1 = throw.dice[0].box
    box = (float(x0), float(y0), float(x1), float(y1))
    assert taught.read(throw.image, box).lean is not None
    match = old.read(throw.image, box)
    assert match.lean is None and not match.leaning


def test_a_d20_left_to_confirm_is_read_again_in_the_still_frames_before_it() -> None:
    """A frame's noise moves a small numeral's scores: a d20 left to confirm in the settled
    frame but read the same in the two still frames before it, at a mean confidence over
    the reader's line, is sure; nothing sure before changes."""
    rng = np.random.default_rng([71, 3])
    stills = []
    for k in range(24):
        spec = ThrowSpec(dice=("d20",) * 3, looks=(PALETTE[k % 12],), perspective=0.15 * (k % 2))
        truth = np.random.default_rng()
        truth.bit_generator.state = rng.bit_generator.state  # the last frame's throw
        frames = [image for image, _ in render_settling(spec, rng, 0, 3)]
        stills.append((k, frames, render_throw(spec, truth)))
    reader = DiceReader()
    made_sure = 0
    for k, frames, throw in (stills[k] for k in (15, 16, 17, 23)):
        reader.diesets = {"d20": _taught("d20", k % 12)}
        once = reader.read(frames[-1], "d20")
        again = reader.read(frames[-1], "d20", earlier=frames[:-1])
        assert len(once.dice) == len(again.dice) == 3
        for before, after in zip(once.dice, again.dice, strict=True):
            if not before.uncertain:
                assert (after.value, after.uncertain) == (before.value, False)
            made_sure += before.uncertain and not after.uncertain
        assert not Counter(d.value for d in again.certain) - Counter(d.value for d in throw.dice)
    assert made_sure >= 2  # measured: 3 of these 12 dice (confirm: 16?, 18?, 12?), all right


def test_a_black_die_on_black_felt_is_read_from_its_find_not_from_blobs_on_its_numeral() -> None:
    """On black felt the empty-tray picture dropped every find on black d20s and its change
    blobs stood in: a blob on a die's numeral was read as a die of its own.  A blob lying
    on a sure find that is read gives way to it: one reading a die, none beside them."""
    rng = np.random.default_rng([95, 5])
    black = (26, 26, 28)
    throws = [render_throw(ThrowSpec(dice=("d20",) * 4, looks=(PALETTE[k],), tray=black), rng)
              for k in range(2)]  # fmt: skip
    throw = throws[1]  # black dice
    reader = DiceReader()
    reader.diesets = {"d20": _taught("d20", 1)}
    assert not reader.finder.find(throw.image, throw.empty_tray)  # the picture drops all
    result = reader.read(throw.image, "d20", throw.empty_tray)
    on = [[r for r in result.dice if holds(r.box, d.box)] for d in throw.dice]
    assert [len(readings) for readings in on] == [1, 1, 1, 1], result.dice
    wrong = [
        r for d, rs in zip(throw.dice, on, strict=True) for r in rs
        if not r.uncertain and r.value != d.value
    ]  # fmt: skip
    assert len(result.dice) == 4 and not wrong


def test_a_pip_die_among_numbered_ones_is_not_of_the_set_not_confirm_a_numeral() -> None:
    rng = np.random.default_rng(91)
    reader = DiceReader()
    told: Counter[tuple[str, str]] = Counter()
    for die, look in (("d20", 2), ("d10", 5), ("d5", 0)):
        reader.diesets = {die: taught_from_renders(die, look)}
        for pip in ("d6", "dF", "d6", "dF"):
            throw = render_throw(ThrowSpec(dice=(die, pip), looks=(PALETTE[look],)), rng)
            result = reader.read(throw.image, die)
            for thrown in throw.dice:
                cx, cy = (thrown.box[0] + thrown.box[2]) / 2, (thrown.box[1] + thrown.box[3]) / 2
                seen = [d for d in result.dice
                        if d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3]]  # fmt: skip
                kind = "numbered" if thrown.die == die else "pip"
                told[kind, seen[0].problem if seen else "not found"] += 1
    # measured (144 pip dice of the set's colour beside d20s, d10s and d5s, seed 90): 90
    # "not of the set" (was 0: 59 "may be cocked, confirm", 31 re-throw), 51 still "confirm"
    # at a low guess, 2 read a sure face; no numbered die of those or of 864 rendered ones
    assert told["pip", FOREIGN] >= 5, told
    assert told["numbered", FOREIGN] == 0, told


@needs_photos
def test_a_taught_numbered_die_among_pip_dice_is_named_not_called_cocked(tmp_path: Path) -> None:
    """The face network calls most real d20s cocked (14 of burks' 20): where the owner's
    set reads such a die surely, it is a numbered die to take out, not a d6 to re-throw."""
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    tray_path = folder / "images" / "background_1.jpg"
    reader = DiceReader()
    for die in ("d10", "d20"):
        code = main(["vision", "teach", str(tmp_path / die), "--die", die,
                     "--from-labels", str(folder), "--empty-tray", str(tray_path)])  # fmt: skip
        assert code == 0
        reader.add_dieset(DieSet.load(tmp_path / die))
    tray = cv2.imread(str(tray_path))
    assert tray is not None
    rng = np.random.default_rng(100)
    seen: Counter[str] = Counter()
    unexpected: Counter[str] = Counter()  # no check waits: read as any die
    for item in read_dataset(folder):
        if item.die_type not in ("d10", "d20"):
            continue
        photo = cv2.imread(str(item.path))
        assert photo is not None
        moved, moved_tray = perturb(photo, tray, rng)  # the camera moved since teaching
        for image, empty in ((photo, tray), (moved, moved_tray)):
            for d in reader.read(image, "d6", empty).dice:
                seen[d.problem or ("sure" if not d.uncertain else "unsure")] += 1
            for d in reader.read(image, "any", empty).certain:  # read by its own set
                unexpected["right" if (d.die, d.value) == (item.die_type, item.values[0])
                           else "wrong"] += 1  # fmt: skip
    # measured (60 dice: as taken, and perturbed with seed 100): 53 "numbered die", 8 cocked,
    # 4 cut by the edge (the tower's parts), none sure; without the sets, as taken, 3 of the
    # 30 named "numbered die" and 14 d20s "cocked" ("re-throw the red d6")
    assert seen["sure"] == 0, seen
    assert seen["numbered die"] >= 48 and seen["cocked"] <= 10, seen
    # with no pip die expected, a die its set reads surely is read (measured: 55 of the 60
    # right, none wrong; before: "enter the red die by hand ... read by the camera once its
    # set is taught", though it was, or "re-throw the red d6")
    assert unexpected["wrong"] == 0 and unexpected["right"] >= 48, unexpected


def test_pip_dice_are_not_named_numbered_for_a_set_of_their_colour() -> None:
    """A taught set is asked only of pip dice the face network is unsure of, and names one
    only when it reads it surely: flat and cocked d6s and dFs of the sets' own colour stay
    as they were read without the sets."""
    plain, taught = DiceReader(), DiceReader()
    for die in ("d5", "d10", "d20"):
        taught.add_dieset(taught_from_renders(die, 2, design=0))
    rng = np.random.default_rng(32)
    changed, dice = [], 0
    for pip in ("d6", "dF"):
        for _ in range(6):
            spec = ThrowSpec(dice=(pip,) * 3, looks=(PALETTE[2],), cocked=0.5)
            image = render_throw(spec, rng).image
            for a, b in zip(plain.read(image, pip).dice, taught.read(image, pip).dice, strict=True):
                dice += 1
                if (a.value, a.uncertain, a.problem) != (b.value, b.uncertain, b.problem):
                    changed.append((a.problem, b.problem))
    # measured: 578 such dice in four looks, flat and cocked, none changed
    assert dice >= 30 and changed == [], changed


def test_a_set_saved_over_is_whole_or_as_it_was(tmp_path: Path) -> None:
    """Saving a set over one kept before wrote its faces' pictures over the old ones, then
    its list of them: stopped half way (a full disk), the set on disk was half one set and
    half the other, and a picture cut short spoilt it."""
    old = taught_from_renders("d10", 2, "red")
    old.save(tmp_path / "red")
    kept = {p.name: p.read_bytes() for p in (tmp_path / "red").iterdir()}
    new = taught_from_renders("d10", 5, "red")  # another look: every picture differs
    writes = 0
    real = files.write_part

    def disk_fills(part: Path, data: bytes, mode: int) -> None:  # the fourth finds it full
        nonlocal writes
        writes += 1
        if writes == 4:
            real(part, data[: len(data) // 2], mode)
            raise OSError(28, "No space left on device")
        real(part, data, mode)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "write_part", disk_fills)
        with pytest.raises(OSError, match="No space left"):
            new.save(tmp_path / "red")
    after = {p.name: p.read_bytes() for p in (tmp_path / "red").iterdir()}
    assert {n: after[n] for n in kept} == kept  # the set kept before, untouched
    assert not any(n.endswith(".part") for n in after)  # nothing half written left
    loaded = DieSet.load(tmp_path / "red")
    assert all(
        np.array_equal(a, b)
        for v in old.crops
        for a, b in zip(loaded.crops[v], old.crops[v], strict=True)
    )
    new.save(tmp_path / "red")  # room again: the new set, and the old pictures gone
    assert sorted(p.name for p in (tmp_path / "red").iterdir() if p.name not in kept)
    assert not set(kept) - {"dieset.json"} & {p.name for p in (tmp_path / "red").iterdir()}
