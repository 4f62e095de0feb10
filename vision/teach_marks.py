"""The marks on a die (its numeral), compared with taught faces whatever the die's turn.

A die is cut out at its own size (SIDE pixels per die size, from its body) and
its *ink* kept: strokes and small shapes lighter or darker than what lies
around them (a morphological top-hat or black-hat).  A facet's shading is a
step in brightness, not a stroke, so the d20's and d10's side facets, the same
on every face, drop out and the numeral is what is left.  A die set's ink is
either lighter or darker than its body; only that side is kept, so the bright
wedge of a face between its numeral and a corner is no ink on a die with dark
numerals.  The ink's centre (mean shift from the finder's box centre) is the
numeral's centre, wherever side faces seen at an angle put the body's centroid
and whichever die a touching one's body is merged with.

Comparing takes two stages.  First the ink is unrolled around its centre on a
log radius, so that turning the die only shifts the angle axis and resizing
it the radius axis; one batched FFT along the angle gives, for every taught
view at once, its best turn and scale.  Then the query's ink is turned and
scaled to that pose and compared with the taught view's ink, square against
square, by normalised cross-correlation that lets the centre be a few pixels
off (the polar image alone depends too much on where the centre falls to tell
"16" from "18"): the likeliest faces' likeliest views at their two best turns
at half resolution, then the closest few faces at full resolution (within a
pixel of where the half-resolution square fit best), nudged finer than the
first stage's grid.  The comparisons of a stage are made in batches (one
remap, one FFT or nine shifted sums), not one by one.  Long straight lines of ink
(the edge of a side face seen at an angle) are taken out first: no numeral's
stroke is that long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.crops import crop_die
from vision.square_match import Squares
from vision.teach_body import Body

SIDE = 64  # pixels per die size (the root of its body's area) in a die's view
SPAN = 1.5  # the view's side over the die's size: room for a numeral off the body's centre
VIEW = round(SIDE * SPAN)
ERODE = 5  # view pixels: the outline's own contrast is left out
INK_KERNEL = 11  # view pixels: wider than a numeral's stroke, narrower than a face
STROKE_KERNEL = 7  # view pixels: strokes alone, to tell whether the ink is light or dark
INK_BLUR = 0.8  # view pixels
DETAIL = 1.0  # view pixels: the ink's detail is the ink less its blur by this much
LINE = 0.7  # die sizes: a straight line of ink this long is a face's edge, not a numeral
LINE_LEVEL = 0.3  # of the strongest ink: what counts as ink when looking for lines
LINE_WIDTH = 7  # view pixels: the width of ink a line found takes away
SEEK = 0.18  # die sizes: how far around the finder's box centre the numeral is looked for
ANGLES = 120  # 3° steps
RADII = 32
INNER, REACH = 1.0, 0.45 * SIDE  # the log-polar image's radii, view pixels
SCALE_SHIFT = 3  # log-radius bins (~10% each): a die larger or smaller than taught
AREA_POWER = 1.5  # log-polar bins far out cover more of the die, and weigh more
WINDOW = 31  # view pixels: the square of ink compared in the second stage
SLACK = 3  # view pixels: how far the ink's centre may be off, either way
COARSE = 2  # the second stage first compares every view at this stride, then ...
REFINE = 5  # ... this many closest faces at full resolution (a d20's "1x" faces lie close at
# half resolution: of 3, a "10" was sometimes left out, and read a sure "18")
TURNS = 2  # the first stage's best turns tried per view
FINE_VIEWS = 6  # ... and the views of a face compared at full resolution: its likeliest
# (a face taught from more than one photo has 6 views a photo; see docs/vision.md)
COARSE_VIEWS = 8  # the views of a face compared at half resolution: the polar image's likeliest
POLAR_FACES = 10  # ... of this many faces, the polar image's likeliest (of a d20's 20: the
# answer's face ranked 10th at worst by it over 864 rendered dice)
FREQS = 30  # the polar image's angular frequencies compared (of 61): the finer ones moved no
# answer of 864 rendered dice, and the second stage compares square against square anyway
_NUDGES = [(np.radians(a), 1.0) for a in (-1.5, 1.5)] + [(0.0, 0.95), (0.0, 1.05)]
# teach-time variants of each face: blur sigmas in view pixels (a die seen smaller)
VARIANTS = (0.0, 1.2)

_RADIUS = INNER * (REACH / INNER) ** (np.arange(RADII) / (RADII - 1))
_STEP = (REACH / INNER) ** (1 / (RADII - 1))  # one log-radius bin's scale factor
_AREA = ((_RADIUS / _RADIUS[-1]) ** AREA_POWER).astype(np.float32)
_TURN = 2 * np.pi * np.arange(ANGLES) / ANGLES
_DX = (np.cos(_TURN)[:, None] * _RADIUS[None, :]).astype(np.float32)
_DY = (np.sin(_TURN)[:, None] * _RADIUS[None, :]).astype(np.float32)
_PIXELS = np.arange(VIEW, dtype=np.float32)


def view(region: np.ndarray, body: Body, blur: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The die cut out at its own size: VIEW × VIEW grey, and its body's weight (1 well
    inside the outline, 0 outside), both float32."""
    half = body.size * SPAN / 2
    box = (body.x - half, body.y - half, body.x + half, body.y + half)
    crop = crop_die(region, box, VIEW, margin=1.0)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if blur > 0:
        grey = np.asarray(cv2.GaussianBlur(grey, (0, 0), blur), np.float32)
    if body.mask is None:
        return grey, np.ones_like(grey)
    inner = crop_die(body.mask, box, VIEW, margin=1.0)
    inner = cv2.erode(inner, np.ones((ERODE, ERODE), np.uint8))
    return grey, cv2.GaussianBlur(inner.astype(np.float32) / 255, (0, 0), 1.5)


def _hats(grey: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """What is lighter and what is darker than its surroundings, within ``side`` pixels."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    light = cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, kernel)
    dark = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, kernel)
    return light, dark


def ink_polarity(region: np.ndarray, body: Body) -> tuple[float, float]:
    """How much thin light and thin dark stroke lies on the die (summed over its body)."""
    grey, weight = view(region, body)
    light, dark = _hats(grey, STROKE_KERNEL)
    return float((light * weight).sum()), float((dark * weight).sum())


def ink(grey: np.ndarray, weight: np.ndarray, polarity: int = 0) -> np.ndarray:
    """Ink lighter (positive) or darker (negative) than what lies around it; ``polarity``
    +1 keeps the light side only, −1 the dark side only, 0 both."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (INK_KERNEL, INK_KERNEL))
    if polarity > 0:
        marks = cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, kernel)
    elif polarity < 0:
        marks = -cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, kernel)
    else:
        light, dark = _hats(grey, INK_KERNEL)
        marks = light - dark
    marks = np.asarray(cv2.GaussianBlur(marks, (0, 0), INK_BLUR), np.float32) * weight
    return _without_long_lines(marks)


def _without_long_lines(marks: np.ndarray) -> np.ndarray:
    """The marks less their long straight lines: the edge of a side face seen at an angle
    is a thin dark line too, but longer than any stroke of a numeral."""
    mass = np.abs(marks)
    top = float(mass.max())
    if top <= 0:
        return marks
    strong = np.where(mass > LINE_LEVEL * top, 255, 0).astype(np.uint8)
    length = round(LINE * SIDE)
    lines = cv2.HoughLinesP(strong, 1, np.pi / 90, length // 2, None, length, 2)
    if lines is None:
        return marks
    drawn = np.zeros_like(strong)
    for x0, y0, x1, y1 in lines.reshape(-1, 4):
        cv2.line(drawn, (int(x0), int(y0)), (int(x1), int(y1)), 255, LINE_WIDTH)
    return marks * (1 - cv2.GaussianBlur(drawn.astype(np.float32) / 255, (0, 0), 1.0))


def ink_centre(marks: np.ndarray, start: tuple[float, float]) -> tuple[float, float]:
    """Where the ink nearest ``start`` lies (a few mean-shift steps)."""
    mass = np.abs(marks)
    cx, cy = start
    for _ in range(6):
        wx = np.exp(-((_PIXELS - cx) ** 2) / (2 * (SEEK * SIDE) ** 2))
        wy = np.exp(-((_PIXELS - cy) ** 2) / (2 * (SEEK * SIDE) ** 2))
        rows = wy @ mass  # the Gaussian window is separable: weigh rows, then columns
        total = float(rows @ wx)
        if total <= 1e-6:
            break
        cx, cy = float(rows @ (wx * _PIXELS)) / total, float((wy * _PIXELS) @ mass @ wx) / total
    return cx, cy


def window(
    marks: np.ndarray,
    centre: tuple[float, float],
    turn: float = 0.0,
    scale: float = 1.0,
    side: int = WINDOW,
) -> np.ndarray:
    """``side`` × ``side`` of the marks around ``centre``, turned by ``turn`` radians and
    shrunk by ``scale`` (a query brought to its taught face's pose)."""
    c, s = np.cos(turn) * scale, np.sin(turn) * scale
    half = (side - 1) / 2
    # destination → source: source = centre + scale · R(turn) · (destination − half)
    matrix = np.array(
        [[c, -s, centre[0] - (c - s) * half], [s, c, centre[1] - (s + c) * half]], np.float32
    )
    return cv2.warpAffine(
        marks, matrix, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT, borderValue=0.0,
    )  # fmt: skip


@dataclass(frozen=True)
class Marks:
    """A die's ink (VIEW × VIEW), its centre, and its log-polar image's angular spectrum."""

    ink: np.ndarray
    centre: tuple[float, float]
    spectrum: np.ndarray  # (ANGLES // 2 + 1) × RADII, complex
    detail: np.ndarray  # the ink's strokes and holes without its blob (Bank._compare_detail)

    @property
    def offset(self) -> tuple[float, float]:
        """Where the numeral lies off the body's middle (the view's centre), die sizes."""
        return (self.centre[0] - VIEW / 2) / SIDE, (self.centre[1] - VIEW / 2) / SIDE

    @classmethod
    def of(cls, region: np.ndarray, body: Body, polarity: int = 0, blur: float = 0.0) -> Marks:
        """The marks of the die whose body is ``body``, its numeral sought from the region's
        centre (the finder's box centre: two touching dice make one body, not one centre)."""
        marks = ink(*view(region, body, blur), polarity)
        h, w = region.shape[:2]
        to_view = VIEW / (body.size * SPAN)
        start = (w / 2 - body.x) * to_view + VIEW / 2, (h / 2 - body.y) * to_view + VIEW / 2
        centre = ink_centre(marks, start)
        polar = cv2.remap(
            marks, _DX + centre[0], _DY + centre[1], cv2.INTER_LINEAR, borderValue=0.0
        )
        polar -= polar.mean(axis=0, keepdims=True)  # what every turn shares says nothing
        polar *= _AREA
        norm = max(float(np.linalg.norm(polar)), 1e-6)
        detail = marks - cv2.GaussianBlur(marks, (0, 0), DETAIL)
        spectrum = np.fft.rfft(polar / norm, axis=0).astype(np.complex64)
        return cls(marks, centre, spectrum, detail)


def _scaled(spectrum: np.ndarray) -> np.ndarray:
    """The spectrum at every scale tried (moved along the log radius, zero-filled):
    (ANGLES // 2 + 1) × (2 · SCALE_SHIFT + 1) × RADII."""
    out = np.zeros((spectrum.shape[0], 2 * SCALE_SHIFT + 1, RADII), spectrum.dtype)
    for k, shift in enumerate(range(-SCALE_SHIFT, SCALE_SHIFT + 1)):
        if shift >= 0:
            out[:, k, shift:] = spectrum[:, : RADII - shift]
        else:
            out[:, k, :shift] = spectrum[:, -shift:]
    return out


def _turns(spectra: np.ndarray) -> np.ndarray:
    """The inverse real FFT (ANGLES long) of each column of ``spectra`` (its first FREQS
    frequencies; the rest are zero): one row per column.  OpenCV's row-wise DFT on the
    packed (CCS) layout: 0.34 ms a die against scipy's 0.43 here."""
    packed = np.zeros((spectra.shape[1], ANGLES), np.float32)
    packed[:, 0] = spectra[0].real  # the mean's imaginary part is nothing (as numpy's)
    packed[:, 1 : 2 * FREQS - 1 : 2] = spectra[1:].real.T
    packed[:, 2 : 2 * FREQS : 2] = spectra[1:].imag.T
    flags = cv2.DFT_INVERSE | cv2.DFT_ROWS | cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE
    return np.asarray(cv2.dft(packed, flags=flags))


def _circular_max(values: np.ndarray, reach: int) -> np.ndarray:
    """The largest of ``values`` within ``reach`` rows either way, the rows wrapping round."""
    padded = np.concatenate([values[-reach:], values, values[:reach]]).astype(np.float32)
    kernel = np.ones((2 * reach + 1, 1), np.uint8)
    return np.asarray(cv2.dilate(padded, kernel, borderType=cv2.BORDER_REPLICATE))[reach:-reach]


Placed = tuple[tuple[float, float], tuple[float, float]]  # a flat die's numeral, read two ways


class Posed(NamedTuple):
    """Where a taught view fit a die best: its pose (turn, scale), its square's shift (x, y,
    view pixels) and its score there."""

    at: tuple[float, float]
    shift: tuple[int, int]
    score: float


class Best(NamedTuple):
    """What :meth:`Bank.best` found for the closest faces."""

    ink: dict[int, float]  # each face's best score, the ink alone
    both: dict[int, float]  # the mean of its best view's ink and detail scores
    placed: dict[int, Placed]  # where a flat die showing that face has its numeral off the
    # body's middle (die sizes), from its best view's, turned and scaled as the query's
    # numeral is: read two ways (Bank._placed)
    posed: dict[int, Posed]  # each view compared at full resolution: where it fit best


class Bank:
    """Taught views of a die set's faces, ready to be compared with a die."""

    def __init__(self) -> None:
        self.values: list[int] = []
        self._spectra: list[np.ndarray] = []
        self._windows: list[np.ndarray] = []
        self._details: list[np.ndarray] = []
        self._coarse: list[np.ndarray] = []
        self._offsets: list[tuple[float, float]] = []  # each view's numeral off its body's middle
        self._squares: dict[str, Squares] = {}  # "coarse", "ink" and "detail"
        self._views_of: dict[int, np.ndarray] = {}
        self._grid = np.zeros((0, 0), np.intp)  # faces × their views (see best)
        self._stacked: np.ndarray | None = None
        self._common = (0.0, 0.0)  # the views' numerals' mean way off their bodies' middles

    def add(self, value: int, marks: Marks) -> None:
        self.values.append(value)
        self._spectra.append(np.conj(marks.spectrum))
        self._windows.append(window(marks.ink, marks.centre))
        self._details.append(window(marks.detail, marks.centre))
        self._coarse.append(window(marks.ink, marks.centre, 0.0, COARSE, WINDOW // COARSE))
        self._offsets.append(marks.offset)
        self._stacked = None

    def __len__(self) -> int:
        return len(self.values)

    @property
    def common(self) -> tuple[float, float]:
        """The taught views' numerals' mean way off their bodies' middles (die sizes): the
        part of each view's offset that every face shares (see :meth:`_placed`)."""
        if not self._offsets:
            return 0.0, 0.0
        mean = np.mean(np.array(self._offsets, np.float64), axis=0)
        return float(mean[0]), float(mean[1])

    def best(self, query: Marks, only: set[int] | None = None, near: Best | None = None) -> Best:
        """The closest taught faces' best normalised cross-correlations with ``query`` over
        their views, −1..1 (the REFINE closest, or the faces ``only``): of the ink alone,
        and the mean of the ink's and its detail's (see :meth:`_fine_scores`); and where
        each face's numeral would lie on the query were it that face, flat.  ``near``: what
        an earlier look at the same die found; the faces ``only`` are then compared where
        their views fit it (within a pixel), not searched for afresh."""
        if self._stacked is None:  # frequency × RADII × taught views
            self._stacked = np.ascontiguousarray(np.stack(self._spectra, axis=-1)[:FREQS])
            self._squares = {
                "coarse": Squares.of(self._coarse, SLACK // COARSE + 1, COARSE),
                "ink": Squares.of(self._windows, SLACK, 1),
                "detail": Squares.of(self._details, SLACK, 1),
            }
            self._views_of = {
                value: np.array([n for n, v in enumerate(self.values) if v == value])
                for value in dict.fromkeys(self.values)
            }
            self._common = self.common
            most = max(len(views) for views in self._views_of.values())
            self._grid = np.array([  # faces × views, len(values) (no view) past a face's own
                np.pad(views, (0, most - len(views)), constant_values=len(self.values))
                for views in self._views_of.values()
            ])  # fmt: skip
        if only is not None and near is not None:
            known = {n: fit for n, fit in near.posed.items() if self.values[n] in only}
            if {self.values[n] for n in known} == only:
                prior = np.full(len(self.values), -np.inf)
                prior[list(known)] = [fit.score for fit in known.values()]
                return self._fine(query, only, {n: [fit.at] for n, fit in known.items()},
                                  {n: fit.shift for n, fit in known.items()}, prior)  # fmt: skip
        count = len(self.values)
        chosen = (
            np.arange(count) if only is None
            else np.sort(np.concatenate([self._views_of[v] for v in only]))
        )  # fmt: skip
        stacked = self._stacked if only is None else self._stacked[:, :, chosen]
        # stage 1, per frequency: every scale of the query against every taught view at once
        spectra = np.matmul(_scaled(query.spectrum[:FREQS]), stacked)  # frequency × scale × view
        # scales × views × turns
        corr = _turns(spectra.reshape(FREQS, -1)).reshape(spectra.shape[1], len(chosen), ANGLES)
        by_turn = np.zeros((ANGLES, count), np.float32)
        by_turn[:, chosen] = corr.max(axis=0).T  # the best scale's, at each turn, per view
        # each view's few best turns (peaks at least 30° apart): the polar image often ranks
        # a blurred "2" or "5" turned half round, or a little off, above the right turn
        peaks = np.where(by_turn >= _circular_max(by_turn, ANGLES // 12), by_turn, -np.inf)
        turns = np.empty((TURNS, count), np.intp)  # TURNS × views
        for k in range(TURNS):  # the largest peaks one at a time: faster than a sort
            turns[k] = peaks.argmax(axis=0)
            peaks[turns[k], np.arange(count)] = -np.inf
        scale_at = np.zeros((TURNS, count), np.intp)  # the best scale at those turns
        scale_at[:, chosen] = corr[:, np.arange(len(chosen)), turns[:, chosen]].argmax(axis=0)

        # every view's TURNS poses (turn, scale), as arrays: views × TURNS × 2
        every = np.stack([_TURN[turns], _STEP ** (SCALE_SHIFT - scale_at)], -1)
        every = every.transpose(1, 0, 2)
        poses: dict[int, list[tuple[float, float]]]
        seed_of: dict[int, tuple[int, int]] = {}  # a view's best shift at its pose, where known
        if only is not None:  # the faces asked for, each view at each of its turns
            poses = {n: [(float(t), float(k)) for t, k in every[n]] for n in chosen.tolist()}
            prior = by_turn.max(axis=0)
        else:
            # stage 2, coarse: the POLAR_FACES likeliest faces' COARSE_VIEWS likeliest
            # views (by the polar image) at each of their turns, square against square at
            # half resolution, to find the closest faces and each view's best turn and shift
            kept = self._likeliest(by_turn.max(axis=0), POLAR_FACES, COARSE_VIEWS)
            kept = np.sort(kept[kept < count])
            tried = np.full((count, TURNS), -1.0)
            moved = np.zeros((count, TURNS, 2), np.intp)
            found, shifts = self._coarse_scores(
                query, every[kept].reshape(-1, 2), np.repeat(kept, TURNS)
            )
            tried[kept] = found.reshape(len(kept), TURNS)
            moved[kept] = shifts.reshape(len(kept), TURNS, 2)
            pick = tried.argmax(axis=1)
            prior = tried.max(axis=1)
            faces_of = list(self._views_of)
            only = {faces_of[face] for face in self._closest(prior)[:REFINE].tolist()}
            views_of_only = [n for v in only for n in self._views_of[v].tolist()]
            poses = {n: [(float(every[n, pick[n], 0]), float(every[n, pick[n], 1]))]
                     for n in views_of_only}  # fmt: skip
            # a coarse pixel is COARSE view pixels: the fine stage looks within one of there
            seed_of = {n: (int(moved[n, pick[n], 0]) * COARSE, int(moved[n, pick[n], 1]) * COARSE)
                       for n in views_of_only if tried[n, pick[n]] > -1.0}  # fmt: skip
        return self._fine(query, only, poses, seed_of, prior)

    def _fine(
        self,
        query: Marks,
        only: set[int],
        poses: dict[int, list[tuple[float, float]]],
        seed_of: dict[int, tuple[int, int]],
        prior: np.ndarray,
    ) -> Best:
        """Stage 2, fine, for the faces ``only``: their likeliest views (by ``prior``) of
        those with ``poses``, at those poses (within a pixel of the shift ``seed_of`` gives,
        where it does), all at once; then each face's best view nudged finer than the
        first stage's grid, and compared by its ink's detail at the pose found (both where
        the ink's best shift is)."""
        faces = list(only)
        likeliest = {
            value: views[np.argsort(-prior[views], kind="stable")[:FINE_VIEWS]].tolist()
            for value in faces
            for views in (np.array([n for n in self._views_of[value].tolist() if n in poses]),)
        }
        rows = [(n, at, seed_of.get(n)) for value in faces for n in likeliest[value]
                for at in poses[n]]  # fmt: skip
        scores = {n: -1.0 for n, _, _ in rows}
        best_at = {n: (0.0, 1.0) for n, _, _ in rows}
        best_shift = {n: (0, 0) for n, _, _ in rows}

        def compared(rows: list[tuple[int, tuple[float, float], tuple[int, int] | None]]) -> None:
            for seeded in (False, True):
                part = [row for row in rows if (row[2] is not None) == seeded]
                if not part:
                    continue
                seeds = np.array([row[2] for row in part]) if seeded else None
                found, shifts = self._fine_scores(query, [row[:2] for row in part], "ink", seeds)
                for (n, at, _), score, shift in zip(part, found.tolist(), shifts.tolist(),
                                                    strict=True):  # fmt: skip
                    if score > scores[n]:
                        scores[n], best_at[n], best_shift[n] = score, at, (shift[0], shift[1])

        compared(rows)
        best_view = {value: max(likeliest[value], key=lambda n: scores[n]) for value in faces}
        compared([
            (n, (best_at[n][0] + dturn, best_at[n][1] * dscale), best_shift[n])
            for n in best_view.values()
            for dturn, dscale in _NUDGES
        ])  # fmt: skip
        detail, _ = self._fine_scores(
            query, [(n, best_at[n]) for n in best_view.values()], "detail",
            np.array([best_shift[n] for n in best_view.values()]),
        )  # fmt: skip
        both = {
            value: (scores[n] + float(more)) / 2
            for (value, n), more in zip(best_view.items(), detail, strict=True)
        }
        ink = {value: max(scores[n] for n in likeliest[value]) for value in faces}
        placed = {value: self._placed(n, best_at[n]) for value, n in best_view.items()}
        posed = {n: Posed(best_at[n], best_shift[n], scores[n]) for n in scores}
        return Best(ink, both, placed, posed)

    def _placed(self, view: int, pose: tuple[float, float]) -> Placed:
        """Where a flat die showing ``view``'s face has its numeral off its body's middle,
        the die turned and scaled by ``pose`` (turn, scale: from the view's pixels to the
        query's, as in :func:`window`), read two ways.  The whole of the view's offset turns
        with the die: the face's own (a d5's numeral lies off its prism's middle), as on
        faces shown straight from above.  Or the mean of every view's stays where it is in
        the frame, the camera's (a camera at a slant shows each die's sides on the side
        towards it) or the tray's (where it cut the bodies' outlines), and the rest turns:
        faces shown through the camera that reads the throws.  The offsets alone do not
        tell which: faces all shown one way up share their own offset too."""
        (x, y), (turn, scale) = self._offsets[view], pose
        c, s = math.cos(turn) * scale, math.sin(turn) * scale
        mx, my = self._common
        own = (x - mx, y - my)
        return (
            (c * x - s * y, s * x + c * y),
            (c * own[0] - s * own[1] + mx, s * own[0] + c * own[1] + my),
        )

    def _fine_scores(
        self,
        query: Marks,
        rows: list[tuple[int, tuple[float, float]]],
        what: str,
        seeds: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Views against the query at full resolution, row by row: (view, (turn, scale)),
        the best over every shift the slack allows, or within a pixel of each row's
        ``seeds`` (x, y) where given; and those best shifts.  ``what`` is "ink" or "detail".
        The ink's score is mostly the numeral's blob: it put
        a rendered d20's "10", "16" and "18" within 0.01 of each other (0.99), so that many
        were left to "confirm"; the detail (strokes, the holes of "0", "6" and "8") tells
        them apart, but drops far when a pose is a little off, so it is only compared at
        the pose the ink found, and never used alone."""
        source = query.ink if what == "ink" else query.detail
        at = np.array([pose for _, pose in rows], np.float64).reshape(-1, 2)
        views = np.array([n for n, _ in rows], np.intp)
        if seeds is None:
            return self._squares[what].scores(source, query.centre, at, views)
        return self._squares[what].near(source, query.centre, at, views, seeds)

    def _coarse_scores(
        self, query: Marks, at: np.ndarray, views: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Taught views against the query at half resolution, row by row: view ``views[i]``
        at the pose ``at[i]`` (turn, scale); and each row's best shift (x, y, half-resolution
        pixels)."""
        return self._squares["coarse"].scores(query.ink, query.centre, at, views)

    def _closest(self, scores: np.ndarray) -> np.ndarray:
        """The faces (rows of the grid of views) by their best view's ``scores``, best first
        (ties in the order taught)."""
        return np.argsort(-np.append(scores, -np.inf)[self._grid].max(axis=1), kind="stable")

    def _likeliest(self, scores: np.ndarray, faces: int, views: int) -> np.ndarray:
        """The ``views`` best-scored views of each of the ``faces`` closest faces (by
        ``scores``, ties in the order taught): faces × views, len(values) where a face has
        fewer views."""
        rows = self._grid[self._closest(scores)[:faces]]
        padded = np.append(scores, -np.inf)[rows]
        return np.take_along_axis(rows, np.argsort(-padded, axis=1, kind="stable")[:, :views], 1)
