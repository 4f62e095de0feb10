"""Files written whole: the one write-then-rename every part of the appliance uses."""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path


def write_whole(path: Path | str, data: bytes, mode: int = 0o666, sync_name: bool = True) -> None:
    """``data`` written to ``path`` whole or not at all (OSError where it cannot be): a file
    read while it is written (a die set loaded as a face is taught again) is the old one or
    the new, never half of one, and a full disk leaves the old one.  ``mode`` is the new
    file's permissions from its first byte (less the umask): a secret is never readable by
    others, not even between its writing and a chmod.  Each writer has its own part file,
    so two threads writing one path (one crop stored twice at once) cannot mix theirs.
    The part file's bytes reach the disk before it is renamed, and the rename before this
    returns: a power cut (a Pi unplugged) leaves the old file or the new, never a renamed
    but empty one.  ``sync_name`` False: the folder is not synced (a file whose loss at a
    power cut costs nothing, such as a die's crop, which verify takes as pruned: one sync a
    file instead of two on a slow SD card, for every die of every throw)."""
    path = Path(path)
    part = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    try:
        write_part(part, data, mode)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
    if sync_name:
        sync_folder(path.parent)


def write_part(part: Path, data: bytes, mode: int) -> None:
    """``data`` into the new file ``part`` (made with ``mode``; OSError where it exists or
    the disk is full): the one place bytes reach the disk, which tests fill up."""
    with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())  # on the disk before it is renamed into place


# a folder that cannot be opened or synced (a file system without it, as some FUSE or
# network ones): its renames are as safe as that file system makes them
UNSYNCABLE = {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EACCES}


def sync_folder(folder: Path) -> None:
    """Make the renames into ``folder`` last (its entries on the disk), where the file
    system can (best effort: one that cannot is left as it is)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as err:
        if err.errno in UNSYNCABLE:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in UNSYNCABLE:
            raise
    finally:
        os.close(fd)
