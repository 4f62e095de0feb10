"""A camera with no colour (a grey sensor, or one set to black and white): a die set taught
in colour still reads its dice, which its colour test had called someone else's."""

from __future__ import annotations

import dataclasses
from collections import Counter

import cv2
import numpy as np
import pytest

from vision.advice import FOREIGN
from vision.colour import colour_name, colourless
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach_synthetic import taught_from_renders


def _grey(image: np.ndarray, channels: int) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return grey if channels == 1 else cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("channels", [1, 3])
def test_a_set_taught_in_colour_reads_its_dice_in_a_grey_picture(channels: int) -> None:
    look = dataclasses.replace(PALETTE[5], design=0)  # yellow d20s, black numerals
    reader = DiceReader()
    reader.diesets = {"d20": taught_from_renders("d20", 5, design=0)}
    counts = Counter[str]()
    for k in range(4):
        throw = render_throw(
            ThrowSpec(dice=("d20",) * 4, looks=(look,)), np.random.default_rng([k, 5])
        )
        image, tray = _grey(throw.image, channels), _grey(throw.empty_tray, channels)
        result = reader.read(image, "d20", tray)
        truth = Counter(d.value for d in throw.dice)
        sure = Counter(d.value for d in result.certain if d.value is not None)
        counts["thrown"] += len(throw.dice)
        counts["right"] += sum((truth & sure).values())
        counts["wrong"] += sum(sure.values()) - sum((truth & sure).values())
        counts["foreign"] += sum(d.problem == FOREIGN for d in result.uncertain)
    # measured (16 dice): 0 right, 12 "not of the set" before session 47; now 10 right, the
    # rest asked (a body the felt's grey is never sure in grey: no colour tells it from a speck)
    assert counts["wrong"] == 0 and counts["foreign"] == 0, counts
    assert counts["right"] >= 8, counts


def test_a_die_of_another_colour_is_still_someone_elses_in_a_colour_picture() -> None:
    # the colour test stands wherever the picture has colour: a blue d20 among yellow ones
    reader = DiceReader()
    reader.diesets = {"d20": taught_from_renders("d20", 5, design=0)}
    other = dataclasses.replace(PALETTE[4], design=0)
    throw = render_throw(ThrowSpec(dice=("d20",) * 3, looks=(other,)), np.random.default_rng(8))
    result = reader.read(throw.image, "d20", throw.empty_tray)
    assert not result.certain and result.uncertain, result
    assert all(d.problem == FOREIGN for d in result.uncertain), result.uncertain


def test_only_a_picture_with_no_colour_at_all_is_colourless() -> None:
    throw = render_throw(ThrowSpec(dice=("d20",) * 2, looks=(PALETTE[0],), tray=(178, 178, 178)),
                         np.random.default_rng(2))  # fmt: skip
    x0, y0, x1, y1 = throw.dice[0].box  # a white die on a grey tray: its noise has colour
    white = throw.image[y0:y1, x0:x1]
    assert not colourless(white)
    assert colourless(_grey(white, 3))


def test_a_die_in_a_grey_picture_is_named_light_or_dark_not_by_a_colour_it_does_not_show() -> None:
    # a red die is grey in a grey picture: "re-throw the grey d6" would send a person to
    # look for a grey one
    throw = render_throw(ThrowSpec(dice=("d6",) * 2, looks=(PALETTE[2],)), np.random.default_rng(5))
    yellow = render_throw(
        ThrowSpec(dice=("d6",) * 2, looks=(PALETTE[5],)), np.random.default_rng(5)
    )
    for shown, colour, grey in ((throw, "red", "dark"), (yellow, "yellow", "light")):
        x0, y0, x1, y1 = shown.dice[0].box
        crop = shown.image[y0:y1, x0:x1]
        assert colour_name(crop) == colour
        assert colour_name(_grey(crop, 3)) == grey
