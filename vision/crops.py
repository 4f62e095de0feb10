"""Cutting one die out of a frame, the same way for training and for reading.

A die's crop is the square around its box, a little larger than the box (the
die's edges matter: a pip near an edge belongs to the top face only if the
face continues past it), resampled to ``size`` × ``size``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_SIZE = 32
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
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    matrix[0, 2] += size / 2 - cx
    matrix[1, 2] += size / 2 - cy
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    if scale < 0.5:  # shrink in steps: one warp at a far smaller scale aliases small pips
        blur = max(1, math.ceil(0.5 / scale) | 1)
        image = cv2.GaussianBlur(image, (blur, blur), 0.35 / scale)
    return cv2.warpAffine(
        image, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )


def to_blob(crops: list[np.ndarray]) -> np.ndarray:
    """N×3×S×S float32 in [0, 1], the layout the networks take."""
    if not crops:
        raise ValueError("no crops")
    stack = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(stack.transpose(0, 3, 1, 2))
