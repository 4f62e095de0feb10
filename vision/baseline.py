"""The naive pip counter the reader is measured against (``vision eval`` runs both).

The textbook way: OpenCV's SimpleBlobDetector finds round blobs of pip size
(dark and light ones) on the whole frame, pips closer than a die's width are
grouped into one die, and each group's count is its value.  It has no idea
of top and side faces, touching dice or non-pip blobs; that is the point.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from vision.readings import DieReading, ThrowReading


class BlobCounter:
    def __init__(self, pip_px: tuple[float, float] = (6.0, 80.0), die_px: float = 36.0) -> None:
        params = cv2.SimpleBlobDetector.Params()
        params.filterByArea = True
        params.minArea, params.maxArea = pip_px
        params.filterByCircularity = True
        params.minCircularity = 0.6
        params.filterByInertia = True
        params.minInertiaRatio = 0.4
        params.filterByConvexity = False
        self._dark = cv2.SimpleBlobDetector.create(params)
        params.blobColor = 255
        self._light = cv2.SimpleBlobDetector.create(params)
        self.die_px = die_px

    def read(self, image: np.ndarray, die: str = "d6") -> ThrowReading:
        start = time.perf_counter()
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        points = [k.pt for k in self._dark.detect(grey)] + [k.pt for k in self._light.detect(grey)]
        groups = _group(np.array(points).reshape(-1, 2), self.die_px * 0.6)
        dice = []
        for members in groups:
            if 1 <= len(members) <= 6:
                x0, y0 = members.min(axis=0)
                x1, y1 = members.max(axis=0) + 1
                box = (int(x0), int(y0), int(x1), int(y1))
                dice.append(DieReading("d6", len(members), 1.0, box, np.zeros((1, 1, 3), np.uint8)))
        return ThrowReading(tuple(dice), (time.perf_counter() - start) * 1000)


def _group(points: np.ndarray, reach: float) -> list[np.ndarray]:
    """Single-linkage groups of points closer than ``reach``."""
    n = len(points)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        d = np.hypot(*(points[i + 1 :] - points[i]).T) if i + 1 < n else np.zeros(0)
        for j in np.flatnonzero(d < reach) + i + 1:
            parent[root(int(j))] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [points[idx] for idx in groups.values()]
