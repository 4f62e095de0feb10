"""The camera's empty-tray picture: the one named in the settings, or one taken from the page.

With a picture of the empty tray the finder keeps only what changed since
(docs/vision.md, "Empty-tray reference"); under other light than the
picture's it drops more real dice, so the picture must be easy to retake.
The Devices page takes it from the camera's last settled frame (admin only):
`DATA_DIR/empty-tray.png`, used from then on, across restarts, in place of the
settings' file; "stop using it" deletes that file and goes back to the
settings' picture, or to none.  The camera source and the API get this store
as an argument.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dicebridge.files import write_whole
from server.file_cache import FileCache
from vision.pixels import FrameError, as_bgr8, encode_image, read_image
from vision.reader import DiceReader
from vision.tray_area import TrayArea, dice_on_empty_tray

FILE = "empty-tray.png"


class EmptyTrayError(ValueError):
    """A picture that cannot serve as the empty tray (dice on it, unreadable, bad frame)."""


def read_picture(path: Path) -> np.ndarray:
    """An empty-tray photo from disk; EmptyTrayError saying why when it cannot be read."""
    try:
        return read_image(path, "the empty-tray photo")
    except FrameError as err:
        raise EmptyTrayError(f"cannot read the empty-tray photo: {err}") from None


class EmptyTrayStore:
    def __init__(self, data_dir: Path, configured: Path | None = None) -> None:
        self.path = Path(data_dir) / FILE
        self.configured = configured
        self._lock = threading.Lock()
        self._settings_picture = read_picture(configured) if configured is not None else None
        self._taken = FileCache(self.path, read_picture)  # the picture taken on the page

    def current(self) -> np.ndarray | None:
        """The picture in use: the one taken on the page, else the settings' one, else None."""
        with self._lock:
            taken = self._taken.get()
            return taken if taken is not None else self._settings_picture

    def describe(self) -> dict[str, Any]:
        """Which picture is in use ("taken", "settings" or "none"), since when, its size;
        a taken picture that cannot be read is none in use, and ``problem`` says why."""
        with self._lock:
            try:
                taken = self._taken.get()
            except EmptyTrayError as err:  # the camera reads without it (CameraSource)
                return {"in_use": "none", "file": str(self.path), "taken_at": None, "size": None,
                        "problem": f"{err}: take it again, or stop using it"}  # fmt: skip
            if taken is not None and (mtime := self._taken.mtime_ns) is not None:
                at = datetime.fromtimestamp(mtime / 1e9, UTC)
                return {"in_use": "taken", "file": str(self.path),
                        "taken_at": at.isoformat(timespec="seconds"),
                        "size": [taken.shape[1], taken.shape[0]]}  # fmt: skip
            picture = self._settings_picture
            if picture is not None:
                return {"in_use": "settings", "file": str(self.configured), "taken_at": None,
                        "size": [picture.shape[1], picture.shape[0]]}  # fmt: skip
            return {"in_use": "none", "file": None, "taken_at": None, "size": None}

    def take(self, frame: Any, reader: DiceReader, area: TrayArea | None = None) -> dict[str, Any]:
        """Keep ``frame`` (a settled camera frame) as the empty tray.  Refused while the
        finder sees a die on it: a die in the picture would hide every die thrown there.
        ``area``: the tray's area; dice beyond it (on the table round it) do not count."""
        try:
            image = as_bgr8(frame, "the camera's last frame")
        except FrameError as err:
            raise EmptyTrayError(str(err)) from None
        if found := dice_on_empty_tray(reader.finder, image, area):
            many = "a die" if len(found) == 1 else f"{len(found)} dice"
            raise EmptyTrayError(f"clear the tray first: the camera sees {many} on it")
        try:
            data = encode_image(image)
        except FrameError:
            raise EmptyTrayError("the picture could not be encoded as PNG") from None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(self.path, data)  # whole or not at all: a reader never sees half a picture
        return self.describe()

    def forget(self) -> dict[str, Any]:
        """Stop using the picture taken on the page (the settings' one, if any, takes over)."""
        with self._lock:
            self.path.unlink(missing_ok=True)
            self._taken.forget()
        return self.describe()

    def jpeg(self) -> bytes | None:
        """The picture in use as JPEG, for the page to show (None when none can be read)."""
        try:
            picture = self.current()
        except EmptyTrayError:
            return None
        if picture is None:
            return None
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return bytes(data) if ok else None
