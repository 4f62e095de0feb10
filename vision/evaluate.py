"""`dicebridge vision eval DIR`: how well the reader does on a labelled photo set.

Per image, ``correct`` is the size of the multiset intersection of the values
read (uncertain dice left out) and the labelled values.  Summed over images:
``per_die_accuracy`` = correct / dice, ``coverage`` = answered / dice,
``error_rate_answered`` = (answered − correct) / answered, ``image_exact`` =
the share of images whose answered values equal their labels exactly.
``ms_per_image`` times the reader alone (decoding the file is not counted).  A
listed file that is missing or not a picture is not scored; it is named (as
listed, relative to the set's folder), with why, in ``unreadable``; a picture the
reader fails on (a fault, to be reported) likewise in ``failed``, and the rest are
still read: the figures are then over fewer images than listed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.datasets import LabelledImage
from vision.pixels import FrameError, read_image
from vision.readings import ThrowReading

ReadFn = Callable[[np.ndarray, LabelledImage], ThrowReading]


@dataclass
class Scores:
    images: int = 0
    dice: int = 0
    answered: int = 0
    correct: int = 0
    exact: int = 0
    ms: float = 0.0
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # listed files not read,
    # and why: (name, message)
    failed: list[tuple[str, str]] = field(default_factory=list)  # pictures the reader failed
    # on: (name, message)
    misses: list[dict[str, Any]] = field(default_factory=list)

    def add(self, item: LabelledImage, values: list[int], ms: float) -> None:
        truth, read = Counter(item.values), Counter(values)
        correct = sum((truth & read).values())
        self.images += 1
        self.dice += len(item.values)
        self.answered += len(values)
        self.correct += correct
        self.exact += truth == read
        self.ms += ms
        if truth != read and len(self.misses) < 50:
            self.misses.append(
                {"file": item.path.name, "labels": list(item.values), "read": sorted(values)}
            )

    def to_json(self) -> dict[str, Any]:
        def ratio(a: float, b: float) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "images": self.images,
            "dice": self.dice,
            "answered": self.answered,
            "correct": self.correct,
            "per_die_accuracy": ratio(self.correct, self.dice),
            "coverage": ratio(self.answered, self.dice),
            "error_rate_answered": ratio(self.answered - self.correct, self.answered),
            "image_exact": ratio(self.exact, self.images),
            "ms_per_image": ratio(self.ms, self.images),
            "unreadable_files": [name for name, _ in self.unreadable],
            "failed_files": [name for name, _ in self.failed],
        }


def evaluate(
    items: Iterable[LabelledImage],
    read: ReadFn,
    progress: Callable[[int], None] | None = None,
    folder: Path | None = None,
) -> Scores:
    """The reader's figures over ``items``; ``folder``: the set's, which the files a
    listing names are relative to (else their base names: two folders' a.png are one)."""
    scores = Scores()
    for n, item in enumerate(items, start=1):
        name = _listed(item.path, folder)
        try:
            image = read_image(item.path)
        except FrameError as err:
            scores.unreadable.append((name, str(err)))
            continue
        start = time.perf_counter()
        try:
            result = read(image, item)
        except Exception as err:  # a fault on one picture: the others' figures are kept
            scores.failed.append((name, f"{item.path}: {type(err).__name__}: {err}"))
            continue
        ms = (time.perf_counter() - start) * 1000
        values = [d.value for d in result.certain if d.value is not None]
        scores.add(item, values, ms)
        if progress is not None:
            progress(n)
    return scores


def _listed(path: Path, folder: Path | None) -> str:
    """``path`` as a listing names it: relative to ``folder``, in / form."""
    if folder is not None and path.is_relative_to(folder):
        return path.relative_to(folder).as_posix()
    return path.name
