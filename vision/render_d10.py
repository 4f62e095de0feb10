"""How the synthetic renderer draws a d10: two drawings.

``DRAWN``, by eye (since the first renderer), is what rendered throws show: one
kite face with its neighbours as a shaded rim, an outline 1.14 times as long as
wide.  Teach mode's rules on rendered d10s (where a numeral lies off its body's
middle: "may be cocked", "set taught askew") were measured on it.

``d10()`` is worked out from the solid: a pentagonal trapezohedron lying on a
face, seen straight from above.  Ten kites meet five at each apex; the ring
between them zigzags up and down by ``RING_ZIGZAG`` of its radius, and a kite
is flat only where the apexes stand (1 + cos 36°) / (1 − cos 36°) times as high
as the zigzag: one number sets the die's proportions.  Lying on a face, a tall
die (the reciprocal of the uniform antiprism, zigzag 0.19) is long along its top
kite; a squat one is wide across it, the neighbour faces either side of the
kite nearly flat and in view.  Zigzag 0.08 (apexes 0.76 of the ring's radius
high) gives the outline the elongation of burks' real d10 (2nd harmonic 0.064,
theirs 0.055–0.071: vision/die_shape.py), and its 4th harmonic follows unfitted
(0.023, theirs 0.016–0.029).  By the outline test burks' d10s lie 0.08–0.17 from
it, 0.29–0.38 from ``DRAWN``: its outline stands in for a d10 no set is taught
for (vision/untaught_shapes.py).  Its numeral sits at the die's middle, as
burks' do (0.03 die sizes off the body's middle along the kite as teach mode
measures it; the solid's 0.04–0.05).  Throws do not draw it yet: teach mode's
rules on rendered d10s would need measuring again (docs/vision.md, "The
renderer's d10").
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import cv2
import numpy as np

RING_ZIGZAG = 0.08  # of the ring's radius (see above)
SPAN = 1.2  # the outline's longer side in unit coordinates: it fits the face's texture
LIGHT = np.array([-0.35, -0.45, 1.0])  # (across, along, up): light from above, a little aside
SHADES = (0.62, 0.9)  # a side face's light, of the top face's: DRAWN's range


class D10(NamedTuple):
    """A d10's drawing in unit coordinates (vision/render_faces.py): the top face, the whole
    outline (its corners rounded when drawn), the other faces seen from above, each with
    how much light it takes (of the top face's; drawn in this order), and the numeral's
    centre and height."""

    top: np.ndarray
    outline: np.ndarray
    sides: tuple[tuple[np.ndarray, float], ...]
    numeral_at: tuple[float, float]
    numeral_height: float


_KITE = np.array([[0.5, 0.04], [0.86, 0.58], [0.5, 0.9], [0.14, 0.58]])
_RIM = np.array([[0.5, -0.08], [1.0, 0.5], [0.84, 0.93], [0.5, 1.06], [0.16, 0.93], [0.0, 0.5]])
DRAWN = D10(
    _KITE,
    _RIM,
    (
        (_RIM, 0.74),
        (np.array([_KITE[0], _RIM[0], _RIM[1], _KITE[1]]), 0.86),
        (np.array([_KITE[0], _KITE[3], _RIM[5], _RIM[0]]), 0.66),
        (np.array([_KITE[2], _KITE[1], _RIM[2], _RIM[3]]), 0.8),
    ),
    (0.5, 0.56),
    0.24,
)


def _solid(zigzag: float) -> tuple[np.ndarray, list[list[int]]]:
    """The trapezohedron's vertices (apexes 0 and 1, then the ring) and its faces (vertex
    indices, going round), ring radius 1."""
    c = math.cos(math.pi / 5)
    apex = zigzag * (1 + c) / (1 - c)  # the height at which the kites are flat
    ring = [(math.cos(math.pi * k / 5), math.sin(math.pi * k / 5), zigzag * (-1) ** k)
            for k in range(10)]  # fmt: skip
    points = np.array([(0.0, 0.0, apex), (0.0, 0.0, -apex), *ring])
    upper = [[0, 2 + k, 2 + (k + 1) % 10, 2 + (k + 2) % 10] for k in range(0, 10, 2)]
    lower = [[1, 2 + (k + 2) % 10, 2 + (k + 1) % 10, 2 + k] for k in range(1, 10, 2)]
    return points, upper + lower


def _outward(kite: np.ndarray) -> np.ndarray:
    """The unit normal of a face (its corners going round) pointing out of the solid, whose
    centre is the origin."""
    normal = np.cross(kite[1] - kite[0], kite[3] - kite[0])
    normal /= np.linalg.norm(normal)
    return -normal if normal @ kite.mean(axis=0) < 0 else normal


@functools.cache
def d10(zigzag: float = RING_ZIGZAG) -> D10:
    """The d10 worked out from the solid whose ring zigzags by ``zigzag`` (see above)."""
    points, faces = _solid(zigzag)
    top = points[faces[0]]
    up = _outward(top)
    along = top[2] - top[0]  # the kite's long axis, apex to far corner
    along -= (along @ up) * up
    along /= np.linalg.norm(along)
    across = np.cross(up, along)
    flat = np.stack([points @ across, points @ along], axis=1)
    hull = cv2.convexHull(flat.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    low, high = hull.min(axis=0), hull.max(axis=0)
    scale = SPAN / float((high - low).max())

    def unit(p: np.ndarray) -> np.ndarray:
        return np.asarray((p - (low + high) / 2) * scale + 0.5)

    light = LIGHT / np.linalg.norm(LIGHT)
    top_light = float(np.array([0.0, 0.0, 1.0]) @ light)
    sides = []
    for face in faces[1:]:
        normal = _outward(points[face])
        facing = np.array([normal @ across, normal @ along, normal @ up])
        if facing[2] <= 1e-9:  # under the die, or edge on: not seen
            continue
        lit = max(float(facing @ light) / top_light, 0.0)
        sides.append((unit(flat[face]), SHADES[0] + (SHADES[1] - SHADES[0]) * min(lit, 1.0)))
    kite = unit(flat[faces[0]])
    width = float(kite[:, 0].max() - kite[:, 0].min())
    # the numeral sits at the die's middle (its centre of symmetry), two fifths of the kite's
    # width high: burks' real d10's lie 0.03 die sizes off the body's middle along the kite
    # and 0.04 across it (teach mode's measure), and are 0.32 of the die's length high
    return D10(kite, unit(hull), tuple(sides), (0.5, 0.5), 0.4 * width)
