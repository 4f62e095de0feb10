"""Running a command as a user who may not write (or read) what a test made.

The tests run as root here, and root's file-permission override reads and writes
whatever the mode bits say: a folder made read-only stops no one.  As root the
command runs as nobody (setpriv, from util-linux); as anyone else the test's
chmod already stops them, and the command runs as they are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


def as_unprivileged(argv: Sequence[str]) -> list[str]:
    """``argv`` as a command that lacks root's override; skips the test where none can be
    made (root without setpriv, or this project's Python not runnable as nobody)."""
    if os.geteuid() != 0:
        return list(argv)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): no way to run a command "
                    "without root's file-permission override")  # fmt: skip
    drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    trial = subprocess.run([*drop, sys.executable, "-c", "import server"], cwd=ROOT,
                           capture_output=True, text=True)  # fmt: skip
    if trial.returncode != 0:
        pytest.skip(f"this project's Python cannot run as nobody here: {trial.stderr[-300:]}")
    return [*drop, *argv]


def run_unprivileged(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(as_unprivileged(argv), cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


@contextmanager
def open_folder() -> Iterator[Path]:
    """A new folder others may enter and read (mode 0755): pytest's tmp_path lies under
    folders only its owner may enter, so nobody could not reach it."""
    closed = [p for p in Path(tempfile.gettempdir()).resolve().parents if not p.stat().st_mode & 1]
    if closed or not Path(tempfile.gettempdir()).stat().st_mode & 1:
        pytest.skip(f"the temporary folder {tempfile.gettempdir()} is closed to other users")
    folder = Path(tempfile.mkdtemp(prefix="dicebridge-test-"))
    try:
        folder.chmod(0o755)
        yield folder
    finally:
        for path in (folder, *folder.rglob("*")):  # a test may leave them read-only
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)
