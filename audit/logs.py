"""Reading throw logs: one face per line, or a CSV of ``face,count``.

Bad lines are reported with the file and their line number; nothing is
guessed.  A log is UTF-8 text (a byte-order mark at its start is allowed);
``#`` starts a comment, at the start of a line or after a value; numbers are
ASCII digits with an optional sign (no ``1_0``, no full-width digits).  A log
of single faces keeps its order (serial dependence and duplicated stretches
need it); a table of counts does not have one.

The audit takes dice of 2 to 100 sides (every real die, d2 to d100) and at
most a billion throws, the range its statistics are computed exactly in (past
about 10^12 throws the e-value's floating point loses whole units).  A log
file is at most 64 MB, and one of a face per line at most 10 million throws
(a CSV of counts holds more).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MIN_SIDES, MAX_SIDES = 2, 100
MAX_THROWS = 1_000_000_000  # in one audit, counts of a CSV included
MAX_ORDERED = 10_000_000  # throws in a log of one face per line (a CSV of counts for more)
MAX_LOG_BYTES = 64 * 2**20  # a throw log file; 10 million d100 throws take about 40 MB

_INTEGER = re.compile(r"[+-]?[0-9]+")  # [0-9] is ASCII only, unlike int() and \d


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


def check_sides(sides: int) -> None:
    """LogError unless the audit takes a die of this many sides."""
    if not MIN_SIDES <= sides <= MAX_SIDES:
        raise LogError(
            f"the audit takes dice of {MIN_SIDES} to {MAX_SIDES} sides (d{MIN_SIDES} to "
            f"d{MAX_SIDES}), not {_show(str(sides))}"
        )


def from_faces(faces: Sequence[int], sides: int) -> ThrowLog:
    check_sides(sides)
    if len(faces) > MAX_THROWS:
        raise LogError(f"at most {MAX_THROWS:,} throws in one audit, not {len(faces):,}")
    counts = [0] * sides
    for i, face in enumerate(faces, start=1):
        if not 1 <= face <= sides:
            raise LogError(f"throw {i}: face {face} is not a face of a d{sides} (1–{sides})")
        counts[face - 1] += 1
    return ThrowLog(sides, tuple(counts), tuple(faces))


def from_counts(pairs: Iterable[tuple[int, int]], sides: int) -> ThrowLog:
    check_sides(sides)
    counts = [0] * sides
    for face, count in pairs:
        if not 1 <= face <= sides:
            raise LogError(f"face {face} is not a face of a d{sides} (1–{sides})")
        if count < 0:
            raise LogError(f"face {face}: a count cannot be negative ({count})")
        if count > MAX_THROWS or sum(counts) + count > MAX_THROWS:
            raise LogError(_too_many(f"face {face}: a count of {_show(str(count))}"))
        counts[face - 1] += count
    return ThrowLog(sides, tuple(counts))


def _too_many(what: str) -> str:
    return f"{what} takes the log past {MAX_THROWS:,} throws, more than the audit computes exactly"


def _show(text: str, limit: int = 24) -> str:
    """A value for a message, cut short when long."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_integer(text: str) -> int | None:
    """An integer written in ASCII digits with an optional sign, else None."""
    if not _INTEGER.fullmatch(text):
        return None
    if len(text) > 40:  # far beyond any face or count; int() refuses past 4,300 digits
        return 10**40 if not text.startswith("-") else -(10**40)
    return int(text)


def content_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of FILE that holds something: a UTF-8 BOM at
    the start is dropped, ``#`` comments and surrounding white space are removed.

    LogError, naming the file and line, when it cannot be read or is not UTF-8.
    """
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            raise LogError(
                f"{path} is larger than {MAX_LOG_BYTES // 2**20} MB: not a throw log the "
                "audit reads"
            )
        data = path.read_bytes()
    except OSError as err:
        raise LogError(f"cannot read {path}: {err.strerror}") from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        at = len(_split_lines(data[: err.start].decode("utf-8")))
        raise LogError(
            f"{path} line {at}: not UTF-8 text (byte 0x{data[err.start]:02x}); a throw log "
            "is plain text"
        ) from None
    for i, raw in enumerate(io.StringIO(text, newline=None), start=1):  # \n, \r\n, \r
        content = raw.split("#", 1)[0].strip()
        if content:
            yield i, content


def _split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them (\\n, \\r\\n or \\r ends one)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def read_values(path: Path, limit: int = MAX_ORDERED) -> list[int]:
    """One integer per line (a die's own values, for `dicebridge dice import`); a log
    of more than ``limit`` values is refused."""
    values: list[int] = []
    for i, line in content_lines(path):
        if len(values) == limit:
            raise LogError(f"{path}: a log of at most {limit:,} throws")
        value = parse_integer(line)
        if value is None:
            raise LogError(f"{path} line {i}: {_show(line)!r} is not a face number")
        values.append(value)
    return values


def read_log(path: Path, sides: int) -> ThrowLog:
    """Read FILE as the `dicebridge audit` contract describes."""
    check_sides(sides)
    lines = content_lines(path)
    first = next(lines, None)
    if first is None:
        raise LogError(f"{path} holds no throws")
    if "," in first[1]:
        return _read_counts(path, itertools.chain([first], lines), sides)
    faces: list[int] = []
    for i, line in itertools.chain([first], lines):
        if len(faces) == MAX_ORDERED:
            raise LogError(
                f"{path}: a log of one face per line holds at most {MAX_ORDERED:,} throws; "
                "give more as face,count lines"
            )
        face = parse_integer(line)
        if face is None:
            raise LogError(f"{path} line {i}: {_show(line)!r} is not a face number")
        if not 1 <= face <= sides:
            raise LogError(
                f"{path} line {i}: face {_show(line)} is not a face of a d{sides} (1–{sides})"
            )
        faces.append(face)
    return from_faces(faces, sides)


def _read_counts(path: Path, lines: Iterable[tuple[int, str]], sides: int) -> ThrowLog:
    counts = [0] * sides
    total = 0
    for number, (i, line) in enumerate(lines):
        row = next(csv.reader([line]))
        if number == 0 and [h.strip().lower() for h in row[:2]] == ["face", "count"]:
            continue  # the optional header
        where = f"{path} line {i}"
        if len(row) < 2:
            raise LogError(f"{where}: expected face,count")
        face, count = parse_integer(row[0].strip()), parse_integer(row[1].strip())
        if face is None or count is None:
            raise LogError(f"{where}: {_show(','.join(row), 40)!r} is not face,count numbers")
        if not 1 <= face <= sides:
            raise LogError(f"{where}: face {_show(str(face))} is not a face of a d{sides} "
                           f"(1–{sides})")  # fmt: skip
        if count < 0:
            raise LogError(f"{where}: a count cannot be negative ({_show(str(count))})")
        total += count
        if total > MAX_THROWS:
            raise LogError(f"{where}: " + _too_many(f"a count of {_show(row[1].strip())}"))
        counts[face - 1] += count
    return ThrowLog(sides, tuple(counts))
