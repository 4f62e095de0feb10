"""A numbered die of another type thrown where one type is expected: burks' real d10, d20
and numeral d6, all one owner's, each read where another type is expected.  Their numerals
read alike (a d10's "3" is a numeral d6's "3"); their outlines do not, once the owner has
taught both sets (vision/die_shape.py, nearer_elsewhere)."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from tests.vision import needs_photos, photos_of
from vision import teach
from vision.advice import OTHER_SHAPE
from vision.datasets import read_dataset, shared_photos
from vision.numbered_finds import SAME_BODY
from vision.perturb import perturb
from vision.reader import DiceReader
from vision.readings import iou
from vision.teach import DieSet
from vision.tray_area import TrayArea, within

PHOTOS = shared_photos()
TYPES = ("d10", "d20", "d6_numeral")
# the tower's black floor, as in test_teach.py (the tower's own parts outside it)
BURKS_TRAY = TrayArea.parse([[0.177, 0.093], [0.795, 0.093], [0.795, 0.916], [0.177, 0.916]])


@pytest.fixture(scope="module")
def burks_reader(tmp_path_factory: pytest.TempPathFactory) -> DiceReader:
    """A reader with all three of burks' sets, each taught from its photos."""
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    sets = tmp_path_factory.mktemp("sets")
    reader = DiceReader()
    for die in TYPES:
        empty = str(folder / "images" / "background_1.jpg")
        code = main(["vision", "teach", str(sets / die), "--die", die,
                     "--from-labels", str(folder), "--empty-tray", empty])  # fmt: skip
        assert code == 0
        reader.add_dieset(DieSet.load(sets / die))
    return reader


@needs_photos
def test_a_die_of_another_taught_type_is_asked_not_read_as_the_expected_one(
    burks_reader: DiceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    # the three dice are of three colours; an owner's set may be one (a red d10 beside red
    # numeral d6s), so colour is left out here and the outline alone must tell them
    monkeypatch.setattr(teach, "colour_gap", lambda colour, taught: 0.0)
    tray = cv2.imread(str(folder / "images" / "background_1.jpg"))
    assert tray is not None
    rng = np.random.default_rng(20261129)
    told: Counter[tuple[str, str]] = Counter()
    for item, photo in photos_of("burks_polyhedral"):
        if item.die_type == "none":
            continue
        h, w = photo.shape[:2]
        for image, empty in ((photo, tray), perturb(photo, tray, rng)):
            # the thrown die: where its own set reads it in the tray (the tower's parts and
            # the blue d10 lying beside the tower in the d6 photos are not judged)
            own = burks_reader.read(image, item.die_type, empty)
            boxes = [d.box for d in within(own, BURKS_TRAY, w, h).certain
                   if d.value == item.values[0] and d.box is not None]  # fmt: skip
            assert len(boxes) == 1, (item.path.name, own)
            for expected in TYPES:
                if expected == item.die_type:
                    continue
                for d in burks_reader.read(image, expected, empty).dice:
                    if d.box is not None and iou(d.box, boxes[0]) > SAME_BODY:
                        told[item.die_type, "sure" if not d.uncertain else d.problem] += 1
    # measured (144 reads of the 36 dice, as taken and perturbed): 1 sure, a perturbed
    # numeral d6's "2" read a d10's "2" at 0.83 (its blurred outline 0.29 from its own set,
    # 0.39 from the d10 set's: too round to tell); 129 asked "not the set's shape" (d10s
    # 37 of 40, d20s 73 of 80, numeral d6s 19 of 24), 5 "may be cocked", 9 "confirm".
    # Before the other sets' shapes were compared: 23 sure (d10s 7 of 40, d20s 4 of 80,
    # numeral d6s 12 of 24), the rest asked "confirm" at a low guess or "may be cocked"
    sure = sum(n for (_, how), n in told.items() if how == "sure")
    assert sure <= 1, told
    for die in TYPES:
        assert told[die, OTHER_SHAPE] >= 0.75 * sum(n for (d, _), n in told.items() if d == die)


@needs_photos
def test_a_die_of_another_type_a_check_waits_for_is_read_by_its_own_set(
    burks_reader: DiceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Expecting d20s with a d10 check waiting too (`also`), a thrown d10 is read as the
    d10 it is, not asked about."""
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    monkeypatch.setattr(teach, "colour_gap", lambda colour, taught: 0.0)
    tray = cv2.imread(str(folder / "images" / "background_1.jpg"))
    read: Counter[str] = Counter()
    for item in read_dataset(folder):
        if item.die_type != "d10":
            continue
        photo = cv2.imread(str(item.path))
        assert photo is not None
        h, w = photo.shape[:2]
        result = burks_reader.read(photo, "d20", tray, also=("d10",))
        result = within(result, BURKS_TRAY, w, h)
        sure = [(d.die, d.value) for d in result.certain]
        read["right" if sure == [("d10", item.values[0])] else "not"] += 1
    assert read["right"] >= 9, read  # measured: 10 of 10


@needs_photos
def test_a_die_of_an_untaught_type_is_asked_where_only_the_expected_set_is_taught(
    burks_reader: DiceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of burks' sets taught alone, the other two types' dice read where it is
    expected: the renderer's d20, square d6 and d10 outlines stand in for the sets not
    taught (vision/untaught_shapes.py; the d10 worked out from the solid, not where a d20
    is expected).  Measured (144 reads, as taken and perturbed): sure 23 → 10 (session
    46: d20s as d10s or numeral d6s 4 → 0, numeral d6s as d10s 12 → 3) → 3 (session 48:
    d10s as numeral d6s 7 → 0, all 20 asked "not the set's shape"); each die read where
    its own type is expected, by its set alone, stays sure and right (72)."""
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    monkeypatch.setattr(teach, "colour_gap", lambda colour, taught: 0.0)  # one colour
    tray = cv2.imread(str(folder / "images" / "background_1.jpg"))
    assert tray is not None
    alone = {}
    for die in TYPES:
        taught = burks_reader.diesets[die]
        assert isinstance(taught, DieSet)
        alone[die] = DiceReader()
        alone[die].add_dieset(taught)
    rng = np.random.default_rng(20261129)
    told: Counter[tuple[str, str, str]] = Counter()
    for item, photo in photos_of("burks_polyhedral"):
        if item.die_type == "none":
            continue
        h, w = photo.shape[:2]
        for image, empty in ((photo, tray), perturb(photo, tray, rng)):
            own = within(alone[item.die_type].read(image, item.die_type, empty), BURKS_TRAY, w, h)
            right = [d.box for d in own.certain if d.value == item.values[0] and d.box is not None]
            assert len(right) == 1, (item.path.name, own)
            for expected in TYPES:
                if expected == item.die_type:
                    continue
                for d in alone[expected].read(image, expected, empty).dice:
                    if d.box is not None and iou(d.box, right[0]) > SAME_BODY:
                        how = "sure" if not d.uncertain else d.problem
                        told[item.die_type, expected, how] += 1
    sure = Counter({(die, expected): n for (die, expected, how), n in told.items()
                    if how == "sure"})  # fmt: skip
    assert sure["d20", "d10"] + sure["d20", "d6_numeral"] == 0, told
    assert sure["d10", "d6_numeral"] == 0, told
    assert told["d10", "d6_numeral", OTHER_SHAPE] >= 16, told  # measured: 20 of 20
    assert sure["d6_numeral", "d10"] <= 4, told
    assert sum(sure.values()) <= 5, told
