"""Finding a numbered die's body in the square around the finder's box (vision/teach_body.py).

Drawn scenes: a felt of noisy green, dice as filled orange triangles (a d5's
top face seen from above) with a numeral-like dark mark, in the 128-px square
that teach mode cuts around a find (MARGIN 2: the die about 64 px across).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.teach_body import locate

FELT = (40, 110, 40)  # BGR
ORANGE = (30, 140, 240)
EDGE = (20, 90, 170)
GRAIN = (60, 80, 120)  # a brown streak of wood


def _felt(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    region = np.empty((128, 128, 3), np.uint8)
    region[:] = FELT
    noise = rng.normal(0, 6, region.shape)
    return np.clip(region + noise, 0, 255).astype(np.uint8)


def _die(region: np.ndarray, corners: list[tuple[int, int]]) -> tuple[float, float, float]:
    """Draw a triangular die with a mark on it; its centroid and the root of its area."""
    pts = np.array(corners, np.int32)
    cv2.fillPoly(region, [pts], ORANGE)
    cv2.polylines(region, [pts], True, EDGE, 2)  # a die's rounded edges shade darker
    cx, cy = pts.mean(axis=0)
    cv2.putText(
        region, "3", (int(cx) - 6, int(cy) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 2
    )
    return float(cx), float(cy), float(np.sqrt(cv2.contourArea(pts)))


def _near(body: object, die: tuple[float, float, float]) -> bool:
    assert body is not None, "no die body located"
    x, y, size = body.x, body.y, body.size  # type: ignore[attr-defined]
    return abs(x - die[0]) < 6 and abs(y - die[1]) < 6 and abs(size / die[2] - 1) < 0.2


def test_a_die_alone_is_located() -> None:
    region = _felt()
    die = _die(region, [(34, 92), (64, 36), (94, 92)])
    assert _near(locate(region), die)


def test_two_dice_lying_edge_to_edge_are_told_apart() -> None:
    # a larger die lies against the first one's right edge and runs out of the square:
    # no waist between them, so only splitting between the two cores finds the die the
    # square is centred on
    region = _felt(1)
    die = _die(region, [(34, 92), (64, 36), (94, 92)])
    _die(region, [(46, 2), (80, 66), (130, -4)])
    assert _near(locate(region), die)


def test_a_streak_running_into_the_die_is_not_its_body() -> None:
    # a dark band of wood grain from the square's edge to the die (thinner than a fifth of
    # the die) joined the die's outline to the border, where no die may be
    region = _felt(2)
    die = _die(region, [(34, 92), (64, 36), (94, 92)])
    cv2.rectangle(region, (0, 60), (50, 66), GRAIN, cv2.FILLED)
    assert _near(locate(region), die)


def test_a_find_between_two_dice_apart_takes_the_one_under_it() -> None:
    # the square's centre lies on the smaller die; a larger die lies apart, beside it
    region = _felt(3)
    small = _die(region, [(46, 84), (70, 40), (94, 84)])
    _die(region, [(8, 40), (58, 40), (33, 100)])
    assert _near(locate(region), small)


def test_plain_felt_has_no_die() -> None:
    assert locate(_felt(4)) is None


def test_a_speck_under_the_centre_does_not_hide_the_die_beside_it() -> None:
    # a crumb on the felt where the finder's box centre fell, the die just beside it
    region = _felt(5)
    die = _die(region, [(36, 116), (62, 74), (88, 116)])
    cv2.rectangle(region, (59, 58), (69, 68), (200, 200, 200), cv2.FILLED)
    assert _near(locate(region), die)
