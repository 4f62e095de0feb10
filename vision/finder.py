"""Finding dice in a frame: a small fully convolutional network's die-centre map.

The frame is letterboxed to ``INPUT`` × ``INPUT``; the network answers, on a
grid four times coarser, how likely each cell holds a die's centre and how
large that die is (log of its box side, in input pixels).  Local maxima above
a threshold are the dice; touching dice stay apart because each has its own
centre.  With an empty-tray reference frame, a candidate where the frame does
not differ from the tray is dropped (a mark on the felt is not a die).
"""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.faces import ModelError
from vision.felt import dark_felt, dice_like_felt
from vision.readings import iou
from vision.tray_area import TrayArea

INPUT = 256
SMALL = 13.0  # finds whose median box is under this many px of INPUT: look at 2 × INPUT,
SHRUNK = 0.85  # and take those finds when their median box is under this share of the first
LARGE = 30.0  # pip dice whose larger finds (upper quartile) are over this many px of INPUT:
FARTHER = 24.0  # looked at again with the frame smaller, the dice about this many px
STRIDE = 4
PIP_BOXES = 1.5  # where the first finder's dice are small in the view on a coloured felt,
# the felt finder's are taken only if this many times as large: the first boxed their pips
# (yellow dice on yellow felt: 1.7-2.1 times; small dice in a wide view, sent there by a
# find off the dice: 1.22)
CROWDED = 16.0  # dice under this many px of INPUT whose boxes overlap (OVERLAP) may be boxed
OVERLAP = 0.25  # too large (touching dice boxed as one between them): look closer too,
CROWDED_MORE = 1.5  # and take those finds when no more than this many times as many (+ 1)
DIE_SIZED = 0.6  # finds at least this share of the surest one's side say how large the
# frame's dice are (SMALL)
CHANGED = 0.15  # a find's middle must differ from the empty tray this much (|log ratio|),
AROUND = 4.0  # and this many times more than the tray around it, once what the light
LIGHT_WINDOW = 0.5  # did (a median over this share of the frame) is taken out
LEVELS = 40.0  # log ratio steps per 8-bit level for that median: ±3.2 covered
MEDIAN_MOST = 255  # px: the widest window OpenCV's 8-bit median counts right (its 16-bit
# histogram overflows past 255²: a 48 MP photo's 375 px window failed an assertion)
LIGHT_MOVED = 0.125  # light_change beyond this (parts of the tray 1.13 × as bright or
# dark): the reference is stale (its own light: 0.075 at most; relit: 0.15-0.35)
MARKED = 0.12  # a find the empty-tray picture's middle test dropped is a die thrown since
# only where some of its box changed at least this much (most_changed: its numeral, its
# shading); debris that lay there when the picture was taken changes nothing
# (docs/vision.md, "Debris")
BLOB = 0.25  # without the network: a blob that differs from the empty tray this much,
BLOB_WINDOW = 0.25  # the light's change taken out over this share of the frame


@dataclass(frozen=True)
class Found:
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in frame pixels
    score: float
    new_at_edge: bool = False  # an up-to-date empty-tray picture shows something new here,
    # running up to the frame's edge: a die partly out of the frame, even where unsure


def letterbox(
    image: np.ndarray,
    size: int = INPUT,
    *,
    zoom: float = 1.0,
    offset: tuple[float, float] = (0.0, 0.0),
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """The frame scaled to fit ``size`` (times ``zoom``), centred (plus ``offset``, a
    fraction of the slack) on a grey canvas: (canvas, scale, (dx, dy))."""
    h, w = image.shape[:2]
    scale = size / max(h, w) * zoom
    k = int(1 / scale)
    if k >= 2 and min(h, w) >= 2 * k:
        # shrink by a whole factor first (OpenCV's fast path: 0.1 ms where shrinking
        # 640 → 256 in one step took 1.4), then smoothly the rest of the way.  The fast
        # path needs sides that divide: the last k - 1 rows and columns at most are left
        # out (a 1920 × 1080 frame: 7.7 ms without, 2592 × 1944: 16)
        h, w = h // k * k, w // k * k
        image = cv2.resize(image[:h, :w], (w // k, h // k), interpolation=cv2.INTER_AREA)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
    dx = (size - nw) / 2 * (1 + offset[0])
    dy = (size - nh) / 2 * (1 + offset[1])
    matrix = np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32)
    canvas = cv2.warpAffine(
        resized, matrix, (size, size), flags=cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_CONSTANT, borderValue=(128, 128, 128),
    )  # fmt: skip
    return canvas, scale, (dx, dy)


def decode(
    heat: np.ndarray, size: np.ndarray, threshold: float, scale: float, shift: tuple[float, float]
) -> list[Found]:
    """Peaks of the centre map (each the best in its 3×3 neighbourhood) as boxes in the frame."""
    peaks = (heat >= threshold) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    found = []
    for gy, gx in zip(*np.nonzero(peaks), strict=True):
        # refine the centre by the weighted mean of the 3×3 neighbourhood
        y0, y1, x0, x1 = max(gy - 1, 0), gy + 2, max(gx - 1, 0), gx + 2
        patch = heat[y0:y1, x0:x1]
        ys, xs = np.mgrid[y0 : y0 + patch.shape[0], x0 : x0 + patch.shape[1]]
        cy = (float((patch * ys).sum()) / float(patch.sum()) + 0.5) * STRIDE
        cx = (float((patch * xs).sum()) / float(patch.sum()) + 0.5) * STRIDE
        side = float(np.exp(size[gy, gx]))
        box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
        frame_box = (
            (box[0] - shift[0]) / scale,
            (box[1] - shift[1]) / scale,
            (box[2] - shift[0]) / scale,
            (box[3] - shift[1]) / scale,
        )
        found.append(Found(frame_box, float(heat[gy, gx])))
    return suppress_inner(sorted(found, key=lambda f: -f.score))


def suppress_inner(found: list[Found], share: float = 0.35) -> list[Found]:
    """Drop a find whose centre lies well inside a stronger find's box: a second peak on
    one die (its shadow, a bright facet).  A die touching another has its centre
    outside the other's box, so touching dice stay apart."""
    kept: list[Found] = []
    for f in found:  # strongest first
        cx, cy = (f.box[0] + f.box[2]) / 2, (f.box[1] + f.box[3]) / 2
        inside = False
        for k in kept:
            hw, hh = (k.box[2] - k.box[0]) * share, (k.box[3] - k.box[1]) * share
            kx, ky = (k.box[0] + k.box[2]) / 2, (k.box[1] + k.box[3]) / 2
            if abs(cx - kx) < hw and abs(cy - ky) < hh:
                inside = True
                break
        if not inside:
            kept.append(f)
    return kept


MODELS = Path(__file__).resolve().parent / "models"
FELT_FINDER = MODELS / "finder_felt.onnx"


def _load(path: Path) -> cv2.dnn.Net:
    try:
        net = cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as err:
        raise ModelError(f"cannot load the finder model {path}: {err}") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    return net


class DieFinder:
    """The trained finder (``vision/models/finder.onnx``) run by OpenCV's dnn module.

    ``felt``: a second network for pip dice the colour of their felt (``finder_felt.onnx``,
    the default; None: the one network for every frame), used on a dark felt and where a
    coloured felt's dice are its colour (vision/felt.py).  Dice the felt's colour show the
    first little but their pips, which it boxed as dice of their own, or nothing; the
    second learnt such dice, and was held to the first's maps on every other frame
    (docs/vision.md, "The felt finder")."""

    def __init__(
        self,
        path: Path | None = None,
        threshold: float = 0.35,
        small: float | None = SMALL,
        felt: Path | None = FELT_FINDER,
    ) -> None:
        self._net = _load(path or MODELS / "finder.onnx")
        self._felt_net = _load(felt) if felt is not None else None
        self._lock = threading.Lock()  # teaching from two requests at once shares a reader
        self.threshold = threshold
        self.small = small  # None: never look twice as large

    def find(
        self,
        image: np.ndarray,
        empty_tray: np.ndarray | None = None,
        pips: bool = False,
        ratio: np.ndarray | None = None,
        dark: bool = False,
    ) -> list[Found]:
        """Dice in ``image`` (a view of the tray: dice about 3–12% of its width).  With
        ``pips`` (pip dice expected) dice larger than that are looked at again, smaller
        (find_farther).  ``ratio``: the frame's :func:`log_ratio` to the empty tray, where
        the caller has it already.  ``dark``: the dice may be as dark as a dark felt (a set
        of black numbered dice, DieSet.dark)."""
        # pip dice on a dark felt, and numbered dice as dark as it: the felt finder (the
        # first boxes a black d5's numeral alone on black felt; other numbered dice are read
        # from their bodies, and burks' dice on a tower's dark floor read back right with it)
        felt = (pips or dark) and self._felt_net is not None and dark_felt(image)
        first = self._find_at(image, 1.0, felt=felt)
        # a coloured felt where a die found is the felt's colour, or none is: more may hide
        # on it.  Looked at again by the felt finder (red d6s on red felt: 33 of 80 read
        # right by the first, 78 by it, none wrong; docs/vision.md).  Where the first
        # finder's dice are small in the view, only if the felt finder's are PIP_BOXES
        # times as large (the first boxed pips): it reads dice small in a wide view worse
        second = self._felt_net is not None and not felt
        if second and (not first or dice_like_felt(image, (f.box for f in first))):
            other = self._find_at(image, 1.0, felt=True)
            if not self._small(first, image) or (
                other and _dice_side(other, image) >= PIP_BOXES * _dice_side(first, image)
            ):
                felt, first = True, other
        found = self._find_sized(image, first, pips, felt)
        if empty_tray is not None and empty_tray.shape == image.shape:
            found = changed_finds(found, image, empty_tray, ratio)
        return found

    def _find_sized(
        self, image: np.ndarray, found: list[Found], pips: bool, felt: bool
    ) -> list[Found]:
        """``found`` (the finds of one network in the usual view; ``felt``: the felt
        finder's) looked at again closer where the dice are small in the view, or
        (``pips``) farther where large."""
        small = self._small(found, image)
        if small or self._crowded(found, image):
            # small dice: the boxes may be at the network's smallest (11-14 px of its 256),
            # up to 1.7 times the die.  Looked at twice as large, they fit; those finds are
            # taken when they are clearly smaller (dice merely small keep their first finds:
            # their crops are what the face network learnt from).  Crowded finds are taken
            # only if about as many: touching dice told apart add a few, a large die's pips
            # found one by one many (black 2s on black felt: 8 finds, 19 closer)
            closer = self.find_closer(image, felt=felt)
            fits = closer and _side(closer, image) < SHRUNK * _dice_side(found, image)
            if fits and (small or len(closer) <= CROWDED_MORE * len(found) + 1):
                found = closer
        elif pips:
            found = self.find_farther(image, found, felt=felt)
        return found

    def _small(self, found: list[Found], image: np.ndarray) -> bool:
        """Whether the dice are small in the view: ``found``'s die-sized finds under
        ``small`` px of INPUT.  The dice's size is that of the finds about as large as the
        surest find, or larger (specks and lint on a dark tray, found at the network's
        smallest box, are no guide to it: docs/vision.md, "Debris on the tray")."""
        if not found or self.small is None:
            return False
        return _dice_side(found, image) < self.small

    def _crowded(self, found: list[Found], image: np.ndarray) -> bool:
        """Whether dice a little over ``small`` overlap: two touching dice far smaller than
        the network's smallest box are boxed large and between them (a 1920 × 1080 frame's
        60-px dice: boxes of 120 px holding two dice, the next die's find put out by one),
        which makes them look larger than ``small`` too."""
        if self.small is None or len(found) < 2:
            return False
        sized = _die_sized(found)
        return _dice_side(found, image) < CROWDED and _most_overlap(sized) >= OVERLAP

    def find_farther(
        self, image: np.ndarray, found: list[Found], felt: bool = False
    ) -> list[Found]:
        """``found`` again with the frame seen smaller, where the dice are large for the
        usual view (their larger finds over LARGE px of INPUT): there it finds a large
        die's pips as small dice of their own (pip dice only: a die tower's parts are
        large finds too, and numbered dice are read from their bodies)."""
        if not found:
            return found
        side = _side(found, image, 75)
        if side <= LARGE:
            return found
        return self._find_at(image, max(0.3, FARTHER / side), felt=felt) or found

    def find_closer(self, image: np.ndarray, felt: bool = False) -> list[Found]:
        """The finds with the frame seen twice as large (4 times slower): boxes that fit
        dice too small for the usual view, which it would draw up to 1.7 times too big.
        ``felt``: by the felt finder."""
        return self._find_at(image, 1.0, 2 * INPUT, felt=felt)

    def _find_at(
        self, image: np.ndarray, zoom: float, size: int = INPUT, felt: bool = False
    ) -> list[Found]:
        canvas, scale, shift = letterbox(image, size, zoom=zoom)
        net = self._felt_net if felt and self._felt_net is not None else self._net
        blob = cv2.dnn.blobFromImage(canvas, 1 / 255.0)
        with self._lock:  # a network's input and output are its own: one caller at a time
            net.setInput(blob)
            maps = net.forward()[0]
        return decode(maps[0], maps[1], self.threshold, scale, shift)


def changed_finds(
    found: list[Found], image: np.ndarray, empty_tray: np.ndarray, ratio: np.ndarray | None = None
) -> list[Found]:
    """The finds whose middle changed from the empty tray (:func:`kept_changed`), in the
    finder's order; ``ratio``: the frame's :func:`log_ratio` to it, where the caller has it."""
    h, w = image.shape[:2]
    inside = [f for f in found if _inside(f.box, w, h)]
    past = [f for f in found if not _inside(f.box, w, h)]
    ratio = log_ratio(image, empty_tray) if ratio is None else ratio
    keep = set(kept_changed(change_of(ratio), inside) if inside else [])
    if past:  # by the frame's edge the light's median window is lopsided: not used
        keep |= set(kept_changed(change_of(ratio, light=None), past))
    return [f for f in found if f in keep]


def _side(found: list[Found], image: np.ndarray, percentile: float = 50) -> float:
    """A percentile of the finds' box widths (the median by default), in pixels of the
    network's INPUT-sized view."""
    sides = [f.box[2] - f.box[0] for f in found]
    return float(np.percentile(sides, percentile)) * INPUT / max(image.shape[:2])


def _die_sized(found: list[Found]) -> list[Found]:
    """The finds at least DIE_SIZED times as large as the surest one: not the specks and
    lint the network finds on a dark tray, less surely, at its smallest box."""
    best = max(found, key=lambda f: f.score)
    least = DIE_SIZED * (best.box[2] - best.box[0])
    return [f for f in found if f.box[2] - f.box[0] >= least]


def _most_overlap(found: list[Found]) -> float:
    """The largest intersection over union of two of ``found``'s boxes."""
    return max((iou(a.box, b.box) for a, b in itertools.combinations(found, 2)), default=0.0)


def _dice_side(found: list[Found], image: np.ndarray) -> float:
    """The side of ``found``'s dice: the median of its die-sized finds, in px of INPUT."""
    return _side(_die_sized(found), image)


def _inside(box: tuple[float, float, float, float], w: int, h: int) -> bool:
    return box[0] >= 0 and box[1] >= 0 and box[2] <= w and box[3] <= h


def log_ratio(image: np.ndarray, empty_tray: np.ndarray, shrink: int = 4) -> np.ndarray:
    """The frame over the tray, per pixel (of a copy ``shrink`` times smaller) and colour
    channel, as a log brightness ratio with the frame's overall ratio taken out, so a
    camera that re-exposes or a lamp that dims changes nothing, while a die (a new colour
    and pattern) stands out."""
    size = (max(1, image.shape[1] // shrink), max(1, image.shape[0] // shrink))
    a = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    b = cv2.resize(empty_tray, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    # the tray (or the camera) may have been nudged since the reference was taken
    m = max(1, min(size) // 10)  # look for a nudge of up to a tenth of the frame
    if min(size) > 4 * m:
        grey_a, grey_b = a.mean(axis=2), b.mean(axis=2)
        fit = cv2.matchTemplate(grey_a, grey_b[m:-m, m:-m], cv2.TM_CCOEFF_NORMED)
        _, best, _, (rx, ry) = cv2.minMaxLoc(fit)
        if best > 0.5:
            shift = np.array([[1, 0, rx - m], [0, 1, ry - m]], dtype=np.float32)
            b = np.asarray(cv2.warpAffine(b, shift, size, borderMode=cv2.BORDER_REPLICATE))
    ratio = np.log((a + 20) / (b + 20))
    return np.asarray(ratio - np.median(ratio.reshape(-1, 3), axis=0), np.float32)


def change_of(ratio: np.ndarray, light: float | None = LIGHT_WINDOW) -> np.ndarray:
    """How much each spot changed, from a :func:`log_ratio`: the channel that changed most
    counts, so a red die on a green felt of the same brightness is seen too (a grey-only
    measure missed a quarter of rendered dice).  What the light did near each spot (a
    lamp's pool, a shadow across the tray: it changes the tray and the dice on it alike)
    is the median over a window ``light`` of the frame wide, several dice (a die or a
    small cluster is a minority in it), and is taken out (None: not)."""
    if light is not None:
        ratio = ratio - light_of(ratio, light)
    return np.asarray(cv2.GaussianBlur(np.abs(ratio).max(axis=2), (0, 0), 1.5), np.float32)


def light_of(ratio: np.ndarray, window: float = LIGHT_WINDOW) -> np.ndarray:
    """What the light did near each spot of a :func:`log_ratio`: its median over a window
    ``window`` of the frame wide, per channel.  At half the map's resolution (the light
    changes slowly, and it is 5 times faster), or less where the window would pass
    MEDIAN_MOST."""
    h, w = ratio.shape[:2]
    levels = np.clip(ratio * LEVELS + 128, 0, 255).astype(np.uint8)  # medianBlur: 8-bit
    shrink = max(2, math.ceil(min(h, w) * window / MEDIAN_MOST))
    half = (max(1, w // shrink), max(1, h // shrink))
    small = cv2.resize(levels, half, interpolation=cv2.INTER_AREA)
    done = cv2.medianBlur(small, min(max(3, int(min(half) * window) | 1), MEDIAN_MOST))
    done = cv2.resize(done, (w, h), interpolation=cv2.INTER_LINEAR).reshape(ratio.shape)
    return (done.astype(np.float32) - 128) / LEVELS


def light_change(
    image: np.ndarray,
    empty_tray: np.ndarray,
    ratio: np.ndarray | None = None,
    area: TrayArea | None = None,
) -> float:
    """How far the light on the tray has moved from the empty-tray picture's: the 95th
    percentile over the frame (over the tray's ``area`` where it is marked: a lamp moved on
    the table beside it drops no die) of what the light did (log units; the camera's overall
    exposure taken out).  Measured: under the picture's own light at most 0.075; a lamp's
    pool and an arm's shadow 0.15–0.35, where the reference starts to drop dice."""
    ratio = log_ratio(image, empty_tray) if ratio is None else ratio
    moved = np.abs(light_of(ratio)).max(axis=2)
    if area is not None:
        inside = area.mask(moved.shape[1], moved.shape[0]) > 0
        moved = moved[inside] if inside.any() else moved
    return float(np.percentile(moved, 95))


def changed(
    change: np.ndarray,
    box: tuple[float, ...],
    shrink: int = 4,
    dice: np.ndarray | None = None,
) -> bool:
    """Whether the middle of ``box`` differs from the empty tray more than its surroundings
    do (on a change map): a die is a local change; light and exposure change whole regions.
    ``dice`` marks (on the map) dice already kept: they are left out of the surroundings."""
    x0, y0, x1, y1 = (v / shrink for v in box)
    w, h = x1 - x0, y1 - y0
    H, W = change.shape
    xa, ya = int(max(0, x0 + w / 4)), int(max(0, y0 + h / 4))
    xb, yb = int(min(W, x1 - w / 4 + 1)), int(min(H, y1 - h / 4 + 1))
    if xb <= xa or yb <= ya:
        return False
    inner = float(np.median(change[ya:yb, xa:xb]))
    ring = np.zeros(change.shape, bool)
    ring[
        int(max(0, y0 - h / 2)) : int(min(H, y1 + h / 2)),
        int(max(0, x0 - w / 2)) : int(min(W, x1 + w / 2)),
    ] = True
    ring[int(max(0, y0)) : int(min(H, y1 + 1)), int(max(0, x0)) : int(min(W, x1 + 1))] = False
    if dice is not None:
        ring &= ~dice
    around = float(np.median(change[ring])) if ring.any() else 0.0
    # a die changes its spot several times more than the tray around it changed
    return inner > CHANGED and inner > AROUND * around + 0.05


def most_changed(
    change: np.ndarray, box: tuple[float, float, float, float], shrink: int = 4
) -> float:
    """How much the most changed part of ``box`` changed: the 95th percentile of
    :func:`change_of` (a map ``shrink`` times smaller than the frame) over the box."""
    x0, y0, x1, y1 = (int(v / shrink) for v in box)
    patch = change[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1]
    return float(np.percentile(patch, 95)) if patch.size else 0.0


def kept_changed(change: np.ndarray, found: list[Found], shrink: int = 4) -> list[Found]:
    """The finds that changed (:func:`changed`), in rounds: the dice kept in one round are
    left out of the surroundings of the rest in the next, so that a die among other dice
    (its surroundings half dice) is not taken for part of a changed region (one test for
    all dropped 15 of 601 rendered dice, touching or not; in rounds, none)."""
    kept: list[Found] = []
    dice = np.zeros(change.shape, bool)
    left = list(found)
    while left:
        new = [f for f in left if changed(change, f.box, shrink, dice)]
        if not new:
            break
        kept += new
        left = [f for f in left if f not in new]
        for f in new:
            x0, y0, x1, y1 = (int(v / shrink) for v in f.box)
            dice[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1] = True
    return [f for f in found if f in kept]  # the finder's order (strongest first)


def find_by_difference(
    image: np.ndarray,
    empty_tray: np.ndarray,
    min_side: int = 8,
    shrink: int = 4,
    ratio: np.ndarray | None = None,
) -> list[Found]:
    """Dice as the blobs where the frame differs from the empty tray (no network needed),
    measured on the change map, so that what the light did is no blob; a blob wider than
    a quarter of the frame is no die either (dice are 3–12% of its width).  ``ratio``:
    the frame's :func:`log_ratio` at ``shrink``, where the caller has it already."""
    if ratio is None:
        ratio = log_ratio(image, empty_tray, shrink)
    change = change_of(ratio, BLOB_WINDOW)
    blobs = np.where(change > BLOB, 255, 0).astype(np.uint8)
    opened = cv2.morphologyEx(blobs, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    mask = np.asarray(cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    largest = max(image.shape[:2]) / 4
    found = []
    for x, y, w, h, area in stats[1:n]:
        side_x, side_y = w * shrink, h * shrink
        die_sized = min(side_x, side_y) >= min_side and max(side_x, side_y) <= largest
        if die_sized and area >= 0.4 * w * h:
            box = (float(x * shrink), float(y * shrink), float((x + w) * shrink),
                   float((y + h) * shrink))  # fmt: skip
            found.append(Found(box, 1.0))
    return found
