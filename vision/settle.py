"""Settle detection: read a throw only once every die has been still long enough.

Each frame is compared on a small, blurred grey copy with the frame before it and with
the first frame of the still run (its anchor): a pixel has changed when it differs by
more than sensor noise does.  A frame is "moving" when a patch of changed pixels the size
of a small die's corner, or more than a sliver of the tray in all, changed against either:
against the one before, a die tumbling or a light flickering; against the anchor, a die
sliding or rolling too slowly to tell from one frame to the next (compared with the
anchor after a gain and an offset, so that the light drifting - a camera's exposure - is
no movement).  Once no frame has moved for ``still_seconds``, the throw is settled and is
handed over exactly once.  The next movement arms the detector again.  Where the tray's
area is marked (vision/tray_area.py), only movement inside it counts: hands and dice on
the table round the tray do not hold a throw back.

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

WIDTH = 320  # the comparison copy's width: a die 2.5% of the frame wide is 8 px, its pips 1-2
MOVED_SHARE = 0.002  # a frame in which more than this share of the copy changed is moving
MOVED_PATCH = 6  # pixels of the copy: a patch of changed pixels this large is a die moving
# (docs/vision.md, "Settling": a pip turned up on a die 2.5% of the frame wide, 8-22;
# sensor noise, rendered at 4-12 grey levels, none)
STALLED_FPS = 60.0  # frames whose stamps do not advance are counted at most this fast:
# never sooner than still_seconds for a camera this fast or slower
SAME_PLACE = 0.02  # a die's box in which no more than this share changed lies unmoved:
# 45 rendered dice in two still frames, or with the light 20% dimmer, 0%; a pixel off (the
# same face up) 0-1.2%; the same box in another throw 10.7-100% (docs/vision.md, "Read once")
BOX_NOISE = 14.0  # grey levels, after a blur of 1 pixel: more is a change, not sensor noise
SAME_VIEW = 0.3  # phase correlation's peak: above, two pictures show one scene, shifted
# (rendered trays 1.04-1.06, nudged 1-7 px or not; another throw on another tray 0.05)
SHIFT_WIDTH = 640  # pixels: a larger frame is shrunk to this to find the shift


@dataclass(frozen=True)
class SettleState:
    moving: bool  # this frame differs from the last, or from the still run's first
    settled: bool  # the throw is ready to read: hand this frame to the reader (once)
    motion: float  # the share of the comparison copy that moved (the more of the two)
    still: float = 0.0  # seconds the tray has been still, this frame included (0: moving)


class SettleDetector:
    def __init__(
        self, still_seconds: float = 0.6, noise: float = 14.0, moved_share: float = MOVED_SHARE
    ) -> None:
        if not still_seconds >= 0:  # NaN too: a NaN wait would never settle
            raise ValueError(f"still_seconds must be 0 or more, not {still_seconds}")
        self.still_seconds = still_seconds
        self._noise = noise
        self._moved_share = moved_share
        self._last: np.ndarray | None = None
        self._anchor: np.ndarray | None = None  # the frame the still run is measured from
        self._at: float | None = None  # the last frame's stamp
        self._still_since: float | None = None
        self._stalled = 0  # frames of the still run since the stamps last advanced
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

    def _changed(
        self, now: np.ndarray, was: np.ndarray, inside: np.ndarray | None
    ) -> tuple[float, bool]:
        """The share of the copy (of the area: ``inside``) changed from ``was`` to ``now``,
        and whether that is movement: more than the moved share, or MOVED_PATCH changed
        pixels together (a die; noise changes a pixel here and there)."""
        changed = np.abs(now - was) > self._noise
        if inside is not None:
            changed &= inside
        count = int(np.count_nonzero(changed))
        share = count / (changed.size if inside is None else int(np.count_nonzero(inside)))
        if count < MOVED_PATCH or share > self._moved_share:
            return share, share > self._moved_share
        found, _, stats, _ = cv2.connectedComponentsWithStats(
            changed.view(np.uint8), connectivity=8
        )
        return share, bool(found > 1 and stats[1:, cv2.CC_STAT_AREA].max() >= MOVED_PATCH)

    def _drifted(self, now: np.ndarray, inside: np.ndarray | None) -> tuple[float, bool]:
        """:meth:`_changed` against the still run's anchor, once the light's drift since
        (a gain and an offset over the area) is taken out; unfitted where nothing changed."""
        anchor = self._anchor
        assert anchor is not None
        share, moved = self._changed(now, anchor, inside)
        if not moved:
            return share, moved
        was = anchor[inside] if inside is not None else anchor
        fitted = light_fit(was, now[inside] if inside is not None else now)
        if fitted is None:  # not the light: the picture changed
            return share, moved
        gain, offset = fitted
        relit = np.rint(anchor * gain + offset).astype(np.int16)
        return self._changed(now, relit, inside)

    def feed(self, frame: Frame, area: TrayArea | None = None) -> SettleState:
        """The state after ``frame``; ``area``: only what moves inside the tray's area
        counts (the share is of the area)."""
        small = self._small(as_bgr8(frame.image))
        last, self._last = self._last, small
        at, self._at = self._at, frame.at
        if last is None or last.shape != small.shape:
            self._anchor, self._still_since, self._stalled = small, frame.at, 0
            return SettleState(True, False, 1.0)
        inside = None if area is None else self._mask(area, small.shape)
        if inside is not None and not inside.any():  # an area thinner than the copy's pixels
            inside = None
        motion, moved = self._changed(small, last, inside)
        if not moved:  # a slow die: too little from one frame to the next, more since
            drift, moved = self._drifted(small, inside)
            motion = max(motion, drift)
        if moved:
            self._anchor, self._still_since = small, None
            self._armed = True
            return SettleState(True, False, motion)
        if self._still_since is None or at is None or frame.at < at:
            # the run's first still frame; or a stamp gone back (a film looping, a clock
            # set back): the run is timed from it, not frozen till the stamps catch up
            self._still_since, self._stalled = frame.at, 0
        elif frame.at == at:  # stamps that stall pass no time: the frames are counted
            self._stalled += 1
        still = max(frame.at - self._still_since, self._stalled / STALLED_FPS)
        settled = self._armed and still >= self.still_seconds
        if settled:
            self._armed = False
        return SettleState(False, settled, motion, still)

    def restart(self) -> None:
        """Time the still run again from the next frame, armed: the area watched changed,
        and what lies in its new part must be still that long too."""
        self._anchor, self._still_since = self._last, None
        self._armed = True

    def rearm(self) -> None:
        """Read the next still tray again even without movement (a 'read now' button)."""
        self._armed = True


def light_fit(was: np.ndarray, now: np.ndarray) -> tuple[float, float] | None:
    """The gain and offset that best turn ``was`` into ``now`` (least squares), or None
    when the gain lies outside 0.5-2.0: no lamp or exposure change does that, something
    else lies there.  A flat ``was`` has no gain to fit: 1, the offset its mean change."""
    before = was.astype(np.float64).ravel()
    after = now.astype(np.float64).ravel()
    spread = float(before.var())
    shared = float(np.mean((before - before.mean()) * (after - after.mean())))
    gain = shared / spread if spread else 1.0
    if not 0.5 <= gain <= 2.0:
        return None
    return gain, float(after.mean()) - gain * float(before.mean())


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
    fitted = light_fit(was, now)
    if fitted is None:  # not a change of light: something else lies there
        return False
    gain, offset = fitted
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
