"""The ledger's export streamed, and verify on damaged files, changed crops and a head
written down (real SQLite files in tmp_path)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dicebridge.cli import main
from server.ledger import GENESIS, Ledger, LedgerDamaged, canonical, row_hash

BODIES: list[dict[str, Any]] = [
    {"dice": [{"die": "d6", "face": 3, "crop": "ab" * 32, "box": [1, 2, 3, 4]}], "check": None},
    {"note": 'a "quoted", comma\nand a new line', "é": "ü ✓", "nested": {"a": [1, {"b": []}]}},
    {},
    {"n": 1.5, "flag": True, "none": None, "list": []},
]


def old_export(ledger: Ledger, fmt: str) -> str:
    """Ledger.export as it was before the export was streamed: the text to match."""
    rows: list[dict[str, Any]] = [
        {"id": e.id, "kind": e.kind, "at": e.at, "body": e.body, "hash": e.hash}
        for e in ledger.entries()
    ]
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False, indent=1) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "kind", "at", "body", "hash"])
    for r in rows:
        writer.writerow([r["id"], r["kind"], r["at"], canonical(r["body"]), r["hash"]])
    return buffer.getvalue()


def fill(ledger: Ledger, rows: int, size: int = 200) -> None:
    ledger._db.execute("PRAGMA synchronous=OFF")  # rows to read, not to survive a power cut
    for n in range(rows):
        ledger.append("throw", {"n": n, "pad": "x" * size})


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_streamed_export_is_the_text_the_whole_export_was(tmp_path: Path, fmt: str) -> None:
    with Ledger(tmp_path) as ledger:
        assert "".join(ledger.export_chunks(fmt)) == old_export(ledger, fmt)  # no rows
        for n, body in enumerate(BODIES * 3):
            ledger.append("throw" if n % 2 else "note", body)
        expected = old_export(ledger, fmt)
        assert "".join(ledger.export_chunks(fmt)) == expected
        pieces = list(ledger.export_chunks(fmt, chunk_chars=1))  # a piece per row
        assert len(pieces) == len(BODIES) * 3 + 1 and "".join(pieces) == expected
        assert ledger.export(fmt) == expected  # the whole text, as /api/export took it
    if fmt == "json":
        assert [r["body"] for r in json.loads(expected)] == BODIES * 3
    with pytest.raises(ValueError, match="csv and json"):
        Ledger(tmp_path).export_chunks("xml")  # at once, not at the first piece


class CountingCursor:
    """A cursor that counts the rows taken from it."""

    fetched = 0

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def __iter__(self) -> Iterator[Any]:
        for row in self._cursor:
            CountingCursor.fetched += 1
            yield row

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class CountingConnection(sqlite3.Connection):
    def execute(self, *args: Any, **kwargs: Any) -> Any:
        return CountingCursor(super().execute(*args, **kwargs))


def test_the_export_gives_its_first_piece_before_it_has_read_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export had read every row into a list and built the whole text before giving
    any of it: 200,000 throws took 1.2 GB (CSV) to 2.3 GB (JSON) on a Pi of 1–2 GB."""
    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *a, **k: connect(*a, **k, factory=CountingConnection)
    )
    rows = 2000  # some 500 kB of text
    with Ledger(tmp_path) as ledger:
        fill(ledger, rows)
        for fmt in ("json", "csv"):
            CountingCursor.fetched = 0
            pieces = ledger.export_chunks(fmt)
            first = next(iter(pieces))
            read_then = CountingCursor.fetched
            assert 0 < read_then < rows / 4, (fmt, read_then)
            rest = "".join(pieces)
            assert CountingCursor.fetched == rows
            assert first + rest == old_export(ledger, fmt)


def test_the_export_holds_a_piece_not_the_ledger(tmp_path: Path) -> None:
    """Memory while the whole export is read and thrown away: a piece or two, not the rows
    nor the text (Python's own allocations, counted by tracemalloc: no timing)."""
    with Ledger(tmp_path) as ledger:
        fill(ledger, 2000, size=2000)
        for fmt in ("json", "csv"):
            size = len(old_export(ledger, fmt))  # some 4.2 MB
            tracemalloc.start()
            try:
                for _piece in ledger.export_chunks(fmt):
                    pass
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < size / 8, (fmt, peak, size)  # some 350 kB: a 64 kB piece, twice


def damage(path: Path, rows: int = 1500) -> None:
    """A ledger of several hundred pages with 8 kB of garbage written over its middle."""
    with Ledger(path) as ledger:
        fill(ledger, rows)
    file = path / "ledger.sqlite3"
    size = file.stat().st_size
    assert size > 100 * 4096 and not (path / "ledger.sqlite3-wal").exists()
    with file.open("r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\xde\xad\xbe\xef" * 2048)


def test_a_damaged_file_is_a_failed_verification_naming_the_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify and export had ended in a traceback: "database disk image is malformed"."""
    damage(tmp_path)
    with Ledger(tmp_path, read_only=True) as ledger:
        result = ledger.verify()
    assert not result.ok and result.damaged and result.first_bad is not None
    assert 1 < result.first_bad < 1500 and result.rows == result.first_bad - 1
    assert f"damaged at or after row {result.first_bad}" in result.why
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 1
    said = capsys.readouterr()
    assert said.out.startswith(
        f"ledger damaged: the ledger file is damaged at or after row {result.first_bad} "
        "(database disk image is malformed)"
    )
    assert said.err == ""
    assert main(["ledger", "export", "--data-dir", str(tmp_path)]) == 1
    said = capsys.readouterr()
    assert said.err.startswith(
        "dicebridge ledger: the export stopped: the ledger file is damaged at or after row "
        f"{result.first_bad}"
    )
    assert "not the whole ledger" in said.err and "Traceback" not in said.err
    assert said.out.count("\n") == result.first_bad  # the header and the rows before it
    out = tmp_path / "export.json"
    assert main(["ledger", "export", "--format", "json", "-o", str(out),
                 "--data-dir", str(tmp_path)]) == 1  # fmt: skip
    assert "nothing was written to" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if "export" in p.name]  # no part file left
    with Ledger(tmp_path, read_only=True) as ledger, pytest.raises(LedgerDamaged) as caught:
        ledger.export("csv")
    assert caught.value.row == result.first_bad


def tamper(path: Path, sql: str) -> None:
    db = sqlite3.connect(path / "ledger.sqlite3")
    db.executescript(
        "DROP TRIGGER IF EXISTS entries_no_update; DROP TRIGGER IF EXISTS entries_no_delete;" + sql
    )
    db.close()


def test_a_column_stored_as_a_blob_is_a_bad_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify had ended in a TypeError hashing a body stored as a blob."""
    with Ledger(tmp_path) as ledger:
        fill(ledger, 5, size=10)
    tamper(tmp_path, "UPDATE entries SET body = CAST(body AS BLOB) WHERE id = 3;")
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 1
    said = capsys.readouterr()
    assert said.out == "ledger broken at row 3: its body is stored as a blob, not text\n"
    assert main(["ledger", "export", "--data-dir", str(tmp_path)]) == 0  # the body is JSON
    assert capsys.readouterr().out.count("\n") == 6
    sql = "UPDATE entries SET body = CAST(body AS TEXT), hash = CAST(hash AS BLOB) WHERE id = 3;"
    tamper(tmp_path, sql)
    with Ledger(tmp_path, read_only=True) as ledger:
        result = ledger.verify()
    assert (result.ok, result.first_bad) == (False, 3)
    assert result.why == "its hash is stored as a blob, not text"
    assert main(["ledger", "export", "--data-dir", str(tmp_path)]) == 2
    said = capsys.readouterr()
    assert "row 3 cannot be exported: its hash is stored as a blob" in said.err
    assert said.out.count("\n") == 3  # the header and the rows before it


def test_a_changed_crop_picture_fails_verify_and_a_pruned_one_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kept crop written over had passed as "ledger intact"."""
    with Ledger(tmp_path) as ledger:
        kept, path = ledger.store_crop(b"\x89PNG die one")
        pruned, gone = ledger.store_crop(b"\x89PNG die two")
        ledger.append("check", {"id": "c1"})
        dice = [{"die": "d6", "face": 4, "crop": kept}, {"die": "d6", "face": 2, "crop": pruned}]
        ledger.append("throw", {"check": "c1", "dice": dice})
        ledger.append("reading", {"uncertain": True, "crop": kept, "die": "d6"})
    assert path is not None and gone is not None
    gone.unlink()  # pruned by age: the row stays, and verifies
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "dice pictures: 1 kept ones match their hashes, 1 named no longer kept" in out
    path.write_bytes(b"\x89PNG another die")  # what a dispute would be settled by
    with Ledger(tmp_path, read_only=True) as ledger:
        result = ledger.verify()
        assert ledger.verify(crops=False).ok  # the chain alone
    assert (result.ok, result.first_bad, result.crops_changed) == (False, 2, ((2, kept), (3, kept)))
    assert result.why == f"its crop picture {kept[:12]}… was changed after it was recorded"
    assert result.head is not None and result.head[0] == 3  # the chain itself checks out
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "dice pictures changed after they were recorded" in out
    assert f"row 2: crops/{kept}.png no longer hashes to its name" in out
    assert f"row 3: crops/{kept}.png" in out
    assert main(["ledger", "verify", "--no-crops", "--data-dir", str(tmp_path)]) == 0


def rewrite_chain(path: Path, sql: str) -> None:
    """A forger's edit: change rows, then hash the chain again from the start."""
    tamper(path, sql)
    db = sqlite3.connect(path / "ledger.sqlite3")
    prev = GENESIS
    rows = db.execute("SELECT id, kind, at, body FROM entries ORDER BY id").fetchall()
    for entry_id, kind, at, body in rows:
        digest = row_hash(entry_id, kind, at, body, prev)
        db.execute(
            "UPDATE entries SET prev_hash = ?, hash = ? WHERE id = ?", (prev, digest, entry_id)
        )
        prev = digest
    db.commit()
    db.close()


def test_verify_prints_the_head_and_finds_a_head_written_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify printed no head, so a chain hashed again after an edit, or cut short at its
    end, verified with nothing to compare it to."""
    with Ledger(tmp_path) as ledger:
        fill(ledger, 4, size=10)
        head = ledger.latest("throw", 1)[0].hash
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
    assert f"head: row 4, hash {head}\n" in capsys.readouterr().out
    with Ledger(tmp_path) as ledger:
        fill(ledger, 2, size=10)  # rows appended since: the head is still row 4
    for written in (head, head[:16], head.upper()):
        assert main(["ledger", "verify", "--head", written, "--data-dir", str(tmp_path)]) == 0
        assert f"the head {head[:16]}… is row 4: every row up to it" in capsys.readouterr().out
    rewrite_chain(tmp_path, """UPDATE entries SET body = '{"n":99,"pad":"x"}' WHERE id = 2;""")
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0  # hashed again: intact
    capsys.readouterr()
    assert main(["ledger", "verify", "--head", head, "--data-dir", str(tmp_path)]) == 1
    assert f"the head {head[:16]}… is in no row of this ledger" in capsys.readouterr().out
    for bad in ("abc", "z" * 64, head + "0"):
        assert main(["ledger", "verify", "--head", bad, "--data-dir", str(tmp_path)]) == 2
        assert "--head is a row's hash" in capsys.readouterr().err


def test_rows_cut_from_the_end_lose_the_head_written_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Ledger(tmp_path) as ledger:
        fill(ledger, 5, size=10)
        head = ledger.latest("throw", 1)[0].hash
    tamper(tmp_path, "DELETE FROM entries WHERE id > 3;")
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0  # a shorter chain
    assert "head: row 3," in capsys.readouterr().out
    assert main(["ledger", "verify", "--head", head, "--data-dir", str(tmp_path)]) == 1
