"""Dice with no marks to find them by: a blank Fudge face on a felt near the die's colour.

The finder network finds dice mostly by their marks: a black Fudge die showing its blank
face on a dark green felt (rendered: 13 of 120 such dice in 30 throws) is not found at
all, though its colour stands well apart from the felt.  Here the tray is estimated from
the frame itself, as the median over a window far wider than a die (a few dice do not
move a median), and the die-sized blobs that stand apart from it, outside every find, are
offered to the face network where their outline is square (a tray's round screw hole,
read a sure blank, is not).  The reader keeps only those it reads surely: shadows,
debris and the felt's folds make blobs too, which it does not (docs/vision.md, "Blank
Fudge faces the finder misses").
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.die_shape import HARMONICS, outline_shape
from vision.readings import Box

SHRINK = 4  # the frame is looked at this many times smaller (a die is still 8 px or more)
TRAY_WINDOW = 0.3  # the median's window, a share of the frame's shorter side: over twice a
# die's side (dice are 3-12% of the frame's width), so that a die is no more than a fifth of it
STANDS_OUT = 12.0  # a blob's pixels differ from the tray's median colour by this much at least
# (a distance in BGR, 0-441), and by 4 times the frame's median difference (its noise)
NOISE_TIMES = 4.0
SIDES = (0.025, 0.15)  # a blob's sides lie between these shares of the frame (dice are 3-12%)
LONG = 2.0  # no longer than this many times its width (a strand of lint is)
FILLED = 0.5  # and fills this share of its box at least (a ring or an L is no die)
SQUARE = 0.02  # a blob's outline at least this square (its radius' 4th harmonic, over the
# mean radius: vision.die_shape): a die seen from above is a square.  Rendered blank dFs
# offered: 0.038-0.054; a tray's round screw holes in byler's photos, read a sure blank
# without it: 0.000-0.008
_SUM = np.ones((1, 3), np.float32)  # a colour's channels, summed (cv2.transform)
_SLACK = 4  # pixels: a blob whose middle lies this close to a find's box is that find


def unfound_blobs(image: np.ndarray, finds: Sequence[Box]) -> list[Box]:
    """Boxes (x0, y0, x1, y1, frame pixels) of die-sized blobs in the BGR frame ``image``
    that stand apart from the tray around them and lie outside every box of ``finds``."""
    h, w = image.shape[:2]
    if min(h, w) < 16 * SHRINK:
        return []
    small = cv2.resize(image, (w // SHRINK, h // SHRINK), interpolation=cv2.INTER_AREA)
    # the tray, smooth: from the small frame halved again (a quarter of the median's time)
    half = cv2.resize(
        small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA
    )
    # OpenCV's median takes windows up to 255 px: a 10,000 px frame's is wider (a tray's
    # smooth colour is the same from a window a little narrower)
    tray = cv2.medianBlur(half, min(int(TRAY_WINDOW * min(half.shape[:2])) | 1, 255))
    tray = cv2.resize(tray, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_LINEAR)
    step = cv2.absdiff(small, tray).astype(np.float32)
    apart = cv2.sqrt(cv2.transform(step * step, _SUM))  # the colour distance, per pixel
    flat = apart.reshape(-1)
    noise = float(np.partition(flat, flat.size // 2)[flat.size // 2])  # the median
    standing = np.where(apart > max(NOISE_TIMES * noise, STANDS_OUT), 255, 0).astype(np.uint8)
    opened = cv2.morphologyEx(standing, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))  # noise
    mask = np.asarray(cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    least, most = max(12.0, SIDES[0] * min(h, w)), SIDES[1] * max(h, w)
    blobs = []
    for x, y, bw, bh, area in stats[1:n]:
        short, long = sorted((bw * SHRINK, bh * SHRINK))
        if short < least or long > most or long > LONG * short or area < FILLED * bw * bh:
            continue
        box = (float(x * SHRINK), float(y * SHRINK), float((x + bw) * SHRINK),
               float((y + bh) * SHRINK))  # fmt: skip
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if (
            not any(
                f[0] - _SLACK <= cx <= f[2] + _SLACK and f[1] - _SLACK <= cy <= f[3] + _SLACK
                for f in finds
            )
            and squareness(image, box) >= SQUARE
        ):
            blobs.append(box)
    return blobs


def squareness(image: np.ndarray, box: Box) -> float:
    """How square the outline of what stands apart from the tray around ``box`` is: the 4th
    harmonic of its radius (vision.die_shape), about 0.05 for a die seen from above, 0 for
    a disc.  What stands apart: Otsu's split of the colour distance from the median of the
    border of a square 1.6 times the box's side (the tray)."""
    h, w = image.shape[:2]
    side = max(box[2] - box[0], box[3] - box[1])
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x0, y0 = max(0, int(cx - 0.8 * side)), max(0, int(cy - 0.8 * side))
    x1, y1 = min(w, int(cx + 0.8 * side)), min(h, int(cy + 0.8 * side))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return 0.0
    window = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), 1.0).astype(np.float32)
    border = np.concatenate([window[0], window[-1], window[:, 0], window[:, -1]])
    far = np.linalg.norm(window - np.median(border, axis=0), axis=2)
    scaled = np.clip(far * (255.0 / max(float(far.max()), 1.0)), 0, 255).astype(np.uint8)
    _, standing = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    shape = outline_shape(standing)
    return 0.0 if shape is None else float(shape[list(HARMONICS).index(4)])
