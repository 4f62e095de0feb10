"""Corrections to a labelled photo set, kept beside it and applied only when asked.

A published set has a few wrong labels (and dice nobody labelled); a reader that
reads those dice right is scored as wrong.  An errata file lists each such die,
found and checked by eye, so that a measurement can be given both ways: on the
labels as published, and on the corrected ones.  The set's files are never
changed.

``errata.csv`` columns: ``file`` (as in the set's labels.csv), ``xmin``, ``ymin``,
``xmax``, ``ymax`` (the die, in the image's pixels), ``labelled`` (the value the
set gives it; empty when it has no label), ``seen`` (what its top face shows),
``note``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from vision.datasets import FACES, Box, DatasetError, LabelledImage, csv_rows


@dataclass(frozen=True)
class Erratum:
    file: str
    box: tuple[float, float, float, float]
    labelled: int | None  # None: the die has no label at all
    seen: int
    note: str = ""


def read_errata(path: Path) -> list[Erratum]:
    _, rows = csv_rows(Path(path), "errata file")
    errata = []
    for row_no, row in enumerate(rows, start=2):
        try:
            box = (float(row["xmin"]), float(row["ymin"]), float(row["xmax"]), float(row["ymax"]))
            labelled = int(row["labelled"]) if (row["labelled"] or "").strip() else None
            errata.append(
                Erratum(row["file"], box, labelled, int(row["seen"]), row.get("note", ""))
            )
        except KeyError as err:
            raise DatasetError(f"{path} row {row_no}: no column {err}") from None
        except (TypeError, ValueError):
            raise DatasetError(f"{path} row {row_no}: xmin, ymin, xmax, ymax, labelled and "
                               "seen must be numbers (a row cut short?)") from None  # fmt: skip
    return errata


def apply_errata(items: list[LabelledImage], errata: list[Erratum]) -> list[LabelledImage]:
    """The set with every erratum applied (a wrong value replaced, a missing die added).
    An erratum that does not fit the set (no such file, no such labelled value) is an
    error: errata written for another set must not be applied quietly."""

    def fixes_for(item: LabelledImage) -> list[Erratum]:
        return [e for e in errata if item.path.as_posix().endswith("/" + e.file)]

    used = {id(e) for item in items for e in fixes_for(item)}
    unknown = sorted({e.file for e in errata if id(e) not in used})
    if unknown:
        raise DatasetError(f"errata name images the set does not have: {', '.join(unknown[:3])}")
    out = []
    for item in items:
        values = list(item.values)
        boxes = list(item.boxes) if item.boxes is not None else None
        for e in fixes_for(item):
            faces = FACES.get(item.die_type, FACES["mixed"])
            if e.seen not in faces or (e.labelled is not None and e.labelled not in faces):
                raise DatasetError(
                    f"{e.file}: an erratum's faces must be faces of its "
                    f"{item.die_type} (seen {e.seen}, labelled {e.labelled})"
                )
            if e.labelled is not None:
                if e.labelled not in values:
                    raise DatasetError(f"{e.file} has no die labelled {e.labelled} to correct")
                values.remove(e.labelled)
            values.append(e.seen)
            if boxes is not None:
                boxes = _fix_box(boxes, e)
        out.append(replace(item, values=tuple(sorted(values)), boxes=_tuple(boxes)))
    return out


def _tuple(boxes: list[Box] | None) -> tuple[Box, ...] | None:
    return tuple(boxes) if boxes is not None else None


def _fix_box(boxes: list[Box], e: Erratum) -> list[Box]:
    """The labelled box nearest the erratum's box gets the seen value (or a box is added)."""
    x0, y0, x1, y1 = e.box
    new = Box("d6", e.seen, x0, y0, x1, y1)
    if e.labelled is None:
        return [*boxes, new]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    inside = [
        b for b in boxes
        if b.value == e.labelled and b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1
    ]  # fmt: skip
    if not inside:
        raise DatasetError(f"{e.file}: no die labelled {e.labelled} at {e.box}")
    return [replace(b, value=e.seen) if b is inside[0] else b for b in boxes]
