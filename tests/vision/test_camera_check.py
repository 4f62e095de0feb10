"""`vision check`: what a camera set up badly looks like, measured from its frames (rendered
throws standing in for a camera: dimmed, shrunk, flickering, slow)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from tests.vision import needs_photos, photos_of
from vision.camera_check import BLURRED_PX, check_camera
from vision.frames import Frame
from vision.reader import DiceReader
from vision.render import PALETTE, ThrowSpec, render_settling, render_throw
from vision.teach_synthetic import taught_from_renders


@pytest.fixture(scope="module")
def still() -> list[np.ndarray]:
    """A still tray with four d6s: ten frames where only sensor noise changes."""
    spec = ThrowSpec(dice=("d6",) * 4, perspective=0.0)
    return [image for image, _ in render_settling(spec, np.random.default_rng(5), 0, 10)]


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def _frames(images: list[np.ndarray], interval: float = 0.1) -> list[Frame]:
    return [Frame(image, i * interval) for i, image in enumerate(images)]


def test_a_camera_set_up_well_gets_no_advice(still: list[np.ndarray], reader: DiceReader) -> None:
    check = check_camera(_frames(still), reader)
    assert check.advice == (), check.advice
    assert (check.width, check.height, check.dice, check.unsure) == (640, 640, 4, 0)
    assert check.fps == pytest.approx(10.0) and check.die_px is not None and check.die_px > 40


def test_each_fault_is_named_with_what_to_do(still: list[np.ndarray], reader: DiceReader) -> None:
    dim = [(image * 0.25).astype(np.uint8) for image in still]
    assert any("the picture is dim" in a for a in check_camera(_frames(dim), reader).advice)
    small = [cv2.resize(image, (160, 160), interpolation=cv2.INTER_AREA) for image in still]
    said = check_camera(_frames(small), reader).advice  # 11% of the frame, but 16-23 px
    assert any(re.match(r"the dice are 1\d px across", a) for a in said), said
    tray = [int(v) for v in np.median(still[0].reshape(-1, 3), axis=0)]
    wide = [cv2.copyMakeBorder(image, 880, 880, 880, 880, cv2.BORDER_CONSTANT, value=tray)
            for image in still[:3]]  # fmt: skip
    said = check_camera(_frames(wide), reader).advice  # 66-px dice in a 2400-px frame
    assert any(a.startswith("the dice are small in the picture (3") for a in said), said
    assert any("move the camera closer" in a for a in said)
    flicker = [np.clip(image * (1.0 if i % 2 else 1.2), 0, 255).astype(np.uint8)
               for i, image in enumerate(still)]  # fmt: skip
    said = check_camera(_frames(flicker), reader).advice
    assert any(a.startswith("the picture never holds still") for a in said), said
    said = check_camera(_frames(still, interval=0.5), reader).advice
    assert said == ("only 2.0 frames a second: a throw is seen to settle late; "
                    "lower the camera's resolution (camera_size in the settings)",)  # fmt: skip
    empty = np.full_like(still[0], 90)
    said = check_camera(_frames([empty, empty]), reader).advice
    assert said == ("no dice seen: put a few dice on the tray and check again",)


def test_specks_on_the_tray_do_not_make_the_dice_small(reader: DiceReader) -> None:
    """The closer look also boxes specks and a die's pips (11-19 px): with a dozen specks
    on the tray, d6s of 50-81 px in a 640-px frame were told to move the camera closer."""
    for seed in range(200, 204):
        spec = ThrowSpec(dice=("d6",) * 4, debris=12, perspective=0.0)
        throw = render_throw(spec, np.random.default_rng(seed))
        check = check_camera(_frames([throw.image] * 2), reader)
        assert not any("small in the picture" in a for a in check.advice), (seed, check.advice)
        truth = float(np.median([d.box[2] - d.box[0] for d in throw.dice]))
        assert check.die_px is not None and 0.85 < check.die_px / truth < 1.3, (seed, truth)


def test_a_camera_out_of_focus_is_told_to_focus(
    still: list[np.ndarray], reader: DiceReader
) -> None:
    """The dice's edges measure about 1 px sharp; blurred by a Gaussian of sigma 2 px (real
    d10s and d20s of 50 px were then read wrong for sure), over BLURRED_PX: "focus"."""
    sharp = check_camera(_frames(still), reader)
    assert sharp.edge_blur is not None and sharp.edge_blur < 1.4, sharp.edge_blur
    for sigma, named in ((0.5, False), (2.0, True)):
        blurred = [cv2.GaussianBlur(image, (0, 0), sigma) for image in still[:3]]
        check = check_camera(_frames(blurred), reader)
        said = [a for a in check.advice if a.startswith("the picture is out of focus")]
        assert bool(said) == named, (check.edge_blur, check.advice)
        assert check.edge_blur is not None and (check.edge_blur >= BLURRED_PX) == named
        assert check.to_dict()["edge_blur"] == round(check.edge_blur, 2)
    assert "focus the camera on the tray" in said[0]


@needs_photos
def test_phone_photos_of_dice_are_not_called_out_of_focus(reader: DiceReader) -> None:
    """The byler photos (phone photos, dice 30-45 px, read 97%) are sharp enough: none is
    told to focus (measured: edge blur 1.09 median, 1.40 at most, of 200), nor to change
    its felt."""
    blurs = []
    for item, image in photos_of("byler_d6"):
        check = check_camera(_frames([image]), reader, "d6")
        assert not any("out of focus" in a for a in check.advice), (item.path.name, check.edge_blur)
        # nor told their dice are as dark as the felt: a white table
        assert not any("as dark as the felt" in a for a in check.advice), item.path.name
        if check.edge_blur is not None:
            blurs.append(check.edge_blur)
    assert len(blurs) >= 190 and max(blurs) < BLURRED_PX


def test_the_command_checks_a_folder_of_frames(
    still: list[np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, image in enumerate(still[:4]):
        cv2.imwrite(str(tmp_path / f"{i}.png"), image)
    assert main(["vision", "check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "640 x 640, 4 pictures (not a live camera: frames a second and steadiness not " \
        "measured); brightest" in out and "nothing to change" in out, out  # fmt: skip
    assert main(["vision", "check", str(tmp_path / "0.png")]) in (0, 1)  # one picture
    out = capsys.readouterr().out  # no frames a second to tell (was "1 frames, — a second")
    assert "640 x 640, 1 picture (not a live camera" in out, out
    assert main(["vision", "check", str(tmp_path / "missing.avi")]) == 2
    assert "cannot open camera" in capsys.readouterr().err
    for option, says in ((["--seconds", "nan"], "--seconds must be more than 0"),
                         (["--seconds", "-1"], "--seconds must be more than 0"),
                         (["--size", "0x0"], "--size is WIDTHxHEIGHT")):  # fmt: skip
        assert main(["vision", "check", str(tmp_path), *option]) == 2
        assert says in capsys.readouterr().err


def test_an_empty_tray_picture_that_cannot_serve_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--empty-tray` of another size was silently left out ("nothing to change"); one
    taken with the dice on the tray hid them ("no dice seen").  Specks on it do not count:
    they are what it is for (test_specks_read_as_dice_ask_for_the_empty_tray_picture)."""
    throw = render_throw(ThrowSpec(dice=("d6",) * 4, perspective=0.0), np.random.default_rng(5))
    cv2.imwrite(str(tmp_path / "throw.png"), throw.image)
    cv2.imwrite(str(tmp_path / "small.png"), cv2.resize(throw.empty_tray, (320, 240)))
    cv2.imwrite(str(tmp_path / "dice.png"), throw.image)
    cv2.imwrite(str(tmp_path / "empty.png"), throw.empty_tray)
    check = ["vision", "check", str(tmp_path / "throw.png"), "--empty-tray"]
    for picture, said in (
        ("small.png", "the empty-tray picture is 320 x 240 px, the camera's frames 640 x 640: "
                      "it is not used; take it again"),
        ("dice.png", "the empty-tray picture shows 4 dice: it is not used; take it again "
                     "with the tray clear"),
    ):  # fmt: skip
        assert main([*check, str(tmp_path / picture)]) == 1
        out = capsys.readouterr().out
        assert f"  - {said}\n" in out and "dice 4 (0 unsure)" in out, out
        assert "no dice seen" not in out
    assert main([*check, str(tmp_path / "empty.png")]) == 0
    assert "nothing to change" in capsys.readouterr().out


def test_a_picture_too_small_in_a_folder_is_named_and_the_rest_checked(
    still: list[np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One 3×3 icon among the photos stopped the check with "a frame is 3×3 pixels",
    naming no file."""
    cv2.imwrite(str(tmp_path / "0-icon.png"), np.zeros((3, 3, 3), np.uint8))
    for i, image in enumerate(still[:2]):
        cv2.imwrite(str(tmp_path / f"{i + 1}.png"), image)
    assert main(["vision", "check", str(tmp_path)]) == 0
    said = capsys.readouterr()
    assert "left out: the picture 0-icon.png is 3×3 pixels" in said.err, said.err
    assert "640 x 640, 2 pictures" in said.out, said.out


def test_a_folder_of_different_throws_is_not_called_unsteady(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder's photos are each a throw of their own: what changes between them is other
    dice, not flicker (it was "the picture never holds still (0.8% …)" for burks' photos).
    The frames of a film of the same throws are still judged."""
    rng = np.random.default_rng(7)
    throws = [render_throw(ThrowSpec(dice=("d6",) * 4), rng).image for _ in range(4)]
    for i, image in enumerate(throws):
        cv2.imwrite(str(tmp_path / f"{i}.png"), image)
    main(["vision", "check", str(tmp_path), "--json"])
    told = json.loads(capsys.readouterr().out)
    assert told["unsteady"] is None and told["fps"] is None, told
    assert not any("never holds still" in line for line in told["advice"]), told["advice"]
    filmed = check_camera(_frames(throws), DiceReader())  # a camera whose picture jumps
    assert filmed.unsteady is not None and filmed.fps is not None
    assert any(line.startswith("the picture never holds still") for line in filmed.advice)


def test_d20s_too_small_for_their_numerals_are_named() -> None:
    """A taught set's d20s under NUMERAL_PX are left to confirm more often (their numerals
    a few pixels tall): the check says so, and says nothing of it for larger ones."""
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 2))
    rng = np.random.default_rng(6)
    for size, die_px, named in (((640, 640), (48, 54), True), ((1280, 1280), (92, 100), False)):
        spec = ThrowSpec(dice=("d20",) * 3, size=size, die_px=die_px, perspective=0.0,
                         looks=(PALETTE[2],))  # fmt: skip
        images = [image for image, _ in render_settling(spec, rng, 0, 3)]
        check = check_camera(_frames(images), reader, "d20")
        said = [a for a in check.advice if a.startswith("the d20s are ")]
        assert check.dice == 3 and bool(said) == named, check.advice
        if named:
            assert "left to confirm; raise the camera's resolution" in said[0]


def test_a_camera_looking_at_a_slant_is_named() -> None:
    """Through a camera at a slant every flat die's numeral lies off its middle one way: the
    check says so (such a camera asks "may be cocked" of flat dice more often), and says
    nothing of it for a camera straight over the tray."""
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d10", 4))
    rng = np.random.default_rng(7)
    for perspective, named in ((0.15, True), (0.0, False)):
        spec = ThrowSpec(dice=("d10",) * 4, perspective=perspective, looks=(PALETTE[4],))
        images = [image for image, _ in render_settling(spec, rng, 0, 3)]
        check = check_camera(_frames(images), reader, "d10")
        said = [a for a in check.advice if a.startswith("the camera looks at the tray at a slant")]
        assert check.dice == 4 and bool(said) == named, (check.slant, check.advice)
        measured = check.to_dict()["slant"]
        if named:  # straight down it is tiny, or not told at all (no way off that they share)
            assert (
                check.slant is not None
                and check.slant >= 0.05
                and measured == round(check.slant, 3)
            ), check.slant
        else:
            assert check.slant is None or check.slant < 0.05, check.slant


def test_a_die_set_taught_at_a_slant_or_on_a_cutting_tray_is_named() -> None:
    """A set whose taught numerals lie one way off their dice's middles (here white d20s
    taught on a light grey tray that cut their outlines) reads that as the camera's, so the
    dice's leans do not show it: the check names the set and says what to do."""
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 0, "white d20s", design=0, tray=178))
    spec = ThrowSpec(dice=("d20",) * 3, perspective=0.0, looks=(PALETTE[0],))
    images = [image for image, _ in render_settling(spec, np.random.default_rng(9), 0, 3)]
    check = check_camera(_frames(images), reader, "d20")
    said = [a for a in check.advice if a.startswith("the die set 'white d20s': the numerals")]
    assert len(said) == 1 and "teach the faces again" in said[0], check.advice
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 2, "red d20s", design=0))
    check = check_camera(_frames(images), reader, "d20")
    assert not [a for a in check.advice if a.startswith("the die set")], check.advice


def test_dice_left_unsure_alike_are_one_line_with_their_count(reader: DiceReader) -> None:
    spec = ThrowSpec(dice=("d20",) * 3, perspective=0.0, looks=(PALETTE[2],), touching=0.0)
    frames = [image for image, _ in render_settling(spec, np.random.default_rng(6), 0, 6)]
    check = check_camera(_frames(frames), reader, "any")  # no d20 set: each is "numbered"
    unsure = [a for a in check.advice if a.startswith("unsure")]
    assert check.unsure == 3, check.advice
    assert unsure == [
        "unsure (3 dice): enter the red die by hand: it is a numbered die (d5, "
        "d10 or d20), read by the camera once its set is taught (Devices page)"
    ]


def test_specks_read_as_dice_ask_for_the_empty_tray_picture(reader: DiceReader) -> None:
    """Light specks on a dark felt read as dice showing one pip are asked "no outline"; the
    check then says to clean the tray or take the empty-tray picture, and says nothing of
    it with the picture given (it keeps the specks from being read)."""
    spec = ThrowSpec(dice=("d6",) * 2, values=(6, 6), tray=(25, 25, 28), debris=25, camera=1)
    throw = render_throw(spec, np.random.default_rng(1))
    said = check_camera(_frames([throw.image]), reader, "d6").advice
    assert any(a.startswith("specks, crumbs or lint on the tray") for a in said), said
    given = check_camera(_frames([throw.image]), reader, "d6", throw.empty_tray).advice
    assert not any("specks" in a for a in given), given


def test_dark_dice_on_a_dark_felt_are_named(reader: DiceReader) -> None:
    """Black dice on black or dark blue felt: the check says to use a felt that stands apart
    from the dice.  Not red dice on red felt, nor white on white: they read about as well
    as on any felt (the felt finder; their shaded sides), nor dice on the renderer's own
    trays (the first test)."""
    black, red, white = PALETTE[1], PALETTE[2], PALETTE[0]
    for tray in ((26, 26, 28), (60, 30, 20)):
        spec = ThrowSpec(dice=("d6",) * 4, looks=(black,), tray=tray)
        throw = render_throw(spec, np.random.default_rng(6))
        said = check_camera(_frames([throw.image]), reader, "d6").advice
        felt = [a for a in said if "as dark as the felt" in a]
        assert len(felt) == 1 and felt[0].endswith("dark dice on a light one"), (tray, said)
        assert felt[0].split(" of the ")[1].startswith("4 dice are"), felt
    for look, tray in ((red, red.body), (white, (225, 225, 222))):
        spec = ThrowSpec(dice=("d6",) * 4, looks=(look,), tray=tray)
        image = render_throw(spec, np.random.default_rng(6)).image
        said = check_camera(_frames([image]), reader).advice
        assert not any("the felt" in a for a in said), (tray, said)
    # black d20s on black felt: their numerals, not pips, are what the camera sees
    numbered = DiceReader()
    numbered.add_dieset(taught_from_renders("d20", 1))
    spec = ThrowSpec(dice=("d20",) * 4, looks=(black,), tray=(26, 26, 28))
    image = render_throw(spec, np.random.default_rng(6)).image
    said = check_camera(_frames([image]), numbered, "d20").advice
    felt = [a for a in said if "as dark as the felt" in a]
    assert len(felt) == 1 and "little but their numerals" in felt[0], said


def test_a_camera_that_sees_the_table_round_the_tray_is_told_to_mark_the_tray(
    reader: DiceReader,
) -> None:
    from tests.vision.test_tray_area import _tray_on_a_table

    view, _ = _tray_on_a_table(8)
    check = check_camera(_frames([view] * 3), reader, "d6")
    said = [a for a in check.advice if a.startswith("the camera sees more than the tray")]
    assert len(said) == 1, check.advice
    covers = re.search(r"it covers (\d+)% of the picture", said[0])
    assert covers is not None and 45 <= int(covers.group(1)) <= 50  # the tray: 48%
    assert "Find the tray in the picture" in said[0]


def test_a_camera_with_no_colour_is_named_where_a_die_set_is_taught() -> None:
    """A grey camera's frames (one channel) are checked, not refused; where a die set is
    taught, the check says that its dice are not told apart by colour, and says nothing of
    it for a colour camera's frames."""
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 5))
    spec = ThrowSpec(dice=("d20",) * 3, perspective=0.0, looks=(PALETTE[5],))
    images = [image for image, _ in render_settling(spec, np.random.default_rng(4), 0, 3)]
    for grey, named in ((True, True), (False, False)):
        frames = [cv2.cvtColor(i, cv2.COLOR_BGR2GRAY) for i in images] if grey else images
        check = check_camera(_frames(frames), reader, "d20")
        said = [a for a in check.advice if a.startswith("the camera's pictures have no colour")]
        assert check.dice == 3 and bool(said) == named, check.advice
    pips = check_camera(
        _frames([cv2.cvtColor(i, cv2.COLOR_BGR2GRAY) for i in images]), DiceReader()
    )
    assert not any("no colour" in a for a in pips.advice)  # pip dice: colour tells nothing
