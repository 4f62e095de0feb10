"""Teach mode: numbered dice learnt from one photo per face, then read however they lie.

The burks_polyhedral photos (../shared) teach a d20, a d10 and a numeral d6,
which are then found on the tray (wood and tray edges must not pass for dice)
and read back.  Reading them turned, rescaled, re-lit and blurred is not yet
reliable (docs/vision.md).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from vision.datasets import read_dataset, shared_photos
from vision.reader import DiceReader
from vision.teach import DieSet, DieSetError

PHOTOS = shared_photos()
needs_photos = pytest.mark.skipif(
    PHOTOS is None, reason="../shared/data/photos is absent (a user's clone has no ../shared)"
)


@needs_photos
def test_burks_dice_are_taught_from_their_photos_and_read_back(tmp_path: Path) -> None:
    assert PHOTOS is not None
    folder = PHOTOS / "burks_polyhedral"
    tray_path = folder / "images" / "background_1.jpg"
    for die in ("d10", "d20", "d6_numeral"):
        code = main(["vision", "teach", str(tmp_path / die), "--die", die,
                     "--from-labels", str(folder), "--empty-tray", str(tray_path)])  # fmt: skip
        assert code == 0
    reader = DiceReader()
    for die in ("d10", "d20", "d6_numeral"):
        reader.add_dieset(DieSet.load(tmp_path / die))
    tray = cv2.imread(str(tray_path))
    read = []
    for item in read_dataset(folder):
        if item.die_type == "none":
            continue
        photo = cv2.imread(str(item.path))
        assert photo is not None
        result = reader.read(photo, item.die_type, tray)
        values = [d.value for d in result.certain]
        read.append((item.path.name, item.values[0], values))
    missed = [r for r in read if r[1] not in r[2]]
    strays = sum(len(r[2]) - 1 for r in read if r[1] in r[2])
    assert len(read) == 36 and missed == []
    assert strays <= 1  # measured: one photo of 36 also reads a spot of the tray's edge


def test_bad_teaching_is_refused_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(DieSetError, match="teach mode is for"):
        DieSet("x", "d7")
    dieset = DieSet("x", "d10")
    with pytest.raises(DieSetError, match="has no face 11"):
        dieset.teach(11, np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(DieSetError, match="no taught faces"):
        dieset.match(np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(DieSetError, match="cannot load"):
        DieSet.load(tmp_path / "nothing")
    assert dieset.missing() == list(range(10))
