"""Telling a pip die from debris on the tray: a speck, a crumb, a strand of lint.

On a dark tray a light speck is what a dark die showing one pip looks like to
the networks, and on a light tray two dark crumbs a light die's "2".  What
the debris lacks is the die around its pips: a die's outline, a step in
colour or shading a die's width across, stands out from the tray's own
texture; around a speck the tray is as flat as anywhere else.  (A die of the
tray's own colour shows little outline too: it is asked to be confirmed, not
taken, as a die of the tray's colour is among numbered dice.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.crops import crop_die
from vision.readings import ReadDie

OUTLINE_SEEN = 2.5  # a die's outline stands out from the tray's texture at least this much
# (outline_contrast).  Rendered debris the face network read surely: 99 of 106 under it
# (1.6-2.5); byler's 1,470 dice read right: 2.7 and up; rendered black dice on black felt
# 1.5 and up, asked to be confirmed (docs/vision.md, "Debris on the tray")
LONE_MARK = 0.5  # a sure one-pip d6 or blank Fudge die under this share of the frame's die
# size is asked (speck_sized).  Rendered dice among debris: specks
# read surely 6 -> 3 of d6s, 6 -> 2 of dFs; on clean trays no die asked (at 0.6, one dF)
SIZED = 0.6  # readings at least this share of the second largest one's side give the frame's
# die size (as the finder's DIE_SIZED): specks are 0.17-0.38 of a die's
LONE_MARK_FACES = (("d6", 1), ("dF", 0))  # a face with one mark or none: what a speck looks like
_VIEW = 64  # pixels: the square looked at, twice the box's side
_BLUR = 0.75  # view pixels: the tray's grain and the camera's noise smoothed away


def _rings() -> tuple[np.ndarray, np.ndarray]:
    """Where the die's outline lies (0.3-0.6 box sides from the centre: the box is up to a
    third larger than the die) and the tray beyond it (0.8-1.0), in the view."""
    middle = (_VIEW - 1) / 2
    ys, xs = np.mgrid[:_VIEW, :_VIEW]
    far = np.maximum(abs(xs - middle), abs(ys - middle)) / (_VIEW / 2)  # in box sides
    return (far > 0.3) & (far < 0.6), (far > 0.8) & (far < 1.0)


_OUTLINE, _TRAY = _rings()
_SUM = np.ones((1, 3), np.float32)  # a colour's channels, summed (cv2.transform)


def outline_contrast(image: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """How far the outline of a die at ``box`` (in the BGR frame ``image``) stands out from
    the tray around it: the steepest colour gradients where the outline lies (their 90th
    percentile) over the tray's usual gradient further out (its median).  About 1.6-2.5
    around debris, 3 and up around a die (its neighbours' outlines only add to it).  0.1 ms
    a die of 64 px, 0.3 ms one of 140 px (crop_die blurs the frame around it to shrink it)."""
    crop = crop_die(image, box, _VIEW, margin=2.0).astype(np.float32)
    view = cv2.GaussianBlur(crop, (0, 0), _BLUR)
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1)
    # the squared gradient summed over the colours (the root is taken of two values only);
    # OpenCV's sums: a sixth of numpy's time on a 64-px view
    steep = cv2.transform(cv2.add(cv2.multiply(gx, gx), cv2.multiply(gy, gy)), _SUM)
    outline, tray = _quantile(steep[_OUTLINE], 0.9), _quantile(steep[_TRAY], 0.5)
    return math.sqrt(outline / max(tray, 1.0))


def face_against_tray(image: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """How far the colour of a die's face at ``box`` (the median of the box's middle 60%)
    lies from that just round the box (the median of the square 1.5 times as large, less
    the box), in BGR grey levels, on a 30-px view.  Small where the box holds the pips of
    a die the felt's colour alone: rendered black 6s on black felt boxed on their pips
    3.7-25.6; byler's sure dice 9.2 at the 1st percentile, 194 at the median (6% under
    25: white dice on the light tray).  About 0.07-0.13 ms a die."""
    view = crop_die(image, box, _FACE_VIEW, margin=1.5)
    inner, edge = _FACE_VIEW / 1.5, (_FACE_VIEW - _FACE_VIEW / 1.5) / 2  # the box in the view
    lo, hi = round(edge + 0.2 * inner), round(edge + 0.8 * inner)
    inside = _middle_value(view[lo:hi, lo:hi].reshape(-1, 3)).astype(np.float64)
    return float(np.linalg.norm(inside - _middle_value(view[_AROUND_BOX])))


def _middle_value(pixels: np.ndarray) -> np.ndarray:
    """Each channel's median of N × 3 ``pixels`` (the upper one of an even count): one
    partial sort, a third of ``np.median``'s time."""
    half = len(pixels) // 2
    return np.partition(pixels, half, axis=0)[half]


_FACE_VIEW = 30  # face_against_tray's view: the box 1.5 times as large, this many pixels
_AROUND_BOX = np.ones((_FACE_VIEW, _FACE_VIEW), bool)  # the view less the box
_AROUND_BOX[
    round(_FACE_VIEW / 6) : round(5 * _FACE_VIEW / 6),
    round(_FACE_VIEW / 6) : round(5 * _FACE_VIEW / 6),
] = False


def _quantile(values: np.ndarray, q: float) -> float:
    """``values``' ``q`` quantile (the nearest rank below: one partial sort)."""
    k = int(q * (values.size - 1))
    return float(np.partition(values, k)[k])


def speck_sized(dice: Sequence[ReadDie], kinds: Sequence[str]) -> list[bool]:
    """Which of ``dice`` (one frame's readings) are sure one-pip d6s or blank Fudge dice
    under LONE_MARK times the frame's die size: the finder boxes a light speck on a dark
    felt alone, and it is then such a face, a die's size smaller than the dice around it
    (its own edge passes :func:`outline_contrast`).  The frame's die size is the median
    side of its readings of ``kinds`` with a face (sure or asked) at least SIZED times the
    second largest: where specks are read sure and the dice asked (black Fudge dice on
    black felt), the sure readings' median was a speck's."""
    sides = [d.box[2] - d.box[0] for d in dice if d.die in kinds and d.value is not None]
    if len(sides) < 2:
        return [False] * len(dice)
    # the second largest: one reading boxed far too large (two touching dice) sets no size
    sized = [side for side in sides if side >= SIZED * sorted(sides)[-2]]
    least = LONE_MARK * float(np.median(sized))
    return [
        not d.uncertain and (d.die, d.value) in LONE_MARK_FACES and d.box[2] - d.box[0] < least
        for d in dice
    ]
