"""Crops of d6s whose 1 is one large pip, for the face network: class 13, "one big pip".

Many d6s have a 1 far larger than their other pips (Chinese dice all, with the 1
and the 4 painted red).  Round 7 learnt pips from renders whose 1 is 0.13 of the
face and from byler's photos, and read such a 1 as a sure 4 about one time in
eight, and left most of the rest to confirm (docs/vision.md, "A 1 of one large
pip").  Rendered throws of d6s in vision.render.BIG_ONES's looks, their 1's pip
drawn 0.15-0.26 of the face at random, give crops of the 1s labelled BIG_ONE
and of the other faces labelled as the crops set labels them (so the new class
learns the large pip, not the looks), augmented as the crops set's are, and
crops of the specks and crumbs on the tray (up to 12 a throw, vision.render's
debris), labelled "not a die": a speck is a large pip with no die around it.
FaceClassifier adds class 13's share to the 1's.

``python -m vision.training.big_ones OUT.npz --throws 800 --seed 1 [--size 48]``,
then learn the new class's row on it joined to the other sets (``new_head``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.render import BIG_ONES, render_throw
from vision.training import crops_set
from vision.training.crops_set import (
    augmented,
    class_of,
    negatives,
    speck_negatives,
    training_throw,
)
from vision.training.numbered import NUMBERED

BIG_ONE = NUMBERED + 1  # 13: the class after "numbered"
RADII = (0.15, 0.26)  # the 1's pip, radius as a share of the face (PALETTE's: 0.13)


def build(rng: np.random.Generator, throws: int) -> tuple[np.ndarray, np.ndarray]:
    """(crops, classes): every d6 and dF of ``throws`` rendered throws, 3 crops each, two
    patches of tray a throw, and its debris."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for _ in range(throws):
        looks = tuple(replace(look, one_pip=float(rng.uniform(*RADII))) for look in BIG_ONES)
        kinds = ("d6", "d6", "d6", "dF")  # a Fudge die in four: its blank is no 1
        dice = tuple(str(rng.choice(kinds)) for _ in range(rng.integers(1, 7)))
        spec = training_throw(rng, dice, looks, debris=int(rng.integers(0, 13)), impossible=0.05)
        seed = int(rng.integers(2**62))  # the same throw twice: with its debris and without
        throw = render_throw(spec, np.random.default_rng(seed))
        clean = render_throw(replace(spec, debris=0), np.random.default_rng(seed)).empty_tray
        for die in throw.dice:
            if die.partly_outside:
                continue
            label = class_of(die.die, die.value, die.cocked, die.impossible)
            big = die.die == "d6" and label == 1
            augmented(throw.image, die.box, BIG_ONE if big else label, 3, rng, xs, ys)
        boxes = [d.box for d in throw.dice]
        negatives(throw.image, boxes, 2, rng, xs, ys)
        speck_negatives(throw.image, throw.empty_tray, clean, boxes, rng, xs, ys)
    return np.stack(xs), np.asarray(ys, np.int64)


def main() -> None:
    crops_set.renders_main(__doc__ or "", build, 800, BIG_ONE + 1)


if __name__ == "__main__":
    main()
