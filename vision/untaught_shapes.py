"""Outline shapes of numbered dice no set here teaches, drawn by the synthetic renderer.

A set reads another numbered type's die by its numeral alone: a d20's "3" or a
numeral d6's "3" is a d10 set's sure "3".  Where the owner has taught a set of
that type too, its outlines tell the die apart (vision/die_shape.py,
``nearer_elsewhere``); where they have not, these stand in for it: the outlines
of the renderer's d5s, square d6s and d20s, measured as a taught face's is (the
body found in the crop a set keeps, vision/teach.py ``face_shape``).  burks'
real d20s lie 0.04–0.10 from the rendered d20s' range and their numeral d6s
0.02–0.13 from the rendered d6s', where 0.35 or more from any real set of
another type.  The renderer's d10 is nearly round (burks' real d10s lie
0.29–0.38 from it, no nearer than from a real d20 set), so no rendered d10
stands in: a d10 among dice of one other type is told only where its own set is
taught (docs/vision.md, "Dice of another type, one colour").

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

STAND_IN = ("d5", "d6", "d20")  # the types whose rendered outlines stand in (see above)
LOOKS = (0, 2, 9)  # white, red and translucent red dice: outlines found against the tray
# by their lightness, their colour and through their glow
FAMILY = {"d6_numeral": "d6"}  # a numeral d6's outline is a pip d6's: a square


def family(die: str) -> str:
    """The outline family of die type ``die`` (a numeral d6 is a d6)."""
    return FAMILY.get(die, die)


@functools.cache
def rendered_shapes(die: str) -> np.ndarray:
    """The outline shapes (rows, vision.die_shape) of the renderer's ``die`` (d5, d6 or
    d20), every face in each of LOOKS, seen straight from above as a face is taught."""
    from vision.render import FACES, PALETTE, render_die
    from vision.teach import DieSet, face_shape
    from vision.teach_synthetic import DARK_TRAY, EDGE, TRAY, WHITE, shown

    if die not in STAND_IN:
        raise ValueError(f"rendered outlines stand in for {', '.join(STAND_IN)}, not {die!r}")
    rows = []
    for look in LOOKS:
        drawn = PALETTE[look]
        tray = DARK_TRAY if min(drawn.body) > WHITE else TRAY  # as taught_from_renders
        for value in FACES[die]:
            bgra = render_die(die, value, drawn, EDGE, np.random.default_rng([look, value]))
            image, box = shown(bgra, tray)
            shape = face_shape(DieSet.region(image, box))
            if shape is not None:
                rows.append(shape)
    return np.array(rows)


@functools.cache
def _kept() -> dict[str, np.ndarray]:
    table = json.loads(KEPT.read_text(encoding="utf-8"))
    return {die: np.array(table[die], dtype=np.float64) for die in STAND_IN}


def untaught_shapes(taught: Iterable[str]) -> list[np.ndarray]:
    """The rendered outlines (one array of rows per type, as kept) of the STAND_IN types of
    which none of die types ``taught`` is (the expected type among them)."""
    have = {family(die) for die in taught}
    return [_kept()[die] for die in STAND_IN if die not in have]


def table() -> dict[str, list[list[float]]]:
    """Every STAND_IN type's rendered outlines, as KEPT holds them."""
    return {die: [[round(float(v), 6) for v in row] for row in rendered_shapes(die)]
            for die in STAND_IN}  # fmt: skip


if __name__ == "__main__":
    KEPT.write_text(json.dumps(table(), indent=None) + "\n", encoding="utf-8")
    print(f"wrote {KEPT}")
