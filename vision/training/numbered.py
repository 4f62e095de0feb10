"""Crops of numbered dice for the face network: a d5, d10 or d20 is no d6 (class 12).

Before this class the network had never seen a numbered die, and read a rendered
d10 or d20 on a d6 tray as a sure "1" (its numeral one mark in the middle) about
half the time (docs/vision.md, "A numbered die among pip dice").  Rendered
throws of d5s, d10s and d20s, mixed with d6s and dFs as on a real tray, give
crops of the numbered dice labelled NUMBERED, augmented as the crops set's are.
A numeral d6 keeps its value: the network reads those (see crops_set).

``python -m vision.training.numbered OUT.npz --throws 1500 --seed 1 [--size 48]``,
then train on it joined to the crops set (``train_classifier CROPS.npz OUT.npz …``).
"""

from __future__ import annotations

import numpy as np

from vision.render import MARBLED, PALETTE, render_throw
from vision.training import crops_set
from vision.training.crops_set import CLASSES, augmented, training_throw

NUMBERED = len(CLASSES)  # 12: the class after the crops set's
KINDS = ("d5", "d10", "d20")


def build(rng: np.random.Generator, throws: int) -> tuple[np.ndarray, np.ndarray]:
    """(crops, classes): every numbered die of ``throws`` rendered throws, 3 crops each."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    looks = tuple(look for look in (*PALETTE, *MARBLED) if not look.numerals)
    for _ in range(throws):
        numbered = [str(rng.choice(KINDS)) for _ in range(rng.integers(1, 4))]
        pips = [str(rng.choice(("d6", "dF"))) for _ in range(rng.integers(0, 4))]
        throw = render_throw(training_throw(rng, tuple(numbered + pips), looks), rng)
        for die in throw.dice:
            if die.die in KINDS and not die.partly_outside:
                augmented(throw.image, die.box, NUMBERED, 3, rng, xs, ys)
    return np.stack(xs), np.asarray(ys, np.int64)


def main() -> None:
    crops_set.renders_main(__doc__ or "", build, 1500, NUMBERED + 1)


if __name__ == "__main__":
    main()
