"""The tray's area in the camera's picture: dice outside it are no part of the throw.

A camera over a tray often sees more than the tray: the table around it, a die
tower's parts, dice left beside it.  Where the owner marks the tray's area (a
polygon, its corners given as shares of the picture's width and height, so
that it holds at any resolution), a die whose box lies mostly outside it is
left out of the throw, and one lying across its edge (on the tray's rim, half
out) is read as uncertain: "move the red d6 fully into the tray, or re-throw
it", as a die cut by the picture's edge is.  Without an area the whole picture
is the tray, as before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import cv2
import numpy as np

from vision.advice import advice_for
from vision.colour import colour_name
from vision.pixels import as_bgr8
from vision.readings import DieReading, ThrowReading

INSIDE = 0.75  # a die whose box lies at least this share inside the area is in the tray ...
OUTSIDE = 0.25  # ... under this share, outside it (no part of the throw); between: on its rim
# (a die's box is up to a third larger than the die, and the owner's corners are a few
# pixels off: a die against the tray's wall keeps most of its box inside)
HALF_OUT = "half out of the tray"
MAX_POINTS = 64
MIN_SHARE = 0.01  # an area smaller than this share of the picture is a slip, not a tray


class _Boxed(Protocol):
    @property
    def box(self) -> Sequence[float]: ...


F = TypeVar("F", bound=_Boxed)


def _crossing(points: Sequence[tuple[float, float]]) -> tuple[int, int] | None:
    """The first two sides (numbered from 1: side k runs from corner k to the next) that
    cross each other, None where none do: corners not in order round the tray make a bow
    tie, whose share and inside are not the tray's."""

    def turn(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    def on(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> bool:
        """``p`` lies on side a-b, not at its ends (a corner clicked twice is no crossing)."""
        return (abs(turn(a, b, p)) <= 1e-12 and p != a and p != b
                and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
                and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))  # fmt: skip

    n = len(points)
    sides = [(points[k], points[(k + 1) % n]) for k in range(n)]
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # the first and last sides meet at corner 1
            (a, b), (c, d) = sides[i], sides[j]
            if turn(a, b, c) * turn(a, b, d) < 0 and turn(c, d, a) * turn(c, d, b) < 0:
                return i + 1, j + 1
            # a bow tie whose sides cross at a corner: its share is not its inside's
            if on(c, a, b) or on(d, a, b) or on(a, c, d) or on(b, c, d):
                return i + 1, j + 1
    return None


class TrayAreaError(ValueError):
    """Corners that make no tray area; the message says which and why."""


@dataclass(frozen=True)
class TrayArea:
    """The tray's outline: (x, y) corners in order round it, each a share (0 to 1) of the
    picture's width and height."""

    points: tuple[tuple[float, float], ...]

    @classmethod
    def parse(cls, value: Any) -> TrayArea:
        """From [[x, y], ...] (JSON, TOML) or "x,y;x,y;…" (a command line, the environment);
        TrayAreaError naming what is wrong."""
        if isinstance(value, str):
            try:
                value = [[float(v) for v in pair.split(",")] for pair in value.split(";") if pair]
            except ValueError:
                raise TrayAreaError(f"a tray area is corners x,y;x,y;… (shares of the picture "
                                    f"from 0 to 1), not {value!r}") from None  # fmt: skip
        if not isinstance(value, list | tuple) or not 3 <= len(value) <= MAX_POINTS:
            raise TrayAreaError(f"a tray area has 3 to {MAX_POINTS} corners, each [x, y]")
        points = []
        for k, pair in enumerate(value):
            ok = isinstance(pair, list | tuple) and len(pair) == 2
            if not ok or not all(_number(v) and 0 <= v <= 1 for v in pair):
                raise TrayAreaError(f"corner {k + 1} of the tray area is {pair!r}: it must be "
                                    "[x, y], each a share of the picture from 0 to 1")  # fmt: skip
            points.append((float(pair[0]), float(pair[1])))
        crossing = _crossing(points)
        if crossing:
            raise TrayAreaError(f"the tray area's sides {crossing[0]} and {crossing[1]} cross: "
                                "mark its corners in order round the tray")  # fmt: skip
        area = cls(tuple(points))
        if area.share() < MIN_SHARE:
            raise TrayAreaError(f"the tray area covers {area.share():.1%} of the picture: mark "
                                "its corners round the tray, in order")  # fmt: skip
        return area

    def share(self) -> float:
        """How much of the picture the area covers (0 to 1)."""
        xs, ys = zip(*self.points, strict=True)
        return abs(sum(xs[k] * ys[k - 1] - xs[k - 1] * ys[k] for k in range(len(xs)))) / 2

    def corners(self, w: int, h: int) -> np.ndarray:
        """The corners in pixels of a ``w`` × ``h`` picture, for OpenCV (n × 1 × 2 int32)."""
        scaled = [(round(x * (w - 1)), round(y * (h - 1))) for x, y in self.points]
        return np.array(scaled, np.int32).reshape(-1, 1, 2)

    def mask(self, w: int, h: int) -> np.ndarray:
        """255 inside the area, 0 outside, on a ``w`` × ``h`` picture."""
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [self.corners(w, h)], 255)
        return mask

    def moved(self, dx: float, dy: float, w: int, h: int) -> TrayArea:
        """The area ``dx``, ``dy`` pixels along on a ``w`` × ``h`` picture, kept within it:
        where the tray lies once a camera knocked since the area was marked has shifted the
        whole picture by that much."""
        return TrayArea(tuple(
            (min(1.0, max(0.0, x + dx / max(w - 1, 1))), min(1.0, max(0.0, y + dy / max(h - 1, 1))))
            for x, y in self.points
        ))  # fmt: skip

    def warped(self, homography: np.ndarray, w: int, h: int) -> TrayArea:
        """The area carried by ``homography`` (3 × 3, pixels of a ``w`` × ``h`` picture), kept
        within the picture: where the tray lies once the camera turned or tilted."""
        corners = np.array([(x * (w - 1), y * (h - 1)) for x, y in self.points], np.float64)
        now = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)
        return TrayArea(tuple(
            (min(1.0, max(0.0, x / max(w - 1, 1))), min(1.0, max(0.0, y / max(h - 1, 1))))
            for x, y in now
        ))  # fmt: skip

    def to_list(self) -> list[list[float]]:
        return [[round(x, 4), round(y, 4)] for x, y in self.points]


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def share_inside(box: Sequence[float], mask: np.ndarray) -> float:
    """How much of ``box`` (x0, y0, x1, y1, pixels) lies inside the area's ``mask``."""
    h, w = mask.shape
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, math.ceil(box[2])), min(h, math.ceil(box[3]))
    whole = max(1.0, (box[2] - box[0]) * (box[3] - box[1]))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    return float(np.count_nonzero(mask[y0:y1, x0:x1])) / whole


def on_tray(found: Sequence[F], area: TrayArea | None, w: int, h: int) -> list[F]:
    """The finds (anything with a ``box``) not lying beyond ``area`` on a ``w`` × ``h``
    picture: teaching a face, collecting throws of one die and taking the empty-tray
    picture count those alone (a die left beside the tray is not on it)."""
    if area is None:
        return list(found)
    mask = area.mask(w, h)
    return [f for f in found if share_inside(f.box, mask) >= OUTSIDE]


class _Finder(Protocol):
    def find(self, image: np.ndarray) -> Sequence[Any]: ...


def dice_on_empty_tray(
    finder: _Finder, image: np.ndarray, area: TrayArea | None = None
) -> list[Any]:
    """The dice ``finder`` sees on ``image`` taken as the empty tray (within ``area``), by
    the network alone: there is no older picture to compare with.  A die in that picture
    would hide every die thrown there: the server refuses such a picture, `vision check`
    says to take it again."""
    return on_tray(finder.find(image), area, image.shape[1], image.shape[0])


def within(result: ThrowReading, area: TrayArea | None, w: int, h: int) -> ThrowReading:
    """The throw's dice in the tray: those mostly outside ``area`` left out, those across
    its edge uncertain ("half out of the tray"); as it was where there is no area."""
    if area is None or not result.dice:
        return result
    mask = area.mask(w, h)
    kept: list[DieReading] = []
    beyond = list(result.beyond)
    for d in result.dice:
        inside = share_inside(d.box, mask)
        if inside < OUTSIDE:
            beyond.append(d.box)
            continue
        if inside < INSIDE and d.problem != "cut by the edge":
            colour = d.colour or colour_name(d.crop)  # a sure die's is not named yet
            advice = advice_for(d.die, d.value, d.confidence, colour, cut=True)
            d = replace(d, uncertain=True, problem=HALF_OUT, runner_up=None, colour=colour,
                        advice=advice)  # fmt: skip
        kept.append(d)
    # dice only beyond the tray: the tray is as empty as a picture with no dice at all
    problem = result.problem or ("" if kept else "no dice seen")
    return replace(result, dice=tuple(kept), beyond=tuple(beyond), problem=problem)


def drawn(image: np.ndarray, area: TrayArea | None) -> np.ndarray:
    """``image`` with the area's outline drawn on it (a copy), for the page's pictures."""
    if area is None:
        return image
    shown = image.copy()
    h, w = shown.shape[:2]
    thick = max(2, round(max(w, h) / 320))  # 2 px at 640, seen on a large frame shrunk too
    cv2.polylines(shown, [area.corners(w, h)], True, (255, 200, 0), thick, cv2.LINE_AA)
    return shown


SUGGEST_WIDTH = 256  # the picture is looked at this wide to find the tray
SUGGEST_MIDDLE = 0.2  # the tray's colour: the median of this share of the picture's middle
SUGGEST_GAP = 12.0  # Lab units: a pixel this far from the tray's colour is no tray ...
SUGGEST_SPREAD = 4.0  # ... or this many times the middle's own spread (its median: a die
# lying in the middle is a minority of it; a grained felt or wood spreads more)
SUGGEST_STEP = 2.5  # Lab units between neighbours at that width: still the tray, shaded
SUGGEST_WHOLE = 0.95  # a tray covering this share of the picture or more is the whole of it
SUGGEST_SMALL = 0.08  # one covering less is a patch of colour, not the tray
SUGGEST_SOLID = 0.97  # a tray's floor seen from above is convex: a region filling less of
# its convex outline has bites out of it (dice against a wall, a wall's shadow) or ran on
# to the walls or the table, and is no clean outline to offer (burks' tower floor 0.98-0.99,
# trays set in a table's view 0.994 and more; the box of byler's phone photos 0.77-0.96)


def suggest(image: np.ndarray) -> TrayArea | None:
    """The tray's area as the picture shows it, for the owner to check and save: the region
    of the middle's colour (the camera looks at the tray's middle) that holds the middle,
    its dice, numerals and specks filled in, as a convex outline of at most 16 corners.
    None where the tray fills the picture (no area is needed) or none stands apart."""
    image = as_bgr8(image, "the picture to find the tray in")
    h, w = image.shape[:2]
    k = SUGGEST_WIDTH / max(w, h)  # both sides bounded: a sliver of a picture stays small
    size = (max(8, round(w * k)), max(8, round(h * k)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    sw, sh = size
    mx, my = round(sw * SUGGEST_MIDDLE / 2), round(sh * SUGGEST_MIDDLE / 2)
    y0, x0 = sh // 2 - my, sw // 2 - mx
    inner = (slice(y0, sh // 2 + my + 1), slice(x0, sw // 2 + mx + 1))  # the picture's middle
    middle = lab[inner].reshape(-1, 3)
    colour = np.median(middle, axis=0)
    near = np.linalg.norm(middle - colour, axis=1)
    limit = max(SUGGEST_GAP, SUGGEST_SPREAD * float(np.median(near)))
    tray = (np.linalg.norm(lab - colour, axis=2) <= limit).astype(np.uint8) * 255
    # and what shades off from it by small steps (a lamp's pool, the lens's darker corners),
    # grown from the middle: a tray's wall or the table is a step, not a slope
    grown = np.zeros((sh + 2, sw + 2), np.uint8)
    step = (SUGGEST_STEP,) * 3
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)
    for y, x in np.argwhere(tray[inner][::4, ::4]) * 4 + (y0, x0):  # seeds: every 4th pixel
        if not grown[y + 1, x + 1]:
            cv2.floodFill(lab, grown, (int(x), int(y)), 0, step, step, flags)
    tray = np.maximum(tray, grown[1:-1, 1:-1])
    reach = max(3, sw // 12) | 1  # dice and numerals on the tray are filled in, not holes
    tray = cv2.morphologyEx(tray, cv2.MORPH_CLOSE, np.ones((reach, reach), np.uint8))
    # ... and thin strips of its colour beyond it (a gap under a wall, a shadow) cut off
    tray = cv2.morphologyEx(tray, cv2.MORPH_OPEN, np.ones((reach, reach), np.uint8))
    count, labels = cv2.connectedComponents(tray)
    # the region of the middle's colour that most of the middle lies in (a die lying just in
    # the middle is no hole in it: the outline round the region takes it in)
    votes = np.bincount(labels[inner].ravel(), minlength=count)
    votes[0] = 0
    if count < 2 or not votes.any():
        return None
    held = int(votes.argmax())
    contours, _ = cv2.findContours(
        (labels == held).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    region = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(region)
    share = cv2.contourArea(hull) / float((sw - 1) * (sh - 1))
    solid = cv2.contourArea(region) / max(cv2.contourArea(hull), 1.0)
    if not SUGGEST_SMALL <= share < SUGGEST_WHOLE or solid < SUGGEST_SOLID:
        return None
    epsilon = 0.01 * cv2.arcLength(hull, True)
    corners = cv2.approxPolyDP(hull, epsilon, True)
    while len(corners) > 16:
        epsilon *= 1.5
        corners = cv2.approxPolyDP(hull, epsilon, True)
    points = [[float(x) / (sw - 1), float(y) / (sh - 1)] for x, y in corners.reshape(-1, 2)]
    try:
        return TrayArea.parse([[min(1.0, x), min(1.0, y)] for x, y in points])
    except TrayAreaError:
        return None
