"""The crop classifier's training set: augmented crops of labelled dice, and of not-dice.

Classes: 0 not a die, 1–6 a d6 showing that many pips, 7/8/9 a Fudge die
showing −, blank, +, 10 a cocked die (leaning on another or on the wall, no face
up), 11 a d6 whose pips make no real face.  ``python -m vision.training.crops_set OUT.npz``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision import pixels
from vision.crops import CROP_SIZE, crop_die
from vision.datasets import iter_split, read_dataset, shared_photos
from vision.readings import Box
from vision.render import MARBLED, PALETTE, DieLook, ThrowSpec, render_throw

# the rendered dice's looks: the palette, a translucent one and the marbled ones
TRAINING_LOOKS = (*PALETTE, DieLook((200, 200, 200), (40, 40, 160), translucent=True), *MARBLED)
NOT_A_DIE = 0
FUDGE = {-1: 7, 0: 8, 1: 9}
COCKED = 10
IMPOSSIBLE = 11
CLASSES = ("none", "1", "2", "3", "4", "5", "6", "dF-", "dF0", "dF+", "cocked", "bad pips")


def class_of(die: str, value: int, cocked: bool = False, impossible: bool = False) -> int:
    if cocked:
        return COCKED
    if impossible:
        return IMPOSSIBLE
    return FUDGE[value] if die == "dF" else value


def read_image(path: Path) -> np.ndarray:
    try:
        return pixels.read_image(path)
    except pixels.FrameError as err:
        raise SystemExit(str(err)) from None


def jitter(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, colour, blur and noise changes a camera makes (and dice of other colours)."""
    if rng.random() < 0.5:  # another body colour: turn the hue wheel
        hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = (hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180
        crop = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    out: np.ndarray = crop.astype(np.float32)
    out = out * rng.uniform(0.6, 1.35) + rng.uniform(-30, 30)
    out = out * rng.uniform(0.85, 1.15, size=3)  # white balance
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    out += rng.normal(0, rng.uniform(0, 6), out.shape)
    if rng.random() < 0.5:  # reds and blues swap: every colour of die
        out = out[:, :, rng.permutation(3)]
    return np.clip(out, 0, 255).astype(np.uint8)


SIZE = [CROP_SIZE]  # the crop side being built (set by --size)


def augmented(image, box, label, copies, rng, xs, ys):
    for _ in range(copies):
        crop = crop_die(
            image,
            box,
            SIZE[0],
            margin=rng.uniform(1.0, 1.4),
            angle=rng.uniform(0, 360),
            shift=tuple(rng.uniform(-0.07, 0.07, 2)),
        )
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        xs.append(jitter(crop, rng))
        ys.append(label)


def negatives(image, boxes, count, rng, xs, ys):
    """Patches of tray, walls and clutter that overlap no die (and some that cut a die)."""
    h, w = image.shape[:2]
    sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [40]
    made = tries = 0
    while made < count and tries < count * 50:
        tries += 1
        side = rng.choice(sizes) * rng.uniform(0.7, 1.5)
        x, y = rng.uniform(0, w - side), rng.uniform(0, h - side)
        cand = (x, y, x + side, y + side)
        worst = max((_overlap(cand, b) for b in boxes), default=0.0)
        if worst > 0.3:
            continue
        crop = crop_die(image, cand, SIZE[0], margin=1.0, angle=rng.uniform(0, 360))
        xs.append(jitter(crop, rng))
        ys.append(NOT_A_DIE)
        made += 1


def speck_negatives(image, tray, clean_tray, boxes, rng, xs, ys):
    """Crops centred on the debris of ``tray`` (the empty tray as rendered with debris; the
    same without: ``clean_tray``) that lies clear of every die: a speck boxed as the finder
    boxes it, alone or with some tray round it, is not a die (nor a 1 of one large pip)."""
    unit = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) if boxes else 40.0
    change = np.abs(tray.astype(np.int16) - clean_tray.astype(np.int16)).max(axis=2) > 25
    count, _, stats, centres = cv2.connectedComponentsWithStats(change.astype(np.uint8))
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < 3:
            continue
        reach = max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT])
        side = float(np.clip(reach * rng.uniform(1.5, 4.0), 0.35 * unit, 1.2 * unit))
        (cx, cy), half = centres[i], side / 2
        box = (cx - half, cy - half, cx + half, cy + half)
        if any(_overlap(box, b) > 0.05 for b in boxes):
            continue
        crop = crop_die(image, box, SIZE[0], margin=rng.uniform(1.0, 1.4),
                        angle=rng.uniform(0, 360))  # fmt: skip
        xs.append(jitter(crop, rng))
        ys.append(NOT_A_DIE)


def _overlap(a, b) -> float:
    """Intersection over the smaller box's area."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / max(small, 1e-9)


def training_throw(rng: np.random.Generator, dice, looks, **more) -> ThrowSpec:  # type: ignore[no-untyped-def]
    """A throw of ``dice`` in ``looks`` as every training set renders it: dice 22-64 px,
    the camera tilted up to 0.3, blurred 0.3-1.2 px, 30% touching, 10% cocked; ``more``
    gives the rest of ThrowSpec (drawn by the caller before the tilt and the blur)."""
    return ThrowSpec(
        dice=dice,
        die_px=(22, 64),
        perspective=float(rng.uniform(0, 0.3)),
        blur=float(rng.uniform(0.3, 1.2)),
        touching=0.3,
        cocked=0.1,
        looks=looks,
        **more,
    )


def training_photos(photos: Path) -> Iterator[tuple[bool, np.ndarray, list[tuple[Box, int]]]]:
    """The training half of ../shared/data/photos' d6 sets: (a tray?, the image, its dice as
    (box, value)); byler's photos of trays with their labelled boxes, then skovy's crops
    of one die each (the die taken as the crop less 8% a side)."""
    for item in iter_split(read_dataset(photos / "byler_d6"), "train"):
        boxes = [((b.x0, b.y0, b.x1, b.y1), b.value) for b in item.boxes or ()]
        yield True, read_image(item.path), boxes
    for item in iter_split(read_dataset(photos / "skovy_d6"), "train"):
        image = read_image(item.path)
        h, w = image.shape[:2]
        yield False, image, [((0.08 * w, 0.08 * h, 0.92 * w, 0.92 * h), item.values[0])]


def build(
    rng: np.random.Generator, synthetic_throws: int = 600, photos_too: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, classes, from a photo?) — the last so that training can weigh photos up."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    photos = shared_photos() if photos_too else None
    if photos is not None:
        for tray, image, labelled in training_photos(photos):
            boxes = [box for box, _ in labelled]
            for box, value in labelled:
                augmented(image, box, value, 32 if tray else 16, rng, xs, ys)
            if tray:
                negatives(image, boxes, 30, rng, xs, ys)
    photo_crops = len(ys)
    for i in range(synthetic_throws):
        kinds = ("d6", "dF") if i % 3 else ("d6",)
        dice = tuple(rng.choice(kinds) for _ in range(rng.integers(1, 9)))
        throw = render_throw(training_throw(rng, dice, TRAINING_LOOKS, impossible=0.12), rng)
        boxes = [d.box for d in throw.dice]
        for d in throw.dice:
            if d.partly_outside:
                continue
            label = class_of(d.die, d.value, d.cocked, d.impossible)
            augmented(throw.image, d.box, label, 3, rng, xs, ys)
        negatives(throw.image, boxes, 4, rng, xs, ys)
    return np.stack(xs), np.asarray(ys, np.int64), np.arange(len(ys)) < photo_crops


def _part(job):  # type: ignore[no-untyped-def]
    builder, seed, synthetic, first, size = job
    SIZE[0] = size
    return builder(np.random.default_rng(seed), synthetic, first)


def parallel(  # type: ignore[no-untyped-def]
    builder, seed: int, synthetic: int, jobs: int, size: int = CROP_SIZE, photos: bool = True
):
    """Split the synthetic throws over ``jobs`` processes (the photos go to the first)."""
    from multiprocessing import Pool

    share = -(-synthetic // jobs)
    work = [(builder, seed * 1000 + i, share, photos and i == 0, size) for i in range(jobs)]
    with Pool(jobs) as pool:
        parts = pool.map(_part, work)
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))


def renders_main(description: str, builder, throws: int, classes: int) -> None:  # type: ignore[no-untyped-def]
    """The command line of a set of renders alone (``numbered``, ``big_ones``): ``OUT.npz
    [--throws N] [--seed S] [--size PX]``; ``builder(rng, throws)`` gives (crops, classes)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out", type=Path)
    parser.add_argument("--throws", type=int, default=throws)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=48, help="crop side in pixels")
    args = parser.parse_args()
    SIZE[0] = args.size
    x, y = builder(np.random.default_rng(args.seed), args.throws)
    # no photos among them: training weighs these as renders
    np.savez_compressed(args.out, x=x, y=y, photo=np.zeros(len(y), bool))
    print(f"{len(y)} crops; per class {np.bincount(y, minlength=classes).tolist()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synthetic", type=int, default=600)
    parser.add_argument("--jobs", type=int, default=1, help="processes building in parallel")
    parser.add_argument("--size", type=int, default=CROP_SIZE, help="crop side in pixels")
    parser.add_argument("--no-photos", action="store_true",
                        help="renders only (a set to join to another one)")  # fmt: skip
    args = parser.parse_args()
    x, y, photo = parallel(
        build, args.seed, args.synthetic, args.jobs, args.size, photos=not args.no_photos
    )
    np.savez_compressed(args.out, x=x, y=y, photo=photo)
    print(f"{len(y)} crops; per class {np.bincount(y, minlength=len(CLASSES)).tolist()}")


if __name__ == "__main__":
    main()
