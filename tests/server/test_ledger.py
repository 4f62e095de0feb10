"""The ledger: append-only, hash-chained, durable through SIGKILL (a real SQLite file)."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dicebridge.cli import main
from server.ledger import Ledger, LedgerError

WRITER = """
import sys
from pathlib import Path
from typing import Any
from server.ledger import Ledger
ledger = Ledger(Path(sys.argv[1]))
for i in range(10_000):
    entry = ledger.append("throw", {"n": i, "dice": [{"die": "d6", "face": i % 6 + 1}]})
    print(entry.id, i, flush=True)  # acknowledged: the row is committed
"""


def test_rows_chain_and_verify(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        first = ledger.append("throw", {"dice": ["d6:3"]})
        second = ledger.append("resolution", {"success": True})
        assert (first.id, second.id) == (1, 2)
        assert second.prev_hash == first.hash
        assert ledger.verify().ok and ledger.verify().rows == 2
        assert [e.kind for e in ledger.entries()] == ["throw", "resolution"]
        assert [e.id for e in ledger.entries(kind="resolution")] == [2]


def test_nothing_is_updated_or_deleted(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.append("throw", {"n": 1})
    db = sqlite3.connect(tmp_path / "ledger.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE entries SET body = '{}' WHERE id = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM entries")
    db.close()


def tamper(path: Path, sql: str) -> None:
    """What an attacker with the file could do: drop the guard triggers and edit."""
    db = sqlite3.connect(path / "ledger.sqlite3")
    db.executescript("DROP TRIGGER entries_no_update; DROP TRIGGER entries_no_delete; " + sql)
    db.close()


@pytest.mark.parametrize(
    ("sql", "bad_row", "why"),
    [
        ("UPDATE entries SET body = '{\"n\":99}' WHERE id = 3;", 3, "content"),
        ("DELETE FROM entries WHERE id = 2;", 2, "missing"),
        ("UPDATE entries SET prev_hash = hash WHERE id = 4;", 4, "link"),
    ],
)
def test_tampering_is_found_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str, bad_row: int, why: str
) -> None:
    with Ledger(tmp_path) as ledger:
        for n in range(5):
            ledger.append("throw", {"n": n})
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
    tamper(tmp_path, sql)
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"row {bad_row}" in out and why in out


def test_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.append("throw", {"dice": ["d20:17"], "note": "é"})
        digest, crop = ledger.store_crop(b"\x89PNG fake crop")
        ledger.append("reading", {"die": "d20", "face": 17, "crop_sha256": digest})
    assert crop is not None and crop.read_bytes() == b"\x89PNG fake crop"
    assert main(["ledger", "export", "--data-dir", str(tmp_path), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["kind"] for r in rows] == ["throw", "reading"]
    assert rows[1]["body"]["crop_sha256"] == digest
    assert main(["ledger", "export", "--data-dir", str(tmp_path), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "id,kind,at,body,hash" and len(lines) == 3


def test_bad_input_is_refused_and_loses_nothing(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.append("throw", {"n": 1})
        with pytest.raises(ValueError, match="unknown ledger entry kind"):
            ledger.append("gossip", {})
        with pytest.raises(TypeError):
            ledger.append("throw", {"not json": object()})
        assert ledger.count() == 1 and ledger.verify().ok
    assert main(["ledger", "verify", "--data-dir", str(tmp_path / "nowhere")]) == 2
    (tmp_path / "file").write_text("x")
    with pytest.raises(LedgerError, match="cannot open"):
        Ledger(tmp_path / "file")


def test_sigkill_mid_writes_loses_no_acknowledged_throw(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acknowledged: list[tuple[int, int]] = []
    for line in proc.stdout:
        entry_id, n = map(int, line.split())
        acknowledged.append((entry_id, n))
        if len(acknowledged) == 1500:
            proc.send_signal(signal.SIGKILL)  # mid-stream, without warning
            break
    proc.wait()
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    with Ledger(tmp_path) as ledger:
        stored = {e.id: e.body["n"] for e in ledger.entries()}
        result = ledger.verify()
    assert result.ok, result.why
    assert all(stored.get(entry_id) == n for entry_id, n in acknowledged)
    assert 1500 <= len(stored) < 10_000


def test_old_dice_pictures_are_pruned_and_the_rows_still_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import time

    from server.housekeeping import Housekeeping

    now = time.time()
    with Ledger(tmp_path) as ledger:
        ages = {}
        for days in (400, 100, 0):
            digest, path = ledger.store_crop(f"crop {days}".encode())
            assert path is not None
            os.utime(path, (now - days * 86400, now - days * 86400))
            ledger.append("reading", {"die": "d6", "face": 2, "crop": digest})
            ages[days] = digest
        said: list[str] = []
        upkeep = Housekeeping(ledger, 365, every=3600, say=said.append)
        upkeep.start()
        deadline = time.monotonic() + 10
        while upkeep.rounds == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        upkeep.stop()
        assert said == ["dicebridge: removed 1 dice pictures older than 365 days (0.0 MB)"]
        kept = {p.stem for p in (tmp_path / "crops").iterdir()}
        assert kept == {ages[100], ages[0]}
        assert ledger.verify().ok  # the pictures are evidence beside the chain, not in it
    old = now - 400 * 86400  # what else lies there is no picture of the ledger's
    (tmp_path / "crops" / "notes.txt").write_text("mine")
    (tmp_path / "crops" / "sub").mkdir()
    for other in ("notes.txt", "sub"):
        os.utime(tmp_path / "crops" / other, (old, old))
    assert main(["ledger", "prune-crops", "--days", "30", "--data-dir", str(tmp_path)]) == 0
    assert "removed 1 dice pictures older than 30 days" in capsys.readouterr().out
    assert {p.stem for p in (tmp_path / "crops").iterdir()} == {ages[0], "notes", "sub"}
    for bad in ("nan", "inf", "-1"):
        assert main(["ledger", "prune-crops", "--days", bad, "--data-dir", str(tmp_path)]) == 2
        assert "--days is a number of days" in capsys.readouterr().err


def test_verify_reads_only_and_an_empty_or_foreign_file_is_no_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """verify had given an empty file (or another program's database) the ledger's tables,
    then called it intact."""
    (tmp_path / "ledger.sqlite3").write_bytes(b"")
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 2
    assert "holds no dicebridge ledger" in capsys.readouterr().err
    assert (tmp_path / "ledger.sqlite3").read_bytes() == b""  # nothing written to it
    foreign = tmp_path / "other"
    foreign.mkdir()
    with sqlite3.connect(foreign / "ledger.sqlite3") as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    before = (foreign / "ledger.sqlite3").read_bytes()
    assert main(["ledger", "verify", "--data-dir", str(foreign)]) == 2
    assert (foreign / "ledger.sqlite3").read_bytes() == before
    with Ledger(tmp_path / "real") as ledger:
        ledger.append("check", {"n": 1})
    monkeypatch.setenv("DICEBRIDGE_DATA_DIR", str(tmp_path / "real"))  # the service's folder
    assert main(["ledger", "verify"]) == 0
    assert "ledger intact: 1 rows" in capsys.readouterr().out


def test_a_nearly_full_disk_keeps_the_throw_but_not_its_picture(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.min_free_bytes = 2**62  # more than any disk has free
        digest, path = ledger.store_crop(b"a crop")
        assert path is None and not (tmp_path / "crops" / f"{digest}.png").exists()
        with pytest.raises(LookupError, match="no crop"):
            ledger.crop(digest)


def test_the_latest_rows_of_a_kind_come_newest_first(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        for n in range(5):
            ledger.append("throw", {"n": n})
            ledger.append("check", {"n": n})
        latest = ledger.latest("throw", 2)
        assert [e.body["n"] for e in latest] == [4, 3] and all(e.kind == "throw" for e in latest)
        assert [e.body["n"] for e in ledger.latest("check", 10)] == [4, 3, 2, 1, 0]
        assert ledger.latest("confirmation", 3) == []


def test_verify_and_export_read_a_folder_they_may_not_write() -> None:
    """`ledger verify` and `export` by a user who may read the service's folder but not
    write it (the Pi's own user): with the service stopped there is no -wal file, and
    SQLite failed to make the WAL's index there ("attempt to write a readonly
    database"); with it running they must still read the rows only its -wal holds."""
    from tests.deploy.unprivileged import open_folder, run_unprivileged

    with open_folder() as folder:
        with Ledger(folder) as ledger:
            ledger.append("check", {"n": 1})
        (folder / "ledger.sqlite3").chmod(0o644)  # as the service's umask leaves it
        before = (folder / "ledger.sqlite3").read_bytes()
        folder.chmod(0o555)  # stops a user who is not root; root is run as nobody
        verify = [sys.executable, "-m", "dicebridge", "ledger", "verify", "--data-dir", str(folder)]
        stopped = run_unprivileged(verify)
        assert (stopped.returncode, stopped.stderr) == (0, "")
        assert "ledger intact: 1 rows" in stopped.stdout
        export = run_unprivileged([*verify[:4], "export", "--data-dir", str(folder)])
        assert export.returncode == 0 and export.stdout.count("\n") == 2  # header and row
        assert sorted(p.name for p in folder.iterdir()) == ["ledger.sqlite3"]
        assert (folder / "ledger.sqlite3").read_bytes() == before
        folder.chmod(0o755)
        with Ledger(folder) as running:  # the service, its -wal and -shm open
            running.append("check", {"n": 2})
            for part in folder.iterdir():
                part.chmod(0o644)
            folder.chmod(0o555)
            live = run_unprivileged(verify)
            folder.chmod(0o755)
        assert live.returncode == 0 and "ledger intact: 2 rows" in live.stdout, live.stderr


@pytest.mark.parametrize(
    "schema",
    [
        "CREATE TABLE photos (id INTEGER, name TEXT)",  # had been given the ledger's tables
        "CREATE TABLE entries (title TEXT, done INTEGER)",  # "no such column: id" at start
    ],
)
def test_another_program_s_database_is_refused_and_left_as_it_was(
    tmp_path: Path, schema: str
) -> None:
    import sqlite3

    path = tmp_path / "ledger.sqlite3"
    with sqlite3.connect(path) as other:
        other.execute(schema)
    before = path.read_bytes()
    with pytest.raises(LedgerError, match=r"another program's database .* not a dicebridge"):
        Ledger(tmp_path)
    assert path.read_bytes() == before  # not even switched to WAL


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_verify_and_export_of_a_closed_ledger_leave_the_folder_as_they_found_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read-only open of the stopped service's WAL ledger had left an empty -wal and
    -shm beside it (`mode=ro` makes them, and a read-only connection cannot remove them)."""
    with Ledger(tmp_path) as ledger:
        for n in range(3):
            ledger.append("check", {"n": n})
    file = tmp_path / "ledger.sqlite3"
    assert file.read_bytes()[18:20] == b"\x02\x02"  # a WAL database, closed
    before, content = listing(tmp_path), file.read_bytes()
    assert before == ["ledger.sqlite3"]
    assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
    assert "ledger intact: 3 rows" in capsys.readouterr().out
    assert listing(tmp_path) == before
    assert main(["ledger", "export", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("\n") == 4  # the header and the rows
    with Ledger(tmp_path, read_only=True) as ledger:
        assert ledger.verify().ok and ledger.verify(crops=False).rows == 3
        assert listing(tmp_path) == before  # nor while it is open
    assert listing(tmp_path) == before and file.read_bytes() == content
    file.chmod(0o444)  # a file root may write all the same: still nothing made
    try:
        assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
    finally:
        file.chmod(0o644)
    assert listing(tmp_path) == before


@pytest.mark.parametrize(
    ("folder_mode", "file_mode"),
    [
        (0o777, 0o444),  # a folder they may write, a file they may only read
        (0o555, 0o444),  # neither
    ],
)
def test_a_read_only_file_or_folder_is_verified_and_left_as_it_was(
    folder_mode: int, file_mode: int
) -> None:
    """As a user who may only read the file (the Pi's own user, the service's folder): the
    verify had made a -wal and -shm where it might, or failed where it might not."""
    from tests.deploy.unprivileged import open_folder, run_unprivileged

    with open_folder() as folder:
        with Ledger(folder) as ledger:
            ledger.append("check", {"n": 1})
        file = folder / "ledger.sqlite3"
        file.chmod(file_mode)
        before, content = listing(folder), file.read_bytes()
        folder.chmod(folder_mode)
        try:
            verify = [sys.executable, "-m", "dicebridge", "ledger", "verify", "--data-dir",
                      str(folder)]  # fmt: skip
            got = run_unprivileged(verify)
            after = listing(folder)
        finally:
            folder.chmod(0o755)
        assert (got.returncode, got.stderr) == (0, ""), got.stderr
        assert "ledger intact: 1 rows" in got.stdout
        assert after == before == ["ledger.sqlite3"] and file.read_bytes() == content


def test_verify_while_the_service_writes_reads_its_committed_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the service running its newest rows are in the -wal alone: a read-only verify
    reads them through it (and its -shm), and not a row still uncommitted."""
    with Ledger(tmp_path) as running:
        for n in range(3):
            running.append("check", {"n": n})  # committed: in the -wal, not the main file
        other = sqlite3.connect(tmp_path / "ledger.sqlite3", isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute(
                "INSERT INTO entries VALUES (4, 'check', 'now', '{}', 'not', 'committed')"
            )
            before = listing(tmp_path)
            assert before == ["ledger.sqlite3", "ledger.sqlite3-shm", "ledger.sqlite3-wal"]
            with Ledger(tmp_path, read_only=True) as reader:
                result = reader.verify()
                assert reader.count() == 3
            assert (result.ok, result.rows) == (True, 3)
            assert main(["ledger", "verify", "--data-dir", str(tmp_path)]) == 0
            assert "ledger intact: 3 rows" in capsys.readouterr().out
            assert listing(tmp_path) == before
            other.execute("ROLLBACK")
        finally:
            other.close()
        running.append("check", {"n": 3})
        with Ledger(tmp_path, read_only=True) as reader:
            assert reader.verify().rows == 4  # a row committed after the first verify
    assert listing(tmp_path) == ["ledger.sqlite3"]  # the service's close removed them


def test_a_service_started_during_a_verify_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stopped service's file is read without SQLite's locks: one that started and
    copied rows into it while the verify read is read again, not half of each."""
    with Ledger(tmp_path) as ledger:
        ledger.append("check", {"n": 0})
    reader = Ledger(tmp_path, read_only=True)
    read = reader._verify
    rows: list[int] = []

    def overlapped(crops: bool, head: str | None) -> Any:
        result = read(crops, head)
        if not rows:  # the service meanwhile: 200 rows, checkpointed into the file at close
            with Ledger(tmp_path) as service:
                for n in range(200):
                    service.append("check", {"n": n + 1, "pad": "x" * 200})
        rows.append(result.rows)
        return result

    monkeypatch.setattr(reader, "_verify", overlapped)
    with reader:
        result = reader.verify()
    assert rows == [1, 201] and (result.ok, result.rows) == (True, 201)
    assert listing(tmp_path) == ["ledger.sqlite3"]
