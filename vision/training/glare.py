"""Crops with a lamp's reflection on the die, for the face network (round 9).

Before this set the network had never seen glare, and a bright spot between a
black 2's pips read as a third pip ("3" at 0.98; docs/vision.md, "Glare,
measured"). Two kinds of crops, labels unchanged (a spot is not a pip, and
where it hides a pip the network should learn to be unsure):

- the training half of the byler and skovy photos, each die with a spot drawn
  on the photo before cropping (vision.render.glare_spot: a fifth to a third of
  the die's edge across, anywhere on its top, 0.3-0.9 opaque, soft or sharp-rimmed),
  several passes, each with new spots, augmented as the crops set's are;
- rendered throws drawn with glare 0.3-0.9 (``ThrowSpec.glare``): d6s and dFs in
  every look, and numbered dice among them (labelled "numbered", as they were
  in round 7's set: a dF's blank with a spot read "numbered die").

``python -m vision.training.glare OUT.npz --throws 1500 --passes 8 --seed 1``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from vision.datasets import shared_photos
from vision.render import glare_spot, render_throw
from vision.training import crops_set
from vision.training.crops_set import (
    CLASSES,
    TRAINING_LOOKS,
    augmented,
    class_of,
    negatives,
    training_photos,
    training_throw,
)
from vision.training.numbered import KINDS, NUMBERED

# at most 0.9 opaque: a spot that wholly hides a dark pip (a 3 whose middle is white) is
# a 2 to the eye, and taught as a 3 the network came to doubt every plain 2
OPACITY = (0.3, 0.9)
HARDNESS = (1.0, 3.0)  # 1: the renderer's soft spot; 3: a flat top with a sharp rim


def with_glare(
    image: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    rng: np.random.Generator,
    hardest: float = HARDNESS[1],
) -> np.ndarray:
    """A copy of ``image`` with one spot on each die of ``boxes`` (axis-aligned boxes round
    the dice, so the edge is taken as the box's smaller side over 1.15), its hardness
    drawn from 1 to ``hardest``."""
    scene = image.astype(np.float32)
    for x0, y0, x1, y1 in boxes:
        edge = min(x1 - x0, y1 - y0) / 1.15
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        dx, dy = rng.uniform(-0.28, 0.28, 2) * edge
        glare_spot(
            scene,
            (cx + dx, cy + dy),
            float(rng.uniform(0.1, 0.17)) * edge,
            float(rng.uniform(0.7, 1.3)),
            float(rng.uniform(*OPACITY)),
            float(rng.uniform(HARDNESS[0], hardest)),
        )
    return np.clip(scene, 0, 255).astype(np.uint8)


def photo_crops(
    photos: Path,
    passes: int,
    rng: np.random.Generator,
    xs: list,
    ys: list,
    hardest: float = HARDNESS[1],
) -> None:
    """Each training-half photo ``passes`` times with new spots (skovy's crops a quarter
    as often), two crops of each die."""
    for tray, image, labelled in training_photos(photos):
        boxes = [box for box, _ in labelled]
        for _ in range(passes if tray else max(1, passes // 4)):
            lit = with_glare(image, boxes, rng, hardest)
            for box, value in labelled:
                augmented(lit, box, value, 2, rng, xs, ys)
            if tray:
                negatives(lit, boxes, 2, rng, xs, ys)


def render_crops(throws: int, rng: np.random.Generator, xs: list, ys: list) -> None:
    for _ in range(throws):
        pips = [str(rng.choice(("d6", "d6", "dF"))) for _ in range(rng.integers(1, 7))]
        numbered = [str(rng.choice(KINDS)) for _ in range(rng.integers(0, 2))]
        glare = float(rng.uniform(*OPACITY))
        spec = training_throw(
            rng, tuple(pips + numbered), TRAINING_LOOKS, glare=glare, impossible=0.05
        )
        throw = render_throw(spec, rng)
        for die in throw.dice:
            if die.partly_outside:
                continue
            if die.die in KINDS:
                label = NUMBERED
            else:
                label = class_of(die.die, die.value, die.cocked, die.impossible)
            augmented(throw.image, die.box, label, 3, rng, xs, ys)
        negatives(throw.image, [d.box for d in throw.dice], 2, rng, xs, ys)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--throws", type=int, default=1500, help="rendered throws")
    parser.add_argument("--passes", type=int, default=8, help="spots drawn on each photo")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=48, help="crop side in pixels")
    parser.add_argument("--hardest", type=float, default=HARDNESS[1],
                        help="the photo spots' hardness, 1 (soft) to this")  # fmt: skip
    args = parser.parse_args()
    crops_set.SIZE[0] = args.size
    rng = np.random.default_rng(args.seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    photos = shared_photos()
    if photos is None:
        raise SystemExit("no ../shared/data/photos (or DICEBRIDGE_PHOTOS): the photo crops need it")
    photo_crops(photos, args.passes, rng, xs, ys, args.hardest)
    from_photos = len(ys)
    render_crops(args.throws, rng, xs, ys)
    y = np.asarray(ys, np.int64)
    np.savez_compressed(args.out, x=np.stack(xs), y=y, photo=np.arange(len(y)) < from_photos)
    print(
        f"{len(y)} crops ({from_photos} from photos); "
        f"per class {np.bincount(y, minlength=len(CLASSES) + 1).tolist()}"
    )


if __name__ == "__main__":
    main()
