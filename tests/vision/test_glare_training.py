"""The face network's glare crops (vision/training/glare.py): a lamp's reflection drawn on
labelled dice, photos and renders, the labels kept."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from vision.datasets import shared_photos
from vision.render import GLARE_WHITE, glare_spot
from vision.training import crops_set, glare
from vision.training.numbered import NUMBERED


def _spot(hardness: float) -> np.ndarray:
    scene = np.zeros((41, 41, 3), np.float32)
    glare_spot(scene, (20.0, 20.0), 6.0, 1.0, 0.8, hardness)
    return scene[20, :, 0]  # the row through its middle


def test_a_spot_is_its_opacity_of_white_at_the_middle_and_fades_out() -> None:
    row = _spot(1.0)
    assert row[20] == pytest.approx(0.8 * GLARE_WHITE)
    assert row[26] == pytest.approx(0.8 * GLARE_WHITE * np.exp(-0.5), rel=1e-5)  # one radius
    assert row[0] == 0 and row[40] == 0  # past three radii: untouched
    assert np.all(np.diff(row[20:]) <= 0)


def test_a_hard_spot_has_a_flatter_top_and_a_sharper_rim() -> None:
    soft, hard = _spot(1.0), _spot(3.0)
    assert hard[20] == pytest.approx(soft[20])
    assert hard[24] > soft[24]  # two thirds of a radius out: still near the top
    assert hard[30] < soft[30]  # past the rim: darker sooner


def test_glare_is_drawn_on_each_die_and_not_on_the_tray() -> None:
    image = np.full((120, 200, 3), 60, np.uint8)
    boxes = [(20.0, 20.0, 66.0, 66.0), (120.0, 50.0, 166.0, 96.0)]
    lit = glare.with_glare(image, boxes, np.random.default_rng(4))
    changed = np.abs(lit.astype(int) - image.astype(int)).max(axis=2) > 10
    for x0, y0, x1, y1 in boxes:
        assert changed[int(y0) : int(y1), int(x0) : int(x1)].sum() > 20
    assert not changed[:, 90:110].any() and not changed[105:, :].any()
    assert lit.max() > 60 + 0.3 * (GLARE_WHITE - 60) - 2  # at least 0.3 opaque somewhere


def test_rendered_glare_crops_keep_their_labels_and_name_numbered_dice() -> None:
    xs: list[np.ndarray] = []
    ys: list[int] = []
    glare.render_crops(30, np.random.default_rng(2), xs, ys)
    y = np.asarray(ys)
    assert len(xs) == len(ys) and xs[0].shape == (crops_set.SIZE[0],) * 2 + (3,)
    assert set(range(1, 7)) <= set(y.tolist())  # d6 faces
    assert {7, 8, 9} <= set(y.tolist())  # dF faces
    assert NUMBERED in y and crops_set.NOT_A_DIE in y
    assert y.max() == NUMBERED  # no other class: the big-one 1s are not drawn here


def test_the_set_is_written_with_photo_crops_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shared_photos() is None:
        pytest.skip("needs ../shared/data/photos (or DICEBRIDGE_PHOTOS): photo crops")
    out = tmp_path / "glare.npz"
    argv = ["glare", str(out), "--throws", "2", "--passes", "1", "--seed", "5"]
    monkeypatch.setattr(sys, "argv", argv)
    glare.main()
    data = np.load(out)
    photo = data["photo"]
    assert len(data["x"]) == len(data["y"]) == len(photo)
    first_render = int(np.argmin(photo))
    assert first_render > 1000 and photo[:first_render].all() and not photo[first_render:].any()
    assert set(data["y"][:first_render].tolist()) == set(range(7))  # d6 faces and tray
