"""A file on disk, read again only when it has changed (its modification time): the stores
of pictures and areas taken on the Devices page (server/empty_tray.py, server/tray_areas.py)
read theirs for every throw, and another process may have replaced it meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class FileCache(Generic[T]):
    def __init__(self, path: Path, load: Callable[[Path], T]) -> None:
        self.path = path
        self._load = load
        self._kept: tuple[int, T] | None = None  # (mtime in ns, what ``load`` made of it)

    def get(self) -> T | None:
        """What the file holds now (None: there is no file).  What ``load`` raises for a
        file it cannot read is raised again at each call, until the file is mended."""
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self._kept = None
            return None
        if self._kept is None or self._kept[0] != mtime:
            self._kept = (mtime, self._load(self.path))
        return self._kept[1]

    @property
    def mtime_ns(self) -> int | None:
        """When the file last read was written (None: none is kept)."""
        return None if self._kept is None else self._kept[0]

    def forget(self) -> None:
        self._kept = None
