"""The ledger: every throw, reading, check and resolution, appended and hash-chained.

One SQLite file in the data directory (WAL, synchronous=FULL: a row is on disk
when ``append`` returns).  Rows are only ever inserted — triggers refuse UPDATE
and DELETE — and each row carries the SHA-256 of the previous row, so a record
cannot be changed or removed unnoticed: :meth:`Ledger.verify` walks the chain
and names the first bad row.

The ledger is opened by whoever needs it and passed along; there is no
module-level connection.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dicebridge.files import write_whole

GENESIS = "0" * 64
CROP_FILE = re.compile(r"[0-9a-f]{64}\.[a-z]+")  # a kept crop: its SHA-256, then its kind
CROP_NAMED = re.compile(r'"crop"\s*:\s*"([0-9a-f]{64})"')  # a digest a row's body names
HEAD_PREFIX = re.compile(r"[0-9a-f]{16,64}")  # a head written down: its hash, or its start
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_IOERR)
MIN_FREE_BYTES = 200 * 2**20  # crops are not kept when the disk has less free: the ledger
# rows, SQLite's journal and the system need the room more
KINDS = ("throw", "reading", "check", "resolution", "die", "confirmation", "import", "note")

ENTRY_COLUMNS = ("id", "kind", "at", "body", "prev_hash", "hash")  # the ledger's own

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
"""


class LedgerError(RuntimeError):
    """The ledger cannot be opened or written; the message says why."""


@dataclass(frozen=True)
class Entry:
    id: int
    kind: str
    at: str
    body: dict[str, Any]
    prev_hash: str
    hash: str


class LedgerDamaged(LedgerError):
    """The ledger file cannot be read from row ``row`` on (SQLite: "database disk image is
    malformed"): a disk fault, a power cut on a card that lies about its writes, a file
    written over.  The rows before ``row`` were read."""

    def __init__(self, row: int, err: sqlite3.Error) -> None:
        super().__init__(f"the ledger file is damaged at or after row {row} ({err})")
        self.row = row


@dataclass(frozen=True)
class Verification:
    """What :meth:`Ledger.verify` found.  ``ok``: the chain checks out, and so does every
    kept crop picture its rows name.  ``first_bad``/``why``: the first bad row (a broken
    chain, a damaged file, else a row whose crop picture was changed).  ``head``: the last
    row's (id, hash) where the whole chain checks out (crops changed or not); None where
    it does not, or has no row."""

    ok: bool
    rows: int
    first_bad: int | None = None
    why: str = ""
    head: tuple[int, str] | None = None
    damaged: bool = False  # the file itself (SQLite could not read on from first_bad)
    crops_checked: int = 0  # kept crop pictures hashed (those changed among them)
    crops_gone: int = 0  # named by a row, no longer kept (pruned, or never kept: disk full)
    crops_unread: int = 0  # kept but unreadable (permissions): not checked
    crops_changed: tuple[tuple[int, str], ...] = ()  # (row, digest): the first MAX_NAMED
    crops_changed_count: int = 0
    head_row: int | None = None  # the row whose hash is the ``head`` asked about, if any


MAX_NAMED = 20  # changed crop pictures named one by one; the rest are counted
CROP_CACHE = 4096  # crop pictures looked at lately, not hashed again


def _not_text(row: tuple[Any, ...]) -> str:
    """Why a row read from the file is not one the ledger wrote ("" where it is): every
    column but the id is text (an edit can store a blob or a number; hashing one failed)."""
    if not isinstance(row[0], int):
        return "its id is not a whole number"
    for name, value in zip(ENTRY_COLUMNS[1:], row[1:], strict=True):
        if not isinstance(value, str):
            what = {bytes: "a blob", type(None): "empty (NULL)"}.get(type(value), "a number")
            return f"its {name} is stored as {what}, not text"
    return ""


def _crops_named(body: str) -> list[str]:
    """The crop pictures a row's body names: each ``"crop"`` value (a throw's dice, an
    unsure reading) that is a SHA-256, as store_crop names its files; read from the text
    (the canonical JSON the row's hash covers), not parsed."""
    return CROP_NAMED.findall(body) if '"crop"' in body else []


def _exported(entry_id: int, kind: Any, at: Any, body: Any, digest: Any) -> dict[str, Any]:
    """One row as the export gives it; LedgerError naming a row the ledger did not write."""
    why = _not_text((entry_id, kind, at, "", "", digest))
    try:
        parsed = json.loads(body) if not why else None
    except (ValueError, TypeError) as err:
        why = f"its body is not JSON ({err})"
    if why:
        raise LedgerError(f"row {entry_id} cannot be exported: {why}")
    return {"id": entry_id, "kind": kind, "at": at, "body": parsed, "hash": digest}


def _read_error(row: int, err: sqlite3.DatabaseError) -> LedgerError:
    """LedgerDamaged where SQLite found the file damaged (or the disk failed) reading on
    from ``row``; LedgerError for anything else (a locked file)."""
    if getattr(err, "sqlite_errorcode", 0) & 0xFF in DAMAGE_CODES:
        return LedgerDamaged(row, err)
    return LedgerError(f"could not read the ledger from row {row}: {err}")


class _CropCheck:
    """The kept crop pictures that rows name, each hashed once while it is among the last
    CROP_CACHE looked at (a confirmation's row names its unsure reading's picture again)."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder) + os.sep
        self.kept = folder.is_dir()  # none kept at all: every picture named is gone
        self.recent: dict[str, str] = {}
        self.counts = {"ok": 0, "gone": 0, "unread": 0, "changed": 0}
        self.changed: list[tuple[int, str]] = []
        self.changed_count = 0

    def row(self, entry_id: int, body: str) -> None:
        for digest in _crops_named(body):
            state = self.recent.get(digest)
            if state is None:
                state = self._look(digest)
                self.counts[state] += 1
                if len(self.recent) >= CROP_CACHE:
                    self.recent.clear()  # (deleting the oldest one by one: quadratic)
                self.recent[digest] = state
            if state == "changed":
                self.changed_count += 1
                if len(self.changed) < MAX_NAMED:
                    self.changed.append((entry_id, digest))

    def _look(self, digest: str) -> str:
        if not self.kept:
            return "gone"
        try:
            found = _file_sha256(f"{self.folder}{digest}.png")
        except FileNotFoundError:
            return "gone"
        except OSError:
            return "unread"
        return "ok" if found == digest else "changed"

    def summary(self) -> dict[str, Any]:
        return {
            "crops_checked": self.counts["ok"] + self.counts["changed"],
            "crops_gone": self.counts["gone"],
            "crops_unread": self.counts["unread"],
            "crops_changed": tuple(self.changed),
            "crops_changed_count": self.changed_count,
        }


def _file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:  # a str, not a Path: 600,000 looks, most for files pruned
        while block := f.read(1 << 16):
            digest.update(block)
    return digest.hexdigest()


def row_hash(entry_id: int, kind: str, at: str, body: str, prev_hash: str) -> str:
    text = "\x1f".join((str(entry_id), kind, at, body, prev_hash))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical(body: dict[str, Any]) -> str:
    """One spelling per body: sorted keys, no spaces, so the hash is reproducible."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _in_wal_mode(path: Path) -> bool:
    """Whether the SQLite file at ``path`` is a WAL database (its header's read and write
    versions both 2); False where it cannot be read, or is no SQLite file."""
    try:
        with path.open("rb") as f:
            header = f.read(20)
    except OSError:
        return False
    return header[:16] == b"SQLite format 3\x00" and header[18:20] == b"\x02\x02"


def _file_state(path: Path) -> tuple[int, int, int, int, bool] | None:
    """What changes when a writer copies rows into ``path`` (a checkpoint) or starts (its
    ``-wal`` file appears): the file's identity, size and times, and whether a ``-wal`` is
    there.  None where the file is gone."""
    try:
        st = path.stat()
    except OSError:
        return None
    wal = path.with_name(path.name + "-wal").exists()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, wal)


def _connect_listing(uri: str) -> tuple[sqlite3.Connection, set[str]]:
    """A connection to ``uri`` and the names of the tables it holds (read now: SQLite
    opens lazily, so a file it cannot read fails here, not at the first query)."""
    db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    try:
        return db, {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        db.close()
        raise


class Ledger:
    """An append-only, hash-chained record in ``data_dir/ledger.sqlite3``."""

    def __init__(self, data_dir: Path, read_only: bool = False) -> None:
        """``read_only``: only to read or verify (`dicebridge ledger verify`): nothing is
        written, no table made, and a file that holds no ledger is a LedgerError (an
        empty or foreign file had been given the ledger's tables, then called intact)."""
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / "ledger.sqlite3"
        self._read_only = read_only
        self._immutable = False  # read-only, the main file alone, without SQLite's locks
        try:
            if read_only:
                self._db, tables = self._open_read_only()
                if "entries" not in tables:
                    self._db.close()
                    raise LedgerError(f"{self.path} holds no dicebridge ledger (no entries "
                                      "table): an empty or another program's file")  # fmt: skip
            else:
                self.data_dir.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
                self._refuse_foreign()  # before anything is written into it
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as err:
            raise LedgerError(f"cannot open the ledger at {self.path}: {err}") from None
        self._lock = threading.Lock()
        self.min_free_bytes = MIN_FREE_BYTES

    def _refuse_foreign(self) -> None:
        """LedgerError where the file is another program's database: one with tables but no
        ledger had been given the ledger's tables, and one with an ``entries`` table of its
        own failed at the first query ("no such column: id")."""
        tables = {r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
        columns = [r[1] for r in self._db.execute("PRAGMA table_info(entries)")]
        if (tables and "entries" not in tables) or (columns and tuple(columns) != ENTRY_COLUMNS):
            self._db.close()
            raise LedgerError(
                f"{self.path} is another program's database ({', '.join(sorted(tables))}), not "
                "a dicebridge ledger: move it away, or give the service another --data-dir"
            )

    def _open_read_only(self) -> tuple[sqlite3.Connection, set[str]]:
        """A connection that writes nothing, and the tables the file holds.

        A WAL database read with ``mode=ro`` still needs its ``-wal`` and ``-shm``
        files; with the service stopped there are none, and SQLite makes them, empty,
        and leaves them (a read-only connection cannot remove them at its close), or,
        for a reader who may not write the folder (`dicebridge ledger verify` as the
        Pi's user), fails: SQLITE_READONLY_DIRECTORY.  So a WAL file without a ``-wal``
        is opened ``immutable=1``, which needs neither and makes nothing.  That is safe
        only without a ``-wal`` file: SQLite removes it when the last connection closes,
        after copying every row into the main file, so none means no writer is open and
        the main file holds every row.  (A service started during the read writes to a
        new ``-wal`` and changes the main file only at a checkpoint: :meth:`verify`
        reads again, through the ``-wal``, where the file changed or a ``-wal`` appeared
        while it read.)  Where a ``-wal`` file is there, its rows may be in it alone, so
        it is read with ``mode=ro`` and SQLite's locks, the writer's ``-wal`` and
        ``-shm`` with it; where the reader may not use them, the folder's owner has to
        read it."""
        uri = self.path.resolve().as_uri()
        wal = self.path.with_name(self.path.name + "-wal")
        self._immutable = False
        if _in_wal_mode(self.path) and not wal.exists():
            self._immutable = True
            return _connect_listing(f"{uri}?mode=ro&immutable=1")
        try:
            return _connect_listing(f"{uri}?mode=ro")
        except sqlite3.OperationalError as err:
            code = err.sqlite_errorcode & 0xFF
            if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN) and wal.exists():
                raise LedgerError(
                    f"cannot open the ledger at {self.path}: {err}; its {wal.name} file may "
                    f"hold rows the main file lacks: read it as a user who may write "
                    f"{self.data_dir} (the service's own)"
                ) from None
            if code != sqlite3.SQLITE_READONLY:
                raise
        self._immutable = True
        return _connect_listing(f"{uri}?mode=ro&immutable=1")

    def _reopen_read_only(self) -> None:
        """A new read-only connection in place of the one there is (it may see a ``-wal``
        the old one did not)."""
        self._db.close()
        try:
            self._db, _tables = self._open_read_only()
        except (OSError, sqlite3.Error) as err:
            raise LedgerError(f"cannot open the ledger at {self.path}: {err}") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, kind: str, body: dict[str, Any]) -> Entry:
        """Append one row; when this returns, the row is durable."""
        return self.append_many([(kind, body)])[0]

    def append_many(self, rows: Sequence[tuple[str, dict[str, Any]]]) -> list[Entry]:
        """Append ``rows`` (kind, body) in one transaction: all of them are durable when
        this returns, or none is kept (LedgerError) — a throw's dice, its resolution and
        its unsure dice are one record, never kept in part."""
        for kind, _ in rows:
            if kind not in KINDS:
                raise ValueError(
                    f"unknown ledger entry kind {kind!r}; kinds are {', '.join(KINDS)}"
                )
        texts = [(kind, canonical(body)) for kind, body in rows]
        if not texts:  # (a throw of no die read: nothing to keep)
            return []
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        entries: list[Entry] = []
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                last = self._db.execute(
                    "SELECT id, hash FROM entries ORDER BY id DESC LIMIT 1"
                ).fetchone()
                entry_id, prev = (last[0], last[1]) if last else (0, GENESIS)
                for kind, text in texts:
                    entry_id += 1
                    digest = row_hash(entry_id, kind, at, text, prev)
                    self._db.execute(
                        "INSERT INTO entries (id, kind, at, body, prev_hash, hash) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (entry_id, kind, at, text, prev, digest),
                    )
                    entries.append(Entry(entry_id, kind, at, json.loads(text), prev, digest))
                    prev = digest
                self._db.execute("COMMIT")
            except sqlite3.Error as err:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise LedgerError(f"could not write to the ledger: {err}") from None
        return entries

    def entries(self, kind: str | None = None, after: int = 0) -> Iterator[Entry]:
        query = "SELECT id, kind, at, body, prev_hash, hash FROM entries WHERE id > ?"
        args: tuple[Any, ...] = (after,)
        if kind is not None:
            query += " AND kind = ?"
            args += (kind,)
        for row in self._db.execute(query + " ORDER BY id", args):
            yield Entry(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5])

    def last_id(self) -> int:
        """The newest row's id (0 for an empty ledger)."""
        row = self._db.execute("SELECT MAX(id) FROM entries").fetchone()
        return int(row[0] or 0)

    def latest(self, kind: str, limit: int) -> list[Entry]:
        """The last ``limit`` rows of ``kind``, newest first: only those rows are read (a
        year of a busy kiosk is some 200,000 throws; a page wants the last thousand)."""
        query = (
            "SELECT id, kind, at, body, prev_hash, hash FROM entries WHERE kind = ?"
            " ORDER BY id DESC LIMIT ?"
        )
        rows = self._db.execute(query, (kind, max(0, limit))).fetchall()
        return [Entry(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5]) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def verify(self, crops: bool = True, head: str | None = None) -> Verification:
        """Walk the chain; the first row whose hash or link is wrong is named.

        ``crops``: also hash each kept crop picture a row names (``crops/<sha256>.png``,
        as :meth:`store_crop` keeps them) against its name.  A picture no longer kept is
        fine (pruned after ``keep_crops_days``, or never kept on a nearly full disk); one
        changed fails the verification.  ``head``: a row's hash recorded earlier (its 64
        hex digits, or the first 16 or more): ``head_row`` names the row that has it, None
        where none has (the rows up to it were rewritten, or removed from the end).  A
        file SQLite cannot read on is a failed verification naming the row (``damaged``),
        not an exception; LedgerError where it cannot be read for another reason."""
        if head is not None and not HEAD_PREFIX.fullmatch(head):
            raise ValueError(f"{head!r} is not a row's hash (16 to 64 hex digits)")
        tries = 3
        while True:
            # read without SQLite's locks (immutable), a writer may have started and
            # copied rows into the file meanwhile: read it again, through its -wal now
            before = _file_state(self.path) if self._immutable else None
            result = self._verify(crops, head)
            tries -= 1
            if before is None or not tries or _file_state(self.path) == before:
                return result
            self._reopen_read_only()

    def _verify(self, crops: bool, head: str | None) -> Verification:
        prev, expected_id, rows = GENESIS, 1, 0
        head_row: int | None = None
        pictures = _CropCheck(self.data_dir / "crops")

        def failed(row: int, why: str, damaged: bool = False) -> Verification:
            return Verification(
                False, rows, row, why, damaged=damaged, head_row=head_row, **pictures.summary()
            )

        try:
            cursor = self._db.execute(
                "SELECT id, kind, at, body, prev_hash, hash FROM entries ORDER BY id"
            )
            for row in cursor:
                rows += 1
                entry_id, kind, at, body, prev_hash, digest = row
                if entry_id != expected_id:
                    return failed(expected_id, f"row {expected_id} is missing")
                if why := _not_text(row):
                    return failed(entry_id, why)
                if prev_hash != prev:
                    return failed(entry_id, "its link to the previous row is broken")
                if row_hash(entry_id, kind, at, body, prev_hash) != digest:
                    return failed(entry_id, "its content does not match its hash")
                if crops:
                    pictures.row(entry_id, body)
                if head is not None and head_row is None and digest.startswith(head):
                    head_row = entry_id
                prev = digest
                expected_id += 1
        except sqlite3.DatabaseError as err:
            damage = _read_error(expected_id, err)
            if not isinstance(damage, LedgerDamaged):
                raise damage from None
            return failed(expected_id, str(damage), damaged=True)
        last = (expected_id - 1, prev) if rows else None
        changed = pictures.changed
        if changed:
            row_id, digest = changed[0]
            why = f"its crop picture {digest[:12]}… was changed after it was recorded"
            return Verification(False, rows, row_id, why, last, head_row=head_row,
                                **pictures.summary())  # fmt: skip
        return Verification(True, rows, head=last, head_row=head_row, **pictures.summary())

    def export_chunks(self, fmt: str, chunk_chars: int = 1 << 16) -> Iterator[str]:
        """Every row as CSV or JSON, in pieces of about ``chunk_chars`` characters, each
        given as soon as its rows are read: a year of throws is not held in memory (the
        whole text had been built at once: 200,000 throws took 1.2–2.3 GB).  Joined, the
        pieces are :meth:`export`'s text.  ValueError at once for an unknown format; while
        reading, LedgerDamaged where the file cannot be read on (what was given before is
        not the whole ledger) and LedgerError for a row the ledger never wrote.

        A writable ledger (the service's) is read through a connection of its own, which
        sees the rows as they were when the export began: the appends go on meanwhile (the
        write-ahead log is copied back into the main file only once the export ends)."""
        if fmt not in ("csv", "json"):
            raise ValueError(f"export formats are csv and json, not {fmt!r}")
        return self._export_chunks(fmt, max(1, chunk_chars))

    def _export_chunks(self, fmt: str, chunk_chars: int) -> Iterator[str]:
        try:
            db = self._db if self._read_only else self._reader()
        except sqlite3.Error as err:
            raise LedgerError(f"cannot read the ledger at {self.path}: {err}") from None
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        pieces: list[str] = []
        size = last = rows = 0
        if fmt == "csv":
            writer.writerow(["id", "kind", "at", "body", "hash"])
        try:
            query = "SELECT id, kind, at, body, hash FROM entries ORDER BY id"
            for entry_id, kind, at, body, digest in db.execute(query):
                record = _exported(entry_id, kind, at, body, digest)
                if fmt == "json":  # as json.dumps(rows, indent=1) lays out the whole list
                    text = json.dumps(record, ensure_ascii=False, indent=1).replace("\n", "\n ")
                    pieces.append((",\n " if rows else "[\n ") + text)
                else:
                    writer.writerow([entry_id, kind, at, canonical(record["body"]), digest])
                    pieces.append(buffer.getvalue())
                    buffer.seek(0)
                    buffer.truncate()
                size += len(pieces[-1])
                last = entry_id
                rows += 1
                if size >= chunk_chars:
                    yield "".join(pieces)
                    pieces.clear()
                    size = 0
        except (sqlite3.DatabaseError, LedgerError) as err:
            failure = err if isinstance(err, LedgerError) else _read_error(last + 1, err)
            yield "".join(pieces)  # every row that could be read, then why no more
            raise failure from None
        finally:
            if db is not self._db:
                db.close()
        if fmt == "json":
            pieces.append("\n]\n" if rows else "[]\n")
        else:
            pieces.append(buffer.getvalue())  # the header, where no row followed it
        yield "".join(pieces)

    def _reader(self) -> sqlite3.Connection:
        """A read-only connection of its own (next() of a streamed export may come from
        any of a web server's threads, one at a time)."""
        uri = self.path.resolve().as_uri()
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
        db.isolation_level = None
        return db

    def export(self, fmt: str) -> str:
        """Every row as one CSV or JSON text: :meth:`export_chunks`, joined (small ledgers
        only; stream a real one)."""
        return "".join(self.export_chunks(fmt))

    def crop(self, digest: str, suffix: str = ".png") -> bytes:
        """A kept crop by its SHA-256.  LookupError when there is none; LedgerError when
        the file no longer hashes to its name (it was changed after it was kept)."""
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise LookupError(f"{digest!r} is not a crop's SHA-256 (64 hex digits)")
        path = self.data_dir / "crops" / f"{digest}{suffix}"
        try:
            image = path.read_bytes()
        except FileNotFoundError:
            raise LookupError(f"no crop {digest[:12]}… is kept here") from None
        if hashlib.sha256(image).hexdigest() != digest:
            raise LedgerError(f"crop {digest[:12]}… was changed after it was recorded")
        return image

    def store_crop(self, image: bytes, suffix: str = ".png") -> tuple[str, Path | None]:
        """Keep a die's crop image for audits and disputes: (SHA-256, path).  With the disk
        nearly full (under MIN_FREE_BYTES free) the picture is not kept (path None): the
        throw's row still names its hash, and nothing else the appliance does stops."""
        digest = hashlib.sha256(image).hexdigest()
        folder = self.data_dir / "crops"
        folder.mkdir(exist_ok=True)
        path = folder / f"{digest}{suffix}"
        if not path.exists():
            if shutil.disk_usage(folder).free - len(image) < self.min_free_bytes:
                return digest, None
            write_whole(path, image, sync_name=False)  # lost at a power cut: as if pruned
        return digest, path

    def prune_crops(self, keep_days: float, now: float | None = None) -> tuple[int, int]:
        """Remove crops kept longer than ``keep_days`` (the rows naming them stay, and
        verify: a crop is evidence for disputes, not part of the chain): (files, bytes)."""
        cutoff = (time.time() if now is None else now) - keep_days * 86400
        files = size = 0
        folder = self.data_dir / "crops"
        if not folder.is_dir():
            return 0, 0
        for path in folder.iterdir():
            if not CROP_FILE.fullmatch(path.name):
                continue  # the ledger's own pictures only: not a folder, not a note kept there
            try:
                info = path.stat()
                if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                    path.unlink()
                    files += 1
                    size += info.st_size
            except FileNotFoundError:
                continue  # gone meanwhile
        return files, size
