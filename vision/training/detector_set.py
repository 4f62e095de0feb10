"""The die finder's training set: frames scaled to the finder's input, with die boxes.

``python -m vision.training.detector_set OUT.npz``: the training half of the
byler photos (flipped, turned, rescaled, re-lit) and synthetic throws of every
die type on varied trays.  ``--felt F``: that share of the throws on a felt the
colour of their dice, with specks of debris (black dice on black felt: the finder
boxed their pips and the specks, not the dice).
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import numpy as np

from vision.datasets import iter_split, read_dataset, shared_photos
from vision.finder import INPUT, letterbox
from vision.render import PALETTE, DieLook, ThrowSpec, render_throw
from vision.training.crops_set import jitter, parallel, read_image

DIE_TYPES = ("d6", "d6", "dF", "d10", "d20", "d5", "d5")  # d5s are small: more of them


def _place(image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator):
    """A random flip / quarter turn / rescale of a frame and its boxes, letterboxed."""
    if rng.random() < 0.5:
        image = image[:, ::-1]
        w = image.shape[1]
        boxes = boxes[:, [2, 1, 0, 3]] * [-1, 1, -1, 1] + [w, 0, w, 0]
    for _ in range(int(rng.integers(0, 4))):
        h = image.shape[0]
        image = np.rot90(image)  # counter-clockwise: (x, y) -> (y, w - x)
        w = image.shape[1]
        boxes = np.stack(
            [boxes[:, 1], image.shape[0] - boxes[:, 2], boxes[:, 3], image.shape[0] - boxes[:, 0]],
            axis=1,
        )
        del h, w
    image = np.ascontiguousarray(image)
    zoom = rng.uniform(0.75, 1.3)
    frame, scale, (dx, dy) = letterbox(
        image, INPUT, zoom=zoom, offset=tuple(rng.uniform(-0.5, 0.5, 2))
    )
    placed = boxes * scale + [dx, dy, dx, dy]
    keep = (placed[:, 2] > 0) & (placed[:, 3] > 0) & (placed[:, 0] < INPUT) & (placed[:, 1] < INPUT)
    return frame, placed[keep]


def _felt_throw(
    rng: np.random.Generator, looks: tuple[DieLook, ...]
) -> tuple[tuple[int, int, int], tuple[DieLook, ...], int]:
    """A throw's tray and looks where the felt is about the colour of the dice: one look,
    now and then another among them, a felt within a sixth of its body's brightness, and
    debris on it (a speck on such a felt looks like a pip of a die no one can see)."""
    look = looks[int(rng.integers(len(looks)))]
    body = np.array(look.body, float)
    felt = np.clip(body * rng.uniform(0.85, 1.18) + rng.normal(0, 6, 3), 8, 247)
    chosen = (look,) if rng.random() < 0.7 else (look, looks[int(rng.integers(len(looks)))])
    blue, green, red = (int(c) for c in felt)
    return (blue, green, red), chosen, int(rng.integers(0, 16))  # tray, looks, debris


def build(
    rng: np.random.Generator,
    synthetic: int,
    photos_too: bool = True,
    copies: int = 10,
    felt: float = 0.0,
):
    frames, targets, felts = [], [], []
    photos = shared_photos() if photos_too else None
    if photos is not None:
        for item in iter_split(read_dataset(photos / "byler_d6"), "train"):
            image = read_image(item.path)
            boxes = np.array([(b.x0, b.y0, b.x1, b.y1) for b in item.boxes or ()], float).reshape(
                -1, 4
            )
            for _ in range(copies):
                frame, placed = _place(image, boxes, rng)
                frames.append(jitter(frame, rng))
                targets.append(placed)
                felts.append(False)
    looks = (*PALETTE, DieLook((200, 200, 200), (40, 40, 160), translucent=True))
    solid = tuple(look for look in looks if not look.translucent)
    for _ in range(synthetic):
        count = int(rng.integers(0, 14))
        on_felt = felt > 0 and rng.random() < felt
        tray, chosen, debris = _felt_throw(rng, solid) if on_felt else (None, looks, 0)
        spec = ThrowSpec(
            dice=tuple(str(rng.choice(DIE_TYPES)) for _ in range(count)),
            die_px=(18, 80),
            perspective=float(rng.uniform(0, 0.3)),
            blur=float(rng.uniform(0.3, 1.5)),
            touching=0.4,
            cocked=0.1,  # found, so that the reader can say "re-throw it"
            outside=0.05,
            impossible=0.05,
            looks=chosen,
            tray=tray,
            debris=debris,
        )
        throw = render_throw(spec, rng)
        boxes = np.array([d.box for d in throw.dice], float).reshape(-1, 4)
        frame, placed = _place(throw.image, boxes, rng)
        frames.append(jitter(frame, rng))
        targets.append(placed)
        felts.append(on_felt)
    lengths = np.array([len(t) for t in targets])
    boxes = np.concatenate(targets) if targets else np.zeros((0, 4))
    return np.stack(frames), lengths, boxes, np.array(felts, bool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--synthetic", type=int, default=1500)
    parser.add_argument("--jobs", type=int, default=1, help="processes building in parallel")
    parser.add_argument(
        "--felt", type=float, default=0.0, help="share of throws on a felt the dice's colour"
    )
    args = parser.parse_args()
    frames, lengths, boxes, felts = parallel(
        functools.partial(build, copies=args.copies, felt=args.felt),
        args.seed,
        args.synthetic,
        args.jobs,
    )
    np.savez(args.out, frames=np.stack(frames), lengths=lengths, boxes=boxes, felt=felts)
    print(f"{len(frames)} frames ({felts.sum()} on a felt the dice's colour), {lengths.sum()} dice")


if __name__ == "__main__":
    main()
