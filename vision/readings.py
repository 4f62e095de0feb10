"""What the camera reader gives: a die's reading (sure, or uncertain with why and what to
do) and a frame's, with the geometry of a reading's box against the frame.

Kept apart from vision/reader.py (which makes them) so that what only uses readings (the
ledger's crops, the evaluation, the blob-counter baseline) needs none of the networks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from mechanics.reading import Reading

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in frame pixels


class ReadDie(Protocol):
    """What the checks on a frame's readings (vision.debris, vision.split_pips) need of
    each: a DieReading has it (tests may pass any object that does)."""

    @property
    def die(self) -> str: ...
    @property
    def value(self) -> int | None: ...
    @property
    def box(self) -> tuple[int, int, int, int]: ...
    @property
    def uncertain(self) -> bool: ...


EDGE = 2.0  # a box this close to the frame's edge is cut by it ...
CUT_CORE = 0.9  # ... once shrunk to this share of its side around its centre: the finder's
# box is up to a third larger than the die, and a die lying whole by the tray's wall is
# no cut die (rendered dice: 5 of 52 near the edge called cut, was 11; 253 of 253 cut found)
# (pip dice; a numbered die's own outline decides, DieSet.read)


@dataclass(frozen=True)
class DieReading:
    die: str
    value: int | None  # the best guess (None when there is none)
    confidence: float
    box: tuple[int, int, int, int]
    crop: np.ndarray = field(repr=False, compare=False)
    uncertain: bool = False
    advice: str = ""
    colour: str = ""
    problem: str = ""  # "cocked", "impossible pips", "cut by the edge", "not of the set",
    # "blurred", "the tray's colour", "may be cocked", "numeral blurred", "numbered die",
    # "numbered die, no set", "no outline", "speck-sized", "one die or two", "a pip of
    # another die", "on another die", "the picture is dim", "read otherwise wider", "half
    # out of the tray" (vision.tray_area): why it is uncertain (vision.advice)
    runner_up: int | None = None  # with "confirm: V or R?": the next likeliest face, R
    lean: tuple[float, float] | None = None  # a numbered die read at least LIKELY, whole: how
    # far its numeral lies from where a flat die has it (die sizes; see camera_slant)

    def to_reading(self, source: str = "camera", identity: str | None = None) -> Reading | None:
        """The mechanics' reading (``identity``: the registered die it is, where known), or
        None for an uncertain die (a person must decide)."""
        if self.uncertain or self.value is None:
            return None
        return Reading(self.die, self.value, round(self.confidence, 4), source, identity)

    def to_dict(self) -> dict[str, object]:
        return {
            "die": self.die, "value": self.value, "confidence": round(self.confidence, 4),
            "box": list(self.box), "uncertain": self.uncertain, "advice": self.advice,
            "colour": self.colour, "problem": self.problem, "runner_up": self.runner_up,
        }  # fmt: skip


@dataclass(frozen=True)
class ThrowReading:
    dice: tuple[DieReading, ...]
    ms: float
    problem: str = ""  # "no dice seen" and the like: the whole frame needs attention
    beyond: tuple[tuple[int, int, int, int], ...] = ()  # the boxes of dice lying beyond the
    # tray's marked area, left out of the throw (vision.tray_area.within): shown, not read

    @property
    def certain(self) -> tuple[DieReading, ...]:
        return tuple(d for d in self.dice if not d.uncertain)

    @property
    def uncertain(self) -> tuple[DieReading, ...]:
        return tuple(d for d in self.dice if d.uncertain)


def int_box(box: tuple[float, float, float, float], w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (
        int(np.clip(np.floor(x0), 0, w - 1)),
        int(np.clip(np.floor(y0), 0, h - 1)),
        int(np.clip(np.ceil(x1), 1, w)),
        int(np.clip(np.ceil(y1), 1, h)),
    )


def encode_crop(crop: np.ndarray) -> bytes:
    """PNG bytes of a die's crop, for the ledger."""
    ok, data = cv2.imencode(".png", crop)
    if not ok:
        raise ValueError("could not encode the crop")
    return bytes(data)


def box_cut(box: tuple[float, float, float, float], w: int, h: int) -> bool:
    """Whether a finder's box runs out of the frame (its core: the boxes spill a little)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    rx, ry = (x1 - x0) / 2 * CUT_CORE, (y1 - y0) / 2 * CUT_CORE
    return cx - rx < EDGE or cy - ry < EDGE or cx + rx > w - EDGE or cy + ry > h - EDGE


def by_edge(box: tuple[float, float, float, float], w: int, h: int) -> bool:
    """Whether a change blob's box (on a 4-pixel grid) runs up to the frame's edge."""
    return box[0] <= 4 or box[1] <= 4 or box[2] >= w - 4 or box[3] >= h - 4


def near(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two boxes overlap, or lie within a few pixels of each other."""
    gap = 4
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _areas(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float]
) -> tuple[float, float, float]:
    """Two boxes' areas and the area they share."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return (a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]), ix * iy


def within(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The share of the smaller of two boxes that lies in the other."""
    area_a, area_b, shared = _areas(a, b)
    smaller = min(area_a, area_b)
    return shared / smaller if smaller > 0 else 1.0


def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    area_a, area_b, shared = _areas(a, b)
    union = area_a + area_b - shared
    return shared / union if union > 0 else 0.0


def centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    """The middle of ``box``."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def square(middle: tuple[float, float], side: float) -> Box:
    """The square box ``side`` across about ``middle``."""
    half = side / 2
    return (middle[0] - half, middle[1] - half, middle[0] + half, middle[1] + half)


def holds(box: tuple[float, float, float, float], inner: tuple[float, float, float, float]) -> bool:
    """Whether ``box`` holds the middle of ``inner``."""
    x, y = centre(inner)
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]
