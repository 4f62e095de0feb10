"""Reading throw logs: one face per line, or a CSV of ``face,count``.

The first line may name the columns (``face,count``; ``die,face,count``; or
``face`` alone for one throw a line): a ``face`` column, a ``count`` column
(or, failing one, the only column with "count" in its name, such as
``approx_count_derived``; without one each row is one throw, in order), and a
``die`` column when the file holds more than one die (the rows of one die are
read, chosen by name).  Values are read as the die writes them: ``Faces``
maps them to the faces 1..K the audit counts (a d10's 0 and 10 are its tenth
face, a Fudge die's −1, 0, +1 are faces 1, 2, 3), as ``dicebridge dice
import`` and the ledger's readings do.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from mechanics.reading import DIE_TYPES, faces_of

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


@dataclass(frozen=True)
class Faces:
    """A die's faces as its log writes them, and the face 1..K the audit counts for each."""

    name: str  # "d6", "d10", "dF"
    sides: int
    values: Mapping[int, int] = field(hash=False, compare=False)
    shown: str  # the values a log may hold, for messages: "1–6", "−1, 0, +1"
    hint: str = ""  # said after a value that is not a face: another reading of the log

    def face(self, value: int) -> int | None:
        """The audit's face for a value of the log, or None when it is not one."""
        return self.values.get(value)

    def refuse(self, value: object) -> str:
        """Why ``value`` is not read: "face 0 is not a face of a d10 (1–10) …"."""
        return f"face {_show(str(value))} is not a face of a {self.name} ({self.shown}){self.hint}"


def plain_faces(sides: int) -> Faces:
    """Faces 1..K: what ``--sides K`` reads."""
    check_sides(sides)
    hint = ""
    if sides == 10:
        hint = "; a d10 written 0–9 is --type d10"
    elif sides == 3:
        hint = "; a Fudge die written −1, 0, +1 is --type dF"
    return Faces(f"d{sides}", sides, {v: v for v in range(1, sides + 1)}, f"1–{sides}", hint)


@lru_cache(maxsize=128)
def die_faces(die_type: str) -> Faces:
    """The faces of a die type as the project writes them: the registry's types
    (``mechanics.reading.faces_of``: a d10 is 0–9, where a 10 written on the die
    is its 0, a dF is −1, 0, +1) and any other dK from d2 to d100 (1–K).  Audited as
    1..K: a d10's 0 (or 10) is face 10, a dF's −1, 0, +1 are faces 1, 2, 3."""
    text = die_type.strip()
    name = "dF" if text.lower() == "df" else text.lower()
    if name == "d10":
        values = {v: 10 if v == 0 else v for v in faces_of("d10")}
        values[10] = 10
        return Faces("d10", 10, values, "0–9 or 1–10; 0 and 10 are one face")
    if name == "dF":
        ordered = sorted(faces_of("dF"))
        values = {v: i for i, v in enumerate(ordered, start=1)}
        return Faces("dF", 3, values, "−1, 0, +1")
    if name in DIE_TYPES:
        faces = faces_of(name)
        return Faces(name, len(faces), {v: v for v in faces}, f"1–{len(faces)}")
    match = re.fullmatch(r"d([0-9]{1,3})", name)
    if match is None or not MIN_SIDES <= int(match.group(1)) <= MAX_SIDES:
        raise LogError(
            f"a die type is dK for K from {MIN_SIDES} to {MAX_SIDES} (d4, d6, d10, d20, …) "
            f"or dF, not {_show(die_type)!r}"
        )
    sides = int(match.group(1))
    return Faces(name, sides, {v: v for v in range(1, sides + 1)}, f"1–{sides}")


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


def read_log(
    path: Path, faces: int | Faces, die: str | None = None, *, choose: str = "--die"
) -> ThrowLog:
    """Read FILE as the `dicebridge audit` contract describes.

    ``faces``: the die's sides (faces 1..K) or its ``Faces`` (``die_faces("d10")``);
    ``die``: the die whose rows to read from a file with a ``die`` column (needed
    when it names more than one; ``choose`` is the option a message tells of).
    """
    if not isinstance(faces, Faces):
        faces = plain_faces(faces)
    lines = content_lines(path)
    first = next(lines, None)
    if first is None:
        raise LogError(f"{path} holds no throws")
    cells = [c.strip() for c in next(csv.reader([first[1]]))]
    numbers = all(parse_integer(c) is not None for c in cells)
    if numbers or (len(cells) == 1 and cells[0].lower() != "face"):  # no header
        if die is not None:
            raise LogError(
                f"{path} names no die column (its first line is not a header such as "
                f"die,face,count), so there is no die {_show(die)!r} to pick"
            )
        rows = itertools.chain([first], lines)
        if len(cells) >= 2:
            return _read_rows(path, rows, faces, Columns(face=0, count=1))
        return _read_faces(path, rows, faces)
    columns = _columns(path, first[0], cells)
    if die is not None and columns.die is None:
        raise LogError(f"{path} has no die column (columns: {', '.join(cells)}), so there is no "
                       f"die {_show(die)!r} to pick")  # fmt: skip
    if columns.count is None and columns.die is None and len(cells) == 1:
        return _read_faces(path, lines, faces)
    return _read_rows(path, lines, faces, columns, die, choose)


@dataclass(frozen=True)
class Columns:
    """Where a CSV row holds its face, its count (None: a row is one throw) and its die."""

    face: int
    count: int | None = None
    die: int | None = None
    names: tuple[str, ...] = ("face", "count")


def _columns(path: Path, line: int, cells: list[str]) -> Columns:
    """The columns a header line names; LogError naming the line when it has no face."""
    names = [c.lower() for c in cells]
    if "face" not in names:
        raise LogError(
            f"{path} line {line}: {_show(','.join(cells), 40)!r} is neither face,count numbers "
            "nor a header naming a face column"
        )
    count: int | None = None
    if "count" in names:
        count = names.index("count")
    else:
        counting = [i for i, n in enumerate(names) if "count" in n]
        if len(counting) > 1:
            raise LogError(
                f"{path} line {line}: which column holds the counts, "
                f"{' or '.join(cells[i] for i in counting)}? Name one 'count'"
            )
        count = counting[0] if counting else None
    die = names.index("die") if "die" in names else None
    return Columns(names.index("face"), count, die, tuple(cells))


def _read_faces(path: Path, lines: Iterable[tuple[int, str]], faces: Faces) -> ThrowLog:
    """One face per line, in throw order."""
    read: list[int] = []
    for i, line in lines:
        if len(read) == MAX_ORDERED:
            raise LogError(
                f"{path}: a log of one face per line holds at most {MAX_ORDERED:,} throws; "
                "give more as face,count lines"
            )
        value = parse_integer(line)
        if value is None:
            raise LogError(f"{path} line {i}: {_show(line)!r} is not a face number")
        face = faces.face(value)
        if face is None:
            raise LogError(f"{path} line {i}: {faces.refuse(line)}")
        read.append(face)
    return from_faces(read, faces.sides)


def _read_rows(
    path: Path,
    lines: Iterable[tuple[int, str]],
    faces: Faces,
    columns: Columns,
    die: str | None = None,
    choose: str = "--die",
) -> ThrowLog:
    """CSV rows: face,count (or one throw a row, in order, without a count column),
    those of one die where a die column names it."""
    counts = [0] * faces.sides
    ordered: list[int] | None = [] if columns.count is None else None
    total = 0
    dice: dict[str, str] = {}  # every die the file names, by its name folded
    wanted = None if die is None else die.strip().casefold()
    width = 1 + max(c for c in (columns.face, columns.count, columns.die) if c is not None)
    expected = ",".join(columns.names)
    for i, line in lines:
        row = [c.strip() for c in next(csv.reader([line]))]
        where = f"{path} line {i}"
        if len(row) < width:
            raise LogError(f"{where}: expected {expected}")
        if columns.die is not None:
            dice.setdefault(row[columns.die].casefold(), row[columns.die])
            if wanted is not None and row[columns.die].casefold() != wanted:
                continue
        value = parse_integer(row[columns.face])
        count = 1 if columns.count is None else parse_integer(row[columns.count])
        if value is None or count is None:
            what = "a face number" if columns.count is None else "face,count numbers"
            raise LogError(f"{where}: {_show(','.join(row), 40)!r} is not {what}")
        face = faces.face(value)
        if face is None:
            raise LogError(f"{where}: {faces.refuse(value)}")
        if count < 0:
            raise LogError(f"{where}: a count cannot be negative ({_show(str(count))})")
        total += count
        if total > MAX_THROWS:
            shown = row[columns.count] if columns.count is not None else "1"
            raise LogError(f"{where}: " + _too_many(f"a count of {_show(shown)}"))
        if ordered is not None:
            if len(ordered) == MAX_ORDERED:
                raise LogError(f"{path}: a log of one throw a row holds at most "
                               f"{MAX_ORDERED:,} throws; give more as face,count rows")  # fmt: skip
            ordered.append(face)
        counts[face - 1] += count
    if columns.die is not None:
        names = ", ".join(sorted(dice.values()))
        if wanted is None and len(dice) > 1:
            raise LogError(f"{path} holds the throws of {len(dice)} dice ({_show(names, 60)}): "
                           f"pick one with {choose}")  # fmt: skip
        if wanted is not None and wanted not in dice:
            raise LogError(
                f"{path} has no rows of die {_show(die or '')!r} (its dice: {_show(names, 60)})"
            )
    if ordered is not None:
        return from_faces(ordered, faces.sides)
    return ThrowLog(faces.sides, tuple(counts))
