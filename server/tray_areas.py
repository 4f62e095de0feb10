"""The tray's area in the camera's picture, as marked on the Devices page or in the settings.

Marked on the page (admin only) it is kept in `DATA_DIR/tray-area.json` and used
from then on, across restarts, in place of the settings' `tray_area`; "use the
whole picture" deletes that file and goes back to the settings' area, or to none
(the whole picture is the tray).  Dice outside the area are no part of a throw
(vision/tray_area.py).  The camera source and the API get this store as an
argument.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from vision.tray_area import TrayArea, TrayAreaError

FILE = "tray-area.json"


class TrayAreaStore:
    def __init__(self, data_dir: Path, configured: TrayArea | None = None) -> None:
        self.path = Path(data_dir) / FILE
        self.configured = configured
        self._lock = threading.Lock()
        self._marked: tuple[int, TrayArea] | None = None  # (mtime in ns, area) of self.path

    def current(self) -> TrayArea | None:
        """The area in use: the one marked on the page, else the settings' one, else None
        (the whole picture).  A marked file that cannot be read is TrayAreaError."""
        with self._lock:
            marked = self._marked_area()
            return marked if marked is not None else self.configured

    def _marked_area(self) -> TrayArea | None:
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self._marked = None
            return None
        if self._marked is None or self._marked[0] != mtime:
            try:
                points = json.loads(self.path.read_text(encoding="utf-8"))["points"]
            except (OSError, ValueError, KeyError, TypeError) as err:
                raise TrayAreaError(f"cannot read the tray area in {self.path}: {err}") from None
            self._marked = (mtime, TrayArea.parse(points))
        return self._marked[1]

    def describe(self) -> dict[str, Any]:
        """Which area is in use ("marked", "settings" or "whole": the whole picture), and
        its corners; a marked file that cannot be read is none in use, ``problem`` says why."""
        with self._lock:
            try:
                marked = self._marked_area()
            except TrayAreaError as err:  # the camera reads the whole picture (CameraSource)
                said = f"{err}: mark the area again, or use the whole picture"
                return {"in_use": "whole", "points": None, "problem": said}
            if marked is not None:
                return {"in_use": "marked", "points": marked.to_list(),
                        "share": round(marked.share(), 3)}  # fmt: skip
            if self.configured is not None:
                return {"in_use": "settings", "points": self.configured.to_list(),
                        "share": round(self.configured.share(), 3)}  # fmt: skip
            return {"in_use": "whole", "points": None}

    def mark(self, points: Any) -> dict[str, Any]:
        """Keep ``points`` ([[x, y], ...], shares of the picture) as the tray's area;
        TrayAreaError (nothing changed) where they make none."""
        area = TrayArea.parse(points)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"points": area.to_list()}) + "\n", encoding="utf-8")
        tmp.replace(self.path)  # whole or not at all
        return self.describe()

    def forget(self) -> dict[str, Any]:
        """Stop using the area marked on the page (the settings' one, if any, takes over)."""
        with self._lock:
            self.path.unlink(missing_ok=True)
            self._marked = None
        return self.describe()
