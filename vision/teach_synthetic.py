"""A die set taught from the synthetic renderer's dice, to measure teach mode without a camera.

Each face of a die of one look (``vision.render.PALETTE[look]``) is drawn
straight from above on a plain grey tray (a dark one for white dice: since session
40; on the light one their outlines were cut) and taught as the owner would show it.
The renderer draws a numbered die's numerals in one of two fonts, chosen at
random for every die it draws, so the dice of one look are two designs; each
face is taught in every design the renderer draws (renders are redrawn with
other seeds until a different one comes up).  A real die set has one design,
and is taught one photo per face: ``design`` holds the renderer to one font, as such a
set (and its throws: ``DieLook.design``).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from vision.render import FACES, PALETTE, render_die
from vision.teach import DieSet

EDGE = 48  # pixels: a die of middling size for the renderer's throws (34–60)
TRAY = 178  # the grey of the plain tray the faces are shown on ...
DARK_TRAY = 90  # ... or, for white dice (every channel of the body over WHITE), this one
WHITE = 200
TRIES = 8  # renders per face looked through for another design


@functools.cache
def _design_seeds(die: str, value: int, design: int | None = None) -> tuple[int, ...]:
    """Seeds (of the first TRIES) whose drawings of face ``value`` all differ; the drawing
    depends on the seed, not on the colours, so one look finds them for every look."""
    seeds: list[int] = []
    drawn: list[np.ndarray] = []
    look = dataclasses.replace(PALETTE[0], design=design)
    for seed in range(TRIES):
        bgra = render_die(die, value, look, EDGE, np.random.default_rng([seed, value]))
        if not any(np.array_equal(bgra, seen) for seen in drawn):
            seeds.append(seed)
            drawn.append(bgra)
    return tuple(seeds)


def designs(die: str, value: int, look: int, design: int | None = None) -> list[np.ndarray]:
    """Every different drawing of face ``value`` the renderer makes within TRIES seeds
    (BGRA, alpha = the die's outline), in look ``look``; ``design``: in that font only."""
    drawn = dataclasses.replace(PALETTE[look], design=design)
    return [
        render_die(die, value, drawn, EDGE, np.random.default_rng([seed, value]))
        for seed in _design_seeds(die, value, design)
    ]


def shown(
    bgra: np.ndarray, tray: int = TRAY
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The die laid on a plain grey tray twice its size, and its box there."""
    h, w = bgra.shape[:2]
    side = 2 * max(h, w)
    canvas = np.full((side, side, 3), tray, np.float32)
    y0, x0 = (side - h) // 2, (side - w) // 2
    alpha = bgra[..., 3:4] / 255.0
    patch = canvas[y0 : y0 + h, x0 : x0 + w]
    canvas[y0 : y0 + h, x0 : x0 + w] = patch * (1 - alpha) + bgra[..., :3] * alpha
    ys, xs = np.nonzero(bgra[..., 3] > 128)
    box = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1),
           float(y0 + ys.max() + 1))  # fmt: skip
    return np.clip(np.round(canvas), 0, 255).astype(np.uint8), box


def taught_from_renders(
    die: str,
    look: int,
    name: str | None = None,
    design: int | None = None,
    tray: int | None = None,
) -> DieSet:
    """A die set of ``die`` in look ``look``, every face taught from its renders: in both
    of the renderer's designs, or in ``design`` alone (one photo a face, as a real set);
    shown on a grey of ``tray`` (None: TRAY, or DARK_TRAY for white dice)."""
    if die not in FACES or die == "d6":
        raise ValueError(f"teach mode's synthetic dice are d5, d10 and d20, not {die!r}")
    if not 0 <= look < len(PALETTE):
        raise ValueError(f"a look is 0–{len(PALETTE) - 1}, not {look}")
    dieset = DieSet(name or f"synthetic {die} look {look}", die)
    # white dice on the light grey tray lose their shaded sides to it (docs/vision.md, "White
    # numbered dice taught on a light tray"): they are shown on a dark one, as an owner is told
    if tray is None:
        tray = DARK_TRAY if min(PALETTE[look].body) > WHITE else TRAY
    for value in FACES[die]:
        for bgra in designs(die, value, look, design):
            image, box = shown(bgra, tray)
            dieset.teach(value, DieSet.region(image, box))
    return dieset
