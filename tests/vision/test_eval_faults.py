"""`vision eval` and `vision read` on what used to stop them: a numbered die's crop photo,
and one picture the reader fails on among many (its fault is named, the rest scored)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from dicebridge.cli import main
from vision.datasets import LabelledImage, read_dataset
from vision.evaluate import evaluate
from vision.pixels import read_image
from vision.reader import DiceReader
from vision.readings import ThrowReading
from vision.render import PALETTE, ThrowSpec, render_throw
from vision.teach_synthetic import taught_from_renders


def _d10_crops(folder: Path, count: int) -> list[int]:
    """``count`` photos of one d10 each (look 3, a little tray round it) written into
    ``folder``/images with a labels.csv of kind crop; the values thrown."""
    (folder / "images").mkdir(parents=True)
    rng = np.random.default_rng(4)
    values, rows = [], ["file,die_type,values,kind"]
    for k in range(count):
        spec = ThrowSpec(dice=("d10",), perspective=0.0, looks=(PALETTE[3],))
        throw = render_throw(spec, rng)
        x0, y0, x1, y1 = throw.dice[0].box
        pad = (x1 - x0) // 6
        crop = throw.image[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad]
        cv2.imwrite(str(folder / "images" / f"{k}.png"), crop)
        values.append(throw.dice[0].value)
        rows.append(f"images/{k}.png,d10,{throw.dice[0].value},crop")
    (folder / "labels.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return values


def test_a_numbered_dies_crop_photo_is_read_by_its_taught_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was handed to the face network, which reads pips alone: "pip reading knows d6
    and dF, not 'd10'" ended `vision read --crop --dieset` and `vision eval` (kind crop)."""
    taught_from_renders("d10", 3).save(tmp_path / "d10set")
    values = _d10_crops(tmp_path / "crops", 4)
    argv = ["vision", "eval", str(tmp_path / "crops"), "--dieset", str(tmp_path / "d10set")]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["images"], out["dice"], out["correct"]) == (4, 4, 4), out
    photo = str(tmp_path / "crops" / "images" / "0.png")
    assert main(["vision", "read", photo, "--crop", "--dieset", str(tmp_path / "d10set"),
                 "--json"]) == 0  # fmt: skip
    (die,) = json.loads(capsys.readouterr().out)["dice"]
    assert (die["die"], die["value"], die["uncertain"]) == ("d10", values[0], False), die
    with pytest.raises(ValueError, match="no taught die set reads d20s"):
        DiceReader().read_crop(read_image(photo), "d20")


def test_one_picture_the_reader_fails_on_loses_no_other_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception reading one picture (an OpenCV assertion on a 48 MP photo) ended the
    whole eval and lost every figure measured before it."""
    folder = tmp_path / "set"
    assert main(["vision", "synth", str(folder), "--dice", "d6", "--count", "3"]) == 0
    capsys.readouterr()
    reader = DiceReader()
    faulty = read_dataset(folder)[1].path

    def read(image: np.ndarray, item: LabelledImage) -> ThrowReading:
        if item.path == faulty:  # a real OpenCV failure, as on that photo
            cv2.medianBlur(np.zeros((600, 600, 3), np.uint8), 375)
        return reader.read(image, "d6")

    scores = evaluate(read_dataset(folder), read)
    assert scores.images == 2 and scores.unreadable == []
    assert [name for name, _ in scores.failed] == [faulty.name]  # no folder given: the name
    assert "error: " in scores.failed[0][1] and str(faulty) in scores.failed[0][1]

    real_read, calls = DiceReader.read, []

    def failing(self: DiceReader, *args: Any, **kw: Any) -> ThrowReading:
        calls.append(args)
        if len(calls) == 2:  # the second picture listed, as the OpenCV failure above
            raise cv2.error("k < 16")
        return real_read(self, *args, **kw)

    monkeypatch.setattr(DiceReader, "read", failing)
    assert main(["vision", "eval", str(folder), "--json", "--no-baseline"]) == 0
    said = capsys.readouterr()
    out = json.loads(said.out)
    assert out["images"] == 2 and out["failed_files"] == [f"images/{faulty.name}"], out
    assert "1 of 3 listed images the reader failed on" in said.err, said.err
    assert f"{faulty}: error: k < 16" in said.err, said.err
