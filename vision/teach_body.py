"""Where a die lies in the square cut around the finder's box: its body, told from the tray.

The body is the pixels whose colour stands apart from the tray at the square's
border (brightness changes and shadows pass as tray).  Its centroid is the
die's centre and the root of its area the die's size, so a box that is off by
a fifth or a camera that zooms gives the same normalised view of the die.  A
die touching another one in the square is cut apart from it where the two
meet (their outlines make a waist there) or, lying edge to edge with no
waist, shared out between the two dice's cores; a thin streak (wood grain)
that joins the die to the square's border is opened away.  Of several
outlines, the one under the square's centre is the die.  What is still not
one solid die (a tray edge, wood grain, a shadow) is no die at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

MARGIN = 2.0  # the square's side over the finder's box side
SHADE = 0.7  # log brightness: a shadow darkens the tray by up to half
APART = 0.45  # touching dice are cut apart at waists narrower than this share of the box
SMALLEST, LARGEST = 0.4, 1.6  # the root of a die body's area, in finder box sides
SOLID = 0.8  # a die's outline fills at least this share of its convex hull
CLOSE = 0.3  # of the box: notches this narrow in a die's outline are closed, once
SEED = 0.35  # of the box: thickest points at least this far apart are two dice's cores
CORE = 0.15  # of the box: a die's core lies at least this far inside its outline
THIN = 0.3  # of the box: streaks thinner than this running into the outline are not die
GAMMA = 1.45  # the most a camera's gamma may differ between teaching and reading


@dataclass(frozen=True)
class Body:
    """Where a die's body lies in a region: centre and size (pixels of the region)."""

    x: float
    y: float
    size: float
    mask: np.ndarray | None = field(default=None, repr=False, compare=False)  # 255 on the body
    carved: bool = False  # only found by splitting or opening an outline (see locate)
    untold: bool = False  # not told from the tray at all: the finder's box stands in

    def outline(self) -> tuple[float, float, float, float]:
        """The body's box (x0, y0, x1, y1) in the region's pixels: its mask's, or a square
        of its size around its centre."""
        if self.mask is not None and self.mask.any():
            x, y, w, h = cv2.boundingRect(self.mask)
            return float(x), float(y), float(x + w), float(y + h)
        half = self.size / 2
        return self.x - half, self.y - half, self.x + half, self.y + half


def _apart_from_tray(region: np.ndarray) -> np.ndarray:
    """255 where the colour differs from the tray at the region's border (shadows let pass)."""
    w = region.shape[1]
    logs = cv2.split(np.log(region.astype(np.float32) + 10.0))  # a gain multiplies, a log shifts
    bright = (logs[0] + logs[1] + logs[2]) / 3
    planes = [logs[0] - bright, logs[1] - bright, logs[2] - bright, bright]  # hue, brightness
    rim = max(2, w // 20)
    ring = np.ones(region.shape[:2], bool)
    ring[rim:-rim, rim:-rim] = False
    diffs = [plane - np.float32(np.median(plane[ring])) for plane in planes]
    # a shadow is the tray a little darker, not a die: darkening up to SHADE is let pass
    diffs[3] = np.where(diffs[3] < 0, np.minimum(diffs[3] + SHADE, 0), diffs[3])
    squared = diffs[0] ** 2 + diffs[1] ** 2 + diffs[2] ** 2 + diffs[3] ** 2
    dist = cv2.GaussianBlur(np.sqrt(squared), (0, 0), w / 96)
    scaled = np.clip(dist * (255.0 / max(float(dist.max()), 1e-3)), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = _odd(w / 24)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))


def _odd(side: float) -> int:
    """A kernel's side: ``side`` rounded down to an odd number of pixels, at least 3."""
    return max(3, int(side) | 1)


def _disc(side: float) -> np.ndarray:
    """A round structuring element about ``side`` pixels across."""
    k = _odd(side)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _solid(filled: np.ndarray, box: float) -> Body | None:
    """The body ``filled`` (255 on it) when it is one solid die of about the box's size,
    lying wholly inside the region."""
    h, w = filled.shape
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(outline)
    x, y, bw, bh = cv2.boundingRect(outline)
    hull = cv2.contourArea(cv2.convexHull(outline))
    if (
        area < (SMALLEST * box) ** 2
        or area > (LARGEST * box) ** 2
        or min(x, y) <= 0
        or x + bw >= w
        or y + bh >= h
        or hull <= 0
        or area / hull < SOLID
    ):
        return None
    m = cv2.moments(outline)
    body = np.zeros((h, w), np.uint8)
    # a die seen from above is convex: its hull also holds ink the colour of the tray
    cv2.drawContours(body, [cv2.convexHull(outline)], -1, 255, cv2.FILLED)
    return Body(m["m10"] / m["m00"], m["m01"] / m["m00"], float(np.sqrt(area)), body)


def _cut_apart(filled: np.ndarray, box: float) -> np.ndarray:
    """The part of ``filled`` nearest the region's centre once waists narrower than
    APART × box are cut (two touching dice meet at a waist)."""
    h, w = filled.shape
    disc = _disc(APART * box)
    cores = cv2.erode(filled, disc)
    count, labels, _, centroids = cv2.connectedComponentsWithStats(cores)
    if count <= 2:  # one core or none: there is nothing to cut
        return filled
    label = labels[h // 2, w // 2]
    if label == 0:
        gaps = np.hypot(centroids[1:, 0] - w / 2, centroids[1:, 1] - h / 2)
        label = 1 + int(np.argmin(gaps))
    core = np.where(labels == label, 255, 0).astype(np.uint8)
    return cv2.bitwise_and(cv2.dilate(core, disc), filled)


def locate(region: np.ndarray, margin: float = MARGIN, split: bool = False) -> Body | None:
    """The die's body in ``region`` (a square cut around a box ``margin`` times the box's side),
    or None when nothing there looks like one solid die.  ``split``: the outline under the
    centre is first shared out between its cores (:func:`_split`), even where it looks like
    one solid die: two dice lying edge to edge can (the reader asks for this where two finds
    share one body)."""
    h, w = region.shape[:2]
    # the body's outline needs no more than half the region's resolution: four times faster
    small = cv2.resize(region, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(_apart_from_tray(small), (w, h), interpolation=cv2.INTER_LINEAR)
    mask = np.where(mask > 127, 255, 0).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    centre = (w / 2, h / 2)
    inside = [c for c in contours if cv2.pointPolygonTest(c, centre, True) > -w / (4 * margin)]
    if not inside:
        return None
    filled = np.zeros((h, w), np.uint8)
    # the die-sized outline around the centre, else the largest near it: a find between
    # two dice lying apart belongs to the one it sits on, not to the bigger one beside it
    box = w / margin
    holds = [
        c
        for c in inside
        if cv2.pointPolygonTest(c, centre, False) >= 0
        and cv2.contourArea(c) >= (SMALLEST * box) ** 2
    ]
    cv2.drawContours(filled, [max(holds or inside, key=cv2.contourArea)], -1, 255, cv2.FILLED)
    if split:
        shared = _split(filled, box)
        if shared is not filled:  # two cores or more: the piece by the centre
            piece = _solid(shared, box)
            if piece is not None:
                return replace(piece, carved=True)
    found = (
        _solid(filled, box)
        or _solid(_cut_apart(filled, box), box)
        or _solid(_closed(filled, box), box)
    )
    if found is not None:
        return found
    # carving a die-sized piece out of a larger outline finds one in a tray's wall too:
    # such a body counts as a die only where it matches a taught face (teach.py)
    carved = _solid(_split(filled, box), box) or _solid(_opened(filled, box), box)
    return None if carved is None else replace(carved, carved=True)


def _closed(filled: np.ndarray, box: float) -> np.ndarray:
    """``filled`` with notches narrower than CLOSE × box filled in: a die the tray's colour
    on its sides, with ink by its edge, shows a notch in its outline."""
    disc = _disc(CLOSE * box)
    return cv2.morphologyEx(filled, cv2.MORPH_CLOSE, disc)


def _split(filled: np.ndarray, box: float) -> np.ndarray:
    """The part of ``filled`` that belongs to the core nearest the region's centre, once it is
    shared out between its cores (the points farthest inside its outline, each a die's
    middle): two dice lying edge to edge meet along a line as wide as a die, with no waist
    to cut at.  A pixel goes to the core it is nearest to less that core's depth, so a big
    die keeps its whole body beside a small one (an additively weighted Voronoi split)."""
    h, w = filled.shape
    # the region's border counts as outline: a die running out of the square has no core there
    padded = cv2.copyMakeBorder(filled, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist = cv2.distanceTransform(padded, cv2.DIST_L2, 5)[1:-1, 1:-1]
    k = _odd(SEED * box)
    peaks = (dist >= CORE * box) & (dist >= cv2.dilate(dist, np.ones((k, k), np.uint8)))
    count, _, _, cores = cv2.connectedComponentsWithStats(peaks.astype(np.uint8))
    if count <= 2:  # one core or none: there is nothing to split
        return filled
    cores = cores[1:]
    depth = np.array([dist[round(y), round(x)] for x, y in cores], np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    reach = np.stack([np.hypot(xs - x, ys - y) - d for (x, y), d in zip(cores, depth, strict=True)])
    mine = int(np.argmin(np.hypot(cores[:, 0] - w / 2, cores[:, 1] - h / 2)))
    return np.where((reach.argmin(axis=0) == mine) & (filled > 0), 255, 0).astype(np.uint8)


def _opened(filled: np.ndarray, box: float) -> np.ndarray:
    """``filled`` without parts thinner than THIN × box (a streak of wood grain or a
    shadow's edge that ran into the die's outline and joined it to the region's border)."""
    if not (filled[0].any() or filled[-1].any() or filled[:, 0].any() or filled[:, -1].any()):
        return filled  # nothing runs out of the square: opening would only reshape the die
    disc = _disc(THIN * box)
    return cv2.morphologyEx(filled, cv2.MORPH_OPEN, disc)


def body_colour(region: np.ndarray, body: Body) -> np.ndarray:
    """The body's colour as two log-chromaticities (log B/G, log R/G), the median over it
    (every other pixel is plenty): the same die under another lamp or gain keeps it, a die
    of another colour does not."""
    pixels = region[::2, ::2].reshape(-1, 3)
    if body.mask is not None:
        pixels = pixels[body.mask[::2, ::2].reshape(-1) > 0]
    logs = np.log(pixels.astype(np.float32) + 10.0)
    return np.median(logs[:, [0, 2]] - logs[:, 1:2], axis=0)


def colour_gap(colour: np.ndarray, taught: np.ndarray) -> float:
    """How far ``colour`` lies from the nearest of the ``taught`` ones (rows), allowing a
    gamma change (which scales log-chromaticities by up to GAMMA either way)."""
    taught = np.atleast_2d(taught)
    norms = (taught**2).sum(axis=1)
    gains = np.clip(taught @ colour / np.maximum(norms, 1e-6), 1 / GAMMA, GAMMA)
    gains = np.where(norms > 1e-6, gains, 1.0)
    return float(np.linalg.norm(colour - gains[:, None] * taught, axis=1).min())
