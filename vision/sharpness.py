"""How sharp a die's picture is: the steepest grey gradient around it over its grey range.

The reader uses it where blur changes what a face may be: a blank Fudge face
and pips blurred away look alike, pips blurred into a blob are no numeral,
and a blurred numeral read surely is asked (vision/reader.py, BLURRED and
NUMERAL_SHARP).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

EDGE_REACH = 4  # pixels each way in which an edge's contrast (its two sides) is measured
EDGE_SHARE = 0.03  # the strongest gradients of a die's square: its edges (outline, pips, numerals)
EDGE_CONTRAST = 30  # grey levels: an edge fainter than this says little of the blur


def sharpness(image: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """How steep the die's outline is: the steepest grey gradient around the die (its
    99th percentile, per pixel of a 64-px view of the box and a quarter of it around)
    over the view's grey range (2nd to 98th percentile).  About 0.3–0.7 in focus."""
    x0, y0, x1, y1 = box
    pad = max(x1 - x0, y1 - y0) / 4
    h, w = image.shape[:2]
    a, b = int(max(0, x0 - pad)), int(max(0, y0 - pad))
    c, d = int(min(w, x1 + pad)), int(min(h, y1 + pad))
    if c - a < 4 or d - b < 4:
        return 1.0  # too little to tell: not called blurred
    part = cv2.cvtColor(image[b:d, a:c], cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = cv2.resize(part, (64, 64), interpolation=cv2.INTER_AREA)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    low, high = percentiles(grey, (2, 98))
    (steep,) = percentiles(cv2.magnitude(gx, gy), (99,))
    return steep / max(high - low, 1.0)


def edge_blur(grey: np.ndarray, boxes: Sequence[tuple[float, float, float, float]]) -> float | None:
    """How blurred the dice's edges are, in pixels: the median over the dice of each one's
    strongest edges' contrast over their steepest slope, / sqrt(2 pi) (a step of contrast C
    blurred by a Gaussian of sigma s rises at most C / (s sqrt(2 pi)) a pixel).  A sharp
    edge measures about 1 (the pixels' own width); None where no die shows an edge.  Not
    ``vision.sharpness.sharpness``, which judges one die per pixel of a 64-px view (its size
    taken out): what a camera's focus blurs is frame pixels, whatever the dice's size."""
    kernel = np.ones((2 * EDGE_REACH + 1,) * 2, np.uint8)
    per_die = []
    for x0, y0, x1, y1 in boxes:
        pad = max(EDGE_REACH, round((x1 - x0) / 6))
        top, left = max(0, round(y0) - pad), max(0, round(x0) - pad)
        crop = grey[top : round(y1) + pad, left : round(x1) + pad]
        if min(crop.shape) < 2 * EDGE_REACH + 2:
            continue
        # on the 8-bit pixels (the same figures as on floats, in half the time: it is run
        # for every die read surely by a set, relative_blur)
        gx, gy = cv2.Sobel(crop, cv2.CV_32F, 1, 0), cv2.Sobel(crop, cv2.CV_32F, 0, 1)
        slope = np.asarray(cv2.magnitude(gx, gy), np.float32) / 8
        contrast = cv2.subtract(cv2.dilate(crop, kernel), cv2.erode(crop, kernel))
        (steep,) = percentiles(slope, (100 * (1 - EDGE_SHARE),))
        edges = (slope >= steep) & (contrast > EDGE_CONTRAST)
        if edges.sum() >= 10:
            per_die.append(float(np.median(contrast[edges] / slope[edges])) / np.sqrt(2 * np.pi))
    return float(np.median(per_die)) if per_die else None


def relative_blur(image: np.ndarray, box: tuple[float, float, float, float]) -> float | None:
    """:func:`edge_blur` of the one die at ``box`` (BGR ``image``) per 64 px of its size (the
    box's longer side): how much of its numeral a camera's blur smears, whatever its size."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0)
    pad = max(EDGE_REACH, round((x1 - x0) / 6)) + 1
    h, w = image.shape[:2]
    left, top = max(0, int(x0) - pad), max(0, int(y0) - pad)
    part = image[top : min(h, int(y1) + pad + 1), left : min(w, int(x1) + pad + 1)]
    if side <= 0 or part.size == 0:
        return None
    grey = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
    blur = edge_blur(grey, [(x0 - left, y0 - top, x1 - left, y1 - top)])
    return None if blur is None else blur / side * 64


def percentiles(values: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(values, qs)`` (linear between ranks), from one partial sort: the
    sharpness test, run for every sure numbered die, takes 0.13 ms a die with it against
    0.30 with ``np.percentile``."""
    flat = values.ravel()
    ranks = [q / 100 * (flat.size - 1) for q in qs]
    below = [math.floor(r) for r in ranks]
    kth = sorted({k for b in below for k in (b, min(b + 1, flat.size - 1))})
    part = np.partition(flat, kth)
    return [
        float(part[b]) + (r - b) * (float(part[min(b + 1, flat.size - 1)]) - float(part[b]))
        for r, b in zip(ranks, below, strict=True)
    ]
