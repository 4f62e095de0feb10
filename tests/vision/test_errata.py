"""Label errata: corrections checked by eye, applied to a set only when asked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicebridge.cli import main
from tests.vision import needs_photos
from vision.datasets import DatasetError, read_dataset, shared_photos
from vision.errata import apply_errata, read_errata
from vision.render import write_dataset

ROOT = Path(__file__).resolve().parents[2]
BYLER_ERRATA = ROOT / "docs" / "label-errata" / "byler_d6.csv"


def _set(tmp_path: Path) -> Path:
    write_dataset(
        tmp_path / "set",
        2,
        np.random.default_rng(4),
        per_image=(2, 2),
        die_px=(40, 50),
        size=(240, 240),
    )
    return tmp_path / "set"


def _errata(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "errata.csv"
    path.write_text("file,xmin,ymin,xmax,ymax,labelled,seen,note\n" + "\n".join(rows) + "\n")
    return path


def test_a_wrong_label_is_corrected_and_a_missing_die_added(tmp_path: Path) -> None:
    folder = _set(tmp_path)
    items = read_dataset(folder)
    first = items[0]
    assert first.boxes is not None
    box = first.boxes[0]
    wrong = box.value
    seen = 1 if wrong != 1 else 2
    path = _errata(tmp_path, [
        f"images/{first.path.name},{box.x0},{box.y0},{box.x1},{box.y1},{wrong},{seen},misread",
        f"images/{first.path.name},1,1,20,20,,6,a die nobody labelled",
    ])  # fmt: skip
    fixed = apply_errata(items, read_errata(path))
    expected = sorted([*[v for v in first.values if v != wrong], seen, 6] + [wrong] * (
        first.values.count(wrong) - 1
    ))  # fmt: skip
    assert list(fixed[0].values) == expected
    assert fixed[0].boxes is not None and len(fixed[0].boxes) == len(first.boxes) + 1
    assert fixed[1] == items[1]  # the other image is untouched
    assert read_dataset(folder) == items  # the set's own files are never changed


def test_errata_that_do_not_fit_the_set_are_refused(tmp_path: Path) -> None:
    items = read_dataset(_set(tmp_path))
    name = items[0].path.name
    absent = next(v for v in range(1, 7) if v not in items[0].values)
    for row, message in (
        ("images/nothing.png,1,1,2,2,3,4,x", "does not have"),
        (f"images/{name},1,1,2,2,{absent},4,x", f"no die labelled {absent}"),
        (f"images/{name},0,0,1,1,{items[0].values[0]},4,x", "no die labelled"),
    ):
        with pytest.raises(DatasetError, match=message):
            apply_errata(items, read_errata(_errata(tmp_path, [row])))
    with pytest.raises(DatasetError, match="row 2"):
        read_errata(_errata(tmp_path, [f"images/{name},a,1,2,2,3,4,x"]))


def test_eval_takes_errata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _set(tmp_path)
    items = read_dataset(folder)
    assert items[0].boxes is not None
    box = items[0].boxes[0]
    path = _errata(tmp_path, [
        f"images/{items[0].path.name},{box.x0},{box.y0},{box.x1},{box.y1},{box.value},"
        f"{box.value % 6 + 1},a made-up correction"
    ])  # fmt: skip
    assert main(["vision", "eval", str(folder), "--json", "--no-baseline"]) == 0
    plain = capsys.readouterr().out
    assert main(["vision", "eval", str(folder), "--json", "--no-baseline",
                 "--errata", str(path)]) == 0  # fmt: skip
    corrected = capsys.readouterr().out
    assert '"errata"' in corrected and '"errata"' not in plain


@needs_photos
def test_the_byler_errata_fit_the_byler_set() -> None:
    photos = shared_photos()
    assert photos is not None
    items = read_dataset(photos / "byler_d6")
    errata = read_errata(BYLER_ERRATA)
    fixed = apply_errata(items, errata)
    added = sum(e.labelled is None for e in errata)
    assert sum(len(i.values) for i in fixed) == sum(len(i.values) for i in items) + added
    changed = sum(a.values != b.values for a, b in zip(items, fixed, strict=True))
    assert changed == len({e.file for e in errata})
