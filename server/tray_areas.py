"""The tray's area in the camera's picture, as marked on the Devices page or in the settings.

Marked on the page (admin only) it is kept in `DATA_DIR/tray-area.json` and used
from then on, across restarts, in place of the settings' `tray_area`; "use the
whole picture" deletes that file and goes back to the settings' area, or to none
(the whole picture is the tray).  Dice outside the area are no part of a throw
(vision/tray_area.py).  The camera's last settled frame when the area is marked
is kept beside it (`tray-area.png`): a camera knocked since moves the tray in
its picture, and the area moves with it (:meth:`TrayAreaStore.in_picture`: for
reading, teaching and the empty-tray picture alike; the camera says so once).
The camera source and the API get this store as an argument.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import threading
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from dicebridge.files import sync_folder, write_whole
from server.file_cache import FileCache
from vision.pixels import FrameError, as_bgr8, decode_file, encode_image
from vision.settle import shift_seen
from vision.tray_area import TrayArea, TrayAreaError
from vision.view_change import Reference

FILE = "tray-area.json"
PICTURE = "tray-area.png"  # the picture the area was marked on, where there was one
SHIFT = 0.01  # of the picture's width: a camera moved this far moves the tray's area


class Placed(NamedTuple):
    """Where the tray's area lies in a frame (:meth:`TrayAreaStore.in_picture`)."""

    area: TrayArea | None
    moved: float  # pixels it was moved with the camera (0: it was not)
    lost: bool = False  # the frame is not the view it was marked on, and not followed


def _read_area(path: Path) -> TrayArea:
    try:
        points = json.loads(path.read_text(encoding="utf-8"))["points"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise TrayAreaError(f"cannot read the tray area in {path}: {err}") from None
    return TrayArea.parse(points)


def _read_picture(path: Path) -> np.ndarray | None:
    try:
        return decode_file(path)
    except (OSError, FrameError):  # removed since its stat, or not its picture: as if never taken
        return None


class TrayAreaStore:
    def __init__(self, data_dir: Path, configured: TrayArea | None = None) -> None:
        self.path = Path(data_dir) / FILE
        self.configured = configured
        self._lock = threading.Lock()
        self._marked = FileCache(self.path, _read_area)  # the area marked on the page
        self.picture_path = Path(data_dir) / PICTURE
        self._picture = FileCache(self.picture_path, _read_picture)
        self._reference: Reference | None = None  # the marked picture made ready to match

    def current(self) -> TrayArea | None:
        """The area in use: the one marked on the page, else the settings' one, else None
        (the whole picture).  A marked file that cannot be read is TrayAreaError."""
        with self._lock:
            marked = self._marked.get()
            return marked if marked is not None else self.configured

    def describe(self) -> dict[str, Any]:
        """Which area is in use ("marked", "settings" or "whole": the whole picture), and
        its corners; a marked file that cannot be read is none in use, ``problem`` says why."""
        with self._lock:
            try:
                marked = self._marked.get()
            except TrayAreaError as err:  # the camera reads the whole picture (CameraSource)
                said = f"{err}: mark the area again, or use the whole picture"
                return {"in_use": "whole", "points": None, "problem": said}
        area, in_use = (marked, "marked") if marked is not None else (self.configured, "settings")
        if area is None:
            return {"in_use": "whole", "points": None}
        return {"in_use": in_use, "points": area.to_list(), "share": round(area.share(), 3)}

    def picture(self) -> np.ndarray | None:
        """The camera's frame the marked area was marked on (None: none was kept, or it
        cannot be read: then the area is not moved with the camera)."""
        with self._lock:
            return self._picture.get()

    def in_picture(self, image: np.ndarray) -> Placed:
        """The area in use where the tray lies in ``image``, how far it was moved there, and
        whether the view was lost.  Measured against the frame the area was marked on: the
        tray's rim matched (vision.view_change: a camera turned or tilted), else the whole
        picture's shift (phase correlation: a plain tray knocked sideways); from SHIFT of
        the picture's width the area moves with it.  Where neither finds the picture it was
        marked on, the area stays where it was marked and ``lost`` is True.  TrayAreaError
        as for :meth:`current`."""
        area = self.current()
        marked_on = self.picture() if area is not None else None
        if area is None or marked_on is None or marked_on.shape != image.shape:
            return Placed(area, 0.0)
        h, w = image.shape[:2]
        change = self._reference_for(marked_on, area).change(image)
        if change.homography is not None:
            moved = change.moved(area, w, h)
            if moved < SHIFT * w:
                return Placed(area, 0.0)
            return Placed(area.warped(change.homography, w, h), moved)
        dx, dy, same = shift_seen(marked_on, image)
        moved = math.hypot(dx, dy)
        if not same:
            return Placed(area, 0.0, lost=True)
        return Placed(area.moved(dx, dy, w, h), moved) if moved >= SHIFT * w else Placed(area, 0.0)

    def _reference_for(self, picture: np.ndarray, area: TrayArea) -> Reference:
        """``picture`` made ready to match with ``area``'s rim, kept while both stay the same
        (the file cache hands out one array until the file changes)."""
        with self._lock:
            kept = self._reference
            if kept is None or kept.picture is not picture or kept.area != area:
                kept = self._reference = Reference.of(picture, area)
            return kept

    def mark(self, points: Any, frame: Any = None) -> dict[str, Any]:
        """Keep ``points`` ([[x, y], ...], shares of the picture) as the tray's area, and
        ``frame`` (the camera's picture it was marked on, where there is one) beside it;
        TrayAreaError where they make none, OSError where they cannot be written (nothing
        changed either way)."""
        area = TrayArea.parse(points)
        data = b""
        if frame is not None:
            try:
                data = encode_image(as_bgr8(frame, "the camera's last frame"))
            except FrameError:
                data = b""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # both new files are written whole before the old ones go: a full disk (OSError)
        # leaves the area in use and the picture it follows the camera by as they were
        staged = self.picture_path.with_name(f".{PICTURE}.{secrets.token_hex(6)}.new")
        try:
            if data:
                write_whole(staged, data, sync_name=False)
            text = json.dumps({"points": area.to_list()}) + "\n"
            write_whole(self.path, text.encode("utf-8"), sync_name=False)  # synced below
            if data:
                os.replace(staged, self.picture_path)
            else:  # an older area's picture is none of this one
                self.picture_path.unlink(missing_ok=True)
            sync_folder(self.picture_path.parent)
        finally:
            staged.unlink(missing_ok=True)
        return self.describe()

    def forget(self) -> dict[str, Any]:
        """Stop using the area marked on the page (the settings' one, if any, takes over)."""
        with self._lock:
            self.path.unlink(missing_ok=True)
            self.picture_path.unlink(missing_ok=True)
            self._marked.forget()
        return self.describe()
