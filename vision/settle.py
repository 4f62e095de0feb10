"""Settle detection: read a throw only once every die has been still long enough.

Consecutive frames are compared on a small, blurred grey copy: a pixel has
moved when it changed by more than sensor noise does.  A frame in which more
than a sliver of the tray moved is "moving"; once no frame has moved for
``still_seconds``, the throw is settled and is handed over exactly once.  The
next movement arms the detector again.  Where the tray's area is marked
(vision/tray_area.py), only movement inside it counts: hands and dice on the
table round the tray do not hold a throw back.

Movement is not a throw: a hand passing over the tray, or a die taken out,
settles the tray again with the other dice where they lay.  :func:`lies_unmoved`
tells a die lying as it lay in the last throw read, so that it is not read
twice; :func:`unmoved_dice` does so for a throw's dice, with a camera nudged in between
(the whole picture shifted) taken out first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.frames import Frame
from vision.pixels import as_bgr8
from vision.tray_area import TrayArea

WIDTH = 160  # the comparison copy's width: dice stay several pixels wide
MOVED_SHARE = 0.002  # a frame in which more than this share of the copy changed is moving
SAME_PLACE = 0.02  # a die's box in which no more than this share changed lies unmoved:
# 45 rendered dice in two still frames, or with the light 20% dimmer, 0%; a pixel off (the
# same face up) 0-1.2%; the same box in another throw 10.7-100% (docs/vision.md, "Read once")
BOX_NOISE = 14.0  # grey levels, after a blur of 1 pixel: more is a change, not sensor noise
SAME_VIEW = 0.3  # phase correlation's peak: above, two pictures show one scene, shifted
# (rendered trays 1.04-1.06, nudged 1-7 px or not; another throw on another tray 0.05)
SHIFT_WIDTH = 640  # pixels: a larger frame is shrunk to this to find the shift


@dataclass(frozen=True)
class SettleState:
    moving: bool  # this frame differs from the last
    settled: bool  # the throw is ready to read: hand this frame to the reader (once)
    motion: float  # the share of the comparison copy that moved


class SettleDetector:
    def __init__(
        self, still_seconds: float = 0.6, noise: float = 14.0, moved_share: float = MOVED_SHARE
    ) -> None:
        if still_seconds < 0:
            raise ValueError("still_seconds cannot be negative")
        self.still_seconds = still_seconds
        self._noise = noise
        self._moved_share = moved_share
        self._last: np.ndarray | None = None
        self._still_since: float | None = None
        self._armed = True  # a settled throw not yet handed over
        self._inside: tuple[TrayArea, tuple[int, ...], np.ndarray] | None = None  # area's mask

    def _small(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        height = min(max(1, round(h * WIDTH / w)), 4 * WIDTH)  # a sliver of a frame: bounded
        small = cv2.resize(grey, (WIDTH, height), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)

    def _mask(self, area: TrayArea, shape: tuple[int, ...]) -> np.ndarray:
        """The area's inside on the comparison copy (kept while the area and size hold)."""
        if self._inside is None or self._inside[:2] != (area, shape):
            self._inside = (area, shape, area.mask(shape[1], shape[0]) > 0)
        return self._inside[2]

    def feed(self, frame: Frame, area: TrayArea | None = None) -> SettleState:
        """The state after ``frame``; ``area``: only what moves inside the tray's area
        counts (the share is of the area)."""
        small = self._small(as_bgr8(frame.image))
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            self._still_since = frame.at
            return SettleState(True, False, 1.0)
        changed = np.abs(small - last) > self._noise
        inside = None if area is None else self._mask(area, small.shape)
        whole = inside is None or not inside.any()  # an area thinner than the copy's pixels
        motion = float(changed.mean() if whole else changed[inside].mean())
        if motion > self._moved_share:
            self._still_since = None
            self._armed = True
            return SettleState(True, False, motion)
        if self._still_since is None:
            self._still_since = frame.at
        settled = self._armed and frame.at - self._still_since >= self.still_seconds
        if settled:
            self._armed = False
        return SettleState(False, settled, motion)

    def rearm(self) -> None:
        """Read the next still tray again even without movement (a 'read now' button)."""
        self._armed = True


def lies_unmoved(
    before: np.ndarray, after: np.ndarray, box: tuple[float, float, float, float]
) -> bool:
    """Whether the die in ``box`` of ``after`` lies as it lay in ``before`` (the last throw
    read): the box's pixels the same up to sensor noise once a change of the light (a gain
    and an offset over the box: a lamp, the camera's exposure) is taken out.  A die moved,
    turned or thrown again changes its outline; a new die where none lay changes the box."""
    if before.shape != after.shape:
        return False
    h, w = after.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, math.ceil(box[2])), min(h, math.ceil(box[3]))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False

    def grey(image: np.ndarray) -> np.ndarray:
        part = image[y0:y1, x0:x1]
        part = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY) if part.ndim == 3 else part
        return np.asarray(cv2.GaussianBlur(part.astype(np.float32), (0, 0), 1.0))

    was, now = grey(before), grey(after)
    fit = np.stack([was.ravel(), np.ones(was.size, np.float32)], axis=1)
    (gain, offset), *_ = np.linalg.lstsq(fit, now.ravel(), rcond=None)
    if not 0.5 <= gain <= 2.0:  # not a change of light: something else lies there
        return False
    # changed: brighter or darker than every pixel within one of it was, so a shift under a
    # pixel (a nudge of the camera not quite taken out) changes nothing, a die moved does
    reach = np.ones((3, 3), np.uint8)
    high = gain * cv2.dilate(was, reach) + offset + BOX_NOISE
    low = gain * cv2.erode(was, reach) + offset - BOX_NOISE
    changed = (now > high) | (now < low)
    return float(changed.mean()) <= SAME_PLACE


def picture_shift(before: np.ndarray, after: np.ndarray) -> tuple[float, float]:
    """How far the whole picture moved from ``before`` to ``after`` (x, y pixels: a camera
    nudged, its mount knocked), by phase correlation; (0, 0) where the two do not show one
    scene shifted."""
    dx, dy, same = shift_seen(before, after)
    return (dx, dy) if same else (0.0, 0.0)


def shift_seen(before: np.ndarray, after: np.ndarray) -> tuple[float, float, bool]:
    """:func:`picture_shift`'s shift, and whether the two pictures show one scene at all
    (phase correlation's peak over SAME_VIEW)."""
    h, w = after.shape[:2]
    scale = min(1.0, SHIFT_WIDTH / max(h, w))  # a large frame at most SHIFT_WIDTH: 5-9 ms
    size = (max(8, round(w * scale)), max(8, round(h * scale)))

    def grey(image: np.ndarray) -> np.ndarray:
        plain = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        return cv2.resize(plain, size, interpolation=cv2.INTER_AREA).astype(np.float32)

    window = cv2.createHanningWindow(size, cv2.CV_32F)
    (dx, dy), peak = cv2.phaseCorrelate(grey(before), grey(after), window)
    return float(dx) / scale, float(dy) / scale, bool(peak > SAME_VIEW)


def unmoved_dice(
    before: np.ndarray, after: np.ndarray, boxes: list[tuple[float, float, float, float]]
) -> list[bool]:
    """For each box of ``after``: whether its die lies as it lay in ``before`` (the last
    throw read; :func:`lies_unmoved`), once a nudge of the camera between the two is taken
    out (a pixel's shift of the whole picture moves every die's outline)."""
    if before.shape != after.shape or not boxes:
        return [False] * len(boxes)
    dx, dy = picture_shift(before, after)
    if math.hypot(dx, dy) >= 0.2:
        h, w = after.shape[:2]
        along = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        before = cv2.warpAffine(before, along, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return [lies_unmoved(before, after, box) for box in boxes]
