"""Hard negatives for the face network: a thin vein drawn through a d6's centre.

On marbled dice a white or pip-coloured vein crossing the middle of a "2" read as
a third pip (the byler photos' misreads, docs/vision.md).  An even face has no
middle pip; an odd face's middle pip stays one.  So photo crops of every face get
a curved stroke (1–2.5 px, 10–26 px long, sometimes branched) through the
middle, in the pips' own colour or near-white, and keep their label: a line
across the face is not a pip.  Two thirds of the crops are even faces, where the
vein lies where no pip is.

``python -m vision.training.veins CROPS.npz OUT.npz --count 8000 --seed 1``
(CROPS from ``vision.training.crops_set``; only its photo crops are used).
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

EVEN_SHARE = 0.65
UPSAMPLE = 4  # the stroke is drawn this much finer, then shrunk: smooth, sub-pixel edges


def pip_colour(crop: np.ndarray) -> np.ndarray:
    """The mean colour of the crop's pips: the pixels of the middle that stand out most
    from its median, on the side (lighter or darker) that stands out further."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    side = crop.shape[0]
    a, b = side // 4, side - side // 4
    core = grey[a:b, a:b]
    median = np.median(core)
    low, high = np.percentile(core, 3), np.percentile(core, 97)
    pips = (grey >= high) if (high - median) > (median - low) else (grey <= low)
    middle = np.zeros_like(pips)
    middle[a:b, a:b] = True
    pips &= middle
    if not pips.any():
        return np.array([240, 240, 240], np.float32)
    return np.asarray(crop.astype(np.float32)[pips].mean(axis=0), np.float32)


def with_vein(crop: np.ndarray, rng: np.random.Generator, ring: bool = False) -> np.ndarray:
    """``crop`` with a vein through its middle (the crop is a die, centred), or with
    ``ring`` a shorter one 9–12 px out from it, where a 6's middle-row pips lie."""
    side = crop.shape[0]
    image = crop.astype(np.float32)
    if rng.random() < 0.5:
        colour = pip_colour(crop)
    else:
        colour = np.full(3, rng.uniform(200, 255), np.float32) * rng.uniform(0.9, 1.0, 3)
    half = side / 2
    if ring:
        around, out = rng.uniform(0, 2 * np.pi), rng.uniform(9, 12)
        cx, cy = half + out * np.cos(around), half + out * np.sin(around)
        angle = rng.uniform(0, np.pi)
        back, ahead = rng.uniform(3, 7), rng.uniform(3, 7)
        bend = rng.uniform(-2, 2)
    else:
        cx, cy = half + rng.uniform(-4, 4), half + rng.uniform(-4, 4)
        angle = rng.uniform(0, np.pi)
        back, ahead = rng.uniform(5, 13), rng.uniform(5, 13)
        bend = rng.uniform(-4, 4)
    t = np.linspace(-1, 1, 25)
    ux, uy = np.cos(angle), np.sin(angle)
    along = np.where(t < 0, t * back, t * ahead)
    xs = cx + along * ux - bend * (1 - t**2) * uy
    ys = cy + along * uy + bend * (1 - t**2) * ux
    fine = side * UPSAMPLE
    mask = np.zeros((fine, fine), np.uint8)
    points = (np.stack([xs, ys], 1) * UPSAMPLE).astype(np.int32)
    width = int(rng.uniform(1.0, 2.5) * UPSAMPLE)
    cv2.polylines(mask, [points], False, 255, width, cv2.LINE_AA)
    if not ring and rng.random() < 0.3:  # a branch
        k = rng.integers(5, 20)
        turn = rng.uniform(0, np.pi)
        reach = np.array([np.cos(turn), np.sin(turn)]) * rng.uniform(4, 8) * UPSAMPLE
        end = points[k] + reach.astype(np.int32)
        start = (int(points[k][0]), int(points[k][1]))
        cv2.line(mask, start, (int(end[0]), int(end[1])), 255, UPSAMPLE, cv2.LINE_AA)
    drawn = cv2.resize(mask, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    alpha = np.asarray(cv2.GaussianBlur(drawn, (0, 0), 0.5), np.float32) * rng.uniform(0.6, 1.0)
    out = image * (1 - alpha[..., None]) + colour * alpha[..., None]
    return np.asarray(np.clip(out, 0, 255).astype(np.uint8))


def build(
    x: np.ndarray, y: np.ndarray, photo: np.ndarray, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` veined copies of photo crops of d6 faces, and their (unchanged) labels."""
    rng = np.random.default_rng(seed)
    even = np.flatnonzero(photo & np.isin(y, [2, 4, 6]))
    odd = np.flatnonzero(photo & np.isin(y, [1, 3, 5]))
    if not len(even) or not len(odd):
        raise SystemExit("the crops set has no photo crops of d6 faces to draw veins on")
    n_even = int(count * EVEN_SHARE)
    pick = np.concatenate([rng.choice(even, n_even), rng.choice(odd, count - n_even)])
    out = np.empty((len(pick), *x.shape[1:]), np.uint8)
    for j, i in enumerate(pick):
        out[j] = with_vein(x[i], rng)
    return out, y[pick]


def build_ring(
    x: np.ndarray, y: np.ndarray, photo: np.ndarray, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` photo crops of 2–5 pips with a short vein where a 6's middle row would be
    (a "4" or "5" read "6" on dark dice with veins the pips' colour), labels unchanged."""
    rng = np.random.default_rng(seed)
    faces = np.flatnonzero(photo & np.isin(y, [2, 3, 4, 5]))
    if not len(faces):
        raise SystemExit("the crops set has no photo crops of d6 faces to draw veins on")
    pick = rng.choice(faces, count)
    out = np.empty((len(pick), *x.shape[1:]), np.uint8)
    for j, i in enumerate(pick):
        out[j] = with_vein(x[i], rng, ring=True)
    return out, y[pick]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("crops", help="a crops set (vision.training.crops_set)")
    parser.add_argument("out", help="the veined crops, .npz (x, y, photo)")
    parser.add_argument("--count", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ring", action="store_true",
                        help="short veins where a 6's middle row lies, on 2-5 pips")  # fmt: skip
    args = parser.parse_args()
    data = np.load(args.crops)
    make = build_ring if args.ring else build
    x, y = make(data["x"], data["y"], data["photo"], args.count, args.seed)
    np.savez(args.out, x=x, y=y, photo=np.ones(len(y), bool))
    print(f"wrote {args.out}: {len(y)} veined crops")


if __name__ == "__main__":
    main()
