"""Settle detection: read a throw only once every die has been still long enough.

Consecutive frames are compared on a small, blurred grey copy: a pixel has
moved when it changed by more than sensor noise does.  A frame in which more
than a sliver of the tray moved is "moving"; once no frame has moved for
``still_seconds``, the throw is settled and is handed over exactly once.  The
next movement arms the detector again.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.frames import Frame

WIDTH = 160  # the comparison copy's width: dice stay several pixels wide
MOVED_SHARE = 0.002  # a frame in which more than this share of the copy changed is moving


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

    def _small(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        small = cv2.resize(
            grey, (WIDTH, max(1, round(h * WIDTH / w))), interpolation=cv2.INTER_AREA
        )
        return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)

    def feed(self, frame: Frame) -> SettleState:
        small = self._small(frame.image)
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            self._still_since = frame.at
            return SettleState(True, False, 1.0)
        motion = float((np.abs(small - last) > self._noise).mean())
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
