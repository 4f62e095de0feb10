"""Labelled photo sets in the format of ../shared/data/photos (and of our synthetic sets).

``DIR/labels.csv`` has columns ``file``, ``die_type`` and ``values`` (the sorted
values of every die in the image, ``;``-separated); an optional
``DIR/boxes.csv`` (``file``, ``value``, ``xmin``, ``ymin``, ``xmax``, ``ymax``,
and ``die`` in our synthetic sets) places each die.

Training and measuring share one split: an image belongs to the *held-out*
half when the CRC-32 of its file name is odd, so a model trained on the other
half is measured on photos it has never seen, and the split never depends on
the order of a listing.
"""

from __future__ import annotations

import csv
import io
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("file", "die_type", "values")
BOX_COLUMNS = ("file", "value", "xmin", "ymin", "xmax", "ymax")
FACES = {  # what a label may say each type of die shows (a d10's "10" is written 0)
    "d5": range(1, 6),
    "d6": range(1, 7),
    "d6_numeral": range(1, 7),
    "d10": range(10),
    "d20": range(1, 21),
    "dF": range(-1, 2),
}
FACES["mixed"] = range(-1, 21)  # dice of several types (each die's own type in boxes.csv)
FACES["none"] = range(0)  # an empty tray
VALUE = r"-?[0-9]+"  # a value as people write it: vision/teach.py's FACE_NAME (int() took
# "1_0", "+3" and "٣" too), kept here so that reading a labels file needs no OpenCV


class DatasetError(ValueError):
    """A labels file that cannot be read; the message names the row."""


@dataclass(frozen=True)
class Box:
    die: str
    value: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class LabelledImage:
    path: Path
    die_type: str  # "d6", "d10", …, "mixed", or "none" for an empty tray
    values: tuple[int, ...]  # sorted
    boxes: tuple[Box, ...] | None  # None when the set has no boxes
    kind: str = ""  # "crop" when each image is one die's close-up

    @property
    def held_out(self) -> bool:
        return held_out(self.path.name)


def held_out(name: str) -> bool:
    """True for the half of a set kept away from training (by a stable hash of the name)."""
    return zlib.crc32(Path(name).name.encode()) % 2 == 1


def csv_rows(path: Path, what: str, hint: str = "") -> tuple[list[str], list[dict[str, str]]]:
    """The header and the rows of the CSV file ``path`` (``what`` it is, for the message);
    see :func:`csv_table`."""
    fields, rows, _ = csv_table(path, what, hint)
    return fields, rows


def csv_table(
    path: Path, what: str, hint: str = ""
) -> tuple[list[str], list[dict[str, str]], list[int]]:
    """The header, the rows and the line each row starts on, of the CSV file ``path``
    (``what`` it is, for the message); a DatasetError where it is no regular file, cannot
    be read, is not UTF-8 text, is not CSV (an unclosed quote) or has a row with more
    cells than the header (``hint``: why, for this file).  A byte-order mark before the
    header (as some spreadsheets save) and blank lines are no part of it."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path} is not a file (the {what})")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as err:
        raise DatasetError(f"cannot read the {what} {path}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise DatasetError(f"{path} is not UTF-8 text (byte {err.start + 1}): save the "
                           f"{what} as UTF-8 CSV") from None  # fmt: skip
    table = csv.reader(io.StringIO(text, newline=""))
    fields: list[str] = []
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    while True:
        line = table.line_num + 1
        try:
            cells = next(table, None)
        except csv.Error as err:  # a quote left open runs on to the end of the file
            opened = io.StringIO(text, newline="").readlines()[line - 1 : line]  # as csv counts
            quoted = '"' in "".join(opened)
            raise DatasetError(
                f"{path} line {line}: {err}{' (an unclosed quote?)' if quoted else ''}"
            ) from None
        if cells is None:
            break
        if not cells:
            continue  # a blank line, before the header too (it was taken for an empty file)
        if not fields:
            fields = cells
            continue
        if any(c.strip() for c in cells[len(fields) :]):  # they were left out: a value lost
            raise DatasetError(f"{path} row {line} has more cells than the header ("
                               f"{', '.join(fields)}){hint}")  # fmt: skip
        # a row cut short lacks its last cells ("")
        rows.append(dict(zip(fields, cells + [""] * (len(fields) - len(cells)), strict=False)))
        lines.append(line)
    return fields, rows, lines


def read_dataset(directory: Path) -> list[LabelledImage]:
    directory = Path(directory)
    labels = directory / "labels.csv"
    if not labels.is_file():
        raise DatasetError(f"{labels} not found: a set needs labels.csv (file, die_type, values)")
    boxes = _read_boxes(directory / "boxes.csv") if (directory / "boxes.csv").is_file() else None
    out = []
    fields, rows, lines = csv_table(labels, "labels", "; values are separated by ';' (as 1;4;6)")
    lacking = [c for c in COLUMNS if c not in fields]
    if lacking:
        has = ", ".join(fields) or "nothing (an empty file)"
        raise DatasetError(
            f"{labels} needs the columns {', '.join(COLUMNS)}; its first row has {has}"
        )
    first: dict[Path, int] = {}  # each file's row: one listed twice would be scored twice
    for row_no, row in zip(lines, rows, strict=True):
        name, die_type = (row["file"] or "").strip(), (row["die_type"] or "").strip()
        values = _values(row["values"] or "", die_type, f"{labels} row {row_no}")
        if not name:
            raise DatasetError(f"{labels} row {row_no}: no file named")
        if Path(name) in first:  # ./a.png is a.png
            raise DatasetError(
                f"{labels} row {row_no} repeats the file {name} (first on row {first[Path(name)]})"
            )
        first[Path(name)] = row_no
        placed = None if boxes is None else tuple(boxes.get(name, ()))
        kind = row.get("kind") or ""
        out.append(LabelledImage(directory / name, die_type, values, placed, kind))
    return out


def _values(text: str, die_type: str, where: str) -> tuple[int, ...]:
    """The sorted values a row's ``values`` cell lists, each a face of ``die_type``; a
    DatasetError naming ``where`` (the file and row) for anything else: a value not written
    in the digits 0-9 ("1_0", "+3", "٣" were read as numbers), or no value on a row of dice
    (only an empty tray, die_type none, lists none)."""
    if die_type not in FACES:
        raise DatasetError(f"{where}: die_type {die_type!r} is none of {', '.join(FACES)}")
    cells = [v.strip() for v in text.split(";") if v.strip()]
    if any(not re.fullmatch(VALUE, v) for v in cells):
        raise DatasetError(f"{where}: values {text.strip()!r} are not whole numbers separated "
                           "by ';' (as 1;4;6)")  # fmt: skip
    values = tuple(sorted(int(v) for v in cells))
    if not values and die_type != "none":
        raise DatasetError(f"{where}: no values: a row of {die_type} lists the value of every "
                           "die in its picture (an empty tray is die_type none)")  # fmt: skip
    faces = FACES[die_type]
    wrong = sorted({v for v in values if v not in faces})
    if die_type == "none" and values:
        raise DatasetError(f"{where}: an empty tray (die_type none) lists no values")
    if wrong:
        shown = ", ".join(map(str, wrong))
        tip = " (a d10's 10 is written 0)" if die_type == "d10" and 10 in wrong else ""
        if die_type == "mixed":
            raise DatasetError(f"{where}: no die the camera reads has a face {shown}")
        raise DatasetError(f"{where}: a {die_type} has no face {shown}{tip}")
    return values


def _read_boxes(path: Path) -> dict[str, list[Box]]:
    boxes: dict[str, list[Box]] = {}
    fields, rows, lines = csv_table(path, "dice's boxes")
    lacking = [c for c in BOX_COLUMNS if c not in fields]
    if lacking:
        raise DatasetError(f"{path} needs the columns {', '.join(BOX_COLUMNS)}; it lacks "
                           f"{', '.join(lacking)}")  # fmt: skip
    for row_no, row in zip(lines, rows, strict=True):
        try:
            box = Box(
                row.get("die") or "d6",
                int(row["value"] or ""),
                float(row["xmin"] or ""),
                float(row["ymin"] or ""),
                float(row["xmax"] or ""),
                float(row["ymax"] or ""),
            )
        except ValueError:
            raise DatasetError(f"{path} row {row_no}: value, xmin, ymin, xmax and ymax must "
                               "be numbers (a row cut short?)") from None  # fmt: skip
        boxes.setdefault((row["file"] or "").strip(), []).append(box)
    return boxes


def shared_photos() -> Path | None:
    """../shared/data/photos beside the project, when this checkout has it
    (``DICEBRIDGE_PHOTOS`` names another place, e.g. on a training machine)."""
    named = os.environ.get("DICEBRIDGE_PHOTOS")
    here = Path(__file__).resolve().parent.parent
    candidate = Path(named) if named else here.parent / "shared" / "data" / "photos"
    return candidate if candidate.is_dir() else None


def iter_split(images: list[LabelledImage], part: str) -> Iterator[LabelledImage]:
    """``part`` is "train", "held_out" or "all"."""
    for image in images:
        if part == "all" or (part == "held_out") == image.held_out:
            yield image
