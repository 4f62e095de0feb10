"""Which felt a frame's dice lie on, for the finder's choice of network.

Dice the colour of their felt show the first finder little but their marks: it boxes a
black die's pips as dice of their own, and misses a red die on red felt.  The felt finder
(``finder_felt.onnx``) learnt such dice; these tests say when a frame needs it, and
(``dark_dice_on_dark_felt``) when to tell the owner that another felt reads them better.
The tray is told from a sample of about 64 × 64 of the frame's pixels (its dice cover far
less than half of a tray's view), in well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

DARK_FELT = 52  # a frame whose median grey (its tray: the dice cover far less than half)
# is under this is on a dark felt: its pip dice are found by the felt finder.  Rendered
# throws (30 a felt): black felt 21-32, dark blues 24-41; the renderer's green felt, wood
# and grey 64 and up (150 throws); byler's photos 175 and up, skovy's crops 87 and up
COLOURED = 0.5  # a felt whose log-chromaticity (log B/G, log R/G) lies this far from grey
# is coloured.  Rendered felts the colour of the palette's dice 1.2-2.05; the renderer's
# grey 0.02, its green felt and wood 0.6-1.35; byler's white table 0.01-0.04
LIKE_FELT = 0.2  # a die whose body's log-chromaticity lies within this of a coloured
LIKE_FELT_LIGHT = (0.7, 1.45)  # felt's, its brightness within these times the felt's, is
# the felt's colour.  Dice on a felt of their colour: the nearest die of a frame 0-0.08
# (120 throws); the palette's dice on the renderer's own trays: no d6 throw of 90 had one,
# 2 Fudge throws of 60 (a green die on the green felt) (docs/vision.md, "The felt finder")
PALER_HUE = 0.4  # a die of a coloured felt's hue this much as saturated, or more, is its
# colour too: translucent dice's middles on a felt of their colour lie mostly 0.3-0.65 of
# it, 0.9-1.5 times as bright, and one such die sends a frame on; white dice lie at 0
TRAY_VIEW = 0.2  # ... where it is a die of a tray's view: its box under this share of the
# frame's longer side (a photo of one die is all die, and its median no felt)
BODY_INSET = 0.35  # a die's body colour: the median of its box's middle, this share
# taken off each side (a small die's box may be 1.7 times the die: it is the middle)


def felt_sample(image: np.ndarray) -> np.ndarray:
    """About 64 × 64 of the frame's pixels, every few in each direction (a shrink of the
    frame took ten times as long)."""
    step = max(1, max(image.shape[:2]) // 64)
    return np.ascontiguousarray(image[::step, ::step])


def dark_felt(image: np.ndarray) -> bool:
    """Whether the frame's tray is a dark felt: the median grey of its sample under
    DARK_FELT."""
    sample = felt_sample(image)
    grey = sample if sample.ndim == 2 else cv2.cvtColor(sample, cv2.COLOR_BGR2GRAY)
    return float(np.median(grey)) < DARK_FELT


def chromaticity(bgr: np.ndarray) -> np.ndarray:
    """(log B/G, log R/G) of a colour: a lamp's brightness does not move it."""
    b, g, r = np.maximum(np.asarray(bgr, np.float64), 1.0)
    return np.array([np.log(b / g), np.log(r / g)])


def dice_like_felt(image: np.ndarray, boxes: Iterable[tuple[float, float, float, float]]) -> bool:
    """Whether the frame lies on a coloured felt and some die found on it (``boxes``, the
    first finder's) is the felt's colour: more dice of its colour may hide on it."""
    if image.ndim != 3:
        return False
    felt = np.median(felt_sample(image).reshape(-1, 3), axis=0)
    if float(np.hypot(*chromaticity(felt))) <= COLOURED:
        return False
    return any(_like(image, box, felt, True) for box in boxes)


def dark_dice_on_dark_felt(
    image: np.ndarray, boxes: Iterable[tuple[float, float, float, float]]
) -> int:
    """How many of the dice in ``boxes`` are as dark as the dark felt they lie on (the
    middle of the box within LIKE_FELT_LIGHT of the felt's brightness; 0 on any other
    felt).  The felt finder finds most, but not all: black dice on black and dark blue felt
    read 1,467 of 1,680 right.  Dice on a coloured felt of their colour (1,557 of 1,600)
    and white dice on white felt (118 of 120) read about as well as on any felt (351 of
    360 on the renderer's own trays; docs/vision.md, "The felt finder, measured")."""
    if image.ndim != 3 or not dark_felt(image):
        return 0
    felt = np.median(felt_sample(image).reshape(-1, 3), axis=0)
    return sum(_like(image, box, felt, False) for box in boxes)


def _like(
    image: np.ndarray, box: tuple[float, float, float, float], felt: np.ndarray, tint: bool
) -> bool:
    """Whether the die in ``box`` is ``felt``'s colour: the middle of its box within
    LIKE_FELT_LIGHT of the felt's brightness and (``tint``) of the felt's hue, as saturated
    or paler (_of_hue).  Not a box larger than a die of a tray's view."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box
    if max(x1 - x0, y1 - y0) > TRAY_VIEW * max(h, w):
        return False
    dx, dy = BODY_INSET * (x1 - x0), BODY_INSET * (y1 - y0)
    a, b = max(0, round(x0 + dx)), min(w, round(x1 - dx))
    c, d = max(0, round(y0 + dy)), min(h, round(y1 - dy))
    if b <= a or d <= c:
        return False
    body = np.median(image[c:d, a:b].reshape(-1, 3), axis=0)
    light = float(body.mean()) / max(float(felt.mean()), 1.0)
    if not LIKE_FELT_LIGHT[0] < light < LIKE_FELT_LIGHT[1]:
        return False
    return not tint or _of_hue(chromaticity(body), chromaticity(felt))


def _of_hue(die: np.ndarray, felt: np.ndarray) -> bool:
    """Whether a die's chromaticity is a coloured felt's, or paler in the felt's hue (a
    translucent die lets the felt's colour through, with light): along the felt's from
    PALER_HUE of it to LIKE_FELT beyond it, and within LIKE_FELT of that line."""
    size = float(np.hypot(*felt))
    along = float(die @ felt) / size
    off = float(np.hypot(*(die - along * felt / size)))
    return PALER_HUE * size <= along <= size + LIKE_FELT and off < LIKE_FELT
