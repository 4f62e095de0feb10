"""Has the camera turned or tilted since the tray's area was marked?

A camera knocked sideways shifts the whole picture (phase correlation finds
that: ``vision.settle.picture_shift``); one turned on its mount, or tilted,
moves each part of the tray by another amount.  The tray's rim and walls, a
band round the marked area's outline, are matched between the picture the area
was marked on and the frame now (ORB corners, a homography by RANSAC): where
enough of them agree, the homography says where the tray lies now.  Dice thrown
since lie inside the area, and the table round a tray may move on its own (the
burks photos: the tower stood on another part of the table each session), so
the band keeps to the rim.  Where few corners agree the view is not followed:
either the tray has too little texture to tell (a plain felt; sensor noise
makes corners that match nothing) or it is another view.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.tray_area import TrayArea

SIDE = 640  # pixels: the pictures are matched this large (the larger side)
BAND = 0.08  # of SIDE: the band round the area's outline where its corners are looked for
FEATURES = 1500
REPROJECT = 3.0  # pixels at SIDE: a corner farther than this from where the homography puts
# it does not agree with it
STILL = 5.0  # pixels at SIDE: the corners' homography moving the area's corners less than
# this is the view unmoved (not refined: the common case, and cheap)
GAP = 8.0  # pixels at SIDE: the grey levels' homography this far from the corners' at the
# area's corners is not trusted (on plain rendered felts the corners agree with wrong ones)
BETTER = 0.8  # ... nor one that fits the band's grey levels no better than this share of
# how the view unmoved fits them (a rendered felt unmoved, fresh noise: 0.50 against 0.50;
# turned 2 degrees: 0.56 against 3.33; burks' tower turned 2 degrees: 3.0 against 23.8)
AGREE = 60  # corners agreeing with one homography, and at least ...
AGREE_SHARE = 0.2  # ... this share of those matched, follow the view.  burks, one session
# (the area marked on one photo, 36 others): 763-1567 of 808-1655 agree within a session,
# 101-135 of 348-777 across its d6 and d20 sessions (a camera 7-13 px off), 14-34 of
# 251-721 for its d10 session and empty tower (a camera 40-60 px off, the table moved)


@dataclass(frozen=True)
class ViewChange:
    """How the tray's outline moved from the picture it was marked on to the frame now."""

    homography: np.ndarray | None  # 3 × 3, marked-on pixels to now; None: not followed
    agreeing: int  # corners agreeing with it
    matched: int  # corners matched between the two pictures

    def moved(self, area: TrayArea, w: int, h: int) -> float:
        """How far the area's farthest corner moved, in pixels of a ``w`` × ``h`` frame
        (0 where the view is not followed)."""
        if self.homography is None:
            return 0.0
        corners = area.corners(w, h).astype(np.float32)
        now = cv2.perspectiveTransform(corners, self.homography)
        return float(np.max(np.linalg.norm(now - corners, axis=2)))


@dataclass(frozen=True, eq=False)
class Reference:
    """The picture an area was marked on, made ready to be matched (:meth:`change`): its
    grey levels at SIDE, the band round the area, the band's ORB corners and the blurred
    half-size picture ECC refines on.  The same for every throw until the area is marked
    again, so the store that keeps the area keeps this too: ORB on the marked picture was
    8 of 43 ms a settled throw."""

    picture: np.ndarray  # the marked picture itself (BGR, full size)
    area: TrayArea
    shape: tuple[int, int]  # its height and width
    scale: float  # from the full size to SIDE
    band: np.ndarray  # 255 on the band, at SIDE
    points: np.ndarray  # the band's ORB corners (n × 2, at SIDE) ...
    descriptors: np.ndarray | None  # ... and their descriptors (None: no corner found)
    blurred: np.ndarray  # the grey levels at half SIDE, blurred, float32

    @classmethod
    def of(cls, before: np.ndarray, area: TrayArea) -> Reference:
        h, w = before.shape[:2]
        scale = SIDE / max(h, w)
        grey = _small_grey(before, scale)
        band = _band(area, grey.shape[1], grey.shape[0])
        seen, described = _orb().detectAndCompute(grey, band)
        points = np.array([p.pt for p in seen], np.float32).reshape(-1, 2)
        return cls(before, area, (h, w), scale, band, points, described, _blurred_half(grey))

    def change(self, after: np.ndarray) -> ViewChange:
        """The homography from the marked picture to ``after`` (a frame of its size) found
        on the band round the area's outline: the corners matched, then the whole band's
        grey levels (ECC) from there; not followed where too few corners agree or the two
        disagree (GAP)."""
        if after.shape[:2] != self.shape:
            raise ValueError(f"a frame {after.shape[1]} x {after.shape[0]} is not the "
                             f"marked picture's {self.shape[1]} x {self.shape[0]}")  # fmt: skip
        small = _small_grey(after, self.scale)
        seen_now, described_now = _orb().detectAndCompute(small, self.band)
        described = self.descriptors
        if described is None or described_now is None or min(len(self.points), len(seen_now)) < 4:
            return ViewChange(None, 0, 0)
        matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(described, described_now)
        if len(matches) < 4:
            return ViewChange(None, 0, len(matches))
        here = self.points[[m.queryIdx for m in matches]]
        there = np.array([seen_now[m.trainIdx].pt for m in matches], np.float32)
        homography, agreed = cv2.findHomography(here, there, cv2.RANSAC, REPROJECT)
        agreeing = 0 if agreed is None else int(agreed.sum())
        if homography is None or agreeing < max(AGREE, AGREE_SHARE * len(matches)):
            return ViewChange(None, agreeing, len(matches))
        corners = self.area.corners(small.shape[1], small.shape[0]).astype(np.float32)
        to_small = np.diag([self.scale, self.scale, 1.0])
        found = ViewChange(np.linalg.inv(to_small) @ homography @ to_small, agreeing, len(matches))
        if _farthest(corners, homography, np.eye(3)) < STILL:  # unmoved, as near as corners tell
            return found
        half = np.diag([0.5, 0.5, 1.0])  # the grey levels compared at half SIDE: 4 times faster
        blurred = (self.blurred, _blurred_half(small))
        band = cv2.resize(self.band, blurred[1].shape[::-1], interpolation=cv2.INTER_NEAREST)
        refined = _refined(blurred[0], blurred[1], band, half @ homography @ np.linalg.inv(half))
        if refined is None:
            return ViewChange(None, agreeing, len(matches))
        refined = np.linalg.inv(half) @ refined @ half
        if _farthest(corners, refined, homography) > GAP:
            return ViewChange(None, agreeing, len(matches))
        moved, unmoved = (_misfit(blurred[0], blurred[1], half @ h @ np.linalg.inv(half), band)
                          for h in (refined, np.eye(3)))  # fmt: skip
        if moved > BETTER * unmoved:
            return ViewChange(None, agreeing, len(matches))  # no better than the view unmoved
        return ViewChange(np.linalg.inv(to_small) @ refined @ to_small, agreeing, len(matches))


def view_change(before: np.ndarray, after: np.ndarray, area: TrayArea) -> ViewChange:
    """The homography from ``before`` (BGR, the picture the area was marked on) to
    ``after`` (a frame of the same size): :meth:`Reference.change`."""
    return Reference.of(before, area).change(after)


def _orb() -> Any:
    return cv2.ORB.create(FEATURES, fastThreshold=10)


def _blurred_half(grey: np.ndarray) -> np.ndarray:
    half = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(half, (5, 5), 1.0).astype(np.float32))


def _small_grey(image: np.ndarray, scale: float) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return np.asarray(cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))


def _band(area: TrayArea, w: int, h: int) -> np.ndarray:
    """255 on the band round ``area``'s outline (its outer part kept near the rim)."""
    width = max(3, round(BAND * SIDE))
    band = np.zeros((h, w), np.uint8)
    cv2.polylines(band, [area.corners(w, h)], True, 255, width)
    near = cv2.dilate(area.mask(w, h), np.ones((2 * (width // 3) + 1,) * 2, np.uint8))
    return np.asarray(cv2.bitwise_and(band, near))


def _refined(before: np.ndarray, after: np.ndarray, band: np.ndarray, start: np.ndarray) -> Any:
    """``start`` refined on the band's grey levels (OpenCV's ECC; ``before`` and ``after``
    blurred float32), or None where it fails."""
    blur = (before, after)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:  # ECC's warp takes the template's (after's) pixels to the input's (before's)
        _, back = cv2.findTransformECC(blur[1], blur[0], np.linalg.inv(start).astype(np.float32),
                                       cv2.MOTION_HOMOGRAPHY, criteria, band, 1)  # fmt: skip
        return np.linalg.inv(back)
    except (cv2.error, np.linalg.LinAlgError):  # no convergence, a singular warp
        return None


def _misfit(
    before: np.ndarray,
    after: np.ndarray,
    homography: Any,
    where: np.ndarray | None = None,
    typical: Callable[[np.ndarray], Any] = np.mean,
) -> float:
    """How far ``after``'s grey levels lie from ``before``'s carried by ``homography``
    (``typical`` of the differences: the mean on the rim's band; the median over a tray, its
    dice in the frame alone outweighed), where ``before`` lands inside the picture and
    within ``where`` (255), if given."""
    h, w = after.shape
    carried = cv2.warpPerspective(before, homography, (w, h), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.full(before.shape, 255, np.uint8), homography, (w, h),
                                 flags=cv2.INTER_NEAREST) > 0  # fmt: skip
    seen = inside if where is None else inside & (where > 0)
    return float(typical(np.abs(carried - after)[seen])) if seen.any() else float("inf")


def _farthest(corners: np.ndarray, one: np.ndarray, other: np.ndarray) -> float:
    """How far apart the two homographies put the farthest of ``corners``, in pixels."""
    there = [cv2.perspectiveTransform(corners, h) for h in (one, other)]
    return float(np.max(np.linalg.norm(there[0] - there[1], axis=2)))


TRAY_SIDE = 320  # pixels: the empty-tray picture is aligned this large (the larger side)
TRAY_MOVED = 0.01  # of the picture's width: a camera moved this far moves the tray picture
# degrees: the most a camera is taken to have turned since the empty tray was taken.  A camera
# knocked on its mount, or nudged while cleaning, turns a few degrees (2 to 4 in the tests);
# one turned much further looks at another part of the room and needs the picture taken again
# anyway.  ECC on near-uniform felt under a changed light slid to 41 degrees for a true 3
# (the felt's grey ramp fitted, its texture not): carried so far, the picture was no tray at
# all.  15 is well above any knock and well below such slides.
TRAY_TURN = 15.0


def aligned_tray(tray: np.ndarray, frame: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The empty-tray picture ``tray`` carried onto ``frame`` where the camera has turned or
    moved since it was taken, and how far (pixels, at the picture's corners); None where it
    has not (under TRAY_MOVED), or no turn and shift fits better than none, or the turn found
    is beyond TRAY_TURN (no knocked camera's: ECC slid along a near-uniform felt).

    A stale picture makes every edge of the tray's texture a change: rendered d6s read
    with the camera turned 2 degrees since were asked for 33 times as often (4 degrees:
    126 against 11), every die still read.  The two are matched on their grey levels
    (OpenCV's ECC, a turn and a shift), the dice in the frame alone outweighed by the tray;
    the median misfit judges it, so that they do not."""
    h, w = frame.shape[:2]
    scale = TRAY_SIDE / max(h, w)
    before, after = (cv2.GaussianBlur(_small_grey(image, scale), (5, 5), 1.5).astype(np.float32)
                     for image in (tray, frame))  # fmt: skip
    back: Any = np.eye(2, 3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
    try:  # ECC's warp takes the frame's pixels to the tray picture's
        everywhere = np.full(after.shape, 255, np.uint8)
        _, back = cv2.findTransformECC(after, before, back, cv2.MOTION_EUCLIDEAN, criteria,
                                       everywhere, 1)  # fmt: skip
    except cv2.error:  # no convergence: no turn found
        return None
    onto = cv2.invertAffineTransform(back)
    if abs(math.degrees(math.atan2(float(onto[1, 0]), float(onto[0, 0])))) > TRAY_TURN:
        return None
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) * scale
    now = corners @ np.asarray(onto, np.float64)[:, :2].T + np.asarray(onto, np.float64)[:, 2]
    moved = float(np.max(np.linalg.norm(now - corners, axis=1))) / scale
    if moved < TRAY_MOVED * w:
        return None
    carrying = np.vstack([onto, [0.0, 0.0, 1.0]])
    fits = [_misfit(before, after, m, typical=np.median) for m in (carrying, np.eye(3))]
    if fits[0] > BETTER * fits[1]:
        return None
    full = np.array(onto, np.float64)
    full[:, 2] /= scale
    carried = cv2.warpAffine(tray, full, (w, h), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    return np.asarray(carried), moved
