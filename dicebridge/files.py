"""Files written whole: the one write-then-rename every part of the appliance uses."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_whole(path: Path | str, data: bytes, mode: int = 0o666) -> None:
    """``data`` written to ``path`` whole or not at all (OSError where it cannot be): a file
    read while it is written (a die set loaded as a face is taught again) is the old one or
    the new, never half of one, and a full disk leaves the old one.  ``mode`` is the new
    file's permissions from its first byte (less the umask): a secret is never readable by
    others, not even between its writing and a chmod.  Each writer has its own part file,
    so two threads writing one path (one crop stored twice at once) cannot mix theirs."""
    path = Path(path)
    part = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    try:
        write_part(part, data, mode)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def write_part(part: Path, data: bytes, mode: int) -> None:
    """``data`` into the new file ``part`` (made with ``mode``; OSError where it exists or
    the disk is full): the one place bytes reach the disk, which tests fill up."""
    with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as out:
        out.write(data)
