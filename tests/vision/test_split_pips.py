"""One die's pips found as two dice (a dark 2 on dark felt): asked to be confirmed as the
one die they are, not read as two sure 1s, while two real dice showing 1 side by side stay
two (vision/split_pips.py); and a dark die boxed on its pips alone, read again wider."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from tests.vision import needs_photos, photos_of
from vision.advice import JOINED_PIPS, ON_A_DIE, ON_ANOTHER, WIDER_READ, advice_for
from vision.debris import face_against_tray
from vision.finder import DieFinder
from vision.reader import FACE_LIKE_TRAY, DiceReader
from vision.readings import holds
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.split_pips import (
    FLAT,
    JOINED,
    NESTED,
    ONE_NESTED,
    flat_between,
    nested,
    pip_pairs,
    pips_in_line,
    unread_partners,
)

FELT, BODY, PIP = 30, 40, 230  # greys of a dark felt, a dark die and its light pips


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.fixture(scope="module")
def first_finder() -> DiceReader:
    """A reader with the first finder alone, the felt finder left out.  On a dark felt it
    boxes a black die's pips apart, as any finder may where a die is the felt's colour:
    the rescues below are for those boxes (the felt finder makes far fewer of them:
    test_felt_finder.py)."""
    return DiceReader(finder=DieFinder(felt=None))


def _felt() -> np.ndarray:
    rng = np.random.default_rng(2)
    return np.full((200, 200, 3), float(FELT)) + rng.normal(0, 3, (200, 200, 3))


def _pip(image: np.ndarray, x: int, y: int) -> None:
    cv2.circle(image, (x, y), 4, (PIP, PIP, PIP), -1, cv2.LINE_AA)


def _done(image: np.ndarray) -> np.ndarray:
    return np.clip(image, 0, 255).astype(np.uint8)


def test_the_middle_of_a_two_is_flat_and_where_two_dice_meet_is_not() -> None:
    two = _felt()
    two[80:120, 80:120] += BODY - FELT  # a 40-px die, its 2's pips on a diagonal
    _pip(two, 90, 90)
    _pip(two, 110, 110)
    assert flat_between(_done(two), (90, 90), (110, 110)) <= FLAT
    pair = _felt()  # two such dice side by side, a dark seam where they meet, a 1 on each
    pair[80:120, 60:100] += BODY - FELT
    pair[80:120, 100:140] += BODY - FELT
    pair[80:120, 99:101] = FELT - 15
    _pip(pair, 80, 100)
    _pip(pair, 120, 100)
    assert flat_between(_done(pair), (80, 100), (120, 100)) > FLAT
    # two dice of different colours meeting: a step of colour, not a seam
    pair[80:120, 100:140] = (30, 30, 120)
    _pip(pair, 120, 100)
    assert flat_between(_done(pair), (80, 100), (120, 100)) > FLAT
    # the middle's surroundings out of the frame: not told, never flat
    assert flat_between(_done(two), (2, 2), (12, 12)) == math.inf


@dataclass(frozen=True)
class _Seen:
    """A reading as pip_pairs sees it (die, value, box, uncertain)."""

    value: int | None
    box: tuple[int, int, int, int]
    uncertain: bool = False
    die: str = "d6"


def test_a_sure_one_pairs_with_a_reading_close_beside_it_on_a_flat_face() -> None:
    two = _felt()
    two[70:130, 70:130] += BODY - FELT  # a 60-px die showing 2
    _pip(two, 85, 85)
    _pip(two, 115, 115)
    image = _done(two)
    one, other = _Seen(1, (75, 75, 95, 95)), _Seen(1, (105, 105, 125, 125), uncertain=True)
    dice = [_Seen(6, (140, 140, 200, 200)), _Seen(5, (0, 140, 60, 200))]  # the frame's dice
    pairs = pip_pairs(image, [one, other, *dice])
    assert [(i, j) for i, j, _ in pairs] == [(0, 1)]
    x0, y0, x1, y1 = pairs[0][2]  # the die they may be: centred between them
    assert ((x0 + x1) / 2, (y0 + y1) / 2) == (100.0, 100.0)
    assert x1 - x0 == pytest.approx(60.0)  # the frame's die size (its sure d6s' median side)
    # two unsure readings, another die type, or a face with more pips than 1: no pair
    assert pip_pairs(image, [_Seen(1, one.box, uncertain=True), other, *dice]) == []
    fudge = [_Seen(1, one.box, die="dF"), _Seen(1, other.box, die="dF")]
    assert pip_pairs(image, [*fudge, *dice]) == []
    assert pip_pairs(image, [_Seen(3, one.box), other, *dice]) == []
    # among far smaller dice, or alone (their own boxes size them), they are as far apart
    # as two dice lying side by side: no pair
    small = [_Seen(2, (0, 0, 20, 20)), _Seen(4, (180, 180, 200, 200))]
    assert math.dist((85, 85), (115, 115)) >= JOINED * 20
    assert pip_pairs(image, [one, other, *small]) == []
    assert pip_pairs(image, [one, other]) == []


def test_a_sure_one_pairs_with_an_unread_pip_beside_it_on_a_flat_face() -> None:
    two = _felt()
    two[70:130, 70:130] += BODY - FELT  # a 60-px die showing 2, one pip boxed, one not
    _pip(two, 85, 85)
    _pip(two, 115, 115)
    image = _done(two)
    one = _Seen(1, (65, 65, 105, 105))
    dice = [_Seen(6, (140, 140, 200, 200)), _Seen(5, (0, 140, 60, 200))]  # the frame's dice
    found = unread_partners(image, [one, *dice])
    assert [i for i, _ in found] == [0]
    x0, y0, x1, y1 = found[0][1]  # the die they may be: centred between the two pips
    assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx((100.0, 100.0), abs=0.5)
    assert x1 - x0 == pytest.approx(60.0)
    # the other pip inside a sure reading's box is that die's; inside an unsure one's, it
    # may still be this die's
    assert unread_partners(image, [one, _Seen(4, (105, 105, 165, 165)), *dice]) == []
    unsure = _Seen(None, (105, 105, 125, 125), uncertain=True)
    assert [i for i, _ in unread_partners(image, [one, unsure, *dice])] == [0]
    # an unsure 1, or one of another die type: not looked around
    assert unread_partners(image, [_Seen(1, one.box, uncertain=True), *dice]) == []
    assert unread_partners(image, [_Seen(1, one.box, die="dF"), *dice]) == []
    # a spot far larger than the pip (a light die's corner), or a seam between: no partner
    big = _felt()
    big[70:130, 70:130] += BODY - FELT
    _pip(big, 85, 85)
    cv2.circle(big, (115, 115), 9, (PIP, PIP, PIP), -1)
    assert unread_partners(_done(big), [one, *dice]) == []
    seam = two.copy()
    seam[70:130, 99:101] = FELT - 15
    seam[99:101, 70:130] = FELT - 15
    assert unread_partners(_done(seam), [one, *dice]) == []


def test_a_sure_one_in_line_with_two_pips_like_it_is_named_a_three() -> None:
    three = _felt()
    three[70:130, 70:130] += BODY - FELT  # a 60-px die showing 3, a corner pip boxed alone
    for k in (82, 100, 118):
        _pip(three, k, k)
    image = _done(three)
    dice = [_Seen(6, (140, 140, 200, 200)), _Seen(5, (0, 140, 60, 200))]  # the frame's dice
    for boxed in ((67, 67, 97, 97), (85, 85, 115, 115)):  # a corner pip; the middle one
        found = pips_in_line(image, [_Seen(1, boxed), *dice])
        assert [i for i, _ in found] == [0]
        x0, y0, x1, y1 = found[0][1]  # the 3, centred on its middle pip, about its size
        assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx((100.0, 100.0), abs=0.5)
        assert x1 - x0 == pytest.approx(61.1, abs=1.0)
    # a real 1 with pips of dice beside it in line: a die's side apart, too far for a 3's
    ones = _felt()
    for x in (10, 70, 130):
        ones[70:130, x : x + 60] += BODY - FELT
    _pip(ones, 100, 100)  # the 1
    _pip(ones, 55, 100)  # the middle row pips of a 6 on the left and of one on the right
    _pip(ones, 145, 100)
    assert pips_in_line(_done(ones), [_Seen(1, (70, 70, 130, 130)), *dice]) == []
    # out of line, or unevenly spaced: no 3
    bent = _felt()
    bent[70:130, 70:130] += BODY - FELT
    for x, y in ((82, 82), (100, 100), (118, 100)):
        _pip(bent, x, y)
    assert pips_in_line(_done(bent), [_Seen(1, (67, 67, 97, 97)), *dice]) == []
    # an unsure 1 is not looked around
    assert pips_in_line(image, [_Seen(1, (67, 67, 97, 97), uncertain=True), *dice]) == []


def test_black_threes_whose_pips_are_boxed_apart_are_asked_not_read_as_sure_ones(
    first_finder: DiceReader,
) -> None:
    # black 3s on black felt (seed 21) whose pips the finder boxed apart, read sure 1s
    # beside the 3 unsure or asked: one die asked "3?" now, its other 1s asked too (seeds
    # 21-24, 160 throws: 9 sure wrong before, none now; 560 right, 561 now)
    seen = _black_on_black(first_finder, 3, 21, (11, 15, 38))
    assert seen["sure 1"] == 0, seen
    assert seen[f"{JOINED_PIPS} 3"] >= 3, seen


def test_a_reading_on_a_die_much_larger_is_a_part_of_it() -> None:
    die = _Seen(2, (100, 100, 160, 160))  # 60 px: a glare spot on it found as a 1
    spot = _Seen(1, (95, 95, 125, 125))  # its middle on the die, a quarter of its box
    beside = _Seen(1, (160, 100, 200, 140))  # a die touching it: its middle outside
    assert nested([die, spot, beside]) == {1: 0}
    assert nested([_Seen(2, die.box, uncertain=True), spot]) == {1: 0}  # on a die asked too
    assert nested([die, _Seen(None, spot.box, uncertain=True)]) == {1: 0}
    # two dice nearly as large (the inner 0.64 of the other's box): not nested
    assert NESTED < 0.64
    assert nested([_Seen(5, (100, 100, 150, 150)), _Seen(1, (110, 110, 150, 150))]) == {}
    # on two boxes, a sure die's first
    unsure_big = _Seen(None, (80, 80, 180, 180), uncertain=True)
    assert nested([unsure_big, die, spot]) == {1: 0, 2: 1}


def test_glare_found_apart_on_a_black_die_is_no_second_die(reader: DiceReader) -> None:
    # a lamp's reflection on black d6s: the finder boxed some spots alone, read sure 1s
    # on the die (40 throws at glare 0.9, seed 97: 7 dice wrong before, 4 of them so)
    seen: Counter[str] = Counter()
    for k in (5, 18, 22, 23):
        spec = ThrowSpec(dice=("d6",) * 4, looks=(PALETTE[1],), glare=0.9)
        throw = render_throw(spec, np.random.default_rng([97, k]))
        read = reader.read(throw.image, "d6").dice
        for die in throw.dice:
            on = [d for d in read if holds(die.box, d.box)]
            seen["sure twice"] += sum(not d.uncertain for d in on) > 1
            seen["sure 1s"] += sum(not d.uncertain and d.value == 1 for d in on) * (die.value != 1)
            seen["asked: on a die"] += sum(d.problem == ON_A_DIE for d in on)
    assert seen["sure twice"] == 0 and seen["sure 1s"] == 0, seen
    assert seen["asked: on a die"] >= 2, seen  # the spots on the dice asked, not dropped


def test_dark_twos_on_dark_felt_are_asked_not_read_as_sure_ones(first_finder: DiceReader) -> None:
    seen: Counter[str] = Counter()
    for k in range(16):
        spec = ThrowSpec(
            dice=("d6",) * 4, values=(2,) * 4, looks=(PALETTE[1],), tray=(25, 25, 28), camera=k
        )
        throw = render_throw(spec, np.random.default_rng([32, k]))
        for d in first_finder.read(throw.image, "d6").dice:
            seen[f"sure {d.value}" if not d.uncertain else f"{d.problem} {d.value}"] += 1
    # measured: 27 sure 1s before (each a pip of a 2, boxed alone), 6 in session 32, 1 now;
    # 35 sure 2s before and after; 14 dice asked "2?" as one die, 5 pips asked beside or
    # on the 2 they belong to
    assert seen["sure 1"] <= 10, seen
    assert seen["sure 2"] >= 30, seen
    assert seen[f"{JOINED_PIPS} 2"] >= 8, seen
    assert seen[f"{ON_ANOTHER} 1"] + seen[f"{ON_A_DIE} 1"] >= 4, seen
    assert all(k == f"{JOINED_PIPS} 2" for k in seen if k.startswith(JOINED_PIPS)), seen


def _black_on_black(
    reader: DiceReader,
    value: int,
    seed: int,
    ks: tuple[int, ...],
    felt: tuple[int, int, int] = (26, 26, 28),
) -> Counter[str]:
    """What the reader makes of four black dice showing ``value`` on a dark felt (black,
    unless ``felt``), per throw ``k`` of ``seed``: each reading on a die as "sure V" or
    "PROBLEM V"."""
    seen: Counter[str] = Counter()
    for k in ks:
        spec = ThrowSpec(dice=("d6",) * 4, values=(value,) * 4, looks=(PALETTE[1],), tray=felt)
        throw = render_throw(spec, np.random.default_rng([seed, k]))
        read = reader.read(throw.image, "d6").dice
        for die in throw.dice:
            for d in (d for d in read if holds(die.box, d.box)):
                seen[f"sure {d.value}" if not d.uncertain else f"{d.problem} {d.value}"] += 1
    return seen


def test_dark_twos_boxed_on_one_pip_are_asked_not_read_as_sure_ones(
    first_finder: DiceReader,
) -> None:
    # black 2s whose finder box held one pip and no reading the other (40 throws of seed
    # 16: 10 dice read sure 1s, 7 of them these; now 1.  In these 7 throws: 7 sure 1s and
    # 5 dice asked "2?" before, none and 11 now)
    seen = _black_on_black(first_finder, 2, 16, (2, 6, 17, 20, 26, 30, 32))
    assert seen["sure 1"] == 0, seen
    assert seen[f"{JOINED_PIPS} 2"] >= 7, seen


def test_dark_threes_boxed_on_their_pips_are_read_again_larger(first_finder: DiceReader) -> None:
    # black 3s (seed 21) whose frame's sure dice are boxes on pips too, so the frame's die
    # size is too small for the die a 1 and its partner may be: read again 1.3 times
    # larger (these 2 throws: 2 sure 1s before, 2 dice asked "3?" now)
    seen = _black_on_black(first_finder, 3, 21, (6, 29))
    assert seen["sure 1"] == 0, seen
    assert seen[f"{JOINED_PIPS} 3"] == 2, seen


def test_a_sure_one_a_little_smaller_than_the_die_it_lies_on_is_asked(
    first_finder: DiceReader,
) -> None:
    # black 2s on dark blue felt (seed 63) read a sure 2 and, in a box 0.60-0.65 of its
    # own with its middle in it, a sure 1: too large to be left out as a part of it (real
    # dice touching lie so), so asked (these 2 throws: 2 sure 1s before, none now)
    one_in_two = _Seen(1, (92, 41, 138, 87))  # seed 63, throw 6, as read
    two = _Seen(2, (78, 15, 135, 72))
    assert nested([two, one_in_two]) == {}
    assert nested([two, one_in_two], ONE_NESTED) == {1: 0}
    seen = _black_on_black(first_finder, 2, 63, (6, 33), felt=(60, 40, 20))
    assert seen["sure 1"] == 0, seen
    assert seen[f"{ON_A_DIE} 1"] == 2, seen
    assert seen["sure 2"] >= 6, seen


def test_black_sixes_boxed_on_their_pips_are_looked_at_wider(first_finder: DiceReader) -> None:
    # black 6s on black felt (seed 75): the finder's box held the pips alone, and the face
    # network read the crop "3" surely (the pips at its edges taken for a side face's);
    # a box 1.3 times as large reads 6 (these 3 throws: 3 sure 3s before, now asked "3 or 6?")
    seen = _black_on_black(first_finder, 6, 75, (9, 13, 24))
    assert seen["sure 3"] == 0, seen
    assert seen[f"{WIDER_READ} 3"] == 3, seen
    # and the face of each lies close to what is round its box, unlike a die on a far
    # lighter tray (byler's: 196 at the median)
    spec = ThrowSpec(dice=("d6",) * 4, values=(6,) * 4, looks=(PALETTE[1],), tray=(26, 26, 28))
    throw = render_throw(spec, np.random.default_rng([75, 13]))
    assert face_against_tray(throw.image, (499, 290, 532, 323)) < FACE_LIKE_TRAY
    wider = [d for d in first_finder.read(throw.image, "d6").dice if d.problem == WIDER_READ]
    assert [(d.value, d.runner_up) for d in wider] == [(3, 6)]  # both faces offered
    assert wider[0].advice.startswith("confirm: 3 or 6? ")
    light = ThrowSpec(dice=("d6",) * 4, values=(6,) * 4, looks=(PALETTE[1],), tray=(228, 228, 226))
    lit = render_throw(light, np.random.default_rng([75, 13]))
    assert all(face_against_tray(lit.image, d.box) > 3 * FACE_LIKE_TRAY for d in lit.dice)


def test_the_advice_says_why_a_joined_die_is_asked() -> None:
    assert advice_for("d6", 2, 0.95, "black", False, JOINED_PIPS) == (
        "confirm: 2? (the black d6: it was first taken for two dice; if there are two, "
        "re-throw them)"
    )
    assert advice_for("d6", 1, 0.9, "black", False, ON_ANOTHER) == (
        "confirm: 1? (the black d6: it may be a pip of the die beside it, read already)"
    )
    assert advice_for("d6", 3, 0.9, "black", False, WIDER_READ, 6) == (
        "confirm: 3 or 6? (the black d6: a wider look at it reads another face)"
    )


# byler's dice showing 1 that touch another showing 1: (file, the two 1s' boxes as read).
# The face network reads the square between each pair a sure 2 (0.93-0.95): only the seam
# or the change of colour between the dice keeps them two
TOUCHING_ONES = (
    ("IMG_20191208_111304.jpg", (267, 216, 309, 258), (255, 243, 293, 280)),
    ("IMG_20191208_111650.jpg", (259, 334, 295, 370), (290, 309, 326, 345)),
    ("IMG_20191208_112404.jpg", (409, 281, 447, 319), (380, 262, 414, 296)),
)


@needs_photos
def test_real_dice_showing_one_side_by_side_stay_two_sure_ones(reader: DiceReader) -> None:
    wanted = {name: boxes for name, *boxes in TOUCHING_ONES}
    for item, photo in photos_of("byler_d6"):
        if item.path.name not in wanted:
            continue
        dice = reader.read(photo, "d6").dice
        assert not [d for d in dice if d.problem in (JOINED_PIPS, ON_ANOTHER)], item.path.name
        for box in wanted.pop(item.path.name):
            at = [d for d in dice if math.dist(d.box[:2], box[:2]) <= 4]
            assert [(d.value, d.uncertain) for d in at] == [(1, False)], (item.path.name, box)
    assert not wanted  # every photo named was read
