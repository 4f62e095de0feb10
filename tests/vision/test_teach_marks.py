"""Teach mode's batched comparisons give what comparing one pair at a time gives."""

from __future__ import annotations

import cv2
import numpy as np

from vision.teach_marks import SLACK, WINDOW, _Squares, window


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
    squares = _Squares.of(taught, SLACK, 1)
    centre = (48.0, 47.0)
    at = np.array([[0.0, 1.0], [0.4, 1.1], [1.0, 0.9], [0.4, 1.1], [2.5, 1.05], [0.4, 1.1]])
    views = np.array([0, 1, 2, 3, 4, 3])
    batched = squares.scores(source, centre, at, views)
    one_by_one = [
        float(
            cv2.matchTemplate(
                window(source, centre, turn, scale, WINDOW + 2 * SLACK),
                taught[n],
                cv2.TM_CCOEFF_NORMED,
            ).max()
        )
        for n, (turn, scale) in zip(views, at, strict=True)
    ]
    np.testing.assert_allclose(batched, one_by_one, atol=1e-4)
    assert batched[3] > 0.95 and batched[0] < 0.6  # the matching row stands out
