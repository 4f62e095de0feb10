"""The felt finder (vision/models/finder_felt.onnx): pip dice and sets of black numbered
dice on a dark felt, and any dice on a coloured felt where its dice are its colour, are
found by a second network, taught dice the felt's colour; every other frame by the first
one."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from tests.vision import needs_photos, photos_of
from vision.felt import dark_felt, dice_like_felt
from vision.finder import DieFinder
from vision.reader import DiceReader
from vision.readings import holds
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach_synthetic import taught_from_renders

BLACK, DARK_BLUE, WHITE = (26, 26, 28), (60, 30, 20), (225, 225, 222)  # felts (BGR)


@pytest.fixture(scope="module")
def finders() -> tuple[DieFinder, DieFinder]:
    return DieFinder(), DieFinder(felt=None)


def test_a_dark_felt_is_told_from_the_other_trays() -> None:
    rng = np.random.default_rng(4)
    for tray in (BLACK, DARK_BLUE):
        throw = render_throw(ThrowSpec(dice=("d6",) * 4, tray=tray), rng)
        assert dark_felt(throw.image), tray
    # grey, green felt and wood (the renderer's own, drawn at random), and a white felt
    for k in range(6):
        throw = render_throw(ThrowSpec(dice=("d6",) * 4, tray=WHITE if k == 0 else None), rng)
        assert not dark_felt(throw.image), k


def test_pip_dice_and_dark_numbered_sets_on_a_dark_felt_go_to_the_felt_finder(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    felt, first = finders
    black = ThrowSpec(dice=("d6",) * 4, values=(2,) * 4, looks=(PALETTE[1],), tray=BLACK)
    on_felt = render_throw(black, np.random.default_rng([32, 3])).image
    assert felt.find(on_felt, pips=True) != first.find(on_felt, pips=True)
    # other numbered dice are read from their bodies: found as before on a dark felt
    # (burks' tower floor); a set of black ones (dark) goes to the felt finder
    assert felt.find(on_felt) == first.find(on_felt)
    assert felt.find(on_felt, dark=True) != first.find(on_felt, dark=True)
    plain = render_throw(ThrowSpec(dice=("d6",) * 4), np.random.default_rng(8)).image
    assert felt.find(plain, pips=True) == first.find(plain, pips=True)
    only = DieFinder(felt=None)
    assert only.find(on_felt, pips=True) == first.find(on_felt, pips=True)


def test_a_coloured_felt_goes_to_the_felt_finder_where_its_dice_are_its_colour(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    felt, first = finders
    rng = np.random.default_rng(5)
    red = PALETTE[2]
    for k in range(3):  # red dice on red felt, the first finder's finds
        image = render_throw(ThrowSpec(dice=("d6",) * 4, looks=(red,), tray=red.body), rng).image
        assert dice_like_felt(image, [f.box for f in first.find(image)]), k
        assert not dice_like_felt(image, []), k  # nothing found: no die to tell by
        assert felt.find(image, pips=True) != first.find(image, pips=True), k
        # numbered dice too (the first finder missed 28 of 60 red d20s on red felt, the
        # felt finder none)
        assert felt.find(image) != first.find(image), k
    # dice of other colours on the renderer's own trays (its green felt and wood are
    # coloured too), and on a white felt (not coloured), do not go to it (a green die on
    # its green felt may: it is the felt's hue)
    others = tuple(PALETTE[k] for k in (0, 1, 2, 4, 6, 7, 9, 11))
    for k in range(12):
        tray = WHITE if k == 0 else None
        image = render_throw(ThrowSpec(dice=("d6",) * 4, tray=tray, looks=others), rng).image
        assert not dice_like_felt(image, [f.box for f in first.find(image)]), k
        assert felt.find(image, pips=True) == first.find(image, pips=True), k
    # a blue die among others on red felt is no reason: only a die of the felt's colour
    image = render_throw(ThrowSpec(dice=("d6",), looks=(PALETTE[4],), tray=red.body), rng).image
    assert not dice_like_felt(image, [f.box for f in first.find(image)])


def test_pips_boxed_as_small_dice_on_a_coloured_felt_are_found_as_dice(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    # yellow dice on yellow felt: the first finder boxed pips, at the size of dice small
    # in the view, where the felt finder's are taken only if PIP_BOXES times as large
    # (these 8 dice read sure and right: 1 by the first finder, 7 by the felt finder;
    # without that rule both frames stayed with the first)
    felt, first = finders
    yellow = PALETTE[5]
    spec = ThrowSpec(dice=("d6",) * 4, looks=(yellow,), tray=yellow.body)
    right = dict.fromkeys(finders, 0)
    for k in (0, 10):
        throw = render_throw(spec, np.random.default_rng([1005, k]))
        for finder in finders:
            boxes = finder.find(throw.image, pips=True)
            sides = sorted(f.box[2] - f.box[0] for f in boxes)
            if finder is first:
                assert max(sides[:2]) < 40, sides  # pips, not the dice (50-76 px)
            else:
                assert len(boxes) == 4 and min(sides) > 45, sides
            dice = DiceReader(finder=finder).read(throw.image).dice
            truth: Counter[int | None] = Counter(d.value for d in throw.dice)
            sure: Counter[int | None] = Counter(d.value for d in dice if not d.uncertain)
            assert not sure - truth, (k, sure, truth)
            right[finder] += sum((sure & truth).values())
    assert right[first] <= 1 and right[felt] >= 7, right


def _tally(reader: DiceReader, spec: ThrowSpec, seed: int, throws: int) -> Counter[str]:
    seen: Counter[str] = Counter()
    for k in range(throws):
        throw = render_throw(spec, np.random.default_rng([seed, k]))
        dice = reader.read(throw.image, spec.dice[0]).dice
        truth: Counter[int | None] = Counter(d.value for d in throw.dice)
        sure: Counter[int | None] = Counter(d.value for d in dice if not d.uncertain)
        seen["right"] += sum((truth & sure).values())
        seen["wrong"] += sum((sure - truth).values())
        seen["asked"] += sum(1 for d in dice if d.uncertain)
    return seen


def test_black_dice_on_black_felt_are_found_whole_not_pip_by_pip(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    # the first finder boxed a black die's pips, and specks of debris, as dice of their
    # own: most were asked, some read surely wrong.  Measured on these throws (40 dice
    # each), first finder -> felt finder: black 2s right 17 -> 29, asked 33 -> 17, none
    # wrong; black 3s among specks right 15 -> 34, wrong 8 -> 1, asked 167 -> 34
    # (docs/vision.md, "The felt finder")
    felt, first = (DiceReader(finder=f) for f in finders)
    black = (PALETTE[1],)
    twos = ThrowSpec(dice=("d6",) * 4, values=(2,) * 4, looks=black, tray=BLACK)
    threes = ThrowSpec(dice=("d6",) * 4, values=(3,) * 4, looks=black, tray=BLACK, debris=12)
    for spec, seed in ((twos, 371), (threes, 372)):
        new, old = _tally(felt, spec, seed, 10), _tally(first, spec, seed, 10)
        assert new["wrong"] <= min(old["wrong"], 1), (new, old)
        assert new["right"] >= old["right"] + 10, (new, old)
        assert new["asked"] <= 0.6 * old["asked"], (new, old)


def test_translucent_dice_on_a_felt_of_their_colour_go_to_the_felt_finder(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    # a translucent die lets its felt's colour through, with light: paler in the felt's
    # hue, it counts as the felt's colour (PALER_HUE).  Measured on 60 such throws: 3
    # went on where only the felt's own colour counted, 59 with this; read right 196 ->
    # 238 of 240
    first = finders[1]
    rng = np.random.default_rng(7)
    for look in (PALETTE[9], PALETTE[10], PALETTE[11]):
        spec = ThrowSpec(dice=("d6",) * 4, looks=(look,), tray=look.body)
        sent = sum(
            dice_like_felt(image, [f.box for f in first.find(image)])
            for image in (render_throw(spec, rng).image for _ in range(4))
        )
        assert sent >= 3, (look, sent)


def test_dice_the_colour_of_a_coloured_felt_are_found_whole(
    finders: tuple[DieFinder, DieFinder],
) -> None:
    # the first finder missed many a die on a felt of its colour, or boxed its pips.
    # Measured on these throws (40 dice each), first finder -> felt finder: red d6s right
    # 20 -> 40, yellow d6s 9 -> 39 (asked 8 -> 1), red Fudge dice 28 -> 34, none wrong
    # (docs/vision.md, "The felt finder")
    felt, first = (DiceReader(finder=f) for f in finders)
    for look, dice, seed in (
        (PALETTE[2], "d6", 381),
        (PALETTE[5], "d6", 382),
        (PALETTE[2], "dF", 383),
    ):
        spec = ThrowSpec(dice=(dice,) * 4, looks=(look,), tray=look.body)
        new, old = _tally(felt, spec, seed, 10), _tally(first, spec, seed, 10)
        assert new["wrong"] == 0, (dice, look, new, old)
        assert new["right"] >= old["right"] + 5, (dice, look, new, old)


@needs_photos
def test_no_photo_of_a_light_tray_goes_to_the_felt_finder() -> None:
    # byler's phone photos on a white table (median grey 175 and up, no colour: 0.04 from
    # grey at most), skovy's crops (87; each one die, read without the finder)
    first = DieFinder(felt=None)
    for name in ("byler_d6", "skovy_d6"):
        dark = [item.path.name for item, image in photos_of(name) if dark_felt(image)]
        assert dark == [], (name, dark)
    tinted = [
        item.path.name
        for item, image in photos_of("byler_d6")
        if dice_like_felt(image, [f.box for f in first.find(image)])
    ]
    assert tinted == [], tinted


def test_a_set_of_black_numbered_dice_on_a_dark_felt_is_found_by_the_felt_finder() -> None:
    # the first finder boxes a black d10's or d20's light numeral alone on black felt, and
    # the numeral's blob is then taken for the die's body; a set whose taught bodies are as
    # dark as a dark felt (DieSet.dark) is found by the felt finder there.  Measured here:
    # 22 of 40 sure and right, none wrong; with the first finder alone 8
    assert [taught_from_renders("d20", k, design=0).dark for k in (0, 1, 2, 4, 6)] == [
        False, True, False, False, False,
    ]  # fmt: skip
    counts = {}
    for name, finder in (("felt", DieFinder()), ("first", DieFinder(felt=None))):
        sure = wrong = 0
        for die in ("d10", "d20"):
            reader = DiceReader(finder)
            reader.diesets = {die: taught_from_renders(die, 1, design=0)}
            drawn = dataclasses.replace(PALETTE[1], design=0)
            rng = np.random.default_rng([44, len(die)])
            for _ in range(5):
                spec = ThrowSpec(dice=(die,) * 4, looks=(drawn,), tray=BLACK)
                throw = render_throw(spec, rng)
                result = reader.read(throw.image, die)
                for d in throw.dice:
                    on = [r for r in result.dice if holds(r.box, d.box)]
                    sure += any(not r.uncertain and r.value == d.value for r in on)
                    wrong += any(not r.uncertain and r.value != d.value for r in on)
        counts[name] = (sure, wrong)
    assert counts["felt"][1] == 0 and counts["felt"][0] >= 18, counts
    assert counts["first"][0] <= 12, counts
