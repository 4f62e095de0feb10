"""One die's pips found as two dice: a dark die showing "2" on a dark felt.

Where a die's body hardly stands apart from the tray, the finder may box each
pip of a "2" (or two pips of a "4") on its own, and the face network reads
each box a sure "1": two wrong dice for one.  Two real dice showing 1 cannot
lie that close: their pips are a die's side apart or more, where a 2's pips
are about 0.7 of it.  But a die's side is only known roughly (the boxes of
turned dice are up to 1.4 times as wide), and two dice touching corner to
corner put their 1s as close as a 2's (byler's photos have such pairs).  What
tells them apart is between the pips: on one die, the middle of a flat face;
on two, the edge where the dice meet (a gap, a bevel, a change of colour).
So a sure 1 and a reading close beside it (another 1, another face, or none)
with a flat face between them are read again as one die, centred between
them.  Where the face network is sure of a face other than 1 there, the reader
asks for the two as that die ("confirm: 2?"), or, where the other reading reads
that face already, for the 1 alone (a pip of it).  Asked, not taken: rendered
dice of one colour touching with no seam between them look so too.

The finder may also box one pip of a dark 2 with a little of the die around
it and never find the other pip at all: a sure 1, with nothing read beside it.
:func:`unread_partners` looks around each sure 1 for a spot like its pip (of
its pip's shade and size, a 2's pip spacing off, inside no sure reading's box),
with a flat face between them, and names the die the two may be, to be read
again as that one die and asked, as above.

A black 3's pips may be boxed apart too, each read a sure 1 (or one beside an
unsure 3), with the 3's middle pip between them, so the face between is not
flat: :func:`pips_in_line` looks around each sure 1 for a 3's diagonal (its pip
and two spots like it, in line, evenly spaced, closer than two dice's pips can
be) and names the 3, to be read again and asked, as above.

A piece of a die may also be found inside the die's own box: a lamp's glare on
a black die, or a pip, boxed alone and read "1".  :func:`nested` names the
readings that lie on a larger one (the reader leaves them out or asks).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import cv2
import numpy as np

from vision.readings import Box, ReadDie, centre, holds, square

JOINED = 0.9  # two 1s closer than this share of the frame's die size may be one die's
# pips (a 2's pips lie about 0.7 of a side apart).  Rendered split 2s: 0.32-0.72 of the
# median side; two real dice, corner to corner: byler 0.75 and up, renders 0.70 and up
FLAT = 0.35  # the middle between them at most this steep (flat_between): one die's face.
# Rendered split 2s: 0.02-0.17; two dice 0.9 or less of a side apart: renders 0.66 and up,
# byler 0.60 and up (docs/vision.md, "One die's pips found as two dice")
NESTED = 0.6  # a reading at most this share of another's box, its middle in that box, is
# a part of that die: a lamp's glare on a black die, found apart, read a sure "1" (none
# such in byler's, skovy's or the rendered goldens' readings; docs/vision.md, "A part of
# a die found on it")
ONE_NESTED = 0.75  # a sure 1 up to this share of another reading's box, its middle in it,
# may be a pip of that die too: asked, not left out (real dice touching lie up to 0.75
# inside each other's boxes: byler's; black 2s read a sure 2 and a sure 1 lay at 0.60-0.65)
PIP_SEEN = 20  # grey levels: a 1's pip fainter than this against its box is not looked
# around for a partner (unread_partners)
_PARTNER_NEAR = 0.3  # a partner spot at least this share of the frame's die size off the
# 1's pip (a 2's pips lie about 0.7 apart), and under JOINED
_LINE_NEAR = 0.15  # spots looked at for pips_in_line: at least this share of the die size off
IN_LINE = 0.1  # ... and of three, one this near (a share of the ends' distance) their middle
LINE_STEP = 0.47  # ... each this share of the die size or less from the next: a 3's are
# 0.30-0.42 (its side is 0.7-1 of its box's); a real 1's pip lies 0.7 of a side or more
# from a pip of a die beside it, 0.5 of the die size or more
THREE_SPAN = 1.2  # a 3's side over its corner pips' distance (about 0.85 of a side apart)
_MIDDLE = 0.18  # the middle looked at: within this share of the pips' distance of it
_AROUND = 0.6  # ... against the steepest part within this share (the pips' own edges)


def flat_between(image: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> float:
    """How steep the colour is in the middle between points ``a`` and ``b`` of the BGR
    frame ``image`` (its gradient's 90th percentile within _MIDDLE times their distance of
    the middle) over how steep it is around (within _AROUND: the pips' own edges).  About
    0.2 or less on one die's face, 0.6 and up where two dice meet; infinite where the
    window runs out of the frame (not told)."""
    gap = math.dist(a, b)
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    reach = max(3, round(_AROUND * gap))
    x0, y0 = int(mx) - reach, int(my) - reach
    h, w = image.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * reach + 1 > w or y0 + 2 * reach + 1 > h:
        return math.inf
    cut = image[y0 : y0 + 2 * reach + 1, x0 : x0 + 2 * reach + 1].astype(np.float32)
    window = cv2.GaussianBlur(cut, (0, 0), 1.0)  # the camera's noise
    gx = cv2.Sobel(window, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(window, cv2.CV_32F, 0, 1)
    steep = np.sqrt((gx * gx + gy * gy).sum(axis=2))
    ys, xs = np.mgrid[: 2 * reach + 1, : 2 * reach + 1]
    far = np.hypot(xs - reach, ys - reach)
    middle = float(np.percentile(steep[far <= _MIDDLE * gap], 90))
    around = float(np.percentile(steep[far <= _AROUND * gap], 90))
    return middle / max(around, 1.0)


def pip_pairs(image: np.ndarray, dice: Sequence[ReadDie]) -> list[tuple[int, int, Box]]:
    """Pairs (i, j, box) of ``dice`` (one frame's readings) that may be one die: a sure d6
    "1" (i) and another d6 reading (j: a 1, another face, or none) closer than JOINED
    times the frame's die size (the median side of its sure d6s; else the pair's larger
    side), with a flat face between them (:func:`flat_between`).  ``box``: the die they
    may be, centred between them, of the frame's die size (or 1.4 times their distance,
    if more).  Closest pairs first; a reading may be in several (a speck beside a 2's pip
    lies closer to it than its other pip)."""
    frame_size = _frame_size(dice)
    pairs = []
    for i, one in enumerate(dice):
        if one.die != "d6" or one.value != 1 or one.uncertain:
            continue
        for j, other in enumerate(dice):
            sure_one = other.value == 1 and not other.uncertain
            if j == i or other.die != "d6" or (sure_one and j < i):  # a sure pair once
                continue
            a, b = centre(one.box), centre(other.box)
            size = frame_size or max(one.box[2] - one.box[0], other.box[2] - other.box[0])
            gap = math.dist(a, b)
            if gap < JOINED * size:
                pairs.append((gap, i, j, a, b, size))
    joined: list[tuple[int, int, Box]] = []
    for _gap, i, j, a, b, size in sorted(pairs):
        if flat_between(image, a, b) <= FLAT:
            joined.append((i, j, _between(a, b, size)))
    return joined


def unread_partners(image: np.ndarray, dice: Sequence[ReadDie]) -> list[tuple[int, Box]]:
    """Pairs (i, box): a sure d6 "1" of ``dice`` (i) and the die ``box`` it may be a pip
    of, where a spot like its pip lies beside it that no sure reading's box holds (the
    finder boxed one pip of a 2 and missed the other, or boxed it unsure): of the pip's
    shade (half its contrast with the box or more) and 0.5-2 times its area,
    _PARTNER_NEAR to JOINED times the frame's die size off it (pip_pairs' size), with a
    flat face between them (flat_between).  The closest such spot; ``box`` as pip_pairs'
    is."""
    joined: list[tuple[int, Box]] = []
    for i, pip, others, size in _sure_ones(image, dice, _PARTNER_NEAR):
        for spot in sorted(others, key=lambda p: math.dist(p, pip)):
            # a sure reading's pip is that die's; an unsure reading may be a piece of this one
            unread = not any(holds(d.box, (*spot, *spot)) for d in dice if not d.uncertain)
            if unread and flat_between(image, pip, spot) <= FLAT:
                joined.append((i, _between(pip, spot, size)))
                break
    return joined


def pips_in_line(image: np.ndarray, dice: Sequence[ReadDie]) -> list[tuple[int, Box]]:
    """Pairs (i, box): a sure d6 "1" of ``dice`` (i) whose pip lies in line with two spots
    like it (:func:`_pip_and_spots`), evenly spaced (one of the three midway between the
    other two, within IN_LINE of their distance) and under LINE_STEP times the frame's
    die size from each other: a 3's diagonal, its pips boxed apart (a black 3 on black
    felt).  A real 1 has no other pip on its face, and a pip of a die beside it lies
    farther off.  No flat face is asked for between them: at a 3's spacing the middle
    that flat_between looks at takes in the pips' own edges.  ``box``: the 3, centred on
    the middle one, of the frame's die size (or THREE_SPAN times the ends' distance, if
    more)."""
    found: list[tuple[int, Box]] = []
    for i, pip, others, size in _sure_ones(image, dice, _LINE_NEAR):
        line = _in_line(pip, others, size)
        if line is not None:
            middle, span = line
            found.append((i, square(middle, max(size, THREE_SPAN * span))))
    return found


def _sure_ones(
    image: np.ndarray, dice: Sequence[ReadDie], least: float
) -> Iterator[tuple[int, tuple[float, float], list[tuple[float, float]], float]]:
    """For each sure d6 "1" of ``dice`` whose pip shows (:func:`_pip_and_spots`, spots at
    least ``least`` times the die size off it): its index, its pip, those spots and the
    die size (the frame's, else the 1's own box's side)."""
    frame_size = _frame_size(dice)
    for i, one in enumerate(dice):
        if one.die != "d6" or one.value != 1 or one.uncertain:
            continue
        size = frame_size or max(one.box[2] - one.box[0], one.box[3] - one.box[1])
        spots = _pip_and_spots(image, one.box, size, least)
        if spots is not None:
            yield i, spots[0], spots[1], size


def _in_line(
    pip: tuple[float, float], spots: list[tuple[float, float]], size: float
) -> tuple[tuple[float, float], float] | None:
    """The middle point and the ends' distance of the first three evenly spaced points in
    line, ``pip`` one of them, neighbours under LINE_STEP times ``size`` apart; None where
    no three are."""
    for k, s in enumerate(spots):
        for t in spots[k + 1 :]:
            for m, (p, q) in ((pip, (s, t)), (s, (pip, t)), (t, (pip, s))):
                span = math.dist(p, q)
                half = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
                if math.dist(m, half) <= IN_LINE * span and span / 2 < LINE_STEP * size:
                    return m, span
    return None


def _pip_and_spots(
    image: np.ndarray, box: tuple[int, int, int, int], size: float, least: float = _PARTNER_NEAR
) -> tuple[tuple[float, float], list[tuple[float, float]]] | None:
    """The middle of a 1's pip (the most unlike its box's median near the box's middle)
    and those of the spots like it around it (see unread_partners), in frame pixels; None
    where the pip is fainter than PIP_SEEN."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0)
    cx, cy = centre(box)
    reach = JOINED * size + side / 4
    h, w = image.shape[:2]
    a, b = int(max(0, cx - reach)), int(max(0, cy - reach))
    c, d = int(min(w, cx + reach + 1)), int(min(h, cy + reach + 1))
    grey = cv2.cvtColor(image[b:d, a:c], cv2.COLOR_BGR2GRAY).astype(np.float32)
    near = cv2.GaussianBlur(grey, (0, 0), 1.0)  # the camera's noise
    face = near[max(0, y0 - b) : y1 - b, max(0, x0 - a) : x1 - a]
    q = max(2, round(side / 5))
    mx, my = round(cx) - a, round(cy) - b
    middle = near[max(0, my - q) : my + q + 1, max(0, mx - q) : mx + q + 1]
    if face.size == 0 or middle.size == 0:
        return None
    base = float(np.median(face))
    light = float(middle.max()) - base >= base - float(middle.min())
    shade = (near - base) if light else (base - near)  # the pip's way from the face
    window = shade[max(0, my - q) : my + q + 1, max(0, mx - q) : mx + q + 1]
    peak = np.unravel_index(int(np.argmax(window)), middle.shape)
    contrast = float(middle[peak]) - base if light else base - float(middle[peak])
    if contrast < PIP_SEEN:
        return None
    marks = (shade > contrast / 2).astype(np.uint8)
    count, labels, stats, middles = cv2.connectedComponentsWithStats(marks, connectivity=8)
    own = labels[max(0, my - q) + peak[0], max(0, mx - q) + peak[1]]
    area = stats[own, cv2.CC_STAT_AREA]
    pip = (float(middles[own][0]) + a, float(middles[own][1]) + b)
    spots = []
    for k in range(1, count):
        spot = (float(middles[k][0]) + a, float(middles[k][1]) + b)
        if k != own and 0.5 * area <= stats[k, cv2.CC_STAT_AREA] <= 2 * area and (
            least * size <= math.dist(pip, spot) < JOINED * size
        ):  # fmt: skip
            spots.append(spot)
    return pip, spots


def _frame_size(dice: Sequence[ReadDie]) -> float | None:
    """The frame's die size: the median side of its sure d6s (two or more), else None."""
    sides = [d.box[2] - d.box[0] for d in dice if d.die == "d6" and not d.uncertain]
    return float(np.median(sides)) if len(sides) >= 2 else None


def _between(a: tuple[float, float], b: tuple[float, float], size: float) -> Box:
    """The die two pips ``a`` and ``b`` may be: centred between them, ``size`` across (or
    1.4 times their distance, if more)."""
    return square(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), max(size, 1.4 * math.dist(a, b)))


def nested(dice: Sequence[ReadDie], share: float = NESTED) -> dict[int, int]:
    """Readings of ``dice`` (one frame's) that lie on another die, each to the one it lies
    on: its middle in that one's box, its box at most ``share`` times that one's (a glare
    spot or a pip of that die, found as a die of its own). A sure die first."""

    def area(box: Box) -> float:
        return (box[2] - box[0]) * (box[3] - box[1])

    order = sorted(range(len(dice)), key=lambda j: dice[j].uncertain)  # sure dice first
    inner: dict[int, int] = {}
    for i, part in enumerate(dice):
        for j in order:
            whole = dice[j]
            if j != i and holds(whole.box, part.box) and area(part.box) <= share * area(whole.box):
                inner[i] = j
                break
    return inner
