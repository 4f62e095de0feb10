"""Cutting one die out of a frame, the same way for training and for reading.

A die's crop is the square around its box, a little larger than the box (the
die's edges matter: a pip near an edge belongs to the top face only if the
face continues past it), resampled to ``size`` × ``size``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_SIZE = 48  # the face network's crop side (vision/models/faces.json)
MARGIN = 1.15  # the crop's side over the box's longer side


def crop_die(
    image: np.ndarray,
    box: tuple[float, float, float, float],
    size: int = CROP_SIZE,
    *,
    margin: float = MARGIN,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The square crop around ``box`` (x0, y0, x1, y1), rotated by ``angle`` degrees and
    moved by ``shift`` (fractions of the side): the last two only for training."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0) * margin
    cx = (x0 + x1) / 2 + shift[0] * side
    cy = (y0 + y1) / 2 + shift[1] * side
    scale = size / side
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    if scale < 0.5:  # shrink in steps: one warp at a far smaller scale aliases small pips
        blur = max(1, math.ceil(0.5 / scale) | 1)
        # blur only the window the crop samples (any turn) plus the kernel's reach, not
        # the whole frame: a 1280 x 960 frame took 4 whole-frame blurs for 4 dice
        h, w = image.shape[:2]
        reach = side * 0.75 + 3 * 0.35 / scale + blur + 2
        wx0, wy0 = max(0, int(cx - reach)), max(0, int(cy - reach))
        wx1, wy1 = min(w, math.ceil(cx + reach) + 1), min(h, math.ceil(cy + reach) + 1)
        if wx1 > wx0 and wy1 > wy0:
            image = image[wy0:wy1, wx0:wx1]
            cx, cy = cx - wx0, cy - wy0
        image = cv2.GaussianBlur(image, (blur, blur), 0.35 / scale)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    matrix[0, 2] += size / 2 - cx
    matrix[1, 2] += size / 2 - cy
    return cv2.warpAffine(
        image, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )


def to_blob(crops: list[np.ndarray]) -> np.ndarray:
    """N×3×S×S float32 in [0, 1], the layout the networks take."""
    if not crops:
        raise ValueError("no crops")
    stack = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(stack.transpose(0, 3, 1, 2))
