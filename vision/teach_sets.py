"""Several taught sets of one die type read as one: players at one table bring their own
d20s (a red set and a blue one, each taught on the Devices page).

A die is read with every set; the sets whose colour it has (not "not of the
set") compete, and the surest answer wins (the higher score on a tie).  A die
whose colour no set has is someone else's die, as with one set.  A set of
another colour costs little: it stops at the die's colour, before its faces
are compared (vision/teach.py, DieSet.match).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.teach import DieSet, DieSetError, FaceMatch


class DieSets:
    """Taught sets of one die type, read as one set (:meth:`read`, as DieSet.read)."""

    def __init__(self, sets: Sequence[DieSet]) -> None:
        if not sets:
            raise DieSetError("no die sets to read with")
        if len({s.die for s in sets}) > 1:
            raise DieSetError("sets read as one are of one die type: "
                              f"{', '.join(sorted({s.die for s in sets}))}")  # fmt: skip
        self.sets = tuple(sets)

    @property
    def name(self) -> str:
        return " + ".join(s.name for s in self.sets)

    @property
    def die(self) -> str:
        return self.sets[0].die

    @property
    def reading_die(self) -> str:
        return self.sets[0].reading_die

    @property
    def shapes(self) -> np.ndarray:
        """The taught outline shapes of every set (DieSet.shapes)."""
        rows = [s.shapes for s in self.sets if len(s.shapes) > 0]
        return np.vstack(rows) if rows else np.zeros((0, 0))

    @property
    def dark(self) -> bool:
        """Whether any of the sets' dice are as dark as a dark felt (DieSet.dark)."""
        return any(s.dark for s in self.sets)

    def read(
        self, image: np.ndarray, box: tuple[float, float, float, float], split: bool = False
    ) -> FaceMatch:
        """The die at ``box`` read with the set whose colour it has and that is surest of it."""
        matches = [s.read(image, box, split) for s in self.sets]
        own = [m for m in matches if m.seen and not m.foreign]
        if own:
            # a set whose dice have its outline before one whose dice do not (a d20 set of
            # two brands, one with rounder edges)
            return max(own, key=lambda m: (not m.misshapen, m.confidence, m.score))
        return next((m for m in matches if m.foreign), matches[0])


def joined(present: DieSet | DieSets | None, more: DieSet) -> DieSet | DieSets:
    """What reads ``more``'s die type once ``more`` joins ``present`` (a set of that type
    taught before, or None)."""
    if present is None:
        return more
    if isinstance(present, DieSets):
        return DieSets([*present.sets, more])
    return DieSets([present, more])
