"""One die's pips found as two dice: a dark die showing "2" on a dark felt.

Where a die's body hardly stands apart from the tray, the finder may box each
pip of a "2" (or two pips of a "4") on its own, and the face network reads
each box a sure "1": two wrong dice for one.  Two real dice showing 1 cannot
lie that close: their pips are a die's side apart or more, where a 2's pips
are about 0.7 of it.  But a die's side is only known roughly (the boxes of
turned dice are up to 1.4 times as wide), and two dice touching corner to
corner put their 1s as close as a 2's (byler's photos have such pairs).  What
tells them apart is between the pips: on one die, the middle of a flat face;
on two, the edge where the dice meet (a gap, a bevel, a change of colour).
So a sure 1 and a reading close beside it (another 1, another face, or none)
with a flat face between them are read again as one die, centred between
them.  Where the face network is sure of a face other than 1 there, the reader
asks for the two as that die ("confirm: 2?"), or, where the other reading reads
that face already, for the 1 alone (a pip of it).  Asked, not taken: rendered
dice of one colour touching with no seam between them look so too.

A piece of a die may also be found inside the die's own box: a lamp's glare on
a black die, or a pip, boxed alone and read "1".  :func:`nested` names the
readings that lie on a larger one (the reader leaves them out or asks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.readings import Box, ReadDie, centre, holds

JOINED = 0.9  # two 1s closer than this share of the frame's die size may be one die's
# pips (a 2's pips lie about 0.7 of a side apart).  Rendered split 2s: 0.32-0.72 of the
# median side; two real dice, corner to corner: byler 0.75 and up, renders 0.70 and up
FLAT = 0.35  # the middle between them at most this steep (flat_between): one die's face.
# Rendered split 2s: 0.02-0.17; two dice 0.9 or less of a side apart: renders 0.66 and up,
# byler 0.60 and up (docs/vision.md, "One die's pips found as two dice")
NESTED = 0.6  # a reading at most this share of another's box, its middle in that box, is
# a part of that die: a lamp's glare on a black die, found apart, read a sure "1" (none
# such in byler's, skovy's or the rendered goldens' readings; docs/vision.md, "A part of
# a die found on it")
_MIDDLE = 0.18  # the middle looked at: within this share of the pips' distance of it
_AROUND = 0.6  # ... against the steepest part within this share (the pips' own edges)


def flat_between(image: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> float:
    """How steep the colour is in the middle between points ``a`` and ``b`` of the BGR
    frame ``image`` (its gradient's 90th percentile within _MIDDLE times their distance of
    the middle) over how steep it is around (within _AROUND: the pips' own edges).  About
    0.2 or less on one die's face, 0.6 and up where two dice meet; infinite where the
    window runs out of the frame (not told)."""
    gap = math.dist(a, b)
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    reach = max(3, round(_AROUND * gap))
    x0, y0 = int(mx) - reach, int(my) - reach
    h, w = image.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * reach + 1 > w or y0 + 2 * reach + 1 > h:
        return math.inf
    cut = image[y0 : y0 + 2 * reach + 1, x0 : x0 + 2 * reach + 1].astype(np.float32)
    window = cv2.GaussianBlur(cut, (0, 0), 1.0)  # the camera's noise
    gx = cv2.Sobel(window, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(window, cv2.CV_32F, 0, 1)
    steep = np.sqrt((gx * gx + gy * gy).sum(axis=2))
    ys, xs = np.mgrid[: 2 * reach + 1, : 2 * reach + 1]
    far = np.hypot(xs - reach, ys - reach)
    middle = float(np.percentile(steep[far <= _MIDDLE * gap], 90))
    around = float(np.percentile(steep[far <= _AROUND * gap], 90))
    return middle / max(around, 1.0)


def pip_pairs(image: np.ndarray, dice: Sequence[ReadDie]) -> list[tuple[int, int, Box]]:
    """Pairs (i, j, box) of ``dice`` (one frame's readings) that may be one die: a sure d6
    "1" (i) and another d6 reading (j: a 1, another face, or none) closer than JOINED
    times the frame's die size (the median side of its sure d6s; else the pair's larger
    side), with a flat face between them (:func:`flat_between`).  ``box``: the die they
    may be, centred between them, of the frame's die size (or 1.4 times their distance,
    if more).  Closest pairs first; a reading may be in several (a speck beside a 2's pip
    lies closer to it than its other pip)."""
    sides = [d.box[2] - d.box[0] for d in dice if d.die == "d6" and not d.uncertain]
    frame_size = float(np.median(sides)) if len(sides) >= 2 else None
    pairs = []
    for i, one in enumerate(dice):
        if one.die != "d6" or one.value != 1 or one.uncertain:
            continue
        for j, other in enumerate(dice):
            sure_one = other.value == 1 and not other.uncertain
            if j == i or other.die != "d6" or (sure_one and j < i):  # a sure pair once
                continue
            a, b = centre(one.box), centre(other.box)
            size = frame_size or max(one.box[2] - one.box[0], other.box[2] - other.box[0])
            gap = math.dist(a, b)
            if gap < JOINED * size:
                pairs.append((gap, i, j, a, b, size))
    joined: list[tuple[int, int, Box]] = []
    for gap, i, j, a, b, size in sorted(pairs):
        if flat_between(image, a, b) <= FLAT:
            half = max(size, 1.4 * gap) / 2
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            joined.append((i, j, (mx - half, my - half, mx + half, my + half)))
    return joined


def nested(dice: Sequence[ReadDie]) -> dict[int, int]:
    """Readings of ``dice`` (one frame's) that lie on another die, each to the one it lies
    on: its middle in that one's box, its box at most NESTED times that one's (a glare spot
    or a pip of that die, found as a die of its own). A sure die first."""

    def area(box: Box) -> float:
        return (box[2] - box[0]) * (box[3] - box[1])

    order = sorted(range(len(dice)), key=lambda j: dice[j].uncertain)  # sure dice first
    inner: dict[int, int] = {}
    for i, part in enumerate(dice):
        for j in order:
            whole = dice[j]
            if j != i and holds(whole.box, part.box) and area(part.box) <= NESTED * area(whole.box):
                inner[i] = j
                break
    return inner
