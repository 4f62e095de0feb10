"""The synthetic dice renderer: deterministic, and its truth matches its pixels."""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from vision.render import (
    PALETTE,
    DieLook,
    RenderedDie,
    ThrowSpec,
    render_die,
    render_settling,
    render_throw,
    write_dataset,
)
from vision.render_faces import VALID_LAYOUTS, impossible_pips

SMALL = {"size": (200, 200), "die_px": (24, 30)}
OPAQUE = (DieLook((40, 30, 200), (240, 240, 240)), DieLook((235, 235, 230), (25, 25, 25)))


def _sep(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Gap between two boxes (negative: they overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


def _ink_blobs(bgra: np.ndarray, ink: tuple[int, int, int]) -> int:
    dist = np.abs(bgra[..., :3].astype(np.int16) - np.array(ink, np.int16)).max(axis=2)
    mask = ((dist < 70) & (bgra[..., 3] > 200)).astype(np.uint8)
    count, _ = cv2.connectedComponents(mask, connectivity=8)
    return count - 1


def test_same_seed_same_bytes_other_seed_differs() -> None:
    spec = ThrowSpec(("d6", "dF", "d10", "d20", "d5"), **SMALL)  # type: ignore[arg-type]
    a = render_throw(spec, np.random.default_rng(5))
    b = render_throw(spec, np.random.default_rng(5))
    c = render_throw(spec, np.random.default_rng(6))
    assert a.image.tobytes() == b.image.tobytes()
    assert a.empty_tray.tobytes() == b.empty_tray.tobytes()
    assert [(d.die, d.value, d.box) for d in a.dice] == [(d.die, d.value, d.box) for d in b.dice]
    assert a.image.tobytes() != c.image.tobytes()
    assert a.image.shape == (200, 200, 3) and a.image.dtype == np.uint8


@pytest.mark.parametrize("seed", [1, 2])
def test_boxes_hold_the_dice_and_the_rest_is_the_empty_tray(seed: int) -> None:
    spec = ThrowSpec(("d6", "dF", "d10", "d20", "d5"), noise=2.0, jpeg=False, **SMALL)  # type: ignore[arg-type]
    throw = render_throw(spec, np.random.default_rng(seed))
    faces = {
        "d5": range(1, 6),
        "d6": range(1, 7),
        "d10": range(10),
        "d20": range(1, 21),
        "dF": range(-1, 2),
    }
    diff = np.abs(throw.image.astype(np.float32) - throw.empty_tray.astype(np.float32)).mean(axis=2)
    far = np.ones(diff.shape, np.uint8)
    for die in throw.dice:
        assert isinstance(die, RenderedDie) and die.value in faces[die.die]
        x0, y0, x1, y1 = die.box
        assert 0 <= x0 < x1 <= 200 and 0 <= y0 < y1 <= 200
        assert diff[y0:y1, x0:x1].mean() > 8, die
        top = die.top_face
        assert top.shape[1] == 2 and len(top) in (3, 4)
        assert (top[:, 0] >= x0 - 1).all() and (top[:, 0] <= x1 + 1).all()
        assert (top[:, 1] >= y0 - 1).all() and (top[:, 1] <= y1 + 1).all()
        far[max(0, y0 - 24) : y1 + 24, max(0, x0 - 24) : x1 + 24] = 0
    assert far.sum() > 5_000
    away = diff[far.astype(bool)]
    assert away.mean() < 3.5 and np.percentile(away, 99) < 12


@pytest.mark.parametrize("look", OPAQUE)
@pytest.mark.parametrize("angle", [0.0, 33.0])
def test_d6_pips_are_separate_ink_blobs(look: DieLook, angle: float) -> None:
    rng = np.random.default_rng(0)
    for value in range(1, 7):
        bgra = render_die("d6", value, look, 40, rng, angle_deg=angle)
        assert bgra.shape[2] == 4 and bgra.dtype == np.uint8
        assert _ink_blobs(bgra, look.ink) == value


def test_df_symbols() -> None:
    look, rng = OPAQUE[0], np.random.default_rng(0)
    ink = {v: _ink_blobs(render_die("dF", v, look, 40, rng), look.ink) for v in (-1, 0, 1)}
    assert ink == {-1: 1, 0: 0, 1: 1}
    plus, minus = (render_die("dF", v, look, 40, rng) for v in (1, -1))
    assert (plus[..., :3] > 200).all(axis=2).sum() > 1.5 * (minus[..., :3] > 200).all(axis=2).sum()


def test_write_dataset_labels_match_boxes(tmp_path: Path) -> None:
    labels = write_dataset(
        tmp_path / "set",
        3,
        np.random.default_rng(4),
        dice_choices=("d6", "dF"),
        per_image=(1, 4),
        size=(200, 200),
        die_px=(24, 30),
    )
    assert labels == tmp_path / "set" / "labels.csv"
    with labels.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with (tmp_path / "set" / "boxes.csv").open(encoding="utf-8") as fh:
        boxes = list(csv.DictReader(fh))
    assert list(rows[0]) == ["file", "die_type", "values", "n_dice", "total", "upstream_split"]
    assert list(boxes[0]) == ["file", "die", "value", "xmin", "ymin", "xmax", "ymax"]
    assert len(rows) == 3
    for row in rows:
        values = [int(v) for v in row["values"].split(";")]
        assert values == sorted(values)
        assert int(row["n_dice"]) == len(values) and int(row["total"]) == sum(values)
        mine = [b for b in boxes if b["file"] == row["file"]]
        assert Counter(int(b["value"]) for b in mine) == Counter(values)
        kinds = {b["die"] for b in mine}
        assert row["die_type"] == (kinds.pop() if len(kinds) == 1 else "mixed")
        image = cv2.imread(str(tmp_path / "set" / row["file"]))
        assert image is not None and image.shape == (200, 200, 3)


def test_settling_moves_then_rests_on_the_throw() -> None:
    spec = ThrowSpec(("d6", "d20", "dF"), **SMALL)  # type: ignore[arg-type]
    frames = render_settling(spec, np.random.default_rng(3), moving=3, still=3)
    assert [flag for _, flag in frames] == [False] * 3 + [True] * 3
    throw = render_throw(spec, np.random.default_rng(3))
    assert frames[-1][0].tobytes() == throw.image.tobytes()

    def change(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.abs(a.astype(np.float32) - b.astype(np.float32)).mean())

    still = change(frames[-2][0], frames[-1][0])
    assert change(frames[0][0], frames[-1][0]) > 2 * still
    assert change(frames[2][0], frames[-1][0]) > 2 * still


@pytest.mark.parametrize("seed", range(3))
def test_touching_dice_share_an_edge(seed: int) -> None:
    spec = ThrowSpec(("d6", "d6"), touching=1.0, **SMALL)  # type: ignore[arg-type]
    a, b = render_throw(spec, np.random.default_rng(seed)).dice
    assert abs(_sep(a.box, b.box)) <= 3


def test_cocked_and_cut_dice_are_flagged() -> None:
    spec = ThrowSpec(("d6", "d6", "d6"), cocked=1.0, outside=1.0, **SMALL)  # type: ignore[arg-type]
    dice = render_throw(spec, np.random.default_rng(0)).dice
    assert all(d.cocked and d.partly_outside for d in dice)
    assert all(d.box[0] == 0 or d.box[1] == 0 or d.box[2] == 200 or d.box[3] == 200 for d in dice)
    calm = render_throw(ThrowSpec(("d6",) * 3, **SMALL), np.random.default_rng(0)).dice  # type: ignore[arg-type]
    assert not any(d.cocked or d.partly_outside for d in calm)


def test_impossible_pip_layouts_are_no_real_face() -> None:
    # the nine layouts of real faces (the 2, 3 and 6 each come two ways), turns and mirrors
    assert len(VALID_LAYOUTS) == 9
    rng = np.random.default_rng(7)
    grid = {0.27: 0, 0.5: 1, 0.73: 2}
    sizes = set()
    for _ in range(400):
        pips = impossible_pips(rng)
        cells = frozenset((grid[x], grid[y]) for x, y in pips)
        assert len(cells) == len(pips) >= 2
        assert cells not in VALID_LAYOUTS
        sizes.add(len(pips))
    assert sizes == set(range(2, 10))


def test_impossible_dice_are_flagged_and_only_pip_d6s() -> None:
    spec = ThrowSpec(("d6", "d6", "dF", "d10"), impossible=1.0, looks=OPAQUE, **SMALL)  # type: ignore[arg-type]
    dice = render_throw(spec, np.random.default_rng(1)).dice
    assert [d.impossible for d in dice] == [True, True, False, False]
    calm = render_throw(ThrowSpec(("d6",) * 3, **SMALL), np.random.default_rng(1)).dice  # type: ignore[arg-type]
    assert not any(d.impossible for d in calm)


def test_unknown_die_and_bad_values_are_refused() -> None:
    with pytest.raises(ValueError):
        render_throw(ThrowSpec(("d7",)), np.random.default_rng(0))
    with pytest.raises(ValueError):
        render_throw(ThrowSpec(("d6",), values=(7,)), np.random.default_rng(0))


def test_a_big_one_is_one_large_pip_and_chinese_dice_paint_the_one_and_four() -> None:
    plain, rng = OPAQUE[1], np.random.default_rng(0)
    big = replace(plain, one_pip=0.22, one_four_ink=(40, 30, 210))

    def ink_share(bgra: np.ndarray, ink: tuple[int, int, int]) -> float:
        die = bgra[..., 3] > 128
        near = np.abs(bgra[..., :3].astype(int) - np.array(ink)).max(axis=2) < 40
        return float((near & die).sum() / die.sum())

    one, big_one = (render_die("d6", 1, look, 60, rng) for look in (plain, big))
    assert _ink_blobs(big_one, (40, 30, 210)) == 1
    assert ink_share(big_one, (40, 30, 210)) > 2 * ink_share(one, plain.ink)
    assert _ink_blobs(render_die("d6", 4, big, 60, rng), (40, 30, 210)) == 4
    assert _ink_blobs(render_die("d6", 5, big, 60, rng), plain.ink) == 5  # the rest as they were


def test_a_long_shadow_darkens_more_of_the_tray_and_a_wrong_reach_is_refused() -> None:
    def darkened(reach: float) -> int:
        spec = ThrowSpec(("d6",), size=(240, 240), die_px=(40, 40), shadow=reach, tray=(200,) * 3)
        throw = render_throw(spec, np.random.default_rng(4))
        diff = throw.empty_tray.astype(int).sum(axis=2) - throw.image.astype(int).sum(axis=2)
        return int((diff > 30).sum())

    usual, long = darkened(0.14), darkened(1.5)
    assert long > usual + 0.8 * 40 * 40  # more than a die's area: the shadow 1.5 dice long
    with pytest.raises(ValueError, match="shadow"):
        render_throw(ThrowSpec(("d6",), shadow=-1), np.random.default_rng(0))


def test_glare_brightens_each_die_and_leaves_the_throw_as_it_was() -> None:
    spec = ThrowSpec(("d6",) * 3, looks=(PALETTE[1],), tray=(60, 60, 60), camera=2)
    plain = render_throw(spec, np.random.default_rng(6))
    glared = render_throw(replace(spec, glare=0.9), np.random.default_rng(6))
    assert [(d.value, d.box) for d in plain.dice] == [(d.value, d.box) for d in glared.dice]
    lighter = glared.image.astype(int).sum(axis=2) - plain.image.astype(int).sum(axis=2) > 150
    for die in plain.dice:  # a bright spot on each black die, within its box
        x0, y0, x1, y1 = (int(v) for v in die.box)
        assert lighter[y0:y1, x0:x1].sum() > 20, die.box
    outside = lighter.copy()
    for die in plain.dice:
        x0, y0, x1, y1 = (int(v) for v in die.box)
        outside[max(0, y0 - 10) : y1 + 10, max(0, x0 - 10) : x1 + 10] = False
    assert outside.sum() == 0  # the tray as it was
    with pytest.raises(ValueError, match="glare"):
        render_throw(replace(spec, glare=1.5), np.random.default_rng(0))


def test_the_synthetic_set_can_be_thrown_under_a_low_lamp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["vision", "synth", "--count", "1", "--per-image", "2", "--tray", "200,200,200"]
    assert main([*args, str(tmp_path / "usual")]) == 0
    assert main([*args, str(tmp_path / "low"), "--shadow", "2"]) == 0
    usual, low = (
        cv2.imread(str(tmp_path / name / "images" / "synth_00000.png"), cv2.IMREAD_GRAYSCALE)
        for name in ("usual", "low")
    )
    assert usual is not None and low is not None
    assert int((low < 150).sum()) > int((usual < 150).sum()) + 1000  # two long shadows
    capsys.readouterr()
    assert main([*args, str(tmp_path / "bad"), "--shadow", "4"]) == 2
    assert "--shadow" in capsys.readouterr().err
    assert main([*args, str(tmp_path / "glare"), "--glare", "0.9"]) == 0
    glare = cv2.imread(str(tmp_path / "glare" / "images" / "synth_00000.png"), cv2.IMREAD_GRAYSCALE)
    assert glare is not None and int((glare.astype(int) - usual > 40).sum()) > 30  # spots
    capsys.readouterr()
    assert main([*args, str(tmp_path / "bad"), "--glare", "2"]) == 2
    assert "--glare" in capsys.readouterr().err
