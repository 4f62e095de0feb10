"""Drawing pieces for the synthetic renderer (:mod:`vision.render`): single dice
seen from above (faces, side bands, translucency) and the tray.

Every die is described in *unit coordinates*: seen straight from above it fits
the square [0, 1]² (centre 0.5, 0.5; one unit = the die's edge length). A face
texture of ``size`` pixels covers [-MARGIN, 1 + MARGIN]², so outlines that reach
a little outside the square (the d10's and d20's neighbour faces) still fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from vision.render_d10 import D10, DRAWN

MARGIN = 0.12
DESIGNS = (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_SIMPLEX)  # numeral fonts: two designs
SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
ONE_PIP = 0.13  # a d6's lone pip, the 1 (radius, share of the face): larger than the others'
_ONE = 1 << SHIFT

Colour = tuple[int, int, int]


class Look(Protocol):
    """How a die looks (``vision.render.DieLook``)."""

    @property
    def body(self) -> Colour: ...
    @property
    def ink(self) -> Colour: ...
    @property
    def translucent(self) -> bool: ...
    @property
    def numerals(self) -> bool: ...
    @property
    def marble(self) -> Colour | None: ...
    @property
    def one_pip(self) -> float: ...
    @property
    def one_four_ink(self) -> Colour | None: ...
    @property
    def design(self) -> int | None: ...


def _ring(cx: float, cy: float, r: float, start_deg: float, n: int) -> np.ndarray:
    a = np.radians(start_deg + np.arange(n) * 360.0 / n)
    return np.stack([cx + r * np.cos(a), cy - r * np.sin(a)], axis=1)


def _rounded(poly: np.ndarray, radius: float, steps: int = 6) -> np.ndarray:
    """A convex polygon with its corners rounded (radius in the polygon's units)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, prev, nxt = poly[i], poly[i - 1], poly[(i + 1) % n]
        a, b = prev - p, nxt - p
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
        half = math.acos(float(np.clip(a @ b, -1.0, 1.0))) / 2
        dist = radius / math.tan(half)
        p0, p1 = p + a * dist, p + b * dist
        centre = p + (a + b) / np.linalg.norm(a + b) * (radius / math.sin(half))
        t0 = math.atan2(*(p0 - centre)[::-1])
        t1 = math.atan2(*(p1 - centre)[::-1])
        dt = (t1 - t0 + math.pi) % (2 * math.pi) - math.pi
        for s in np.linspace(0.0, 1.0, steps):
            t = t0 + dt * s
            out.append(centre + radius * np.array([math.cos(t), math.sin(t)]))
    return np.array(out)


_SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
D10_ROUNDING = 0.05  # the d10 outline's corners
_HEX = _ring(0.5, 0.5, 0.58, 90.0, 6)
_TRI20 = _ring(0.5, 0.5, 0.4, 90.0, 3)
_TRI5 = _ring(0.5, 0.58, 0.56, 90.0, 3)

# (top face polygon, whole outline seen from above) per die type, unit coordinates
SHAPES: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "d6": (_SQUARE, _rounded(_SQUARE, 0.12)),
    "dF": (_SQUARE, _rounded(_SQUARE, 0.12)),
    "d10": (DRAWN.top, _rounded(DRAWN.outline, D10_ROUNDING)),
    "d20": (_TRI20, _rounded(_HEX, 0.04)),
    "d5": (_TRI5, _rounded(_TRI5, 0.07)),
}
_BEVEL = _rounded(_SQUARE * 0.9 + 0.05, 0.1)


def to_px(pts: np.ndarray | list[Any], size: int) -> np.ndarray:
    """Unit coordinates -> texture pixel coordinates."""
    return (np.asarray(pts, dtype=np.float64) + MARGIN) / (1 + 2 * MARGIN) * size


def fill(img: np.ndarray, pts: np.ndarray, colour: float | tuple[float, ...]) -> None:
    """Antialiased filled polygon with sub-pixel corners (``pts`` in pixels)."""
    fixed = np.round(np.asarray(pts) * _ONE).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(img, [fixed], colour, cv2.LINE_AA, SHIFT)


def _shade(c: Colour, k: float) -> Colour:
    return (min(255, int(c[0] * k)), min(255, int(c[1] * k)), min(255, int(c[2] * k)))


def _pips(value: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    a, b, c = 0.27, 0.5, 0.73
    layout = {
        1: [(b, b)],
        2: [(a, a), (c, c)],
        3: [(a, a), (b, b), (c, c)],
        4: [(a, a), (c, a), (a, c), (c, c)],
        5: [(a, a), (c, a), (a, c), (c, c), (b, b)],
        6: [(a, a), (a, b), (a, c), (c, a), (c, b), (c, c)],
    }[value]
    if rng.random() < 0.5:  # the other diagonal
        layout = [(1 - x, y) for x, y in layout]
    if rng.random() < 0.5:  # turned by 90 degrees
        layout = [(y, x) for x, y in layout]
    return layout


_GRID = (0.27, 0.5, 0.73)


def _symmetries(cells: frozenset[tuple[int, int]]) -> set[frozenset[tuple[int, int]]]:
    """A set of 3 × 3 grid cells under the square's eight turns and mirrors."""
    out = set()
    for mirror in (False, True):
        turned = {(y, x) if mirror else (x, y) for x, y in cells}
        for _ in range(4):
            turned = {(2 - y, x) for x, y in turned}
            out.add(frozenset(turned))
    return out


# every layout a real d6 face shows, in every turn and mirror (grid cells 0..2)
_FACES = (
    {(1, 1)},
    {(0, 0), (2, 2)},
    {(0, 0), (1, 1), (2, 2)},
    {(0, 0), (2, 0), (0, 2), (2, 2)},
    {(0, 0), (2, 0), (0, 2), (2, 2), (1, 1)},
    {(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)},
)
VALID_LAYOUTS = frozenset(s for cells in _FACES for s in _symmetries(frozenset(cells)))


def impossible_pips(rng: np.random.Generator) -> list[tuple[float, float]]:
    """Pip centres (unit coordinates) that no d6 face shows: 2 to 9 cells of the 3 × 3
    grid in a pattern no face has (two side by side, an L, a 4 with a pip in the
    middle of a side, seven or more pips).  Every such pattern differs from every
    real face by a whole pip place (0.23 of the die), which a 32-pixel crop still
    shows; a pip merely nudged off its place would teach the network to doubt real
    faces instead."""
    while True:
        cells = frozenset(
            (int(i % 3), int(i // 3))
            for i in rng.choice(9, int(rng.integers(2, 10)), replace=False)
        )
        if cells not in VALID_LAYOUTS:
            return [(_GRID[x], _GRID[y]) for x, y in cells]


def numeral(
    mask: np.ndarray,
    text: str,
    centre: tuple[float, float],
    height: float,
    font: int = cv2.FONT_HERSHEY_SIMPLEX,
) -> None:
    """``text`` centred on ``centre`` (pixels), ``height`` pixels tall; 6 and 9 underlined."""
    (_, h1), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = height / h1
    thick = max(1, round(height * 0.14))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (round(centre[0] - w / 2), round(centre[1] + h / 2))
    cv2.putText(mask, text, org, font, scale, 255, thick, cv2.LINE_AA)
    if text in ("6", "9"):
        y = round(centre[1] + h / 2 + height * 0.2)
        cv2.line(mask, (org[0], y), (org[0] + w, y), 255, thick, cv2.LINE_AA)


def face_texture(
    die: str,
    value: int,
    body: Colour,
    ink: Colour,
    numerals: bool,
    size: int,
    rng: np.random.Generator,
    impossible: bool = False,
    marble: Colour | None = None,
    design: int | None = None,
    one_pip: float = ONE_PIP,
    d10: D10 = DRAWN,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The die seen straight from above: colour (BGR uint8), coverage and ink masks (float 0..1).
    ``impossible``: a d6 whose pips make no real face (see :func:`impossible_pips`);
    ``marble``: swirls of this colour through the body (see :func:`marbled`);
    ``design``: the numerals' font, DESIGNS[design] (None: either, at random);
    ``one_pip``: the radius of a d6's lone pip on its 1 face (a share of the face);
    ``d10``: how a d10 is drawn (vision/render_d10.py)."""
    outline = outline_of(die, d10)
    colour = np.zeros((size, size, 3), np.uint8)
    colour[:] = body
    if marble is not None:
        colour[:] = marbled(body, marble, size, np.random.default_rng(rng.integers(2**32)))
    cover = np.zeros((size, size), np.uint8)
    fill(cover, to_px(outline, size), 255)
    rim = np.zeros_like(cover)
    ink_mask = np.zeros_like(cover)
    u = size / (1 + 2 * MARGIN)  # pixels per unit
    either = DESIGNS[0] if rng.random() < 0.5 else DESIGNS[1]  # drawn always: same stream
    font = either if design is None else DESIGNS[design]
    if die == "d10":
        for side, light in d10.sides:
            fill(colour, to_px(side, size), _shade(body, light))
        fill(colour, to_px(_rounded(d10.top, 0.03), size), body)
        (x, y), high = d10.numeral_at, d10.numeral_height
        numeral(ink_mask, str(value), (x * u + MARGIN * u, y * u + MARGIN * u), high * u, font)
    elif die == "d20":
        fill(colour, to_px(_HEX, size), _shade(body, 0.7))
        for i, shade in enumerate((0.88, 0.8, 0.94)):
            t0, t1 = _TRI20[i], _TRI20[(i + 1) % 3]
            h0, h1 = _HEX[2 * i], _HEX[(2 * i + 2) % 6]
            fill(colour, to_px([t0, h0, _HEX[2 * i + 1], h1, t1], size), _shade(body, shade))
        fill(colour, to_px(_rounded(_TRI20, 0.03), size), body)
        text_h = 0.19 * u if value >= 10 else 0.22 * u
        numeral(ink_mask, str(value), (0.5 * u + MARGIN * u, 0.5 * u + MARGIN * u), text_h, font)
    elif die == "d5":
        fill(colour, to_px(_rounded(_TRI5, 0.07), size), body)
        numeral(ink_mask, str(value), (0.5 * u + MARGIN * u, 0.62 * u + MARGIN * u), 0.26 * u, font)
    elif die == "dF":
        bar = 0.075
        if value != 0:
            fill(
                ink_mask,
                to_px(
                    [[0.22, 0.5 - bar], [0.78, 0.5 - bar], [0.78, 0.5 + bar], [0.22, 0.5 + bar]],
                    size,
                ),
                255,
            )
        if value == 1:
            fill(
                ink_mask,
                to_px(
                    [[0.5 - bar, 0.22], [0.5 + bar, 0.22], [0.5 + bar, 0.78], [0.5 - bar, 0.78]],
                    size,
                ),
                255,
            )
    elif numerals:
        numeral(ink_mask, str(value), (0.5 * u + MARGIN * u, 0.5 * u + MARGIN * u), 0.42 * u, font)
    else:
        radius = one_pip if value == 1 else (0.085 if value == 6 else 0.095)
        if impossible:
            radius = 0.085 if rng.random() < 0.5 else 0.095
        for x, y in impossible_pips(rng) if impossible else _pips(value, rng):
            c = to_px([[x, y]], size)[0]
            fixed = (round(c[0] * _ONE), round(c[1] * _ONE))
            cv2.circle(rim, fixed, round(radius * u * _ONE), 255, -1, cv2.LINE_AA, SHIFT)
            cv2.circle(
                ink_mask, fixed, round(radius * 0.78 * u * _ONE), 255, -1, cv2.LINE_AA, SHIFT
            )
    if die in ("d6", "dF"):  # a faint bevel line round the top face
        cv2.polylines(
            colour,
            [np.round(to_px(_BEVEL, size) * _ONE).astype(np.int32)],
            True,
            _shade(body, 0.9),
            max(1, round(0.02 * u)),
            cv2.LINE_AA,
            SHIFT,
        )
    ink_f = ink_mask.astype(np.float32) / 255
    rim_f = np.maximum(rim.astype(np.float32) / 255, ink_f)
    out = colour.astype(np.float32)
    dark = np.array(_shade(ink, 0.7), np.float32) * 0.7 + np.array(body, np.float32) * 0.3
    out = out * (1 - rim_f[..., None]) + dark * rim_f[..., None]
    out = out * (1 - ink_f[..., None]) + np.array(ink, np.float32) * ink_f[..., None]
    cover_f = cover.astype(np.float32) / 255
    return np.clip(out, 0, 255).astype(np.uint8), cover_f, rim_f * cover_f


def marbled(body: Colour, marble: Colour, size: int, rng: np.random.Generator) -> np.ndarray:
    """A marbled body: thin swirling veins of ``marble`` through ``body`` (size × size BGR),
    from level lines of smooth random fields.  Veins and blots as wide as a pip are what a
    pip reader must learn to look past."""

    def field(cells: int) -> np.ndarray:
        coarse = rng.normal(size=(cells, cells)).astype(np.float32)
        return np.asarray(cv2.resize(coarse, (size, size), interpolation=cv2.INTER_CUBIC))

    turns = field(4) * rng.uniform(1.0, 2.2) + field(7) * 0.5
    width = rng.uniform(0.15, 0.35)  # of a band's period
    vein = np.clip(1.0 - np.abs(np.sin(np.pi * turns)) / np.sin(np.pi * width), 0.0, 1.0)
    vein = vein * np.clip(field(3) + 0.6, 0.0, 1.0)  # the veins fade in and out
    mix = np.clip(vein * rng.uniform(0.6, 1.0), 0.0, 1.0)[..., None]
    out = np.array(body, np.float32) * (1 - mix) + np.array(marble, np.float32) * mix
    return np.clip(out, 0, 255).astype(np.uint8)


def side_pips(
    img: np.ndarray, quad: np.ndarray, count: int, colour: Colour, rng: np.random.Generator
) -> None:
    """Pips on a visible side face; ``quad`` = top edge p0, p1 then p1 + d, p0 + d (pixels)."""
    p0, p1, p2, p3 = (np.asarray(q, np.float64) for q in quad)
    spots = {1: [0.5], 2: [0.3, 0.7], 3: [0.25, 0.5, 0.75]}[count]
    diagonal = rng.random() < 0.5
    for i, s in enumerate(spots):
        t = 0.5 if count == 1 or not diagonal else 0.3 + 0.4 * i / (count - 1)
        ring = _ring(0.0, 0.0, 1.0, 0.0, 16)
        ss = s + ring[:, 0] * 0.1
        tt = t + ring[:, 1] * 0.3
        top = p0[None] + (p1 - p0)[None] * ss[:, None]
        bottom = p3[None] + (p2 - p3)[None] * ss[:, None]
        fill(img, top + (bottom - top) * tt[:, None], colour)


@dataclass(frozen=True)
class Pose:
    """Where and how one die lies (scene pixels)."""

    centre: tuple[float, float]  # scene (supersampled, padded) pixels
    angle: float
    value: int
    seed: int
    squash: tuple[float, float] = (1.0, 0.0)  # factor, axis angle (rad)
    side: tuple[float, float] = (0.0, 0.0)  # shift from top face to base, scene pixels
    impossible: bool = False  # a d6 whose top face's pips make no real face


def linear(edge: float, angle: float, squash: tuple[float, float]) -> np.ndarray:
    a = math.radians(angle)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    k, phi = squash
    axis = np.array([math.cos(phi), math.sin(phi)])
    squeeze = np.eye(2) - (1 - k) * np.outer(axis, axis)
    return edge * squeeze @ rot


def outline_of(die: str, d10: D10 = DRAWN) -> np.ndarray:
    """The whole die's outline seen from above, unit coordinates (a d10 as ``d10`` draws it;
    throws' own, DRAWN, rounded once in SHAPES)."""
    if die != "d10" or d10 is DRAWN:
        return SHAPES[die][1]
    return _rounded(d10.outline, D10_ROUNDING)


def geometry(
    die: str, centre: np.ndarray, edge: float, pose: Pose, d10: D10 = DRAWN
) -> tuple[np.ndarray, ...]:
    """Top face polygon and whole-die outline (incl. visible sides) around ``centre``."""
    lin = linear(edge, pose.angle, pose.squash)
    top_u, outline_u = (d10.top if die == "d10" else SHAPES[die][0]), outline_of(die, d10)
    top = centre + (top_u - 0.5) @ lin.T
    outline = centre + (outline_u - 0.5) @ lin.T
    side = np.array(pose.side)
    if np.hypot(*side) >= 0.5:
        both = np.vstack([outline, outline + side]).astype(np.float32)
        outline = cv2.convexHull(both).reshape(-1, 2).astype(np.float64)
    return top, outline, lin


def die_layer(
    die: str,
    look: Look,
    edge: float,
    pose: Pose,
    frac: np.ndarray,
    texture: float = 2.0,
    d10: D10 = DRAWN,
) -> tuple[np.ndarray, np.ndarray]:
    """Premultiplied colour and alpha of one die on a square canvas centred at ``frac`` (a
    d10 as ``d10`` draws it)."""
    rng = np.random.default_rng(pose.seed)
    side = np.array(pose.side)
    half = math.ceil(0.78 * edge + float(np.hypot(*side)) + 3)
    size = 2 * half
    centre = half + frac
    top, outline, lin = geometry(die, centre, edge, pose, d10)
    premult = np.zeros((size, size, 3), np.float32)
    alpha = np.zeros((size, size), np.float32)
    body = np.array(look.body, np.float32)
    if np.hypot(*side) >= 0.5:
        band = np.zeros((size, size, 3), np.uint8)
        band[:] = tuple(int(c * 0.62) for c in look.body)
        mask = np.zeros((size, size), np.uint8)
        fill(mask, outline, 255)
        if die == "d6" and not look.numerals:
            mid = top.mean(axis=0)
            for i in range(4):
                p0, p1 = top[i], top[(i + 1) % 4]
                normal = (p0 + p1) / 2 - mid
                depth = float(normal @ side) / float(np.hypot(*normal))
                if depth > max(1.5, 0.08 * edge):
                    ink = tuple(int(c * 0.75) for c in look.ink)
                    quad = np.array([p0, p1, p1 + side, p0 + side])
                    side_pips(band, quad, int(rng.integers(1, 4)), ink, rng)  # type: ignore[arg-type]
        a_band = mask.astype(np.float32) / 255 * (0.65 if look.translucent else 1.0)
        premult = (band.astype(np.float32) * a_band[..., None]).astype(np.float32)
        alpha = a_band.astype(np.float32)
    tsize = max(48, int(texture * edge * (1 + 2 * MARGIN)))  # texture pixels per layer pixel
    ink = look.ink
    if look.one_four_ink is not None and die == "d6" and pose.value in (1, 4):
        ink = look.one_four_ink  # Chinese dice: the 1 and the 4 red
    tex, cover, ink_m = face_texture(
        die, pose.value, look.body, ink, look.numerals, tsize, rng, pose.impossible,
        look.marble, look.design, look.one_pip, d10,
    )  # fmt: skip
    tex_f = tex.astype(np.float32)
    a_top = cover * (0.55 + 0.45 * ink_m) if look.translucent else cover
    if look.translucent:  # a bright soft highlight
        yy, xx = np.mgrid[0:tsize, 0:tsize].astype(np.float32) / tsize
        blob = np.exp(-((xx - 0.33) ** 2 + (yy - 0.3) ** 2) / 0.03).astype(np.float32) * cover
        tex_f = np.minimum(tex_f + 70 * blob[..., None] + 0.25 * (255 - body), 255)
        a_top = np.minimum(a_top + 0.35 * blob, 1.0)
    s = (1 + 2 * MARGIN) / tsize
    warp = np.hstack([lin * s, (centre + lin @ np.array([-MARGIN - 0.5] * 2))[:, None]])
    flags = cv2.INTER_LINEAR
    tex_w = cv2.warpAffine(tex_f * a_top[..., None], warp, (size, size), flags=flags)
    a_w = cv2.warpAffine(a_top.astype(np.float32), warp, (size, size), flags=flags)
    premult = premult * (1 - a_w[..., None]) + tex_w
    alpha = alpha * (1 - a_w) + a_w
    return premult, alpha


def motion_kernel(length: int, angle: float) -> np.ndarray:
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    d = np.array([math.cos(angle), math.sin(angle)]) * c
    cv2.line(k, (round(c - d[0]), round(c - d[1])), (round(c + d[0]), round(c + d[1])), 1.0, 1)
    return k / k.sum()


def tray(
    w: int, h: int, ss: int, rng: np.random.Generator, colour: tuple[int, int, int] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Tray colour (lit, float32) and the lighting factor, in scene pixels; ``colour`` (BGR):
    a felt of that colour, else grey, green felt or wood at random."""
    lw, lh = -(-w // ss), -(-h // ss)  # textures are made at output resolution

    def smooth(shape: tuple[int, int], scale: float) -> np.ndarray:
        small = rng.normal(0.0, 1.0, shape).astype(np.float32)
        return cv2.resize(small, (lw, lh), interpolation=cv2.INTER_CUBIC) * scale

    kind = int(rng.integers(3))  # drawn either way: throws with no colour stay as they were
    base = [(176, 178, 181), (48, 108, 42), (42, 72, 112)][kind]
    if colour is not None:
        kind, base = 1, colour
    base_f = np.array(base, np.float32) * rng.uniform(0.85, 1.12)
    shade = smooth((5, 5), 6.0) + smooth((lh // 2, lw // 2), (2.5, 5.0, 3.0)[kind])
    if kind == 2:  # wood grain: streaks along one axis
        across = rng.random() < 0.5
        shade += smooth((48, 4) if across else (4, 48), 7.0)
        shade += smooth((160, 6) if across else (6, 160), 3.0)
    tray = shade[..., None] * np.array([1.0, 0.95, 0.9], np.float32) + base_f.astype(np.float32)
    tray = cv2.resize(tray, (w, h), interpolation=cv2.INTER_LINEAR)
    xx = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
    yy = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
    a = rng.uniform(0, 2 * math.pi)
    light = (
        1
        + rng.uniform(0.06, 0.16) * 2 * (xx * math.cos(a) + yy * math.sin(a))
        - rng.uniform(0.1, 0.3) * (xx**2 + yy**2) * 2
    )
    light = light.astype(np.float32)
    return tray * light[..., None], light


def scatter_debris(tray: np.ndarray, count: int, unit: float, rng: np.random.Generator) -> None:
    """Draw ``count`` bits of debris on ``tray`` (lit, float32, in place): specks and crumbs
    (round, 0.06-0.25 ``unit`` across) and lint (thin strands up to 0.6 ``unit`` long), light
    on a dark tray and dark on a light one, as a tray that is used collects them."""
    h, w = tray.shape[:2]
    dark_tray = float(tray.mean()) < 110
    for _ in range(count):
        tone = rng.uniform(170, 245) if dark_tray else rng.uniform(15, 70)
        colour = tuple(float(np.clip(tone * rng.uniform(0.85, 1.15), 0, 255)) for _ in range(3))
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if rng.random() < 0.6:  # a speck or a crumb
            axes = (unit * rng.uniform(0.03, 0.125), unit * rng.uniform(0.03, 0.125))
            centre = (round(x * _ONE), round(y * _ONE))
            size = (max(1, round(axes[0] * _ONE)), max(1, round(axes[1] * _ONE)))
            angle = float(rng.uniform(0, 180))
            cv2.ellipse(tray, centre, size, angle, 0, 360, colour, -1, cv2.LINE_AA, SHIFT)
        else:  # a strand of lint, a little bent
            length, turn = unit * rng.uniform(0.2, 0.6), rng.uniform(0, 2 * math.pi)
            bend = rng.uniform(-1.0, 1.0, 4).cumsum() * 0.4
            steps = np.arange(5) * length / 4
            xs = x + steps * np.cos(turn + np.append(0.0, bend))
            ys = y + steps * np.sin(turn + np.append(0.0, bend))
            points = np.round(np.stack([xs, ys], 1) * _ONE).astype(np.int32)
            width = max(1, round(unit * rng.uniform(0.02, 0.05)))
            cv2.polylines(tray, [points], False, colour, width, cv2.LINE_AA, SHIFT)
