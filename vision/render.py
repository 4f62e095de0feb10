"""Synthetic thrown dice seen from above by a camera over a tray.

Deterministic: the same :class:`ThrowSpec` and the same seed give identical
image bytes. Used to test and measure the vision pipeline and to feed a demo;
for d5 and dF it is the only source of pictures.

How each die is drawn (top views, see :mod:`vision.render_faces`):

- d6: rounded square, pips in the standard layouts (or a numeral when
  ``DieLook.numerals``; 6 and 9 underlined). dF: a d6 with +, +, blank,
  blank, −, − (values +1, 0, −1) drawn as thick bars.
- d10: one kite face with its neighbours as a shaded rim, numeral 0..9.
- d20: a triangular face inside a hexagonal outline, numeral 1..20.
- d5: drawn as a triangular prism standing on one triangular end: the top face
  is a triangle carrying the numeral 1..5; with perspective the prism's
  rectangular sides show as a band (blank).

With ``perspective > 0`` the whole scene is seen through a mild camera tilt
(a homography) and each die shows a darker band of side faces toward the
camera; a d6's side band carries 1-3 pips of its own, so counting every pip in
a crop over-counts as it does in real oblique photos. Boxes and top-face
polygons are reported in the final image's pixels (box ``x1, y1`` exclusive).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from dicebridge.files import write_whole
from vision.pixels import write_image
from vision.render_d10 import D10, DRAWN
from vision.render_faces import (
    ONE_PIP,
    SHAPES,
    Pose,
    die_layer,
    fill,
    geometry,
    motion_kernel,
    scatter_debris,
    tray,
)

__all__ = [
    "BIG_ONES",
    "PALETTE",
    "DieLook",
    "RenderedDie",
    "RenderedThrow",
    "ThrowSpec",
    "render_die",
    "render_settling",
    "render_throw",
    "write_dataset",
]

FACES: dict[str, tuple[int, ...]] = {
    "d5": (1, 2, 3, 4, 5),
    "d6": (1, 2, 3, 4, 5, 6),
    "d10": tuple(range(10)),
    "d20": tuple(range(1, 21)),
    "dF": (-1, -1, 0, 0, 1, 1),  # dF: six faces, two of each
}
SS = 2  # scene supersampling
DIE_SS = 4  # supersampling of render_die
SHADOW = 0.14  # a die's shadow reaches this far (die edges) under the usual diffuse light


@dataclass(frozen=True)
class DieLook:
    """How one die looks (BGR colours)."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    translucent: bool = False
    numerals: bool = False  # d6 only: numerals instead of pips
    marble: tuple[int, int, int] | None = None  # veins of this colour through the body
    design: int | None = None  # numbered dice: the numerals' font (0 or 1, see
    # render_faces.DESIGNS); None: either, drawn at random for every die (two designs)
    one_pip: float = ONE_PIP  # d6: the 1's lone pip (radius, share of the face); many
    # dice, Chinese ones all, have a far larger one (0.15-0.25)
    one_four_ink: tuple[int, int, int] | None = None  # d6: the 1 and 4 faces' pips in this
    # colour (Chinese dice paint them red)


@dataclass(frozen=True)
class RenderedDie:
    """One die in a rendered throw, as the truth a reader is scored against."""

    die: str
    value: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 of the whole die as seen (x1, y1 exclusive)
    top_face: np.ndarray  # n x 2 corners of the top face polygon, image pixels
    look: DieLook
    cocked: bool
    partly_outside: bool
    impossible: bool = False  # pips that make no real d6 face


@dataclass(frozen=True)
class RenderedThrow:
    """A rendered image, its dice, and the same tray with no dice."""

    image: np.ndarray
    dice: tuple[RenderedDie, ...]
    empty_tray: np.ndarray


@dataclass(frozen=True)
class ThrowSpec:
    """What to throw and how the camera sees it."""

    dice: tuple[str, ...]
    size: tuple[int, int] = (640, 640)  # width, height
    die_px: tuple[int, int] = (34, 60)  # range of die edge length in pixels
    values: tuple[int, ...] | None = None
    touching: float = 0.2
    cocked: float = 0.0
    outside: float = 0.0
    impossible: float = 0.0  # share of pip d6s drawn with pips no real face has
    blur: float = 0.6
    noise: float = 4.0
    perspective: float = 0.15
    looks: tuple[DieLook, ...] | None = None
    jpeg: bool = True  # finish with a JPEG round trip (quality 80-95)
    tray: tuple[int, int, int] | None = None  # the tray's colour (BGR, felt); None: grey,
    # green felt or wood, drawn at random
    debris: int = 0  # specks, crumbs and lint lying on the tray (in the empty-tray picture too)
    shadow: float = SHADOW  # how far each die's shadow reaches, in die edges: a lamp low
    # beside the tray, or a spotlight over a tower, casts them one or two dice long
    glare: float = 0.0  # a lamp's reflection on each die's top face: how opaque its brightest
    # point is, 0-1 (0.9: a bare bulb over glossy dice); a soft spot a fifth to a third of
    # the die's edge across, drawn over the dice, so a seed throws the same dice with or without
    camera: int | None = None  # a seed for the camera's tilt: throws that share it are seen
    # by one camera mounted one way; None: each throw's own tilt


PALETTE: tuple[DieLook, ...] = (
    DieLook((235, 235, 230), (25, 25, 25)),
    DieLook((32, 30, 30), (235, 235, 235)),
    DieLook((40, 30, 200), (240, 240, 240)),
    DieLook((60, 160, 40), (245, 245, 245)),
    DieLook((170, 80, 30), (245, 245, 245)),
    DieLook((40, 210, 230), (25, 25, 25)),
    DieLook((120, 40, 100), (60, 220, 240)),
    DieLook((200, 225, 235), (40, 40, 190)),
    DieLook((30, 120, 240), (25, 25, 25)),
    DieLook((60, 50, 210), (245, 245, 245), translucent=True),
    DieLook((90, 180, 60), (245, 245, 245), translucent=True),
    DieLook((200, 120, 40), (60, 230, 250), translucent=True),
    DieLook((235, 235, 230), (25, 25, 25), numerals=True),
    DieLook((150, 60, 20), (240, 240, 240), numerals=True),
)
# marbled pip dice (veins as wide as a pip run through the body): for training and tests
MARBLED: tuple[DieLook, ...] = (
    DieLook((40, 40, 150), (240, 240, 240), marble=(25, 20, 30)),
    DieLook((50, 50, 55), (40, 40, 200), marble=(150, 150, 160)),
    DieLook((160, 90, 30), (40, 40, 200), marble=(235, 235, 235)),
    DieLook((170, 140, 230), (245, 245, 245), marble=(110, 60, 180)),
    DieLook((120, 40, 100), (245, 245, 245), marble=(200, 160, 220)),
    DieLook((230, 230, 225), (25, 25, 25), marble=(120, 120, 125)),
)

# d6s whose 1 is one large pip, as many sets have it (Chinese dice all, their 1 and 4 red):
# the face network learnt pips from PALETTE's 0.13 and read these as 4s (docs/vision.md)
RED_PIPS = (40, 30, 210)
BIG_ONES: tuple[DieLook, ...] = (
    DieLook((235, 235, 230), (25, 25, 25), one_pip=0.22, one_four_ink=RED_PIPS),
    DieLook((215, 235, 245), (30, 30, 30), one_pip=0.2, one_four_ink=RED_PIPS),
    DieLook((240, 240, 240), (30, 30, 30), one_pip=0.18),
    DieLook((32, 30, 30), (235, 235, 235), one_pip=0.19),
    DieLook((40, 30, 200), (240, 240, 240), one_pip=0.21),
    DieLook((170, 80, 30), (245, 245, 245), one_pip=0.17),
    DieLook((60, 160, 40), (245, 245, 245), one_pip=0.24),
    DieLook((40, 210, 230), (25, 25, 25), one_pip=0.2, one_four_ink=RED_PIPS),
    DieLook((60, 50, 210), (245, 245, 245), translucent=True, one_pip=0.2),
)


@dataclass(frozen=True)
class _Die:
    die: str
    look: DieLook
    edge: float  # scene pixels
    pose: Pose
    truth: RenderedDie


@dataclass(frozen=True)
class _Plan:
    spec: ThrowSpec
    tray: np.ndarray  # lit tray, scene pixels, float32
    light: np.ndarray
    homography: np.ndarray  # scene -> supersampled output
    pad: int
    shadow: tuple[float, float]
    sigma: float
    quality: int
    noise_seed: int
    dice: tuple[_Die, ...]


def render_die(
    die: str,
    value: int,
    look: DieLook,
    edge_px: int,
    rng: np.random.Generator,
    angle_deg: float = 0.0,
    d10: D10 = DRAWN,
) -> np.ndarray:
    """One die straight from above on a transparent canvas: BGRA uint8, alpha = die mask; a
    d10 as ``d10`` draws it (vision/render_d10.py: throws draw DRAWN)."""
    if value not in FACES[die]:
        raise ValueError(f"a {die} has no face {value}")
    pose = Pose((0.0, 0.0), angle_deg, value, int(rng.integers(2**62)))
    premult, alpha = die_layer(die, look, edge_px * DIE_SS, pose, np.zeros(2), 1.0, d10)
    out = (premult.shape[1] // DIE_SS, premult.shape[0] // DIE_SS)
    premult = cv2.resize(premult, out, interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, out, interpolation=cv2.INTER_AREA)
    colour = premult / np.maximum(alpha, 1e-3)[..., None]
    bgra = np.dstack([colour, alpha * 255])
    return np.clip(np.round(bgra), 0, 255).astype(np.uint8)


def _camera(
    w: int, h: int, pad: int, perspective: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Homography scene -> supersampled output, and the camera's foot point in the output."""
    ws, hs = w * SS, h * SS
    dst = np.array([[0, 0], [ws, 0], [ws, hs], [0, hs]], np.float64)
    src = dst + pad
    far = int(rng.integers(4))
    normals = np.array([[0, -1], [1, 0], [0, 1], [-1, 0]], np.float64)
    if perspective > 0:
        i, j = far, (far + 1) % 4
        along = (src[j] - src[i]) * perspective * rng.uniform(0.35, 0.5)
        across = normals[far] * (hs if far % 2 == 0 else ws) * perspective * rng.uniform(0.2, 0.35)
        src[i] += -along + across
        src[j] += along + across
    homography = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    foot = np.array([ws / 2, hs / 2]) - normals[far] * np.array([ws, hs]) * 1.2
    return homography, foot


def _to_out(pts: np.ndarray, homography: np.ndarray) -> np.ndarray:
    mapped = cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), homography)
    return (mapped.reshape(-1, 2) - (SS - 1) / 2) / SS


def _sep(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Separation of two boxes (negative = overlap depth along the least overlapping axis)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


def _plan(spec: ThrowSpec, rng: np.random.Generator) -> _Plan:
    for d in spec.dice:
        if d not in SHAPES:
            raise ValueError(f"unknown die type {d!r}; dice are {', '.join(FACES)}")
    if not 0 <= spec.shadow <= 3:
        raise ValueError(f"a shadow reaches 0 to 3 die edges, not {spec.shadow}")
    if not 0 <= spec.glare <= 1:
        raise ValueError(f"a glare is 0 to 1 opaque, not {spec.glare}")
    if spec.values is not None:
        if len(spec.values) != len(spec.dice):
            raise ValueError("values must give one value per die")
        for d, v in zip(spec.dice, spec.values, strict=True):
            if v not in FACES[d]:
                raise ValueError(f"a {d} has no face {v}")
    w, h = spec.size
    pad = math.ceil(0.5 * spec.perspective * max(w, h) * SS) + 8
    tray_f, light = tray(w * SS + 2 * pad, h * SS + 2 * pad, SS, rng, spec.tray)
    mount = rng if spec.camera is None else np.random.default_rng([spec.camera, 4])
    homography, foot = _camera(w, h, pad, spec.perspective, mount)
    inverse = np.linalg.inv(homography)
    foot_src = cv2.perspectiveTransform(foot.reshape(1, 1, 2), inverse).reshape(2)
    a = rng.uniform(0, 2 * math.pi)
    shadow = (math.cos(a), math.sin(a))
    looks = spec.looks or PALETTE
    placed: list[_Die] = []
    boxes: list[tuple[float, float, float, float]] = []
    for i, die in enumerate(spec.dice):
        value = spec.values[i] if spec.values else int(rng.choice(FACES[die]))
        options = [lk for lk in looks if die == "d6" or not lk.numerals] or list(looks)
        look = options[int(rng.integers(len(options)))]
        edge = float(rng.integers(spec.die_px[0], spec.die_px[1] + 1)) * SS
        cocked = bool(rng.random() < spec.cocked)
        outside = bool(rng.random() < spec.outside)
        touch = bool(rng.random() < (max(spec.touching, 0.7) if cocked else spec.touching))
        squash, cock = (1.0, 0.0), np.zeros(2)
        if cocked:
            squash = (rng.uniform(0.55, 0.75), rng.uniform(0, 2 * math.pi))
            cock = (
                np.array([math.cos(squash[1]), math.sin(squash[1])]) * edge * rng.uniform(0.3, 0.45)
            )
        pose = Pose((0.0, 0.0), rng.uniform(0, 360), value, int(rng.integers(2**62)), squash)
        if spec.impossible > 0 and die == "d6" and not look.numerals:
            pose = replace(pose, impossible=bool(rng.random() < spec.impossible))

        def attempt(
            centre_out: np.ndarray,
            pose: Pose = pose,
            edge: float = edge,
            cock: np.ndarray = cock,
            die: str = die,
        ) -> tuple[Pose, np.ndarray, np.ndarray]:
            c_ss = centre_out.reshape(1, 1, 2) * SS + (SS - 1) / 2
            c = cv2.perspectiveTransform(c_ss.astype(np.float64), inverse).reshape(2)
            to_foot = foot_src - c
            side = to_foot / np.hypot(*to_foot) * edge * spec.perspective * 1.2 + cock
            p = replace(
                pose, centre=(float(c[0]), float(c[1])), side=(float(side[0]), float(side[1]))
            )
            top, outline, _ = geometry(die, c, edge, p)
            return p, _to_out(top, homography), _to_out(outline, homography)

        e_out = edge / SS
        for n in range(600):
            touching = touch and bool(placed) and not outside and n < 400
            if outside:
                k = int(rng.integers(4))
                along = rng.uniform(0.1, 0.9) * (w if k % 2 == 0 else h)
                across = rng.uniform(-0.15, 0.3) * e_out
                centre = np.array(
                    [
                        [along, across],
                        [w - 1 - across, along],
                        [along, h - 1 - across],
                        [across, along],
                    ][k]
                )
            elif touching:
                j = int(rng.integers(len(placed)))
                tb, k = boxes[j], int(rng.integers(4))
                centre = np.array([(tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2])
                axis, other = k % 2, 1 - k % 2
                centre[other] += rng.uniform(-0.45, 0.45) * (tb[2 + other] - tb[other])
                gap = rng.uniform(0.0, 1.0)
                for _ in range(4):
                    _, _, outline = attempt(centre)
                    if k < 2:  # right of / below the target
                        centre[axis] += tb[2 + axis] + gap - outline[:, axis].min()
                    else:
                        centre[axis] += tb[axis] - gap - outline[:, axis].max()
            else:
                centre = rng.uniform([0.6 * e_out] * 2, [w - 0.6 * e_out, h - 0.6 * e_out])
            p, top, outline = attempt(centre)
            seen = np.vstack([outline, top])
            box = (*seen.min(axis=0), *seen.max(axis=0))
            inside = box[0] >= 1 and box[1] >= 1 and box[2] <= w - 2 and box[3] <= h - 2
            if outside:
                cut = (min(box[2], w) - max(box[0], 0)) * (min(box[3], h) - max(box[1], 0))
                share = cut / ((box[2] - box[0]) * (box[3] - box[1]))
                if inside or not 0.3 <= share <= 0.85:
                    continue
            elif not inside:
                continue
            seps = [_sep(box, b) for b in boxes]
            if touching and abs(seps[j] - gap) > 0.6:
                continue
            if all(s >= 3 or (touching and m == j) for m, s in enumerate(seps)):
                break
        else:
            raise RuntimeError(
                f"could not place {len(spec.dice)} dice of {spec.die_px} px "
                f"in {w}x{h}; ask for fewer or smaller dice"
            )
        int_box = (
            max(0, math.floor(box[0])),
            max(0, math.floor(box[1])),
            min(w, math.ceil(box[2])),
            min(h, math.ceil(box[3])),
        )
        truth = RenderedDie(die, value, int_box, top, look, cocked, outside, p.impossible)  # type: ignore[arg-type]
        placed.append(_Die(die, look, edge, p, truth))
        boxes.append(box)  # type: ignore[arg-type]
    sigma = rng.uniform(0, spec.blur) if spec.blur > 0 else 0.0
    quality, noise_seed = int(rng.integers(80, 96)), int(rng.integers(2**62))
    if spec.debris > 0:  # drawn last: the same seed throws the same dice with or without it
        unit = (spec.die_px[0] + spec.die_px[1]) / 2 * SS
        scatter_debris(tray_f, spec.debris, unit, rng)
    return _Plan(
        spec, tray_f, light, homography, pad, shadow, sigma, quality, noise_seed, tuple(placed)
    )


def _output(plan: _Plan, scene: np.ndarray, noise_rng: np.random.Generator) -> np.ndarray:
    w, h = plan.spec.size
    if plan.spec.perspective > 0:
        big = cv2.warpPerspective(
            scene,
            plan.homography,
            (w * SS, h * SS),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
    else:
        big = scene[plan.pad : plan.pad + h * SS, plan.pad : plan.pad + w * SS]
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    if plan.sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), plan.sigma)
    if plan.spec.noise > 0:
        img = img + np.asarray(noise_rng.normal(0.0, plan.spec.noise, img.shape), np.float32)
    out = np.clip(np.round(img), 0, 255).astype(np.uint8)
    if plan.spec.jpeg:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, plan.quality])
        return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def _frame(
    plan: _Plan, poses: list[Pose], motion: list[np.ndarray | None], noise_rng: np.random.Generator
) -> np.ndarray:
    scene = plan.tray.copy()
    shadow = np.zeros(scene.shape[:2], np.uint8)
    edges = []
    for d, pose in zip(plan.dice, poses, strict=True):
        _, outline, _ = geometry(d.die, np.array(pose.centre), d.edge, pose)
        strength = 70 if d.look.translucent else 110
        reach = np.array(plan.shadow) * d.edge * plan.spec.shadow
        fill(shadow, outline + reach, strength)
        if plan.spec.shadow > SHADOW:  # a long shadow: the die's outline swept along the light
            swept = np.concatenate([outline, outline + reach]).astype(np.float32)
            fill(shadow, cv2.convexHull(swept).reshape(-1, 2), strength)
        edges.append(d.edge)
    if edges:
        soft = cv2.GaussianBlur(
            shadow.astype(np.float32) / 255, (0, 0), 0.09 * float(np.mean(edges))
        )
        scene *= 1 - soft[..., None]
    sh, sw = scene.shape[:2]
    for d, pose, kernel in zip(plan.dice, poses, motion, strict=True):
        c = np.array(pose.centre)
        frac = c - np.floor(c)
        premult, alpha = die_layer(d.die, d.look, d.edge, pose, frac)
        if kernel is not None:
            premult = cv2.filter2D(premult, -1, kernel)
            alpha = cv2.filter2D(alpha, -1, kernel)
        half = premult.shape[0] // 2
        x0, y0 = int(np.floor(c[0])) - half, int(np.floor(c[1])) - half
        ax0, ay0 = max(0, -x0), max(0, -y0)
        ax1 = min(premult.shape[1], sw - x0)
        ay1 = min(premult.shape[0], sh - y0)
        if ax1 <= ax0 or ay1 <= ay0:
            continue
        win = (slice(y0 + ay0, y0 + ay1), slice(x0 + ax0, x0 + ax1))
        a = alpha[ay0:ay1, ax0:ax1, None]
        lit = premult[ay0:ay1, ax0:ax1] * plan.light[win][..., None]
        scene[win] = scene[win] * (1 - a) + lit
    if plan.spec.glare > 0:
        _glare(scene, plan, poses)
    return _output(plan, scene, noise_rng)


GLARE_WHITE = 250.0  # a lamp's reflection: near white, whatever the die's colour


def _glare(scene: np.ndarray, plan: _Plan, poses: list[Pose]) -> None:
    """A lamp's reflection on each die (``plan.spec.glare``): a soft bright spot, a fifth to
    a third of the die's edge across, somewhere on its top face (each die's own place and
    size, the same in every frame of a throw); drawn on ``scene`` in place."""
    for i, (d, pose) in enumerate(zip(plan.dice, poses, strict=True)):
        rng = np.random.default_rng([plan.noise_seed, 5, i])  # not the throw's: dice unchanged
        dx, dy = rng.uniform(-0.28, 0.28, 2) * d.edge
        radius = float(rng.uniform(0.1, 0.17)) * d.edge
        squash = float(rng.uniform(0.7, 1.3))
        centre = (pose.centre[0] + dx, pose.centre[1] + dy)
        glare_spot(scene, centre, radius, squash, plan.spec.glare)


def glare_spot(
    scene: np.ndarray,
    centre: tuple[float, float],
    radius: float,
    squash: float,
    opacity: float,
    hardness: float = 1.0,
) -> None:
    """Draw one soft near-white spot on ``scene`` (float, H×W×3) in place: ``opacity`` at
    ``centre``, falling off as exp(-(r²/2radius²)^hardness), ``squash`` its height's
    stretch. A hardness over 1 gives the flat top and sharper rim of a shiny face."""
    h, w = scene.shape[:2]
    cx, cy = centre
    reach = int(3 * radius) + 1
    x0, x1 = max(0, int(cx) - reach), min(w, int(cx) + reach + 1)
    y0, y1 = max(0, int(cy) - reach), min(h, int(cy) + reach + 1)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    spot = ((xs - cx) ** 2 + ((ys - cy) * squash) ** 2) / (2 * radius**2)
    a = (opacity * np.exp(-(spot**hardness)))[..., None].astype(np.float32)
    scene[y0:y1, x0:x1] = scene[y0:y1, x0:x1] * (1 - a) + GLARE_WHITE * a


def render_throw(spec: ThrowSpec, rng: np.random.Generator) -> RenderedThrow:
    """Render one throw; the same spec and seed give identical bytes."""
    plan = _plan(spec, rng)
    poses = [d.pose for d in plan.dice]
    image = _frame(plan, poses, [None] * len(poses), np.random.default_rng(plan.noise_seed))
    empty = _output(plan, plan.tray.copy(), np.random.default_rng([plan.noise_seed, 1]))
    return RenderedThrow(image, tuple(d.truth for d in plan.dice), empty)


def render_settling(
    spec: ThrowSpec, rng: np.random.Generator, moving: int = 6, still: int = 10
) -> list[tuple[np.ndarray, bool]]:
    """Frames of one throw settling: ``moving`` frames in motion (flag False), then ``still``
    frames at rest where only sensor noise changes (flag True). The last frame is
    byte-identical to ``render_throw(spec, rng)`` for the same seed."""
    plan = _plan(spec, rng)
    mrng = np.random.default_rng([plan.noise_seed, 2])
    frames: list[tuple[np.ndarray, bool]] = []
    for i in range(moving):
        f = 1 - i / max(moving, 1)
        poses: list[Pose] = []
        kernels: list[np.ndarray | None] = []
        for d in plan.dice:
            a = mrng.uniform(0, 2 * math.pi)
            step = d.edge * (0.25 + 0.9 * f)
            centre = (d.pose.centre[0] + step * math.cos(a), d.pose.centre[1] + step * math.sin(a))
            value = int(mrng.choice(FACES[d.die])) if f > 0.5 else d.pose.value
            poses.append(
                replace(
                    d.pose,
                    centre=centre,
                    angle=d.pose.angle + mrng.uniform(-45, 45) * f,
                    value=value,
                    seed=int(mrng.integers(2**62)),
                )
            )
            kernels.append(
                motion_kernel(max(3, int(d.edge * 0.3 * f) | 1), mrng.uniform(0, math.pi))
            )
        frames.append(
            (_frame(plan, poses, kernels, np.random.default_rng([plan.noise_seed, 3, i])), False)
        )
    final = [d.pose for d in plan.dice]
    for i in range(still):
        noise = np.random.default_rng(
            plan.noise_seed if i == still - 1 else [plan.noise_seed, 4, i]
        )
        frames.append((_frame(plan, final, [None] * len(final), noise), True))
    return frames


def write_dataset(
    directory: Path,
    count: int,
    rng: np.random.Generator,
    dice_choices: tuple[str, ...] = ("d6",),
    per_image: tuple[int, int] = (1, 8),
    progress: Callable[[int], None] | None = None,
    **spec_kwargs: object,
) -> Path:
    """Write ``count`` rendered throws as images/*.png, labels.csv (the byler_d6 format:
    file,die_type,values,n_dice,total,upstream_split) and boxes.csv
    (file,die,value,xmin,ymin,xmax,ymax). Returns the labels.csv path; ``progress`` is told how
    many images are written, after each."""
    directory = Path(directory)
    (directory / "images").mkdir(parents=True, exist_ok=True)
    labels: list[list[object]] = []
    boxes: list[list[object]] = []
    for i in range(count):
        n = int(rng.integers(per_image[0], per_image[1] + 1))
        dice = tuple(str(dice_choices[int(k)]) for k in rng.integers(len(dice_choices), size=n))
        throw = render_throw(ThrowSpec(dice=dice, **spec_kwargs), rng)  # type: ignore[arg-type]
        name = f"images/synth_{i:05d}.png"
        write_image(directory / name, throw.image)
        values = sorted(d.value for d in throw.dice)
        kinds = sorted({d.die for d in throw.dice})
        kind = kinds[0] if len(kinds) == 1 else "mixed"
        labels.append(
            [name, kind, ";".join(map(str, values)), len(values), sum(values), "synthetic"]
        )
        boxes.extend([name, d.die, d.value, *d.box] for d in throw.dice)
        if progress is not None:
            progress(i + 1)
    # the lists last, each whole: a set stopped half way has no labels.csv to be measured by
    header: list[object] = ["file", "die", "value", "xmin", "ymin", "xmax", "ymax"]
    write_whole(directory / "boxes.csv", _csv([header, *boxes]))
    header = ["file", "die_type", "values", "n_dice", "total", "upstream_split"]
    write_whole(directory / "labels.csv", _csv([header, *labels]))
    return directory / "labels.csv"


def _csv(rows: list[list[object]]) -> bytes:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue().encode("utf-8")
