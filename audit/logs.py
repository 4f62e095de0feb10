"""Reading throw logs: one face per line, or a CSV of ``face,count``.

Bad lines are reported with their line number; nothing is guessed.  A log of
single faces keeps its order (serial dependence and duplicated stretches need
it); a table of counts does not have one.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class LogError(ValueError):
    """A log that cannot be read; the message names the line and why."""


@dataclass(frozen=True)
class ThrowLog:
    """Face counts (index 0 is face 1), and the throws in order when the log had them."""

    sides: int
    counts: tuple[int, ...]
    sequence: tuple[int, ...] | None = None

    @property
    def n(self) -> int:
        return sum(self.counts)

    def array(self) -> np.ndarray:
        return np.asarray(self.counts, dtype=np.int64)


def from_faces(faces: Sequence[int], sides: int) -> ThrowLog:
    counts = [0] * sides
    for i, face in enumerate(faces, start=1):
        if not 1 <= face <= sides:
            raise LogError(f"throw {i}: face {face} is not a face of a d{sides} (1–{sides})")
        counts[face - 1] += 1
    return ThrowLog(sides, tuple(counts), tuple(faces))


def from_counts(pairs: Iterable[tuple[int, int]], sides: int) -> ThrowLog:
    counts = [0] * sides
    for face, count in pairs:
        if not 1 <= face <= sides:
            raise LogError(f"face {face} is not a face of a d{sides} (1–{sides})")
        if count < 0:
            raise LogError(f"face {face}: a count cannot be negative ({count})")
        counts[face - 1] += count
    return ThrowLog(sides, tuple(counts))


def read_log(path: Path, sides: int) -> ThrowLog:
    """Read FILE as the `dicebridge audit` contract describes."""
    if sides < 2:
        raise LogError(f"a die has at least 2 sides, not {sides}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise LogError(f"cannot read {path}: {err.strerror}") from None
    lines = [(i, line.strip()) for i, line in enumerate(text.splitlines(), start=1)]
    lines = [(i, line) for i, line in lines if line and not line.startswith("#")]
    if not lines:
        raise LogError(f"{path} holds no throws")
    if "," in lines[0][1]:
        return _read_counts(lines, sides)
    faces = []
    for i, line in lines:
        try:
            faces.append(int(line))
        except ValueError:
            raise LogError(f"line {i}: {line!r} is not a face number") from None
    return from_faces(faces, sides)


def _read_counts(lines: list[tuple[int, str]], sides: int) -> ThrowLog:
    rows = list(csv.reader(line for _, line in lines))
    header = [h.strip().lower() for h in rows[0]]
    start = 1 if header[:2] == ["face", "count"] else 0
    pairs = []
    for (i, _), row in zip(lines[start:], rows[start:], strict=True):
        if len(row) < 2:
            raise LogError(f"line {i}: expected face,count")
        try:
            pairs.append((int(row[0]), int(row[1])))
        except ValueError:
            raise LogError(f"line {i}: {','.join(row)!r} is not face,count numbers") from None
    try:
        return from_counts(pairs, sides)
    except LogError as err:
        raise LogError(f"{err}") from None
