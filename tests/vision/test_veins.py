"""The face network's hard negatives (vision/training/veins.py): a vein through a die's
middle, its label kept."""

import cv2
import numpy as np
import pytest

from vision.training.veins import build, build_ring, pip_colour, with_vein


def drawn_die(pips: list[tuple[int, int]], body=(230, 230, 230), ink=(20, 20, 160)) -> np.ndarray:
    crop = np.full((48, 48, 3), 120, np.uint8)  # the tray
    cv2.rectangle(crop, (6, 6), (41, 41), body, -1)
    for x, y in pips:
        cv2.circle(crop, (x, y), 4, ink, -1)
    return crop


TWO = [(14, 14), (33, 33)]
THREE = [(14, 14), (24, 24), (33, 33)]


def test_pip_colour_is_the_pips_not_the_body():
    assert np.allclose(pip_colour(drawn_die(THREE)), (20, 20, 160), atol=25)
    light_pips = drawn_die(THREE, body=(40, 30, 30), ink=(240, 240, 240))
    assert np.allclose(pip_colour(light_pips), (240, 240, 240), atol=25)


def test_a_vein_crosses_the_middle_and_leaves_the_rest():
    crop = drawn_die(TWO)
    rng = np.random.default_rng(0)
    for _ in range(20):
        veined = with_vein(crop, rng)
        changed = np.abs(veined.astype(int) - crop.astype(int)).sum(axis=2) > 8
        assert changed[18:31, 18:31].any()  # through the middle, where a 3's pip would be
        assert changed.mean() < 0.15  # a thin line, not a smear
        assert not changed[:2, :2].any() and not changed[-2:, -2:].any()  # 31 px out


def test_build_keeps_labels_uses_photos_only_and_repeats_by_seed():
    x = np.stack([drawn_die(TWO), drawn_die(THREE), drawn_die(TWO), drawn_die(THREE)])
    y = np.array([2, 3, 2, 3])
    photo = np.array([True, True, False, False])
    out, labels = build(x, y, photo, 30, seed=5)
    assert out.shape == (30, 48, 48, 3) and len(labels) == 30
    assert set(labels.tolist()) == {2, 3}
    assert (labels == 2).sum() == int(30 * 0.65)  # two thirds on even faces
    again, _ = build(x, y, photo, 30, seed=5)
    assert np.array_equal(out, again)
    other, _ = build(x, y, photo, 30, seed=6)
    assert not np.array_equal(out, other)


def test_build_without_photo_crops_says_so():
    x = np.stack([drawn_die(TWO)])
    with pytest.raises(SystemExit, match="no photo crops"):
        build(x, np.array([2]), np.array([False]), 5, seed=1)


def test_a_ring_vein_lies_off_the_middle_where_a_six_s_middle_row_would_be():
    crop = drawn_die(TWO)
    rng = np.random.default_rng(1)
    ys, xs = np.mgrid[:48, :48]
    out = np.hypot(xs - 23.5, ys - 23.5)
    for _ in range(20):
        veined = with_vein(crop, rng, ring=True)
        changed = np.abs(veined.astype(int) - crop.astype(int)).sum(axis=2) > 8
        assert changed.any() and changed.mean() < 0.1
        assert 6 < out[changed].mean() < 16  # 9-12 px out, give or take its length


def test_ring_veins_go_on_two_to_five_pips_only():
    x = np.stack([drawn_die(TWO), drawn_die(THREE), drawn_die(TWO)])
    y = np.array([2, 3, 6])
    _, labels = build_ring(x, y, np.array([True, True, True]), 40, seed=3)
    assert set(labels.tolist()) == {2, 3}
