"""Teach mode for numbered dice (d5, d10, d20, numeral d6): a die set learnt from its owner.

The owner shows each face once (or hands over labelled photos); each face is
kept as its crop.  Reading a die takes the square around the finder's box,
twice the box's side, finds the die's body in it (:mod:`vision.teach_body`: a
find with no solid die body, such as a tray edge, matches nothing; where the
square runs past the frame it shows the tray's colour, so the outline of a die
cut by the frame's edge ends on that edge, and the body's outline, not the
finder's box, tells the reader whether the die is whole) and
compares the ink on it with every taught face whatever its turn and size
(:mod:`vision.teach_marks`); each taught face is also kept squashed along x
and along y, as a camera a little off overhead sees it.  The best face's score
against the next one's says how sure the answer is: how many times as far from
a perfect match the next face is.  A sure answer is checked once more on a
closer cut of the same die, so that an answer a pixel's difference would
change is not sure.  A die
whose body is another colour than the taught faces' is someone else's die; a
die whose numeral lies far from where it lies on the taught face (off the body's middle,
turned as the die's numeral is) may be cocked.

A die set lives in a folder: ``dieset.json`` (name, die type, faces, and the
margin its crops were cut with) and one PNG crop per taught face, so it can be
copied, inspected and re-taught.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from dicebridge.files import write_whole
from mechanics.reading import faces_of
from vision.colour import colourless
from vision.crops import crop_die
from vision.die_shape import outline_shape, shape_gap
from vision.felt import DARK_FELT
from vision.pixels import FrameError, as_bgr8, encode_image, read_image
from vision.teach_body import MARGIN, Body, body_colour, colour_gap, locate
from vision.teach_marks import SIDE, VARIANTS, Bank, Marks, Placed, ink_polarity

__all__ = ["DIE_TYPES", "MARGIN", "SIDE", "DieSet", "DieSetError", "FaceMatch", "locate"]

FACE_NAME = r"-?[0-9]+"  # a face's value as people write it (not "²", "٣" or "--3")
FACE_FILE = rf"face{FACE_NAME}-[0-9]+(-[0-9a-f]{{10}})?\.png"  # a face's picture in a set's folder
REGION = 128  # the square searched for the die's body, in pixels
ROOMY = 1.2  # a crop cut wider than this many times its box has room around the die to find
# its body in (an old set's crops are the box alone: margin 1.0)
MIN_SCORE = 0.5  # below: not this die set's face at all
ENLARGE = 1.6  # a box whose die did not fit its square is tried again this much larger
FOREIGN = 0.8  # a body this far in colour from every taught face's is another die
UNTOLD_GAP = 0.3  # a die read from the finder's box alone (no outline told from the tray) is
# the tray's colour, so the tray under its box must be the set's colour to this much: where
# the set stands apart from the tray, such a find is a speck (docs/vision.md, "Specks read
# as dice of the tray's colour"): rendered dice on felts of their colour 0.000-0.026
# (median 0.003; two boxes at the frame's edge, each across two dice, 0.69 and 0.72), specks
# on burks' black tower floor under its pink, red and white dice 0.49-0.79
CHECK_FROM = 0.6  # answers at least this sure are checked on a closer cut ...
CHECK_TO = 1.0  # ... unless this sure (the next face misses 2.4 times as much or more)
CLOSER = 0.9  # ... of this share of the square
LOPSIDED = 1.5  # light ink outweighing dark this many times (or dark light) is all the ink
MIN_RATIO = 1.55  # the next face must miss by this many times as much as the best, to be sure
UNTOLD = 0.6  # the most sure a die read from the finder's box alone may be (the reader's
# threshold is 0.7) ... unless it reads at UNTOLD_SURE or more.  Its body was not told from
# the tray, so its marks' size is a guess (UNTOLD_SIZE) and a cocked die's numeral is not
# seen off the middle: the stricter bar.  Rendered dice on a felt of their colour (d5, d10,
# d20, nine looks, 1,132 lying flat): 889 sure and right at 0.9, none wrong; 31 of 304
# cocked ones sure (the face most up), 80 at 0.7 (docs/vision.md, "Tray colours")
UNTOLD_SURE = 0.9
UNTOLD_SIZE = 0.65  # the die's size where the finder's box stands in for its body, in box
# sides: a body's root area is 0.72-0.78 of the finder's box (renders and burks, medians),
# and taken smaller the view leaves out more of the felt and the body's rim.  Sure and right
# at 0.9 of those 1,132 dice: 459 at 1.0 (2 wrong), 750 at 0.8, 889 at 0.65, 881 at 0.6
OFF_TAUGHT = 0.15  # die sizes: a numeral this far from where it lies on its taught face (off
# the body's middle, turned and scaled as the die's numeral is) may be on a face that does not
# lie flat (a cocked die): asked to be confirmed (see docs/vision.md)
LEANS = ("d5", "d10", "d20")  # not the numeral d6: no rendered ones to measure the rule on
ASIDE = {"d10": 0.15, "d20": 0.13}  # die sizes: taught numerals that lie, on the mean, this
# far one way off their bodies' middles were shown through a camera at a slant of 0.25-0.3 or
# more, or on a tray that cut their outlines (renders: d20s 0.03-0.07 shown through a camera
# at 0.1, 0.08-0.12 at 0.2, 0.14-0.17 at 0.3, white ones cut by a light grey tray 0.18; d10s
# 0.04-0.11, 0.11-0.13, 0.16-0.18, 0.2; burks' real d20 0.056, d10 0.042).  Not d5s: their
# numeral lies 0.12 off their prism's middle, so the mean depends on how they were turned
ASIDE_FACES = 4  # ... judged from this many taught faces with an outline
ASIDE_SURE = 0.9  # ... and its answers are sure only from this (the reader's bar is 0.7):
# taught and read through a camera at a slant of 0.3, d20s right / wrong 201 / 5 at 0.7,
# 136 / 1 at 0.9 (the one at 1.0); d10s 244 / 2, 217 / 1 (docs/vision.md)
TOUCH = 2  # region pixels: a body's outline this close to the frame's edge runs up to it
DIE_TYPES = ("d5", "d6_numeral", "d10", "d20")


class DieSetError(ValueError):
    """A die set that cannot be taught or loaded; the message says why."""


def reading_die(die: str) -> str:
    """The die type a taught die's readings carry (a numeral d6 is a d6)."""
    return "d6" if die == "d6_numeral" else die


@dataclass(frozen=True)
class FaceMatch:
    value: int
    score: float  # the best face's normalised cross-correlation, −1..1 (0: no die body seen)
    lead: float  # over the best other face
    confidence: float
    seen: bool = True  # False: no die body in the crop (a tray edge, a shadow): not a die
    outline: tuple[float, float, float, float] | None = None  # the body's box (x0, y0, x1, y1):
    # in the REGION-px square from match(), in the frame's pixels from read()
    cut: bool = False  # from read(): the body runs up to the frame's edge
    foreign: bool = False  # a die body of another colour than every taught face's
    misshapen: bool = False  # its outline is no taught face's shape (vision.die_shape): a die
    # of another type, whose numerals read as the set's would (from read(): a die cut by the
    # frame's edge is not misshapen, it is cut)
    runner_up: int | None = None  # the next closest face (offered beside a guess to confirm)
    untold: bool = False  # no body told apart from the tray: read from the box, sure only
    # from UNTOLD_SURE
    leaning: bool = False  # the numeral lies OFF_TAUGHT or more from where a flat die has it
    lean: tuple[float, float] | None = None  # how far (x, y, die sizes) it lies from there;
    # None where that is not measured (see match: a middle that is a guess; numeral d6s)
    leans: tuple[tuple[float, float], tuple[float, float]] | None = None  # the lean by each
    # reading of the taught offsets (teach_marks.Bank._placed); ``lean`` is the nearer, until
    # the reader takes one reading for the whole frame (numbered_finds.taught_way)
    askew: bool = False  # held below the reader's bar because the set was taught askew
    # (DieSet.aside_note): its answer would otherwise have been over UNTOLD
    shape: tuple[float, ...] | None = None  # the body's outline shape (vision.die_shape),
    # where the outline is the die's own (_shape_of): compared with other types' sets


def _confidence(score: float, second: float) -> float:
    """How sure: how many times as far from a perfect match the next face is as the best
    one, mapped so that MIN_RATIO is the reader's threshold (0.7)."""
    if score < MIN_SCORE:
        return 0.0
    ratio = (1.0 - second) / max(1.0 - score, 1e-3)
    return float(np.clip(0.5 + 0.2 * (ratio - 1.0) / (MIN_RATIO - 1.0), 0.0, 1.0))


def may_be_cocked(
    lean: tuple[float, float] | None, slant: tuple[float, float] = (0.0, 0.0)
) -> bool:
    """Whether a die whose numeral lies ``lean`` from where a flat die has it may be cocked,
    where every flat die's numeral is moved by ``slant`` (a camera at a slant)."""
    return lean is not None and math.hypot(lean[0] - slant[0], lean[1] - slant[1]) > OFF_TAUGHT


def _leans(
    offset: tuple[float, float], placed: Placed
) -> tuple[tuple[float, float], tuple[float, float]]:
    """How far a numeral lying ``offset`` off its body's middle lies from where a flat die
    has it, by each of the two readings of the taught offsets (``placed``; see
    teach_marks.Bank._placed)."""
    (ax, ay), (bx, by) = placed
    return (offset[0] - ax, offset[1] - ay), (offset[0] - bx, offset[1] - by)


def _ranked(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(scores.items(), key=lambda kv: -kv[1])


def _surest(
    ink: dict[int, float], both: dict[int, float]
) -> tuple[int, float, float, float, int | None]:
    """The answer (value, score, the next face's score, confidence, the next face) from the
    ink's scores, or, where the ink's detail leads to the same face more surely, from the
    two's (the detail alone never changes an answer: it drops far when a pose is a little
    off)."""
    answers = []
    for scores in (ink, both):
        ranked = _ranked(scores)
        value, score = ranked[0]
        second, runner = (ranked[1][1], ranked[1][0]) if len(ranked) > 1 else (0.0, None)
        answers.append((value, score, second, _confidence(score, second), runner))
    plain, detailed = answers
    return detailed if detailed[0] == plain[0] and detailed[3] > plain[3] else plain


def _geometry(box: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """How region() maps its square on the frame: frame pixels per region pixel, and the
    frame position of the square's top left corner (x, y)."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0) * MARGIN
    return side / REGION, (x0 + x1 - side) / 2, (y0 + y1 - side) / 2


def _in_frame(box: tuple[float, float, float, float], w: int, h: int) -> tuple[int, int, int, int]:
    """The part of region()'s square (u0, v0, u1, v1 in its pixels) that lies in a frame
    ``w`` × ``h``."""
    k, ox, oy = _geometry(box)
    u0, v0 = max(0, math.ceil(-ox / k)), max(0, math.ceil(-oy / k))
    u1 = min(REGION, math.floor((w - 1 - ox) / k) + 1)
    v1 = min(REGION, math.floor((h - 1 - oy) / k) + 1)
    return u0, v0, u1, v1


SQUASH = (0.9,)  # a camera off overhead foreshortens a face along one direction


def _foreshortened(region: np.ndarray, body: Body) -> list[tuple[np.ndarray, Body]]:
    """The taught view, and the same squashed along x and along y by each SQUASH."""
    views = [(region, body)]
    h, w = region.shape[:2]
    for k in SQUASH:
        for sx, sy in ((k, 1.0), (1.0, k)):
            m = np.array([[sx, 0, (1 - sx) * w / 2], [0, sy, (1 - sy) * h / 2]], np.float32)
            moved = cv2.warpAffine(region, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
            mask = None if body.mask is None else cv2.warpAffine(body.mask, m, (w, h))
            x, y = sx * body.x + (1 - sx) * w / 2, sy * body.y + (1 - sy) * h / 2
            views.append((moved, Body(x, y, body.size * float(np.sqrt(sx * sy)), mask)))
    return views


def _shape_of(body: Body) -> np.ndarray | None:
    """``body``'s outline shape (vision.die_shape), where the outline is the die's own: not a
    guess (a body carved out of a larger one, or none told from the tray); else None.  A body
    cut apart from a touching die at a waist is judged too: its outline is mostly its own,
    and of 144 rendered d10s and d20s read as d5s, 12 such were read for sure without it."""
    if body.mask is None or body.carved or body.untold:
        return None
    return outline_shape(body.mask)


def face_shape(crop: np.ndarray, margin: float = MARGIN) -> np.ndarray | None:
    """The outline shape of the die in ``crop`` (cut ``margin`` times its box, as a set keeps
    a taught face), found as teaching finds it; None where no outline of its own is seen."""
    region = cv2.resize(crop, (REGION, REGION), interpolation=cv2.INTER_AREA)
    body = locate(region, margin) if margin > ROOMY else None
    return None if body is None else _shape_of(body)


def _off_shape(shape: np.ndarray | None, shapes: np.ndarray) -> bool:
    """Whether a body's outline ``shape`` (:func:`_shape_of`) is none among ``shapes``
    (taught faces'): a d5 among d20s of its colour.  Not told where the outline is not the
    die's own (None) or where no taught face's is known."""
    return shape is not None and len(shapes) > 0 and shape_gap(shape, shapes) > 1.0


def _shapes_of(taught: list[_Taught]) -> np.ndarray:
    """The outline shapes of the ``taught`` faces whose outline is the die's own (an old
    set's crops, the box alone, have none)."""
    return np.array([s for t in taught if (s := _shape_of(t.body)) is not None])


@dataclass(frozen=True)
class _Taught:
    """One taught crop, seen: its value, region and the die's body in it."""

    value: int
    region: np.ndarray
    body: Body


def checked_face(die: str, value: object) -> int:
    """``value`` as a face of the die type ``die``; DieSetError where it is none (a float or
    a bool too: the set is kept on disk by its faces' whole numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise DieSetError(f"a face is a whole number, not {value!r}")
    if int(value) not in faces_of(reading_die(die)):
        tip = " (its 10 is taught as 0)" if die == "d10" and value == 10 else ""
        raise DieSetError(f"a {die} has no face {value}{tip}")
    return int(value)


def _crop(value: int, crop: object) -> np.ndarray:
    """A taught face's crop as 8-bit BGR (grey, BGRA and 16-bit converted, as frames are);
    DieSetError where it is no picture: one bad crop would spoil every reading of the set."""
    try:
        return as_bgr8(crop, f"the crop of face {value}")
    except FrameError as err:
        raise DieSetError(str(err)) from None


@dataclass
class DieSet:
    name: str
    die: str  # d5, d6_numeral, d10 or d20
    crops: dict[int, list[np.ndarray]] = field(default_factory=dict)
    margin: float = MARGIN  # the taught crops' side over their finder box's side

    def __post_init__(self) -> None:
        if self.die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {self.die!r}")
        self.crops = {checked_face(self.die, v): [_crop(v, c) for c in crops]
                      for v, crops in self.crops.items()}  # fmt: skip
        self._taught = [self._seen(v, crop) for v, crops in self.crops.items() for crop in crops]
        self._bank: Bank | None = None  # built when first read (after all the teaching)
        self._dark: bool | None = None  # worked out when first asked (dark)
        self._polarity = 0
        self._colours = np.zeros((0, 2))
        self._shapes = np.zeros((0, 0))
        self._aside_by: float | None = None  # how far, on the mean, the taught numerals lie
        # one way off their bodies' middles, where ASIDE or more and told (d10s and d20s, a
        # set's own crops, ASIDE_FACES outlines); None otherwise: worked out with the bank

    @property
    def reading_die(self) -> str:
        """The die type its readings carry (a numeral d6 is a d6)."""
        return reading_die(self.die)

    @property
    def shapes(self) -> np.ndarray:
        """The outline shapes (vision.die_shape) of the taught faces whose outline is the
        die's own, one row each (none for an old set's crops)."""
        self._ready()
        return self._shapes

    @property
    def dark(self) -> bool:
        """Whether the set's dice are as dark as a dark felt (black dice): the median grey of
        its taught bodies under DARK_FELT.  On a dark felt the first finder boxes such a
        die's numeral alone, the felt finder the die (vision/finder.py)."""
        if self._dark is None:
            greys = [
                float(np.median(cv2.cvtColor(t.region, cv2.COLOR_BGR2GRAY)[t.body.mask > 0]))
                for t in self._taught
                if t.body.mask is not None and t.body.mask.any()
            ]
            self._dark = bool(greys) and float(np.median(greys)) < DARK_FELT
        return self._dark

    def _seen(self, value: int, crop: np.ndarray) -> _Taught:
        region = cv2.resize(crop, (REGION, REGION), interpolation=cv2.INTER_AREA)
        body = locate(region, self.margin) if self.margin > ROOMY else None
        if body is None:  # an old die set's crop (the box alone) or no body seen: the whole crop
            body = Body(REGION / 2, REGION / 2, REGION / self.margin)
        return _Taught(value, region, body)

    def _ready(self) -> Bank:
        """The taught faces' views, made once the set's ink is known to be light or dark."""
        if self._bank is None:
            light = dark = 0.0
            for taught in self._taught:
                more_light, more_dark = ink_polarity(taught.region, taught.body)
                light, dark = light + more_light, dark + more_dark
            # one side clearly outweighing the other: only that side is ink
            self._polarity = 1 if light > LOPSIDED * dark else -1 if dark > LOPSIDED * light else 0
            self._bank = Bank()
            for taught in self._taught:
                for region, body in _foreshortened(taught.region, taught.body):
                    for blur in VARIANTS:
                        marks = Marks.of(region, body, self._polarity, blur)
                        self._bank.add(taught.value, marks)
            self._colours = np.array([body_colour(t.region, t.body) for t in self._taught])
            self._shapes = _shapes_of(self._taught)
            outlined = sum(t.body.mask is not None for t in self._taught)
            aside = math.hypot(*self._bank.common)
            told = self.die in ASIDE and self.margin > ROOMY and outlined >= ASIDE_FACES
            self._aside_by = aside if told and aside >= ASIDE[self.die] else None
        return self._bank

    def teach(self, value: int, crop: np.ndarray) -> str:
        """Teach face ``value`` from ``crop``: the square around the die's finder box,
        ``self.margin`` times its side (as :meth:`region` cuts it).  Returns what a person
        should check, "" where nothing: a die whose colour or outline is not that of the
        faces taught before may be another die, shown by mistake (:meth:`unlike`)."""
        value, crop = checked_face(self.die, value), _crop(value, crop)
        seen = self._seen(value, crop)
        unlike = self.unlike(seen)
        self.crops.setdefault(value, []).append(crop)
        self._taught.append(seen)
        self._bank = None
        self._dark = None
        if not unlike:
            return ""
        return (f"face {value} is taught, but {unlike}: if it is another die, forget face "
                f"{value} and show it again with a die of this set (if the faces before are "
                "of another die, forget those)")  # fmt: skip

    def unlike(self, seen: _Taught) -> str:
        """How the die ``seen`` differs from the faces taught so far, "" where it does not:
        its body's colour, or its outline's shape, is not theirs (as the reader would call it
        "not of the set" or "not the set's shape").  One die of another set, taught by mistake,
        widens what the set takes for its own colour and shape."""
        taught = [t for t in self._taught if t.body.mask is not None]
        how = self._unlike_how(seen)
        plural = "s" if len(taught) > 1 else ""
        return f"{how} the {len(taught)} face{plural} taught before" if how else ""

    def unlike_crop(self, crop: np.ndarray) -> str:
        """How the die in ``crop`` (cut as :meth:`region` cuts one) differs from the faces
        taught so far: "its colour is not that of", "its outline is not the shape of", or ""
        where it does not (as :meth:`unlike`, for a die not taught)."""
        return self._unlike_how(self._seen(0, crop))

    def _unlike_how(self, seen: _Taught) -> str:
        taught = [t for t in self._taught if t.body.mask is not None]
        if seen.body.mask is None or not taught:
            return ""
        colours = np.array([body_colour(t.region, t.body) for t in taught])
        if colour_gap(body_colour(seen.region, seen.body), colours) > FOREIGN:
            return "its colour is not that of"
        if _off_shape(_shape_of(seen.body), _shapes_of(taught)):
            return "its outline is not the shape of"
        return ""

    def aside_note(self) -> str:
        """What to check where the taught faces' numerals lie, on the mean, ASIDE or more one
        way off their bodies' middles ("" where they do not, or where that is not told): the
        camera looked at the tray at a slant, or the tray cut the dice's outlines.  Flat dice
        are still read (the reader takes that part for the camera's: teach_marks.Bank._placed),
        but misread more often, so such a set's answers are sure only from ASIDE_SURE."""
        self._ready()  # works out _aside_by
        aside = self._aside_by
        if aside is None:
            return ""
        return (
            f"the numerals of the faces taught lie {aside:.2f} of a die one way off their "
            "dice's middles (on faces shown straight from above, on a tray of another colour "
            "than the dice, under 0.07): the camera looks at the tray at a slant, or the tray "
            "is so near the dice's colour that it cuts their outlines. Dice are then misread "
            "more often, and more are left to confirm: mount the camera straight over the "
            "tray, lay a tray or cloth of another colour than the dice, and teach the faces "
            "again"
        )

    def older_note(self) -> str:
        """Why no face can be added to the set ("" where one can): it was taught by an older
        version, whose crops were cut at another margin than MARGIN (before, the finder's box
        alone: 1.0).  A face shown now is cut at MARGIN, but the set takes every crop as cut
        at its own margin, so that face would never be read.  The set is still read with."""
        if math.isclose(self.margin, MARGIN):
            return ""
        return (f"this set was taught by an older version (its faces' pictures are cut at "
                f"{self.margin:g} times the die's box, faces are now cut at {MARGIN:g}), so no "
                "face can be added to it: teach it again into a new set")  # fmt: skip

    def forget(self, value: int) -> None:
        """Forget every photo of face ``value`` (one shown as another face by mistake), so
        that it can be shown again."""
        if value not in self.crops:
            taught = " ".join(map(str, sorted(self.crops))) or "none"
            raise DieSetError(f"face {value} of {self.name!r} is not taught (taught: {taught})")
        del self.crops[value]
        self._taught = [t for t in self._taught if t.value != value]
        self._bank = None
        self._dark = None

    def missing(self) -> list[int]:
        return [v for v in faces_of(self.reading_die) if v not in self.crops]

    def shown_once(self) -> list[int]:
        """Faces taught from one photo: a second, the die turned, leaves fewer dice to
        confirm (docs/vision.md, "Show each face twice, turned")."""
        return [v for v in faces_of(self.reading_die) if len(self.crops.get(v, ())) == 1]

    @staticmethod
    def region(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
        """The square searched for a die found at ``box``: MARGIN times its side, REGION px.
        Where it runs past the frame it shows the tray's colour (the median of its rim in
        the frame): a die cut by the frame's edge then ends there, where the edge cuts it,
        not smeared on to the square's border."""
        region = crop_die(image, box, REGION, margin=MARGIN)
        u0, v0, u1, v1 = _in_frame(box, image.shape[1], image.shape[0])
        if (u0, v0, u1, v1) == (0, 0, REGION, REGION) or u1 <= u0 or v1 <= v0:
            return region
        part = region[v0:v1, u0:u1]
        rim = np.concatenate([part[0], part[-1], part[:, 0], part[:, -1]])
        filled = np.empty_like(region)
        filled[:] = np.median(rim, axis=0).astype(region.dtype)
        filled[v0:v1, u0:u1] = part
        return filled

    def read(
        self, image: np.ndarray, box: tuple[float, float, float, float], split: bool = False
    ) -> FaceMatch:
        """The face of the die the finder placed at ``box`` in ``image``; a box much smaller
        than the die (its body runs out of the square) is tried again, larger.  Says whether
        the die's body runs up to the frame's edge (cut by it).  ``split``: the body under
        the box is shared out between its cores first (see teach_body.locate)."""
        image = as_bgr8(image)
        if not all(math.isfinite(v) for v in box):
            raise FrameError(f"a die's box must be four finite numbers, not {box}")
        region = self.region(image, box)
        match = self.match(region, split=split)
        if not match.seen:
            x0, y0, x1, y1 = box
            cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, ENLARGE * max(x1 - x0, y1 - y0) / 2
            larger = (cx - half, cy - half, cx + half, cy + half)
            match = self.match(self.region(image, larger), split=split)
            if match.seen:
                box = larger
            else:  # no body either way: perhaps a die of the tray's own colour
                match = self.match(region, untold=True)
        if match.outline is None:
            return match
        a, b, c, d = match.outline
        u0, v0, u1, v1 = _in_frame(box, image.shape[1], image.shape[0])
        # the outline, found at half resolution and smoothed, stops short of where the
        # die does by a pixel or two of the region (however many frame pixels that is)
        cut = (
            (u0 > 0 and a <= u0 + TOUCH)
            or (v0 > 0 and b <= v0 + TOUCH)
            or (u1 < REGION and c >= u1 - TOUCH)
            or (v1 < REGION and d >= v1 - TOUCH)
        )
        k, ox, oy = _geometry(box)  # from the region's pixels back to the frame's
        outline = (ox + a * k, oy + b * k, ox + c * k, oy + d * k)
        # a die cut by the frame's edge has lost its shape, not changed it
        return replace(match, outline=outline, cut=cut, misshapen=match.misshapen and not cut)

    def match(
        self, crop: np.ndarray, margin: float = MARGIN, untold: bool = False, split: bool = False
    ) -> FaceMatch:
        """The face of the die in ``crop``, a square around its box ``margin`` times its side.
        ``untold``: where no body stands apart from the tray, the box stands in for it;
        ``split``: the body is shared out between its cores first (teach_body.locate)."""
        if not self._taught:
            raise DieSetError(f"die set {self.name!r} has no taught faces yet")
        bank = self._ready()
        crop = as_bgr8(crop, "a die's crop")
        region = cv2.resize(crop, (REGION, REGION), interpolation=cv2.INTER_AREA)
        boxed = Body(REGION / 2, REGION / 2, REGION / margin)  # the finder's box as the body
        body = locate(region, margin, split) if margin > ROOMY else boxed
        if body is None and untold:
            # a die of the tray's own colour (a white die on a white tray) has no outline
            # apart from it: the finder's box stands in, it counts as a die only where its
            # marks match a taught face, and it is sure only where they match very well
            body = replace(boxed, size=boxed.size * UNTOLD_SIZE, carved=True, untold=True)
        if body is None:
            return FaceMatch(bank.values[0], 0.0, 0.0, 0.0, seen=False)
        outline = body.outline()
        # a picture with no colour at all (a grey camera) cannot tell a die's colour: the
        # set's own dice, taught in colour, would all be someone else's
        grey = colourless(region)
        gap = 0.0 if grey else colour_gap(body_colour(region, body), self._colours)
        if gap > FOREIGN or (body.untold and gap > UNTOLD_GAP):  # someone else's die, or none
            seen = not body.carved
            return FaceMatch(bank.values[0], 0.0, 0.0, 0.0, seen, outline, foreign=seen)
        shape = _shape_of(body)
        misshapen = _off_shape(shape, self._shapes)
        query = Marks.of(region, body, self._polarity)
        found = bank.best(query)
        ink, both = found.ink, found.both
        if CHECK_FROM <= _surest(ink, both)[3] < CHECK_TO and len(ink) > 1:
            # a sure answer is checked on the die cut a little closer (another resampling,
            # another body outline): the leading faces' scores are averaged over both, so
            # that a die read one way or another by a pixel's difference is not sure
            side = round(REGION * CLOSER)
            o = (REGION - side) // 2
            closer = cv2.resize(region[o : o + side, o : o + side], (REGION, REGION))
            again = locate(closer, margin * CLOSER, split)
            if again is not None:
                leading = {v for scores in (ink, both) for v, _ in _ranked(scores)[:2]}
                # the die has not moved: the leading faces' views are compared where they
                # fit it before, within a pixel, not searched for afresh (docs/vision.md)
                more = bank.best(Marks.of(closer, again, self._polarity), leading, found)
                ink = {v: (s + more.ink[v]) / 2 if v in more.ink else s for v, s in ink.items()}
                both = {v: (s + more.both[v]) / 2 if v in more.both else s for v, s in both.items()}
        value, score, second, sure, runner = _surest(ink, both)
        seen = sure > 0 or not body.carved  # a carved body that matches no face is no die
        if body.untold and (sure < UNTOLD_SURE or grey):
            # (in grey, no colour tells an untold body from a speck of the tray: never sure)
            sure = min(sure, UNTOLD)
        askew = self._aside_by is not None and UNTOLD < sure < ASIDE_SURE
        if askew:
            sure = UNTOLD  # taught askew: misread more often (see aside_note)
        # not measured where a middle is a guess: a carved or untold body's, or a taught face
        # of an old set (its crop's middle, the finder's box, not its body's: see _seen)
        measured = self.die in LEANS and self.margin > ROOMY and not (body.carved or body.untold)
        leans = _leans(query.offset, found.placed[value]) if measured else None
        # judged alone, the die takes the kinder reading; the reader takes one for the frame
        lean = None if leans is None else min(leans, key=lambda off: math.hypot(*off))
        return FaceMatch(
            value, score, score - second, sure, seen, outline, runner_up=runner,
            untold=body.untold, leaning=may_be_cocked(lean), lean=lean, leans=leans,
            misshapen=misshapen, askew=askew,
            shape=None if shape is None else tuple(float(v) for v in shape),
        )  # fmt: skip

    # --- on disk ------------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        """Keep the set in ``folder``, whole or not at all: each face's picture is named by
        its content, so a picture of the set kept before is never written over, and
        dieset.json, which names them, is replaced last.  A full disk or a stop half way
        leaves the set as it was (OSError says why); the pictures no longer named go."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        faces: dict[str, list[str]] = {}
        for value, crops in sorted(self.crops.items()):
            for k, crop in enumerate(crops):
                data = encode_image(crop)
                name = f"face{value}-{k}-{hashlib.sha256(data).hexdigest()[:10]}.png"
                if not (folder / name).is_file():
                    write_whole(folder / name, data)
                faces.setdefault(str(value), []).append(name)
        meta = {"name": self.name, "die": self.die, "faces": faces, "margin": self.margin}
        write_whole(folder / "dieset.json", (json.dumps(meta, indent=1) + "\n").encode())
        kept = {name for names in faces.values() for name in names}
        for old in folder.glob("face*-*.png"):  # a face forgotten, or a set taught anew
            if re.fullmatch(FACE_FILE, old.name) and old.name not in kept:
                old.unlink(missing_ok=True)

    @classmethod
    def load(cls, folder: Path) -> DieSet:
        folder = Path(folder)
        if not (folder / "dieset.json").is_file():
            raise DieSetError(f"{folder} holds no die set (no dieset.json: `vision teach` "
                              "writes one)")  # fmt: skip
        try:
            meta = json.loads((folder / "dieset.json").read_text(encoding="utf-8"))
            crops: dict[int, list[np.ndarray]] = {}
            for value, names in meta["faces"].items():
                for name in names:
                    try:
                        crop = read_image(folder / name, f"the taught face {value}")
                    except FrameError as err:
                        raise DieSetError(f"die set {folder}: {err}") from None
                    crops.setdefault(int(value), []).append(crop)
            margin = float(meta.get("margin", 1.0))  # older sets kept the box alone
            if not 1.0 <= margin <= 5.0:  # NaN too: every die would be "not of the set"
                raise DieSetError(f"{folder / 'dieset.json'}: margin {margin} is not 1 to 5 "
                                  "(the crops' side over the die's box)")  # fmt: skip
            return cls(meta["name"], meta["die"], crops, margin)
        except KeyError as err:
            raise DieSetError(f"{folder / 'dieset.json'} lacks {err} (written by `vision teach`)"
                              ) from None  # fmt: skip
        except (OSError, ValueError, AttributeError, TypeError) as err:
            if isinstance(err, DieSetError):
                raise
            raise DieSetError(f"cannot load the die set in {folder}: {err}") from None
