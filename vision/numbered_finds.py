"""Numbered dice's finds sorted out: one reading per die body, and the camera's slant.

Two finds can cover one die (each box on a part of it) or two dice lying edge to
edge in one outline; :func:`one_per_body` reads each die once, from its own
body.  A camera at a slant moves every flat die's numeral the same way off its
middle; :func:`camera_slant` tells that from a cocked die's lean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vision.advice import LIKELY
from vision.finder import Found
from vision.readings import iou, within
from vision.teach import OFF_TAUGHT, DieSet, FaceMatch
from vision.teach_sets import DieSets

SLANTED = 3  # numbered dice at least, and half of those looked at, whose numerals lie ...
AGREE = 0.1  # ... within this (die sizes) of the same way off: the camera's slant, not theirs
TRUE_SLANT = 0.5  # ... where the mean of them all lies this near it, of its length (a ring: none)
FLAT_SPREAD = 0.1  # die sizes: a flat die's numeral lies about this near where it is taught to
# (taught_way: a die further off may be cocked either way, and tells nothing of the way)

SAME_BODY = 0.7  # two finds whose die bodies overlap this much (IoU) are one die ...
APART = 0.3  # ... unless, shared out between its cores, each find's share overlaps the other's


# by less than this share of the smaller one's box: two dice lying edge to edge (rendered
# pairs: 0.02-0.09; one die found twice: 0.97)
def telling_lean(match: FaceMatch, cut: bool) -> tuple[float, float] | None:
    """The match's lean where it tells of the camera (camera_slant): a die read at least
    LIKELY and whole (a die cut by the frame's edge has its middle cut too)."""
    return match.lean if match.confidence >= LIKELY and not cut else None


def lean_in(match: FaceMatch, way: int) -> tuple[float, float] | None:
    """The match's lean by reading ``way`` of the taught offsets (teach_marks.Bank._placed:
    0, the whole offset turns with the die; 1, the part every taught face shares stays put)."""
    return match.lean if match.leans is None else match.leans[way]


def taught_way(
    matches: Sequence[FaceMatch], leans: Sequence[tuple[float, float]] = ()
) -> tuple[int, tuple[float, float]]:
    """Which reading of the taught offsets the frame's numbered dice fit (its way, as in
    :func:`lean_in`), and the camera's slant by it.  Faces shown straight from above, every
    one the same way up, share their own offset (a d5's numeral lies off its prism's
    middle) and fit the first; faces shown through a camera at a slant share the camera's,
    which stays put as a die turns, and fit the second.  The second where by it the dice lie
    nearer where flat ones do (after the slant; each die's distance counted up to
    FLAT_SPREAD: a cocked die lies far off by either reading, and would otherwise choose the
    one that excuses it) and no more of them are "may be cocked"; else the first, as before
    the second was known.  One reading for the whole frame, so that its flat dice agree on
    the camera's slant (camera_slant); ``leans``: the dice read before, as there."""
    scored = []
    for way in (0, 1):
        own = [lean_in(m, way) for m in matches]
        told = [lean for m, lean in zip(matches, own, strict=True)
                if lean is not None and telling_lean(m, m.cut) is not None]  # fmt: skip
        slant = camera_slant([*told, *leans])
        off = [math.hypot(x - slant[0], y - slant[1]) for x, y in filter(None, own)]
        fit = sum(min(d, FLAT_SPREAD) ** 2 for d in off)
        scored.append((fit, sum(d > OFF_TAUGHT for d in off), slant))
    (fit_0, asked_0, slant_0), (fit_1, asked_1, slant_1) = scored
    if fit_1 < fit_0 and asked_1 <= asked_0:
        return 1, slant_1
    return 0, slant_0


def camera_slant(leans: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """How far a camera at a slant moves every flat die's numeral from where it lies on its
    taught face (die sizes): it shows each die's side faces on the side towards it, which
    moves the die's middle.  Where SLANTED or more of the dice's ``leans`` (a frame's, and
    those the camera read before), and half of them, lie within AGREE of their median, the
    median of those is the camera's way off; a cocked die lies off its own way.  Otherwise
    (0, 0): each die is judged alone."""
    offs = np.array(leans, np.float64).reshape(-1, 2)
    if len(offs) < SLANTED:
        return 0.0, 0.0
    middle = np.median(offs, axis=0)
    agree = offs[np.hypot(*(offs - middle).T) <= AGREE]
    if len(agree) < max(SLANTED, math.ceil(len(offs) / 2)):
        return 0.0, 0.0
    slant = np.median(agree, axis=0)
    # a taught face whose body was told badly from its tray puts every die's numeral the
    # same distance off, each its own way round (a ring): its agreeing half has a median off
    # the middle, but all of them together have none; a camera's slant moves them all
    if np.hypot(*(offs.mean(axis=0) - slant)) > TRUE_SLANT * np.hypot(*slant):
        return 0.0, 0.0
    return float(slant[0]), float(slant[1])


def one_per_body(
    image: np.ndarray, read: list[tuple[Found, FaceMatch]], dieset: DieSet | DieSets
) -> list[tuple[Found, FaceMatch]]:
    """Each find with its match (as read), one per die: two finds that cover one die (each box on
    a part of it, side numerals near its centre) are read once more from the body's own
    outline, so the numeral is sought from the die's centre, not from the side of it.
    Two finds on two dice lying edge to edge share one body too: where the body, shared
    out between its cores, gives each find a share apart from the other's, each is read
    from its own share."""
    kept: list[tuple[Found, FaceMatch]] = []
    for f, match in read:
        twin = next(
            (k for k, (_, m) in enumerate(kept)
             if m.outline and match.outline and iou(m.outline, match.outline) >= SAME_BODY),
            None,
        )  # fmt: skip
        if twin is None or match.outline is None:  # (the second test is for mypy)
            kept.append((f, match))
            continue
        other = kept[twin][0]
        mine = dieset.read(image, f.box, split=True)
        theirs = dieset.read(image, other.box, split=True)
        if mine.outline and theirs.outline and within(mine.outline, theirs.outline) < APART:
            # the body has two cores and each find lies by its own, and their shares lie
            # apart: two dice lying edge to edge, with no waist between them, each read
            # from its share (one die's two finds gave shares one inside the other)
            kept[twin] = (other, theirs)
            kept.append((f, mine))
            continue
        joined = Found(match.outline, max(f.score, other.score))
        kept[twin] = (joined, dieset.read(image, match.outline))
    return kept
