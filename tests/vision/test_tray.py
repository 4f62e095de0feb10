"""The empty-tray reference (vision/finder.py): what already lay on the tray when it was
taken is no die, and every die thrown since is kept, whatever the light did meanwhile and
however the dice cluster."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.finder import LIGHT_MOVED, DieFinder, Found, find_by_difference, light_change
from vision.reader import DiceReader
from vision.render import PALETTE, RenderedThrow, ThrowSpec, render_throw
from vision.teach_synthetic import taught_from_renders


def _relit(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The frame under other light than the reference's: a lamp's pool (0.75–1.35 of the
    light) and an arm's soft shadow across the tray (down to 0.55)."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    lamp = 0.75 + 0.6 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.4 * w) ** 2))
    a = rng.uniform(0, np.pi)
    d = (xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a) - rng.uniform(-w / 4, w / 4)
    shadow = 1 - 0.45 * np.exp(-(d**2) / (2 * (0.08 * w) ** 2))
    gain = rng.uniform(0.8, 1.2)
    return np.clip(image * (lamp * shadow * gain)[:, :, None], 0, 255).astype(np.uint8)


def _hits(throw: RenderedThrow, found: list[Found]) -> int:
    """Dice thrown that have a find centred on them."""
    hit = 0
    for die in throw.dice:
        cx, cy = (die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2
        side = die.box[2] - die.box[0]
        hit += any(
            abs((f.box[0] + f.box[2]) / 2 - cx) < 0.35 * side
            and abs((f.box[1] + f.box[3]) / 2 - cy) < 0.35 * side
            for f in found
        )
    return hit


def test_dice_thrown_in_clusters_and_under_other_light_are_kept() -> None:
    # measured: touching, 71 of the 74 dice the finder sees are kept (the old test, the
    # ring's median with the other dice in it, kept 68); relit, 62 of 75 (before, 44)
    for relight, least in ((False, 0.95), (True, 0.78)):
        finder, rng = DieFinder(), np.random.default_rng(71)
        without = kept = 0
        for k in range(15):
            die = ("d6", "dF", "d5", "d10", "d20")[k % 5]
            spec = ThrowSpec(dice=(die,) * 5, touching=0.8, looks=(PALETTE[k % 12],))
            throw = render_throw(spec, rng)
            frame = _relit(throw.image, rng) if relight else throw.image
            without += _hits(throw, finder.find(frame))
            kept += _hits(throw, finder.find(frame, throw.empty_tray))
        assert without >= 72, without  # the finder itself sees them (of 75)
        assert kept >= least * without, (relight, kept, without)


def test_what_lay_on_the_tray_when_the_reference_was_taken_is_no_die() -> None:
    rng = np.random.default_rng(72)
    finder, reader = DieFinder(), DiceReader()
    throw = render_throw(ThrowSpec(dice=("d6",) * 8, touching=0.0), rng)
    middle = throw.image.shape[1] // 2
    reference = throw.image.copy()  # the right half's dice were there already
    reference[:, :middle] = throw.empty_tray[:, :middle]
    found = finder.find(throw.image, reference)
    left = [d for d in throw.dice if d.box[2] < middle - 4]
    right = [d for d in throw.dice if d.box[0] > middle + 4]
    assert left and right
    assert all((f.box[0] + f.box[2]) / 2 < middle for f in found), found
    assert len(found) >= len(left)
    assert reader.read(throw.image, "d6", throw.image).problem == "no dice seen"


def test_an_empty_tray_under_other_light_is_no_dice() -> None:
    rng = np.random.default_rng(73)
    reader = DiceReader()
    for _ in range(4):
        throw = render_throw(ThrowSpec(dice=()), rng)
        frame = _relit(throw.image, rng)
        result = reader.read(frame, "d6", throw.empty_tray)
        assert result.problem == "no dice seen", [d.to_dict() for d in result.dice]


def test_without_the_network_the_dice_are_the_blobs_that_differ_from_the_tray() -> None:
    # the reader's fallback when the network finds nothing: measured on the change map,
    # the light's own change is no blob (raw differences found 59 of these 96 dice, and
    # an arm's shadow became a 255 × 456 "die")
    rng = np.random.default_rng(5)
    thrown = plain = relit = strays = 0
    for k in range(24):
        spec = ThrowSpec(dice=("d6",) * 4, touching=0.0, looks=(PALETTE[k % 12],))
        throw = render_throw(spec, rng)
        found = find_by_difference(throw.image, throw.empty_tray)
        seen = find_by_difference(_relit(throw.image, rng), throw.empty_tray)
        thrown += len(throw.dice)
        plain += _hits(throw, found)
        relit += _hits(throw, seen)
        strays += len(found) - _hits(throw, found) + len(seen) - _hits(throw, seen)
    assert plain == thrown and relit >= thrown - 2 and strays <= 2, (thrown, plain, relit, strays)
    blind = DiceReader(finder=DieFinder(threshold=1.01))  # a network that never fires
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), rng)
    read = blind.read(throw.image, "d6", throw.empty_tray)
    assert sorted(d.value or 0 for d in read.dice) == sorted(d.value for d in throw.dice)


def test_the_light_moving_since_the_reference_is_measured() -> None:
    # measured (40 throws, seed 90): the reference's own light 0.000-0.075, relit 0.150-0.350
    rng = np.random.default_rng(73)
    for k in range(8):
        spec = ThrowSpec(dice=("d6", "d20") * 2, looks=(PALETTE[k],))
        throw = render_throw(spec, rng)
        assert light_change(throw.image, throw.empty_tray) < LIGHT_MOVED
        assert light_change(_relit(throw.image, rng), throw.empty_tray) > LIGHT_MOVED


def _on(die_box: tuple[int, int, int, int], box: tuple[float, ...]) -> bool:
    cx, cy = (die_box[0] + die_box[2]) / 2, (die_box[1] + die_box[3]) / 2
    return box[0] - 4 <= cx <= box[2] + 4 and box[1] - 4 <= cy <= box[3] + 4


def _read_cut(reader: DiceReader, throw: RenderedThrow, die: str) -> tuple[int, int]:
    """How many of the throw's dice (all partly out of the frame) get a reading without the
    empty-tray picture and with it; every reading with it must ask for the die to be moved
    in, never be taken as a value."""
    plain = reader.read(throw.image, die)
    helped = reader.read(throw.image, die, throw.empty_tray)
    assert all(r.problem == "cut by the edge" and r.uncertain for r in helped.dice), [
        r.to_dict() for r in helped.dice
    ]
    return (
        sum(any(_on(d.box, r.box) for r in plain.dice) for d in throw.dice),
        sum(any(_on(d.box, r.box) for r in helped.dice) for d in throw.dice),
    )


def test_a_die_mostly_outside_the_frame_is_found_by_the_reference_and_called_cut() -> None:
    rng = np.random.default_rng(93)
    reader = DiceReader()
    without = with_reference = cut_finds = 0
    for k in range(8):
        spec = ThrowSpec(dice=("d6", "dF") * 2, outside=1.0, looks=(PALETTE[k],))
        throw = render_throw(spec, rng)
        assert all(d.partly_outside for d in throw.dice)
        plain, helped = _read_cut(reader, throw, "any")
        without, with_reference = without + plain, with_reference + helped
        found = reader.find(throw.image, throw.empty_tray)
        cut_finds += sum(f.new_at_edge for f in found)
        assert all(any(_on(d.box, f.box) for d in throw.dice) for f in found if f.new_at_edge)
    # measured: 23 of the 32 dice read without the reference, 31 with it (one of them
    # found by the reference alone, the rest found by the network but unsure, and seen
    # as no die by the face network: dropped without a reference to say they are new)
    assert cut_finds >= 1 and with_reference >= without + 5, (without, with_reference)


def test_a_stale_reference_adds_no_dice_at_the_edge() -> None:
    # under other light whole stretches of the frame's edge differ from the reference
    # (burks' background, taken from another spot, made 131 "cut" readings in 36 photos
    # before the reference's light was checked first): no find is taken from it then
    rng = np.random.default_rng(94)
    reader = DiceReader()
    for k in range(6):
        spec = ThrowSpec(dice=("d6", "d5") * 2, outside=0.5, looks=(PALETTE[k],))
        throw = render_throw(spec, rng)
        frame = _relit(throw.image, rng)
        assert light_change(frame, throw.empty_tray) > LIGHT_MOVED
        assert not any(f.new_at_edge for f in reader.find(frame, throw.empty_tray))


def test_a_numbered_die_mostly_outside_the_frame_is_found_by_the_reference() -> None:
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d5", 0))
    rng = np.random.default_rng(95)
    without = with_reference = 0
    for _ in range(10):
        throw = render_throw(ThrowSpec(dice=("d5",) * 3, outside=1.0), rng)
        plain, helped = _read_cut(reader, throw, "d5")
        without, with_reference = without + plain, with_reference + helped
    # measured: 7 of the 30 read without the reference (white d5s, 30-85% in the frame),
    # 18 with it
    assert with_reference >= without + 6, (without, with_reference)


def test_pip_dice_the_felts_colour_are_read_with_the_picture_as_without_it() -> None:
    # a black die on black felt (a white one on white) changes the picture only where its
    # pips are: the middle test alone dropped a black 2 boxed corner to corner, or a white
    # die's find beside its shading (measured, 40 throws of four each: 34 black 2s, 47
    # black 1s and 25 white dice of 160 got no reading at all with the picture, none or
    # 4 without).  Debris that lay there when the picture was taken is still dropped.
    reader = DiceReader()
    scenes = (
        (PALETTE[1], (26, 26, 28), (2, 2, 2, 2), 0),
        (PALETTE[1], (26, 26, 28), (1, 1, 1, 1), 12),
        (PALETTE[0], (228, 228, 226), None, 0),
    )
    for look, tray, values, debris in scenes:
        rng = np.random.default_rng(74)
        dice = with_picture = without = specks = 0
        for _ in range(6):
            spec = ThrowSpec(dice=("d6",) * 4, looks=(look,), tray=tray, values=values,
                             debris=debris)  # fmt: skip
            throw = render_throw(spec, rng)
            plain = reader.read(throw.image, "d6")
            helped = reader.read(throw.image, "d6", throw.empty_tray)
            dice += len(throw.dice)
            without += sum(any(_on(d.box, r.box) for r in plain.dice) for d in throw.dice)
            with_picture += sum(any(_on(d.box, r.box) for r in helped.dice) for d in throw.dice)
            specks += sum(not r.uncertain and not any(_on(d.box, r.box) for d in throw.dice)
                          for r in helped.dice)  # fmt: skip
        assert with_picture >= without - 1, (tray, values, with_picture, without, dice)
        assert specks == 0, (tray, values, specks)


def test_a_phone_photo_of_48_megapixels_is_read_with_its_empty_tray_picture() -> None:
    """The light's median window, half the frame, passed OpenCV's 255 px on a frame 5800 px
    or more on its shorter side (a 48-50 MP phone photo): `read --empty-tray` stopped with
    an assertion.  A rendered throw on a plain felt, enlarged to 5900 × 5900, is read as the
    throw itself, and the light moved since the reference measures as it does small."""
    spec = ThrowSpec(dice=("d6",) * 3, tray=(90, 120, 90), noise=0.0, jpeg=False)
    throw = render_throw(spec, np.random.default_rng(1))
    relit = _relit(throw.image, np.random.default_rng(2))
    small = light_change(relit, throw.empty_tray)

    def big(image: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(image, (5900, 5900), interpolation=cv2.INTER_LINEAR))

    tray = big(throw.empty_tray)
    read = DiceReader().read(big(throw.image), "d6", tray)
    assert sorted(d.value or 0 for d in read.certain) == sorted(d.value for d in throw.dice)
    assert light_change(big(relit), tray) == pytest.approx(small, abs=0.03)
