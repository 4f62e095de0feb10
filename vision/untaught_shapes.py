"""Outline shapes of numbered dice no set here teaches, drawn by the synthetic renderer.

A set reads another numbered type's die by its numeral alone: a d20's "3" or a
numeral d6's "3" is a d10 set's sure "3".  Where the owner has taught a set of
that type too, its outlines tell the die apart (vision/die_shape.py,
``nearer_elsewhere``); where they have not, these stand in for it: the outlines
of the renderer's d5s, square d6s, d10s and d20s, measured as a taught face's
is (the body found in the crop a set keeps, vision/teach.py ``face_shape``).
burks' real dice, as their photos teach them, lie from the rendered outlines'
range of their own type: d20s 0.02–0.12, numeral d6s 0.06–0.13, d10s 0.08–0.17
(the renderer's d10 worked out from the solid since session 48,
vision/render_d10.py; the one drawn by eye before lay 0.29–0.38 and stood in for
nothing), and 0.38 or more from every other type's (docs/vision.md, "Dice of
another type, one colour").

Rendering them takes 2 s here (the renderer, 21 ms a die), so they are measured
once and kept in vision/models/stand_in_shapes.json (``python -m
vision.untaught_shapes`` writes it again; a test checks it against the renderer).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

KEPT = Path(__file__).with_name("models") / "stand_in_shapes.json"

STAND_IN = ("d5", "d6", "d10", "d20")  # the types whose rendered outlines stand in (see above)
LOOKS = (0, 2, 9)  # white, red and translucent red dice: outlines found against the tray
# by their lightness, their colour and through their glow
FAMILY = {"d6_numeral": "d6"}  # a numeral d6's outline is a pip d6's: a square
# where a d20 is expected the d10's outline does not stand in: a camera's slant lengthens a
# d20's hexagon to a d10's (rendered d20s read by their own set through cameras at a slant
# of 0.15 and 0.3: 57 of 96 asked "not the set's shape" with it, 0 without; docs/vision.md)
NOT_AGAINST = {"d20": ("d10",)}


def family(die: str) -> str:
    """The outline family of die type ``die`` (a numeral d6 is a d6)."""
    return FAMILY.get(die, die)


@functools.cache
def rendered_shapes(die: str) -> np.ndarray:
    """The outline shapes (rows, vision.die_shape) of the renderer's ``die`` (d5, d6, d10
    or d20), every face in each of LOOKS, seen straight from above as a face is taught."""
    from vision.render import FACES, PALETTE, render_die
    from vision.render_d10 import d10
    from vision.teach import DieSet, face_shape
    from vision.teach_synthetic import DARK_TRAY, EDGE, TRAY, WHITE, shown

    if die not in STAND_IN:
        raise ValueError(f"rendered outlines stand in for {', '.join(STAND_IN)}, not {die!r}")
    rows = []
    for look in LOOKS:
        drawn = PALETTE[look]
        tray = DARK_TRAY if min(drawn.body) > WHITE else TRAY  # as taught_from_renders
        for value in FACES[die]:
            rng = np.random.default_rng([look, value])
            bgra = render_die(die, value, drawn, EDGE, rng, d10=d10())  # a d10: the solid
            image, box = shown(bgra, tray)
            shape = face_shape(DieSet.region(image, box))
            if shape is not None:
                rows.append(shape)
    return np.array(rows)


@functools.cache
def _kept() -> dict[str, np.ndarray]:
    table = json.loads(KEPT.read_text(encoding="utf-8"))
    return {die: np.array(table[die], dtype=np.float64) for die in STAND_IN}


def untaught_shapes(taught: Iterable[str], expected: str) -> list[np.ndarray]:
    """The rendered outlines (one array of rows per type, as kept) of the STAND_IN types of
    which none of die types ``taught`` is, nor ``expected``, and that stand in where
    ``expected`` is (NOT_AGAINST)."""
    have = {family(die) for die in [*taught, expected]} | set(NOT_AGAINST.get(expected, ()))
    return [_kept()[die] for die in STAND_IN if die not in have]


def table() -> dict[str, list[list[float]]]:
    """Every STAND_IN type's rendered outlines, as KEPT holds them."""
    return {die: [[round(float(v), 6) for v in row] for row in rendered_shapes(die)]
            for die in STAND_IN}  # fmt: skip


if __name__ == "__main__":
    KEPT.write_text(json.dumps(table(), indent=None) + "\n", encoding="utf-8")
    print(f"wrote {KEPT}")
