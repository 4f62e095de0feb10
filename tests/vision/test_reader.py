"""The camera reader end to end on synthetic throws (no ../shared needed), its frame
sources, settle detection and the `vision` command line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.finder as finder_module
from dicebridge.cli import main
from tests.vision import needs_photos
from vision.advice import DIM_PICTURE, advice_for
from vision.faces import MODELS, FaceClassifier, ModelError
from vision.finder import DieFinder
from vision.frames import CameraError, ImageFolder, OpenCVCapture, Picamera2Source, Replay
from vision.pixels import DIM_TOP, LIFT_TO, FrameError, brightened, dim_gain
from vision.reader import DiceReader
from vision.readings import encode_crop, holds
from vision.render import MARBLED, PALETTE, ThrowSpec, render_settling, render_throw
from vision.settle import SettleDetector, lies_unmoved, unmoved_dice
from vision.sharpness import percentiles


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def _score(truth: list[int], got: list[int]) -> int:
    return sum(min(truth.count(v), got.count(v)) for v in set(truth))


PIP_LOOKS = tuple(look for look in PALETTE if not look.numerals)  # numeral d6s: teach mode


@pytest.mark.parametrize("die", ["d6", "dF"])
def test_synthetic_throws_are_read(reader: DiceReader, die: str) -> None:
    rng = np.random.default_rng(21 if die == "d6" else 22)
    right = answered = total = 0
    for _ in range(12):
        spec = ThrowSpec(dice=(die,) * int(rng.integers(1, 7)), looks=PIP_LOOKS)
        throw = render_throw(spec, rng)
        result = reader.read(throw.image, die)
        truth = [d.value for d in throw.dice]
        got = [d.value for d in result.certain if d.value is not None]
        total += len(truth)
        answered += len(got)
        right += _score(truth, got)
        for d in result.dice:  # every reading carries what a ledger and a person need
            assert d.die == die and 0 <= d.confidence <= 1 and d.crop.size > 0
            assert d.box[0] < d.box[2] and d.box[1] < d.box[3]
    assert right / total >= 0.95 and answered - right <= 1, (right, answered, total)


def test_an_empty_tray_is_no_dice_and_the_reading_is_a_value(reader: DiceReader) -> None:
    throw = render_throw(ThrowSpec(dice=()), np.random.default_rng(3))
    result = reader.read(throw.image, "d6")
    assert result.dice == () and result.problem == "no dice seen"


def test_an_uncertain_die_says_what_to_do(reader: DiceReader) -> None:
    rng = np.random.default_rng(8)
    throw = render_throw(ThrowSpec(dice=("d6", "d6"), blur=0.3), rng)
    blurred = cv2.GaussianBlur(throw.image, (0, 0), 6)  # far too soft to see pips
    result = reader.read(blurred, "d6")
    assert result.uncertain, "a blur that hides the pips must not give confident values"
    for d in result.uncertain:
        assert d.to_reading() is None
        assert d.advice.startswith(("re-throw the", "confirm:", "move the"))
        assert d.die in d.advice


@pytest.mark.parametrize("die", ["d6", "dF"])
def test_marbled_dice_are_read(reader: DiceReader, die: str) -> None:
    """Veins as wide as a pip run through a marbled die's body: they are not pips, nor a
    Fudge die's bars."""
    rng = np.random.default_rng(31 if die == "d6" else 32)
    right = wrong = total = 0
    for k in range(18):
        spec = ThrowSpec(dice=(die,) * int(rng.integers(1, 7)), looks=(MARBLED[k % 6],))
        throw = render_throw(spec, rng)
        truth = [d.value for d in throw.dice]
        got = [d.value for d in reader.read(throw.image, die).certain if d.value is not None]
        total += len(truth)
        right += _score(truth, got)
        wrong += len(got) - _score(truth, got)
    # measured (docs/vision.md): d6 70 of 71, dF 64 of 67, none wrong (the network before
    # it learnt from marbled renders: dF 60 of 67)
    assert right >= 0.93 * total and wrong <= 1, (right, wrong, total)


def test_a_die_cut_by_the_edge_is_uncertain(reader: DiceReader) -> None:
    rng = np.random.default_rng(2)
    throw = render_throw(ThrowSpec(dice=("d6",), values=(5,), die_px=(50, 56)), rng)
    (die,) = throw.dice
    x0, _y0, x1, _y1 = die.box
    half = throw.image[:, : (x0 + x1) // 2]  # the picture ends in the middle of the die
    result = reader.read(np.ascontiguousarray(half), "d6")
    assert all(d.to_reading() is None for d in result.dice)


def test_a_whole_die_by_the_edge_is_read(reader: DiceReader) -> None:
    """A die lying whole 4 px from the picture's edge (against the tray's wall) is read:
    the finder's box, often larger than the die, crossing the edge does not make it cut."""
    rng = np.random.default_rng(5)
    right = 0
    for look in PIP_LOOKS:
        throw = render_throw(ThrowSpec(dice=("d6",), die_px=(40, 56), looks=(look,)), rng)
        (die,) = throw.dice
        picture = np.ascontiguousarray(throw.image[:, max(0, die.box[0] - 4) :])
        right += [d.value for d in reader.read(picture, "d6").certain] == [die.value]
    # measured: 11 of 12 (6 of 12 when any box crossing the edge was called cut)
    assert right >= 10


def _flagged(reader: DiceReader, kind: str, seed: int) -> dict[str, int]:
    """Throws with cocked dice, or d6s whose pips make no real face, read as d6s: how many
    such dice were found, how many were left uncertain naming the problem, how many got a
    certain value other than their top face's; calm dice found, and those said to have
    the problem."""
    rng = np.random.default_rng(seed)
    said = {"cocked": "is cocked", "impossible pips": "make no real face"}[kind]
    count = dict.fromkeys(("odd", "named", "misread", "calm", "false_alarms"), 0)
    for _ in range(12):
        spec = ThrowSpec(dice=("d6",) * 4, cocked=0.4 if kind == "cocked" else 0.0,
                         impossible=0.5 if kind == "impossible pips" else 0.0)  # fmt: skip
        throw = render_throw(spec, rng)
        result = reader.read(throw.image, "d6")
        for truth in throw.dice:
            cx, cy = (truth.box[0] + truth.box[2]) / 2, (truth.box[1] + truth.box[3]) / 2
            seen = [
                d for d in result.dice if d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3]
            ]
            if not seen or truth.partly_outside:
                continue
            reading = seen[0]
            if truth.cocked or truth.impossible:
                count["odd"] += 1
                count["named"] += (
                    reading.uncertain and reading.problem == kind and said in reading.advice
                )
                # an impossible face has no value to read; a cocked die's top face might
                count["misread"] += not reading.uncertain and (
                    truth.impossible or reading.value != truth.value
                )
            else:
                count["calm"] += 1
                count["false_alarms"] += reading.problem == kind
    return count


def test_cocked_dice_are_never_misread_and_mostly_named(reader: DiceReader) -> None:
    count = _flagged(reader, "cocked", seed=41)
    # measured (docs/vision.md): 15 of 20 named "cocked", the rest read as their top face
    assert count["odd"] >= 12 and count["named"] >= 0.6 * count["odd"], count
    assert count["misread"] == 0, count
    assert count["calm"] >= 20 and count["false_alarms"] <= 0.05 * count["calm"], count


def test_pips_that_make_no_face_are_not_read_as_one(reader: DiceReader) -> None:
    count = _flagged(reader, "impossible pips", seed=42)
    # measured: 15 of 17 named "impossible pips", 2 read as a face
    assert count["odd"] >= 12 and count["named"] >= 0.7 * count["odd"], count
    assert count["misread"] <= 0.2 * count["odd"], count
    assert count["calm"] >= 12 and count["false_alarms"] <= 0.05 * count["calm"], count


def test_a_blurred_d6_is_not_read_as_a_blank_fudge_face(reader: DiceReader) -> None:
    """With no die type expected, a d6 blurred past its pips (a camera out of focus) looks
    like a blank Fudge face to the network; its outline is blurred too, so the reading is
    uncertain and says to focus the camera.  Sharp blank Fudge faces are still read."""
    rng = np.random.default_rng(31)
    blurred = Counter[str]()
    for k in range(10):
        throw = render_throw(ThrowSpec(dice=("d6",) * 3, blur=0.0, looks=(PALETTE[k],)), rng)
        for die in reader.read(cv2.GaussianBlur(throw.image, (0, 0), 6.0), "any").dice:
            blurred["finds"] += 1
            blurred["sure blank"] += not die.uncertain and (die.die, die.value) == ("dF", 0)
            blurred["told to focus"] += "focus the camera" in die.advice
    sharp = Counter[str]()
    for k in range(20):
        throw = render_throw(ThrowSpec(dice=("dF",) * 4, looks=(PALETTE[k % 12],)), rng)
        result = reader.read(throw.image, "any")
        sharp["blank"] += sum(d.value == 0 for d in throw.dice)
        sharp["read blank"] += min(
            sum(d.value == 0 for d in throw.dice), sum(d.value == 0 for d in result.certain)
        )
        sharp["called blurred"] += sum(d.problem == "blurred" for d in result.dice)
    # measured: 30 finds, none read a sure blank (16 before the outline's sharpness was
    # looked at), 24 told to focus; sharp: 27 of 27 blanks read, none called blurred
    assert blurred["finds"] >= 25 and blurred["sure blank"] <= 2, blurred
    assert blurred["told to focus"] >= 0.5 * blurred["finds"], blurred
    assert sharp["called blurred"] == 0 and sharp["read blank"] >= sharp["blank"] - 2, sharp


def test_a_dim_frame_is_brightened_and_a_lit_one_is_left_alone() -> None:
    lit = render_throw(ThrowSpec(dice=("d6",) * 4), np.random.default_rng(3)).image
    assert dim_gain(lit) == 1.0 and brightened(lit, 1.0) is lit
    dim = (lit * 0.25).astype(np.uint8)
    gain = dim_gain(dim)
    top = np.percentile(cv2.cvtColor(dim, cv2.COLOR_BGR2GRAY), 99.9)
    assert top < DIM_TOP and gain == pytest.approx(LIFT_TO / top, rel=0.02)
    assert np.percentile(cv2.cvtColor(brightened(dim, gain), cv2.COLOR_BGR2GRAY), 99.9) == (
        pytest.approx(LIFT_TO, abs=4)
    )


def test_dice_in_a_dim_frame_are_read_or_asked_never_guessed(reader: DiceReader) -> None:
    """A camera given too little light (`vision check` says "dim"): pips a few grey levels
    from their dice.  What only the brightened frame reads is asked, with its guess."""
    seen: Counter[str] = Counter()
    for k in range(12):
        rng = np.random.default_rng([90, k])
        throw = render_throw(ThrowSpec(dice=("d6",) * 4, camera=k), rng)
        noise = rng.normal(0, 3, throw.image.shape)
        dim = np.clip(throw.image * 0.15 + noise, 0, 255).astype(np.uint8)
        result = reader.read(dim, "d6")
        for die in throw.dice:
            on = [d for d in result.dice if holds(die.box, d.box)]
            sure = [d.value for d in on if not d.uncertain]
            guessed = [d.value for d in on if d.problem == DIM_PICTURE]
            seen["not found" if not on else "right" if sure == [die.value] else
                 "wrong" if sure else "asked"] += 1  # fmt: skip
            seen["dim, guess right"] += guessed == [die.value]
    # measured: 20 right, 4 wrong, 10 asked, 14 not found before; now 20 right, none wrong,
    # 28 asked, none lost, 16 of them "the picture is dim" with the right face one press away
    assert seen["wrong"] == seen["not found"] == 0, seen
    assert seen["right"] >= 18 and seen["dim, guess right"] >= 12, seen
    said = advice_for("d6", 5, 0.9, "red", False, DIM_PICTURE)
    assert (
        said
        == "confirm: 5? (the red d6: the picture is dim; light over the tray reads it for sure)"
    )


def test_grey_bgra_and_16_bit_frames_read_as_the_same_picture(reader: DiceReader) -> None:
    throw = render_throw(ThrowSpec(dice=("d6",) * 4), np.random.default_rng(8))
    read = reader.read(throw.image, "d6")
    plain = sorted(d.value or 0 for d in read.dice)
    assert sorted(d.value for d in throw.dice) == plain  # the picture itself reads right
    deep = throw.image.astype(np.uint16) * 257  # a 16-bit PNG of the same picture
    bgra = cv2.cvtColor(throw.image, cv2.COLOR_BGR2BGRA)
    for frame in (deep, bgra):
        assert sorted(d.value or 0 for d in reader.read(frame, "d6").dice) == plain
    grey = cv2.cvtColor(throw.image, cv2.COLOR_BGR2GRAY)  # a monochrome camera
    assert len(reader.read(grey, "d6").dice) == len(plain)
    crop = read.dice[0].crop
    assert reader.read_crop(crop[:, :, :1].copy(), "d6").dice  # a grey H×W×1 photo of one die


@pytest.mark.parametrize(
    ("frame", "says"),
    [
        (np.zeros((4, 4), np.uint8), "4×4 pixels; at least 8×8"),
        (np.zeros((64, 64, 3), np.float32), "float32 pixels; 8-bit"),
        (np.zeros((64, 64, 2), np.uint8), "its shape is \\(64, 64, 2\\)"),
        ([[0, 1], [2, 3]], "not list"),
        (None, "not NoneType"),
    ],
)
def test_bad_frames_are_refused_clearly(reader: DiceReader, frame: object, says: str) -> None:
    with pytest.raises(FrameError, match=says):
        reader.read(frame, "d6")  # type: ignore[arg-type]
    tray = np.zeros((64, 64, 3), np.uint8)
    with pytest.raises(FrameError, match="the empty-tray picture"):
        reader.read(tray, "d6", np.zeros((64, 64, 3), np.float64))


def test_a_face_model_for_another_crop_side_is_refused_when_loaded(tmp_path: Path) -> None:
    model = tmp_path / "faces.onnx"
    model.write_bytes((MODELS / "faces.onnx").read_bytes())
    meta = json.loads((MODELS / "faces.json").read_text())
    other = meta["size"] - 16
    (tmp_path / "faces.json").write_text(json.dumps({**meta, "size": other}))
    with pytest.raises(ModelError, match=f"does not take {other} x {other} crops"):
        FaceClassifier(model)
    assert FaceClassifier(MODELS / "faces.onnx").size == meta["size"]


def test_crops_encode_for_the_ledger(reader: DiceReader) -> None:
    throw = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(5))
    result = reader.read(throw.image, "d6")
    data = encode_crop(result.dice[0].crop)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_settle_detector_reads_once_after_the_dice_stop() -> None:
    frames = render_settling(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(6), 6, 10)
    detector = SettleDetector(still_seconds=0.3)
    replay = Replay([image for image, _ in frames], 0.1)
    states = []
    while (frame := replay.read()) is not None:
        states.append(detector.feed(frame))
    settled_at = [i for i, s in enumerate(states) if s.settled]
    moving = [flag for _, flag in frames]
    assert len(settled_at) == 1  # handed over exactly once
    assert moving[settled_at[0]] and settled_at[0] >= moving.index(True) + 3
    assert all(not s.settled for s, flag in zip(states, moving, strict=True) if not flag)


def test_a_die_lying_where_it_lay_is_told_from_one_moved_or_new() -> None:
    """The measure behind "not read twice" (server/camera.py): rendered dice in two still
    frames, with the light changed, or a pixel off (a nudge) lie unmoved; another throw's
    die in the box, or a die turned where it lay, does not; a camera nudged a few pixels
    moves no die."""
    rng = np.random.default_rng(30)
    unmoved = moved = found = 0
    for _ in range(6):
        spec = ThrowSpec(dice=("d6", "dF", "d6"), looks=PIP_LOOKS)
        frames = render_settling(spec, rng, moving=3, still=3)
        before, after = frames[-2][0], frames[-1][0]  # sensor noise apart
        dimmer = np.clip(before * 0.8 + 10, 0, 255).astype(np.uint8)  # a lamp, the exposure
        nudged = np.roll(before, (1, 0), axis=(0, 1))
        other = render_throw(spec, rng).image
        boxes = [d.box for d in DiceReader().find(after)]
        found += len(boxes)
        for box in boxes:
            unmoved += all(lies_unmoved(b, after, box) for b in (before, dimmer, nudged))
            moved += not lies_unmoved(other, after, box)
    assert found >= 16 and unmoved == moved == found
    # a camera nudged 2.5 px across, 1.5 up, between two throws: the whole picture moved,
    # no die; then one die turned where it lay: that one moved
    along = np.array([[1, 0, 2.5], [0, 1, -1.5]], np.float32)
    nudged = cv2.warpAffine(before, along, (640, 640), borderMode=cv2.BORDER_REPLICATE)
    boxes = [d.box for d in DiceReader().find(nudged)]
    assert len(boxes) == 3 and not all(lies_unmoved(before, nudged, b) for b in boxes)
    assert unmoved_dice(before, nudged, boxes) == [True, True, True]
    x0, y0, x1, y1 = (int(v) for v in boxes[0])
    turned = nudged.copy()
    part = turned[y0:y1, x0:x1]
    spin = cv2.getRotationMatrix2D(((x1 - x0) / 2, (y1 - y0) / 2), 35, 1.0)
    turned[y0:y1, x0:x1] = cv2.warpAffine(part, spin, (x1 - x0, y1 - y0),
                                          borderMode=cv2.BORDER_REFLECT)  # fmt: skip
    assert unmoved_dice(before, turned, boxes) == [False, True, True]
    grey = np.zeros((40, 40), np.uint8)
    assert not lies_unmoved(grey, np.zeros((50, 40), np.uint8), (0, 0, 10, 10))  # other size


def test_frame_sources(tmp_path: Path) -> None:
    images = [np.full((40, 60, 3), v, np.uint8) for v in (10, 20, 30)]
    replay = Replay(images, interval=0.5)
    got = [replay.read() for _ in range(4)]
    assert [f.at for f in got if f] == [0.5, 1.0, 1.5] and got[3] is None and replay.reads == 3
    replay.close()
    with pytest.raises(CameraError):
        replay.read()
    for i, image in enumerate(images):
        cv2.imwrite(str(tmp_path / f"{i}.png"), image)
    (tmp_path / "notes.txt").write_text("not an image")
    folder = ImageFolder(tmp_path)
    names = [folder.read() for _ in range(4)]
    assert [f.name for f in names if f] == ["0.png", "1.png", "2.png"] and names[3] is None
    assert all(f.still for f in names if f)  # photographs: each a settled throw
    one = ImageFolder(tmp_path / "1.png").read()  # a single picture is a folder of one
    assert one is not None and one.still and one.name == "1.png"
    with pytest.raises(CameraError, match="neither a picture nor a folder of pictures"):
        ImageFolder(tmp_path / "gone.png")
    video = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (60, 40))
    for image in images:
        writer.write(image)
    writer.release()
    capture = OpenCVCapture(str(video))
    frames = [capture.read() for _ in range(4)]
    capture.close()
    assert sum(f is not None for f in frames) == 3 and frames[3] is None
    # the film's own times (10 a second), not when they were decoded, and not still photos
    assert [round(f.at, 3) for f in frames if f] == [0.0, 0.1, 0.2]
    assert not any(f.still for f in frames if f)
    with pytest.raises(CameraError, match="cannot open camera"):
        OpenCVCapture(str(tmp_path / "missing.avi"))
    with pytest.raises(CameraError, match="picamera2"):
        Picamera2Source()  # not a Pi: the vendor library is absent, and we say so


def test_the_command_line_writes_and_measures_a_synthetic_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vision", "synth", str(tmp_path / "set"), "--dice", "dF", "--count", "6"]) == 0
    capsys.readouterr()
    assert main(["vision", "eval", str(tmp_path / "set"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["images"] == 6 and out["dice"] >= 6
    assert out["correct"] <= out["answered"] <= out["dice"]
    assert out["per_die_accuracy"] == round(out["correct"] / out["dice"], 4)
    first = sorted((tmp_path / "set" / "images").iterdir())[0]
    assert main(["vision", "read", str(first), "--die", "dF", "--json"]) == 0
    assert "dice" in json.loads(capsys.readouterr().out)
    assert main(["vision", "eval", str(tmp_path / "nothing")]) == 2
    assert "labels.csv" in capsys.readouterr().err
    (tmp_path / "bad.png").write_bytes(b"not a png")
    assert main(["vision", "read", str(tmp_path / "bad.png")]) == 2


def test_the_command_line_names_a_numbered_die_no_set_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    throw = render_throw(ThrowSpec(dice=("d6", "d20")), np.random.default_rng(0))
    cv2.imwrite(str(tmp_path / "throw.png"), throw.image)
    assert main(["vision", "read", str(tmp_path / "throw.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    numbered = [line for line in lines if "numbered die: ?" in line]
    assert len(numbered) == 1 and "uncertain: enter the " in numbered[0], lines
    assert not any(" d6: ?" in line for line in lines), lines  # not shown as an unread d6


def test_eval_names_listed_files_it_cannot_read_and_scores_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "set"
    assert main(["vision", "synth", str(folder), "--dice", "dF", "--count", "3"]) == 0
    capsys.readouterr()
    assert main(["vision", "eval", str(folder), "--json", "--no-baseline"]) == 0
    whole = json.loads(capsys.readouterr().out)
    for limit in ("0", "-1"):  # was: all the images, or all but the last (Python's slice)
        assert main(["vision", "eval", str(folder), "--limit", limit]) == 2
        assert "--limit must be 1 or more" in capsys.readouterr().err
    cv2.imwrite(str(tmp_path / "tray.png"), np.zeros((50, 60, 3), np.uint8))
    argv = ["vision", "eval", str(folder), "--json", "--empty-tray", str(tmp_path / "tray.png")]
    assert main(argv) == 0  # read as without it, and said once
    said = capsys.readouterr()
    assert said.err.count("the empty-tray picture is 60×50") == 1, said.err
    assert json.loads(said.out)["correct"] == whole["correct"]
    (folder / "images" / "broken.png").write_bytes(b"not a png")
    long = "images/" + "a" * 300 + ".png"  # stat() says "File name too long": a traceback
    with (folder / "labels.csv").open("a", encoding="utf-8") as labels:
        labels.write(f"images/gone.png,dF,1\nimages/broken.png,dF,-1;0\n{long},dF,1\n")
    assert main(["vision", "eval", str(folder), "--json", "--no-baseline"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert {k: out[k] for k in ("images", "dice", "correct")} == {
        k: whole[k] for k in ("images", "dice", "correct")
    }
    # as listed: two folders' gone.png would be one name
    assert out["unreadable_files"] == ["images/gone.png", "images/broken.png", long]
    assert "3 of 6 listed images not read" in captured.err
    assert "gone.png: no such file" in captured.err
    assert "broken.png is not a picture" in captured.err
    assert "aaa.png: File name too long" in captured.err

    (folder / "labels.csv").write_text("file,die_type,values\nimages/gone.png,dF,1\n")
    assert main(["vision", "eval", str(folder)]) == 2
    assert "none of the 1 images listed" in capsys.readouterr().err
    (folder / "labels.csv").write_text("name,value\nimages/gone.png,1\n")
    assert main(["vision", "eval", str(folder)]) == 2
    assert "needs the columns file, die_type, values; its first row has name, value" in (
        capsys.readouterr().err
    )


def test_eval_of_numbered_dice_without_their_set_says_what_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vision", "synth", str(tmp_path / "set"), "--dice", "d20", "--count", "1"]) == 0
    assert main(["vision", "eval", str(tmp_path / "set")]) == 2  # was a traceback mid-run
    assert "images of d20 are read with a taught die set: give --dieset DIR" in (
        capsys.readouterr().err
    )
    with pytest.raises(ValueError, match="no taught die set reads d20s"):
        DiceReader().read(np.zeros((64, 64, 3), np.uint8), "d20")


def test_a_picture_named_on_the_command_line_is_checked_before_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "frames").mkdir()
    (tmp_path / "tray.png").write_bytes(b"not a png")
    cases = [
        (["vision", "read", str(tmp_path / "missing.png")], "missing.png: no such file"),
        (["vision", "read", str(tmp_path)], "is a folder, not a picture"),
        (["vision", "cluster", str(tmp_path / "frames"), str(tmp_path / "out"), "--die", "d5",
          "--empty-tray", str(tmp_path / "tray.png")], "tray.png is not a picture"),
        (["vision", "teach", str(tmp_path / "set"), "--die", "d5",
          "--face", f"1={tmp_path / 'missing.png'}"], "missing.png: no such file"),
    ]  # fmt: skip
    for argv, says in cases:
        assert main(argv) == 2, argv
        assert says in capsys.readouterr().err, argv
    assert not (tmp_path / "out").exists() and not (tmp_path / "set").exists()


def test_a_numbered_die_among_pip_dice_is_named_not_read_as_a_pip_face(
    reader: DiceReader,
) -> None:
    rng = np.random.default_rng(78)
    named, sure_wrong, pips_right, said, kinds = 0, 0, 0, set(), set()
    for other in ("d5", "d10", "d20"):
        for _ in range(8):
            throw = render_throw(ThrowSpec(dice=("d6", "d6", other)), rng)
            result = reader.read(throw.image, "d6")
            for die in throw.dice:
                cx, cy = (die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2
                seen = [d for d in result.dice
                        if d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3]]  # fmt: skip
                if not seen:
                    continue
                if die.die == "d6":
                    pips_right += not seen[0].uncertain and seen[0].value == die.value
                elif seen[0].problem == "numbered die":
                    named += 1
                    said.add(seen[0].advice.split(":")[0].split(" die ")[-1])
                    kinds.add(seen[0].die)
                else:
                    sure_wrong += not seen[0].uncertain
    # measured (180 numbered dice beside two pip dice, d6/dF/any expected, seed 77): a sure
    # pip face for 57 before the "numbered" class (a d10's or d20's numeral read "1"), 8
    # with it, 169 named; the pip dice read exactly as before (353 of 360)
    assert named >= 18 and sure_wrong <= 3, (named, sure_wrong)
    assert pips_right >= 44, pips_right
    assert said == {"out of the tray"}  # "take the red die out of the tray: it is a numbered…"
    assert kinds == {"numbered"}  # not the d6 it was thrown among: no d6 face can be given it


@needs_photos
@pytest.mark.parametrize(
    ("photo_set", "split", "accuracy", "error"),
    [("byler_d6", "held_out", 0.97, 0.01), ("skovy_d6", "all", 0.97, None)],
)
def test_the_photo_sets_meet_the_issues_targets(
    photo_set: str,
    split: str,
    accuracy: float,
    error: float | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from vision.datasets import shared_photos

    photos = shared_photos()
    assert photos is not None
    folder = str(photos / photo_set)
    assert main(["vision", "eval", folder, "--split", split, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # measured (docs/vision.md): byler held-out 0.978 at 0.93% (743 of 760 right, 7 wrong);
    # skovy 151 of 151
    assert out["per_die_accuracy"] >= accuracy, out
    if error is not None:
        assert out["error_rate_answered"] <= error, out


@needs_photos
def test_real_numbered_dice_among_pip_dice_are_never_read_a_sure_pip_face(
    reader: DiceReader,
) -> None:
    from vision.datasets import read_dataset, shared_photos

    photos = shared_photos()
    assert photos is not None
    folder = photos / "burks_polyhedral"
    tray = cv2.imread(str(folder / "images" / "background_1.jpg"))
    sure, asked = [], 0
    for item in read_dataset(folder):
        if item.die_type not in ("d10", "d20"):
            continue  # (a numeral d6 is a d6: its numeral read as pips is another matter)
        photo = cv2.imread(str(item.path))
        assert photo is not None
        for die in ("d6", "any"):  # a d6 pool waits, or nothing does
            result = reader.read(photo, die, tray)
            sure += [(item.path.name, die, d.value) for d in result.certain]
            asked += len(result.uncertain)
    # measured: 5 of these 30 real d10s and d20s (9 of 60 reads) were read a sure pip face
    # (d6: 2 or 6 at 0.72-0.83) while the network gave cocked and numbered together 0.31-0.49
    # (none 0.5 alone); with a face never surer than 1 minus that, none
    assert sure == [], sure
    assert asked >= 60  # each is still there, asked (cocked, numbered, confirm, re-throw)


def test_a_numbered_die_photographed_alone_is_named_as_one(reader: DiceReader) -> None:
    named = 0
    for seed in range(8):
        throw = render_throw(ThrowSpec(dice=("d20",), perspective=0.0), np.random.default_rng(seed))
        x0, y0, x1, y1 = (round(v) for v in throw.dice[0].box)
        pad = (x1 - x0) // 6
        crop = throw.image[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad]
        alone, among_d6 = (reader.read_crop(crop, die).dice[0] for die in ("any", "d6"))
        if alone.problem == "":
            continue  # read as a pip face (1 of these 8; docs/vision.md)
        named += 1
        assert (alone.die, alone.problem) == ("numbered", "numbered die, no set")
        assert alone.advice.startswith("enter the ")
        assert (among_d6.die, among_d6.problem) == ("numbered", "numbered die")
        assert among_d6.advice.endswith("it is a numbered die (d5, d10 or d20), not a d6")
    assert named >= 6, named


def test_touching_dice_are_found_apart(reader: DiceReader) -> None:
    rng = np.random.default_rng(40)
    apart = read_right = 0
    for _ in range(10):
        throw = render_throw(ThrowSpec(dice=("d6", "d6"), touching=1.0), rng)
        result = reader.read(throw.image, "d6")
        truth = sorted(d.value for d in throw.dice)
        read = sorted(d.value for d in result.certain if d.value is not None)
        apart += len(result.dice) == 2
        read_right += read == truth
    # measured (120 pairs, seeds 40-42): 119 found as two dice; 113 pairs read
    # right, 6 with a die left to "confirm", 1 with a die read wrong
    assert apart == 10 and read_right >= 9, (apart, read_right)


def test_dice_small_in_a_wide_view_are_found_at_their_own_size() -> None:
    # a wide tray or a high camera: d6s 2.8% of a 2400-px frame.  The finder's boxes stop
    # shrinking at about 11-14 px of its 256-px view (up to 1.7 times these dice), so it
    # looks again at twice the size.  Measured (24 throws, two seeds): 110 -> 173 of 192
    # read right, wrong 4 -> 0; 8 throws here
    rng = np.random.default_rng(19)
    both = {"once": DiceReader(finder=DieFinder(small=None)), "twice": DiceReader()}
    right = dict.fromkeys(both, 0)
    wrong = dict.fromkeys(both, 0)
    thrown = 0
    for k in range(8):
        throw = render_throw(ThrowSpec(dice=("d6",) * 4, looks=(PALETTE[k],)), rng)
        tray = [int(v) for v in np.median(throw.image.reshape(-1, 3), axis=0)]
        pad = (2400 - throw.image.shape[1]) // 2
        wide = cv2.copyMakeBorder(throw.image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=tray)
        truth = sorted(d.value for d in throw.dice)
        thrown += len(truth)
        for name, reader in both.items():
            read = [d.value for d in reader.read(wide, "d6").certain if d.value is not None]
            hits = sum(min(read.count(v), truth.count(v)) for v in set(read))
            right[name] += hits
            wrong[name] += len(read) - hits
    assert right["twice"] >= 0.9 * thrown and wrong["twice"] <= 1, (right, wrong)
    assert right["once"] < right["twice"] - 5, right  # what looking twice adds


def test_touching_dice_small_in_a_large_frame_are_boxed_one_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Touching d6s of 50-70 px in a 1920 x 1080 frame are 7-9 px of the finder's 256-px
    view, under its smallest box: two touching ones were boxed as one large find between
    them, which made the frame's dice look just over SMALL, so it did not look closer.
    Boxes that overlap that much send it closer too (finder.CROWDED, OVERLAP)."""
    rng = np.random.default_rng(23)
    spec = ThrowSpec(dice=("d6",) * 5, size=(1920, 1080), die_px=(50, 70), touching=0.6)
    throws = [render_throw(spec, rng) for _ in range(16)]

    def boxes_of_two(finder: DieFinder) -> int:
        two = 0
        for throw in throws:
            for found in finder.find(throw.image):
                two += sum(holds(found.box, die.box) for die in throw.dice) > 1
        return two

    finder = DieFinder()
    # measured (80 dice): 3 finds held two dice; none with the rule (2 dice unfound both ways)
    assert boxes_of_two(finder) == 0
    monkeypatch.setattr(finder_module, "CROWDED", 0.0)
    assert boxes_of_two(finder) >= 2


def test_large_dice_are_found_whole_not_pip_by_pip(reader: DiceReader) -> None:
    """Dice of 80-100 px in a 640-px frame (13-16% of its width) are past the finder's
    usual sizes: at its usual view it found their large pips as small dice of their own.
    Pip dice that large are looked at again with the frame smaller."""
    rng = np.random.default_rng(11)
    count = Counter[str]()
    for k in range(12):
        spec = ThrowSpec(dice=("d6",) * 4, die_px=(80, 100), looks=(PALETTE[k],))
        throw = render_throw(spec, rng)
        result = reader.read(throw.image, "d6")
        truth = [d.value for d in throw.dice]
        sure = [d.value for d in result.certain if d.value is not None]
        count["thrown"] += len(truth)
        count["finds"] += len(result.dice)
        count["right"] += _score(truth, sure)
        count["wrong"] += len(sure) - _score(truth, sure)
    # measured: 48 thrown, 52 finds, 46 right, 3 wrong (2 with the network before the
    # veins round; at the usual view alone: 64 finds, 45 right, 4 wrong)
    assert count["finds"] <= count["thrown"] + 6 and count["wrong"] <= 3, count
    assert count["right"] >= count["thrown"] - 3, count


def test_the_synthetic_set_can_be_thrown_on_a_tray_of_ones_choosing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "black"
    args = ["vision", "synth", str(out), "--count", "1", "--per-image", "1", "--tray"]
    assert main([*args, "20,20,20"]) == 0
    image = cv2.imread(str(next((out / "images").iterdir())))
    assert image is not None and float(np.median(image)) < 40  # a black felt, mostly
    capsys.readouterr()
    assert main([*args, "20,20"]) == 2
    assert "R,G,B" in capsys.readouterr().err
    assert main([*args, "20,20,300"]) == 2


def test_synth_refuses_a_tilt_it_cannot_draw_and_a_file_for_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said in one line, nothing written (a NaN tilt ended in a traceback, 5 drew nonsense,
    a file given as OUT in a traceback)."""
    out = tmp_path / "set"
    for tilt in ("5", "-0.1", "nan"):
        assert main(["vision", "synth", str(out), "--count", "1", "--perspective", tilt]) == 2
        assert "--perspective must be 0 (straight down) to 0.6" in capsys.readouterr().err
    assert not out.exists()
    afile = tmp_path / "afile"
    afile.write_text("mine", encoding="utf-8")
    assert main(["vision", "synth", str(afile), "--count", "1"]) == 2
    assert "is a file: OUT is the folder the set is written to" in capsys.readouterr().err
    assert afile.read_text(encoding="utf-8") == "mine"
    assert main(["vision", "synth", str(out), "--count", "1", "--seed", "-1"]) == 2
    assert "--seed must be 0 or more" in capsys.readouterr().err
    mine = tmp_path / "mine"  # a set of one's own photos is not written over
    (mine / "images").mkdir(parents=True)
    (mine / "labels.csv").write_text("file,die_type,values\nimages/a.jpg,d6,3\n")
    assert main(["vision", "synth", str(mine), "--count", "1"]) == 2
    assert "holds a photo set already" in capsys.readouterr().err
    assert (mine / "labels.csv").read_text().endswith("images/a.jpg,d6,3\n")


def test_synth_tells_how_far_it_has_come(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    """Every tenth of the set, at most every 100 images (6 a second here), on stderr."""
    args = ["vision", "synth", str(out), "--count", "3", "--per-image", "1", "--dice", "dF"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == ["  wrote 1/3 images", "  wrote 2/3 images"]
    assert "wrote 3 images and" in captured.out
    assert len(list((out / "images").iterdir())) == 3


def testpercentiles_from_one_partial_sort_are_numpy_s() -> None:
    """The sharpness test's percentiles (taken from one partial sort) are numpy's linear
    percentiles, on images of every size down to one pixel."""
    rng = np.random.default_rng(3)
    for side in (1, 2, 7, 64):
        grey = (rng.random((side, side)) * 255).astype(np.float32)
        np.testing.assert_allclose(
            percentiles(grey, (2, 50, 98, 99)), np.percentile(grey, (2, 50, 98, 99)), rtol=1e-6
        )
