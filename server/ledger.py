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
import re
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dicebridge.files import write_whole

GENESIS = "0" * 64
CROP_FILE = re.compile(r"[0-9a-f]{64}\.[a-z]+")  # a kept crop: its SHA-256, then its kind
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


@dataclass(frozen=True)
class Verification:
    ok: bool
    rows: int
    first_bad: int | None = None
    why: str = ""


def row_hash(entry_id: int, kind: str, at: str, body: str, prev_hash: str) -> str:
    text = "\x1f".join((str(entry_id), kind, at, body, prev_hash))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical(body: dict[str, Any]) -> str:
    """One spelling per body: sorted keys, no spaces, so the hash is reproducible."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
        files; with the service stopped there are none, and a reader who may not write
        the folder (`dicebridge ledger verify` as the Pi's user) cannot make them:
        SQLITE_READONLY_DIRECTORY.  Then the file is opened ``immutable=1``, which
        needs neither.  That is safe only without a ``-wal`` file: SQLite removes it
        when the last connection closes, after copying every row into the main file, so
        none means no writer is open and the main file holds every row.  (A service
        started during the read writes to a new ``-wal`` and changes the main file only
        at a checkpoint, after many rows: a read that overlaps one can report damage
        that is not there, and a second run settles it.)  Where a ``-wal`` file is left,
        its rows may be in it alone, so the folder's owner has to read it."""
        uri = self.path.resolve().as_uri()
        try:
            return _connect_listing(f"{uri}?mode=ro")
        except sqlite3.OperationalError as err:
            code = err.sqlite_errorcode & 0xFF
            wal = self.path.with_name(self.path.name + "-wal")
            if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN) and wal.exists():
                raise LedgerError(
                    f"cannot open the ledger at {self.path}: {err}; its {wal.name} file may "
                    f"hold rows the main file lacks: read it as a user who may write "
                    f"{self.data_dir} (the service's own)"
                ) from None
            if code != sqlite3.SQLITE_READONLY:
                raise
        return _connect_listing(f"{uri}?mode=ro&immutable=1")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, kind: str, body: dict[str, Any]) -> Entry:
        """Append one row; when this returns, the row is durable."""
        if kind not in KINDS:
            raise ValueError(f"unknown ledger entry kind {kind!r}; kinds are {', '.join(KINDS)}")
        text = canonical(body)
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                last = self._db.execute(
                    "SELECT id, hash FROM entries ORDER BY id DESC LIMIT 1"
                ).fetchone()
                entry_id, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
                digest = row_hash(entry_id, kind, at, text, prev)
                self._db.execute(
                    "INSERT INTO entries (id, kind, at, body, prev_hash, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (entry_id, kind, at, text, prev, digest),
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as err:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise LedgerError(f"could not write to the ledger: {err}") from None
        return Entry(entry_id, kind, at, json.loads(text), prev, digest)

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

    def verify(self) -> Verification:
        """Walk the chain; the first row whose hash or link is wrong is named."""
        prev = GENESIS
        expected_id = 1
        rows = 0
        cursor = self._db.execute(
            "SELECT id, kind, at, body, prev_hash, hash FROM entries ORDER BY id"
        )
        for entry_id, kind, at, body, prev_hash, digest in cursor:
            rows += 1
            if entry_id != expected_id:
                return Verification(False, rows, expected_id, f"row {expected_id} is missing")
            if prev_hash != prev:
                return Verification(False, rows, entry_id, "its link to the previous row is broken")
            if row_hash(entry_id, kind, at, body, prev_hash) != digest:
                return Verification(False, rows, entry_id, "its content does not match its hash")
            prev = digest
            expected_id += 1
        return Verification(True, rows)

    def export(self, fmt: str) -> str:
        rows: list[dict[str, Any]] = [
            {"id": e.id, "kind": e.kind, "at": e.at, "body": e.body, "hash": e.hash}
            for e in self.entries()
        ]
        if fmt == "json":
            return json.dumps(rows, ensure_ascii=False, indent=1) + "\n"
        if fmt == "csv":
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(["id", "kind", "at", "body", "hash"])
            for r in rows:
                writer.writerow([r["id"], r["kind"], r["at"], canonical(r["body"]), r["hash"]])
            return buffer.getvalue()
        raise ValueError(f"export formats are csv and json, not {fmt!r}")

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
            write_whole(path, image)
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
