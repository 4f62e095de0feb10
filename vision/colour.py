"""A die's colour in a word, so advice can say which die: "re-throw the red d6"; and whether
a picture has colour at all (a grey camera's has not: its dice are named light or dark)."""

from __future__ import annotations

import cv2
import numpy as np

HUES = ((10, "red"), (22, "orange"), (35, "yellow"), (85, "green"), (130, "blue"),
        (150, "purple"), (170, "pink"), (180, "red"))  # fmt: skip

DARK, LIGHT = 85, 170  # in a grey picture: a die this dark or darker is "dark", this light "light"

GREY_SPREAD = 1  # grey levels: a pixel whose channels differ no more than this shows no colour
GREY_SHARE = 0.05  # a picture with fewer coloured pixels than this share has no colour (a
# grey camera's, as JPEG too: none; a colour camera's, its noise: 75-97%, a black die on black
# felt too, where JPEG leaves 1-48% of pixels 3 levels apart or more)


def colourless(region: np.ndarray) -> bool:
    """Whether ``region`` shows no colour at all: a grey (one-channel) camera's picture, or
    one a camera set to black and white made BGR.  A colour camera's noise differs from
    channel to channel, so even a white die on a grey tray has coloured pixels."""
    pixels = region[::2, ::2].reshape(-1, 3).astype(np.int16)
    spread = pixels.max(axis=1) - pixels.min(axis=1)
    return float(np.count_nonzero(spread > GREY_SPREAD)) < GREY_SHARE * len(spread)


def colour_name(crop: np.ndarray) -> str:
    """The body colour of the die in the middle of ``crop`` (pips are a minority); in a
    picture with no colour, "dark", "light" or "" (a red die is grey there: "the grey d6"
    would send a person to look for a grey one)."""
    h, w = crop.shape[:2]
    middle = crop[h // 4 : h - h // 4, w // 4 : w - w // 4]
    hsv = cv2.cvtColor(middle, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
    hue, sat, val = np.median(hsv, axis=0)
    if colourless(middle):
        return "dark" if val <= DARK else "light" if val >= LIGHT else ""
    if val < 60:
        return "black"
    if sat < 50:
        return "white" if val > 170 else "grey"
    for top, name in HUES:
        if hue < top:
            return name
    return "red"
