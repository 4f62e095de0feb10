"""Teach mode's batched comparisons give what comparing one pair at a time gives."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.square_match import Squares
from vision.teach import DieSet
from vision.teach_marks import ANGLES, FREQS, SLACK, WINDOW, Marks, _turns, window


def test_batched_scores_are_opencv_s_normalised_cross_correlation_pair_by_pair() -> None:
    """Each row's score is cv2.matchTemplate's TM_CCOEFF_NORMED best over the shifts, with
    the query turned and scaled by ``window`` as the row says: the FFT, the integral
    images and the overlapping rows between squares change nothing but rounding."""
    rng = np.random.default_rng(7)
    source = cv2.GaussianBlur(rng.normal(0, 1, (96, 96)).astype(np.float32), (0, 0), 1.5)
    taught = [
        cv2.GaussianBlur(rng.normal(0, 1, (WINDOW, WINDOW)).astype(np.float32), (0, 0), 1.2)
        for _ in range(5)
    ]
    taught[3] = window(source, (50.0, 45.0), 0.4, 1.1)  # one that matches: a score near 1
    squares = Squares.of(taught, SLACK, 1)
    centre = (48.0, 47.0)
    at = np.array([[0.0, 1.0], [0.4, 1.1], [1.0, 0.9], [0.4, 1.1], [2.5, 1.05], [0.4, 1.1]])
    views = np.array([0, 1, 2, 3, 4, 3])
    batched, shifts = squares.scores(source, centre, at, views)
    maps = [
        cv2.matchTemplate(
            window(source, centre, turn, scale, WINDOW + 2 * SLACK), taught[n],
            cv2.TM_CCOEFF_NORMED,
        )
        for n, (turn, scale) in zip(views, at, strict=True)
    ]  # fmt: skip
    np.testing.assert_allclose(batched, [m.max() for m in maps], atol=1e-4)
    # the shift (x, y) from the centred square: matchTemplate's best location less the slack
    best = [np.array(cv2.minMaxLoc(m)[3]) - SLACK for m in maps]
    np.testing.assert_array_equal(shifts, best)
    assert batched[3] > 0.95 and batched[0] < 0.6  # the matching row stands out


def test_scores_near_a_seed_are_the_best_within_a_pixel_of_it() -> None:
    """``near`` compares only the nine shifts within a pixel of each row's seed (kept inside
    the slack): its scores and shifts are matchTemplate's best over those, and where the
    best shift of all lies within a pixel of the seed, the same as ``scores``."""
    rng = np.random.default_rng(8)
    source = cv2.GaussianBlur(rng.normal(0, 1, (96, 96)).astype(np.float32), (0, 0), 1.5)
    centre = (48.0, 47.0)
    taught = [window(source, (50.0, 45.0)), window(source, (46.0, 49.0))]  # 2 px off each way
    taught += [cv2.GaussianBlur(rng.normal(0, 1, (WINDOW, WINDOW)).astype(np.float32),
                                (0, 0), 1.2)]  # fmt: skip
    squares = Squares.of(taught, SLACK, 1)
    at = np.array([[0.0, 1.0]] * 6 + [[1.0, 0.9]])
    views = np.array([0, 0, 0, 1, 1, 1, 2])
    seeds = np.array([[2, -2], [0, 0], [3, -3], [-2, 2], [-1, 1], [2, 2], [0, 1]])
    near, shifts = squares.near(source, centre, at, views, seeds)
    full, best = squares.scores(source, centre, at, views)
    for k, (n, (turn, scale)) in enumerate(zip(views, at, strict=True)):
        scores = cv2.matchTemplate(window(source, centre, turn, scale, WINDOW + 2 * SLACK),
                                   taught[n], cv2.TM_CCOEFF_NORMED)  # fmt: skip
        x, y = np.clip(seeds[k], 1 - SLACK, SLACK - 1) + SLACK  # seeds kept inside the slack
        around = scores[y - 1 : y + 2, x - 1 : x + 2]
        assert near[k] == pytest.approx(float(around.max()), abs=1e-4)
        dy, dx = np.unravel_index(around.argmax(), around.shape)
        assert tuple(shifts[k]) == (x - 1 + dx - SLACK, y - 1 + dy - SLACK)
    # the matches lie 2 px from the centre (x +2, y -2; x -2, y +2): seeds a pixel off find
    # them as the full search does; a seed two pixels off does not
    assert tuple(best[0]) == (2, -2) and tuple(best[3]) == (-2, 2)
    assert near[0] == pytest.approx(full[0], abs=1e-5)
    assert near[2] == pytest.approx(full[0], abs=1e-5)
    assert near[4] == pytest.approx(full[3], abs=1e-5)
    assert near[1] < full[0] - 0.05 and near[5] < full[3] - 0.05


def test_turns_are_the_inverse_real_fft_of_the_first_frequencies() -> None:
    """The polar stage's correlations over every turn (OpenCV's packed row-wise DFT) are
    scipy's inverse real FFT, ANGLES long, of the FREQS frequencies compared."""
    import scipy.fft

    rng = np.random.default_rng(9)
    spectra = (rng.normal(size=(FREQS, 50)) + 1j * rng.normal(size=(FREQS, 50))).astype(
        np.complex64
    )
    expected = scipy.fft.irfft(spectra.T, n=ANGLES, axis=-1)
    np.testing.assert_allclose(_turns(spectra), expected, atol=1e-6)


def test_the_likeliest_views_of_a_set_with_a_face_shown_twice_are_that_set_s_own() -> None:
    """A face taught from two photos has twice the views of the others: the grid of each
    face's views pads the others, and the padding is never picked (a face's likeliest
    views are its own, best first; faces ranked by their best view)."""
    from vision.teach_synthetic import designs, shown, taught_from_renders

    dieset = taught_from_renders("d5", 0, design=0)
    image, box = shown(designs("d5", 3, 0, design=1)[0])
    dieset.teach(3, DieSet.region(image, box))
    bank = dieset._ready()
    bank.best(Marks.of(dieset._taught[0].region, dieset._taught[0].body, dieset._polarity))
    count = len(bank)
    per_face = {value: len(views) for value, views in bank._views_of.items()}
    assert per_face[3] == 2 * per_face[1]
    scores = np.random.default_rng(4).random(count)
    views = per_face[1]  # as many as a face shown once has: the padding would come next
    picked = bank._likeliest(scores, len(per_face), views)
    for row in picked:
        assert (row < count).all()  # no padding picked
        (value,) = {bank.values[n] for n in row.tolist()}  # one face's views a row
        own = scores[bank._views_of[value]]
        assert list(scores[row]) == sorted(own, reverse=True)[:views]  # its best, best first
    best_first = [max(scores[row]) for row in picked]
    assert best_first == sorted(best_first, reverse=True)
