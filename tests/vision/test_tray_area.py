"""The tray's area in the picture: dice outside it are no part of the throw, a die across its
edge is asked to be moved in (vision/tray_area.py), read by the real reader on renders."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from tests.vision import needs_photos, photos_of
from vision.datasets import shared_photos
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw
from vision.tray_area import (
    HALF_OUT,
    TrayArea,
    TrayAreaError,
    drawn,
    share_inside,
    suggest,
    within,
)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ([[0, 0], [1, 0]], "3 to 64 corners"),
        ("0,0;1,0", "3 to 64 corners"),
        ([[0, 0], [1, 0], [1, 1.2]], "corner 3 of the tray area is [1, 1.2]"),
        ([[0, 0], [1, 0], [math.nan, 1]], "corner 3"),
        ([[0, 0], [True, 0], [1, 1]], "corner 2"),
        ([[0, 0], [1, 0], [1]], "corner 3"),
        ([[0.5, 0.5], [0.52, 0.5], [0.5, 0.52]], "covers 0.0% of the picture"),
        ("0,0;1,x;1,1", "corners x,y;x,y;"),
        ({"x": 1}, "3 to 64 corners"),
    ],
)
def test_corners_that_make_no_tray_are_refused_saying_why(given: object, said: str) -> None:
    with pytest.raises(TrayAreaError) as err:
        TrayArea.parse(given)
    assert said in str(err.value)


def test_corners_are_read_from_json_or_a_line_and_measured() -> None:
    square = TrayArea.parse([[0, 0], [1, 0], [1, 1], [0, 1]])
    assert TrayArea.parse("0,0; 1,0; 1,1; 0,1") == square
    assert square.share() == pytest.approx(1.0)
    left = TrayArea.parse([[0, 0], [0.5, 0], [0.5, 1], [0, 1]])
    assert left.share() == pytest.approx(0.5)
    mask = left.mask(640, 480)
    assert mask.shape == (480, 640)
    assert mask[:, :300].all() and not mask[:, 340:].any()
    assert share_inside((200, 100, 300, 200), mask) == pytest.approx(1.0)
    assert share_inside((400, 100, 500, 200), mask) == 0.0
    assert share_inside((270, 100, 370, 200), mask) == pytest.approx(0.5, abs=0.02)
    assert left.to_list() == [[0.0, 0.0], [0.5, 0.0], [0.5, 1.0], [0.0, 1.0]]


def test_a_die_outside_the_area_is_left_out_and_one_across_its_edge_is_asked() -> None:
    """Three d6s read for sure, lying apart left to right (x 46–118, 308–376, 461–547 of
    640); the area's edge runs through the middle one, at x 342."""
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    result = DiceReader().read(throw.image, "d6")
    left, middle, right = sorted(result.dice, key=lambda d: d.box[0])
    assert not any(d.uncertain for d in result.dice)
    assert left.box[2] < 330 and middle.box[0] < 342 < middle.box[2] and right.box[0] > 350
    area = TrayArea.parse([[0, 0], [342 / 639, 0], [342 / 639, 1], [0, 1]])
    h, w = throw.image.shape[:2]
    inside = within(result, area, w, h)
    assert len(inside.dice) == 2  # the right-hand die is no part of the throw
    assert inside.beyond == (right.box,) and inside.problem == ""  # shown, not read
    kept_left, asked = sorted(inside.dice, key=lambda d: d.box[0])
    assert kept_left == left  # as it was read
    assert asked.uncertain and asked.problem == HALF_OUT and asked.box == middle.box
    assert asked.to_reading() is None  # never fed to a check
    assert asked.advice == f"move the {asked.colour} d6 fully into the tray, or re-throw it"
    assert asked.colour  # named, though the die had been read for sure
    assert within(result, None, w, h) == result  # no area: the whole picture is the tray
    corner = TrayArea.parse([[0, 0], [0.15, 0], [0, 0.15]])  # no die lies there
    empty = within(result, corner, w, h)
    assert empty.dice == () and len(empty.beyond) == 3 and empty.problem == "no dice seen"


def test_the_area_is_drawn_on_the_pictures_the_page_shows() -> None:
    image = np.full((100, 200, 3), 90, np.uint8)
    area = TrayArea.parse([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]])
    shown = drawn(image, area)
    outline = (shown[:, :, 0] > 200) & (shown[:, :, 1] > 150) & (shown[:, :, 2] < 60)
    assert outline[10, 20:180].all() and not outline[50, 50:150].any()
    assert (image == 90).all()  # the frame itself is not drawn on
    assert drawn(image, None) is image


def test_vision_read_leaves_out_the_dice_beyond_the_area_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    picture = tmp_path / "three.png"
    cv2.imwrite(str(picture), throw.image)
    read = ["vision", "read", str(picture), "--die", "d6", "--json"]
    assert main(read) == 0
    assert len(json.loads(capsys.readouterr().out)["dice"]) == 3
    assert main([*read, "--tray-area", "0,0; 0.535,0; 0.535,1; 0,1"]) == 0
    read_in_area = json.loads(capsys.readouterr().out)
    dice = sorted(read_in_area["dice"], key=lambda d: d["box"][0])
    assert [d["problem"] for d in dice] == ["", HALF_OUT]
    assert len(read_in_area["beyond_the_tray"]) == 1  # the right-hand die's box
    assert main([*read[:-1], "--tray-area", "0,0; 0.535,0; 0.535,1; 0,1"]) == 0
    assert "left out, beyond the tray's area: 1 die" in capsys.readouterr().out
    assert main([*read, "--tray-area", "0,0;1,1"]) == 2
    assert "--tray-area: a tray area has 3 to 64 corners" in capsys.readouterr().err


def test_what_moves_beside_the_tray_does_not_hold_a_settled_throw_back() -> None:
    """A still tray in the left half, and a hand (a bright patch) moving about in the right
    half every frame: with the area marked the throw settles after 0.3 s; without it,
    never."""
    from vision.frames import Frame
    from vision.settle import SettleDetector

    tray = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(9)).image
    area = TrayArea.parse([[0, 0], [0.45, 0], [0.45, 1], [0, 1]])
    states: dict[str, list[bool]] = {"area": [], "whole": []}
    detectors = {"area": SettleDetector(0.3), "whole": SettleDetector(0.3)}
    for k in range(12):
        image = tray.copy()
        x = 400 + 20 * (k % 5)
        cv2.rectangle(image, (x, 100 + 30 * (k % 3)), (x + 120, 260), (230, 220, 210), -1)
        frame = Frame(image, 0.1 * k)
        states["area"].append(detectors["area"].feed(frame, area).settled)
        states["whole"].append(detectors["whole"].feed(frame).settled)
    assert states["area"].count(True) == 1 and states["area"].index(True) <= 5
    assert not any(states["whole"])


def _tray_on_a_table(seed: int) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A rendered throw (its tray fills its picture) set into a wider view of a wooden
    table, as a camera mounted higher sees it; and where the tray lies (x0, y0, x1, y1, as
    shares of the picture)."""
    rng = np.random.default_rng(seed)
    tray = cv2.resize(render_throw(ThrowSpec(dice=("d6",) * 3, tray=(40, 110, 50)), rng).image,
                      (480, 480))  # fmt: skip
    grain = rng.normal(0, 12, (600, 800, 1)) + np.linspace(-15, 15, 800)[None, :, None]
    table = np.clip(np.array([60, 110, 170]) + grain, 0, 255).astype(np.uint8)  # brown wood
    x, y = 200, 70
    table[y : y + 480, x : x + 480] = tray
    return table, (x / 799, y / 599, (x + 479) / 799, (y + 479) / 599)


def test_the_tray_is_found_where_it_stands_apart_from_the_table_round_it() -> None:
    for seed in (1, 2, 3):
        picture, (x0, y0, x1, y1) = _tray_on_a_table(seed)
        found = suggest(picture)
        assert found is not None, seed
        xs, ys = [x for x, _ in found.points], [y for _, y in found.points]
        assert abs(min(xs) - x0) < 0.02 and abs(max(xs) - x1) < 0.02, (seed, found)
        assert abs(min(ys) - y0) < 0.02 and abs(max(ys) - y1) < 0.02, (seed, found)
        assert 4 <= len(found.points) <= 16
    # a tray that fills the picture needs no area
    whole = render_throw(ThrowSpec(dice=("d6",) * 3), np.random.default_rng(4)).image
    assert suggest(whole) is None


@needs_photos
def test_the_burks_tower_floor_is_found_in_a_photo_with_a_die_on_it() -> None:
    """The black floor of the burks tower, round its red d20 lying in the middle, among the
    table's wood, a cable, a box and the tower's walls; its corners as marked by eye (x
    0.177-0.795, y 0.093-0.916)."""
    photos = shared_photos()
    assert photos is not None
    photo = cv2.imread(str(photos / "burks_polyhedral" / "images" / "D20_A_3.jpg"))
    assert photo is not None
    found = suggest(photo)
    assert found is not None
    xs, ys = [x for x, _ in found.points], [y for _, y in found.points]
    assert abs(min(xs) - 0.177) < 0.02 and abs(max(xs) - 0.795) < 0.02, found
    assert abs(min(ys) - 0.093) < 0.02 and abs(max(ys) - 0.916) < 0.03, found


@needs_photos
def test_no_outline_is_offered_where_the_tray_is_a_box_whose_walls_hide_its_floor() -> None:
    """byler's phone photos look into a box: dice lie against its walls, which are seen
    at a slant, so the floor's colour has bites out of it or runs on to the walls; such a
    region is no clean outline (SUGGEST_SOLID), and none is offered (before that bar, 19 of
    the 200 were, some cutting off the dice along a wall)."""
    found = [item.path.name for item, image in photos_of("byler_d6") if suggest(image)]
    assert found == []


def test_a_lamp_moved_on_the_table_beside_the_tray_is_no_change_of_the_tray_s_light() -> None:
    """The empty-tray picture goes stale when the light on the tray moves (light_change over
    LIGHT_MOVED); a lamp's pool on the table beside a marked tray drops none of its dice."""
    from vision.finder import LIGHT_MOVED, light_change

    throw = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(12))
    lit = throw.image.astype(np.float32)
    lit[:, 450:] *= 1.6  # the right-hand part of the view, beyond the tray, brighter
    frame = np.clip(lit, 0, 255).astype(np.uint8)
    tray = TrayArea.parse([[0, 0], [0.6, 0], [0.6, 1], [0, 1]])
    # measured: 0.40 over the whole view (stale), 0.025 over the tray
    assert light_change(frame, throw.empty_tray) > LIGHT_MOVED
    assert light_change(frame, throw.empty_tray, area=tray) < LIGHT_MOVED
    assert light_change(throw.image, throw.empty_tray, area=tray) < LIGHT_MOVED
