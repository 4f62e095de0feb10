"""dicebridge.files.write_whole: one write-then-rename for pictures, die sets, crops, the PIN."""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path

import pytest

from dicebridge import files
from dicebridge.files import write_whole
from server.admin import AdminPin


def test_a_file_is_replaced_whole_and_no_part_file_is_left(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    write_whole(path, b"old")
    write_whole(path, b"new")
    assert path.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["set.json"]


def test_a_write_that_fails_leaves_the_old_file_and_no_part(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    write_whole(path, b"old")
    with pytest.raises(TypeError):  # fails once its part file is open
        write_whole(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["set.json"]


def test_two_threads_writing_one_path_never_mix_their_bytes(tmp_path: Path) -> None:
    # one crop stored twice at once: each writer had shared one part file, so one thread
    # could rename the other's half-written bytes into place
    path = tmp_path / "crop.png"
    blobs = [bytes([n]) * 4_000_000 for n in (1, 2)]
    seen: set[bytes] = set()

    def write(blob: bytes) -> None:
        for _ in range(15):
            write_whole(path, blob)
            data = path.read_bytes()
            whole = len(data) == 4_000_000 and len(set(data[::4096])) == 1
            seen.add(data[:1] + data[-1:] if whole else b"mixed")

    threads = [threading.Thread(target=write, args=(b,)) for b in blobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert b"mixed" not in seen and seen <= {b"\x01\x01", b"\x02\x02"}
    assert path.read_bytes() in blobs and os.listdir(tmp_path) == ["crop.png"]


def test_the_admin_pin_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    pin = AdminPin(tmp_path)
    pin.set("4321")
    assert stat.S_IMODE(pin.path.stat().st_mode) == 0o600
    pin.check("4321")


def test_the_bytes_and_the_rename_reach_the_disk_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A power cut on a Pi after a rename that was never synced can leave the renamed file
    empty: the part file is synced before the rename, the folder after it."""
    synced: list[tuple[str, bytes | None]] = []
    real_fsync = os.fsync
    path = tmp_path / "set.json"

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            synced.append(("folder", path.read_bytes() if path.exists() else None))
        else:
            synced.append(("file", path.read_bytes() if path.exists() else None))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_whole(path, b"old")
    write_whole(path, b"new")
    assert path.read_bytes() == b"new" and os.listdir(tmp_path) == ["set.json"]
    # each part synced while the old file was still in place, the folder once renamed
    assert synced == [("file", None), ("folder", b"old"), ("file", b"old"), ("folder", b"new")]
    synced.clear()  # a die's crop: its bytes synced, its name not (lost, it is as if pruned)
    write_whole(path, b"crop", sync_name=False)
    assert synced == [("file", b"new")] and path.read_bytes() == b"crop"

    def unsyncable(fd: int) -> None:  # a file system that cannot sync a folder
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", unsyncable)
    write_whole(path, b"newer")  # best effort: written all the same
    assert path.read_bytes() == b"newer" and os.listdir(tmp_path) == ["set.json"]

    def failing(fd: int) -> None:  # the card failing: said, not passed over
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="Input/output error"):
        write_whole(path, b"newest")
    assert path.read_bytes() == b"newer" and os.listdir(tmp_path) == ["set.json"]
    assert {errno.EINVAL, errno.ENOTSUP} <= files.UNSYNCABLE
