"""A die body's outline shape, to tell a die of another type from a taught set's dice.

A d5, a d10 and a d20 of one colour carry numerals of the same shapes, so a set
reads another type's die as surely as its own (a d10's "7" is a d20's "7").
Their outlines differ: a d5 seen from above is a triangle, a d20 a hexagon, a
d10 a long one.  The outline is measured as the die's radius around its
centroid at every angle; the sizes of that radius's harmonics (2: how long, 3:
how triangular, 4: how square, …) do not change as the die turns or is seen
larger or smaller.  A body whose harmonics lie outside the range of the taught
faces' by more than a tolerance (a camera's slant shows a die's sides and
lengthens it, so the 2nd harmonic is given more) is not the set's shape: the
reader asks for it instead of reading it (docs/vision.md, teach mode, item 6).
The tolerances tell a triangle from the rest; a d10 from a d20 or a square d6
they do not (measured on real dice: docs/vision.md, Known gaps).  Where the owner
has taught sets of other types too, the body is also compared with theirs, and
with the renderer's d5s, d6s, d10s and d20s for the types not taught
(vision/untaught_shapes.py): one well outside the expected set's range and close
to another type's is that type's die (:func:`nearer_elsewhere`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

HARMONICS = range(2, 9)
ANGLES = 128  # the radius is sampled at this many angles around the centroid
# how far outside the taught faces' range a harmonic may lie (a share of the mean radius,
# halved), per harmonic: the 2nd (elongation) more, for a camera's slant lengthens a die.
# Measured on 2,144 rendered d5s, d10s and d20s read with a set of their own look (taught
# straight down): the farthest outside were 0.104 (2nd) and 0.072 (3rd), the rest 0.037
TOLERANCE = np.array([0.12] + [0.075] * (len(HARMONICS) - 1))


# a body is another taught type's die where its gap to the expected set (shape_gap) is at
# least OWN_FAR and its gap to that type's set at most NEARER times that.  burks' real dice,
# taught from their photos and read in them as taken and turned, rescaled, re-lit and
# blurred (179 dice, four seeds): 0-0.19 from their own set, 0.35 or more from the others';
# read as another type, each was taken for its own type's die (358 of 358) and none for a
# third; rendered d5s, d10s and d20s through cameras at a slant of 0, 0.15 and 0.3 (284): 3
# taken for another type, and the renderer's d10s as throws draw them (nearly round) and its
# d20s mostly not told apart (docs/vision.md, "Dice of another type, one colour")
OWN_FAR = 0.25
NEARER = 0.6


def outline_shape(mask: np.ndarray) -> np.ndarray | None:
    """The harmonics (HARMONICS) of the radius of the largest outline in ``mask`` (255 on
    the die), each over the mean radius; None when there is no outline to measure."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    moments = cv2.moments(outline)
    if moments["m00"] <= 0 or len(outline) < 8:
        return None
    cx, cy = moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]
    points = outline.reshape(-1, 2).astype(np.float64)
    angle = np.arctan2(points[:, 1] - cy, points[:, 0] - cx)
    radius = np.hypot(points[:, 0] - cx, points[:, 1] - cy)
    order = np.argsort(angle)
    around = np.linspace(-math.pi, math.pi, ANGLES, endpoint=False)
    sampled = np.interp(around, angle[order], radius[order], period=2 * math.pi)
    spectrum = np.abs(np.fft.rfft(sampled)) / max(float(sampled.sum()), 1e-6)
    return np.asarray(spectrum[list(HARMONICS)])


def shape_gap(shape: np.ndarray, taught: np.ndarray) -> float:
    """How far ``shape`` lies outside the range of the ``taught`` shapes (rows), in
    tolerances: over 1, the body is no taught face's shape."""
    taught = np.atleast_2d(taught)
    above = shape - taught.max(axis=0)
    below = taught.min(axis=0) - shape
    return float((np.maximum(np.maximum(above, below), 0.0) / TOLERANCE).max())


def nearer_elsewhere(shape: np.ndarray, own: np.ndarray, others: list[np.ndarray]) -> bool:
    """Whether ``shape`` lies well outside the ``own`` taught shapes (rows) and close to
    one of ``others`` (each the taught shapes of a set of another die type): that type's
    die, thrown where the expected set's dice are, which its numerals may read alike."""
    if len(own) == 0:
        return False
    gap = shape_gap(shape, own)
    return gap >= OWN_FAR and any(
        len(taught) > 0 and shape_gap(shape, taught) <= NEARER * gap for taught in others
    )
