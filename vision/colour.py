"""A die's colour in a word, so advice can say which die: "re-throw the red d6"."""

from __future__ import annotations

import cv2
import numpy as np

HUES = ((10, "red"), (22, "orange"), (35, "yellow"), (85, "green"), (130, "blue"),
        (150, "purple"), (170, "pink"), (180, "red"))  # fmt: skip


def colour_name(crop: np.ndarray) -> str:
    """The body colour of the die in the middle of ``crop`` (pips are a minority)."""
    h, w = crop.shape[:2]
    middle = crop[h // 4 : h - h // 4, w // 4 : w - w // 4]
    hsv = cv2.cvtColor(middle, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
    hue, sat, val = np.median(hsv, axis=0)
    if val < 60:
        return "black"
    if sat < 50:
        return "white" if val > 170 else "grey"
    for top, name in HUES:
        if hue < top:
            return name
    return "red"
