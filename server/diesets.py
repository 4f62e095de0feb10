"""The taught die sets of one appliance: `DATA_DIR/diesets/<name>/`, one folder per set.

The camera source reads with whatever sets are here (reloaded when one
changes); the Devices page teaches a face from the camera's last settled
throw (admin only).  Both get this store as an argument.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.reader import DiceReader
from vision.teach import DIE_TYPES, MARGIN, DieSet, DieSetError, checked_face
from vision.tray_area import TrayArea, on_tray

PICTURE = 128  # px: a taught or collected photo's side as the Devices page shows it
CLOSER = 1.25  # ... cut to this many times the finder's box around the die (it is a
# square MARGIN times the box: the die was a quarter of it, its numeral a few pixels)
MEND = (
    'teach it again (the Devices page\'s "Teach the named groups" replaces it), or remove '
    "it on the Devices page"
)


class DieSetStore:
    def __init__(self, data_dir: Path) -> None:
        self.folder = Path(data_dir) / "diesets"
        self._lock = threading.Lock()
        self._writing = threading.RLock()  # one change at a time: two faces taught at once
        # each loaded the set, added theirs and saved it, and one of the two was lost
        # name -> (modification times, the set or why it cannot be loaded)
        self._loaded: dict[str, tuple[tuple[int, int], DieSet | str]] = {}

    def path(self, name: str) -> Path:
        """Where set ``name`` lives (DieSetError for a name that cannot be a folder)."""
        return self._path(name)

    def save(self, dieset: DieSet) -> None:
        """Keep ``dieset`` under its name (the camera reads with it from the next throw)."""
        with self._writing:
            dieset.save(self._path(dieset.name))

    def _path(self, name: str) -> Path:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", name):
            raise DieSetError("a die set's name is 1–40 lower-case letters, digits and dashes")
        return self.folder / name

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.iterdir() if (p / "dieset.json").is_file())

    def get(self, name: str) -> DieSet:
        """Set ``name``, loaded again when its folder changes; DieSetError when it is not
        there or cannot be loaded (a face's picture gone, a half-written dieset.json)."""
        path = self._path(name)
        meta = path / "dieset.json"
        if not meta.is_file():
            raise DieSetError(f"no die set {name!r}")
        with self._lock:
            # a face's picture put back changes the folder, not dieset.json
            stamp = (meta.stat().st_mtime_ns, path.stat().st_mtime_ns)
            cached = self._loaded.get(name)
            if cached is None or cached[0] != stamp:
                try:
                    loaded: DieSet | str = DieSet.load(path)
                except DieSetError as err:
                    loaded = str(err)  # kept, so a spoilt set is not read again every throw
                cached = (stamp, loaded)
                self._loaded[name] = cached
        if isinstance(cached[1], str):
            raise DieSetError(cached[1])
        return cached[1]

    def describe(self) -> list[dict[str, Any]]:
        """Every set as the API shows it; one that cannot be loaded says why (``problem``)."""
        out = []
        for name in self.names():
            try:
                out.append(summary(self.get(name)))
            except DieSetError as err:
                out.append({"name": name, "die": "", "taught": [], "missing": [], "once": [],
                            "problem": f"{err}: {MEND}"})  # fmt: skip
        return out

    def teach(
        self,
        name: str,
        die: str,
        value: int,
        image: np.ndarray,
        reader: DiceReader,
        area: TrayArea | None = None,
    ) -> tuple[DieSet, str]:
        """Teach ``value`` from the one die in ``image`` (a settled frame; ``area``: the
        tray's, dice beyond it do not count) and save the set; with it, what a person should
        check ("": nothing; see DieSet.teach)."""
        if die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {die!r}")
        path = self._path(name)
        checked_face(die, value)  # said first: not "show one die" for a face it lacks
        found = on_tray(reader.find(image), area, image.shape[1], image.shape[0])
        with self._writing:
            # a copy of its own, not the one the camera's thread reads with
            dieset = DieSet.load(path) if (path / "dieset.json").is_file() else DieSet(name, die)
            if dieset.die != die:
                raise DieSetError(f"{name!r} is a set of {dieset.die}, not {die}")
            if len(found) != 1:
                raise DieSetError(
                    f"show exactly one die to teach a face; the camera sees {len(found)}"
                )
            note = dieset.teach(value, DieSet.region(image, found[0].box))
            dieset.save(path)
        return dieset, "; ".join(filter(None, (note, dieset.aside_note())))

    def face_picture(self, name: str, value: int) -> bytes:
        """The photos face ``value`` of set ``name`` was taught from, side by side (PNG,
        PICTURE px each), to check what was shown; DieSetError when there is no such face."""
        dieset = self.get(name)
        crops = dieset.crops.get(value)
        if not crops:
            raise DieSetError(f"face {value} of {name!r} is not taught")
        return side_by_side(crops, dieset.margin)

    def forget(self, name: str, value: int) -> DieSet:
        """Forget face ``value`` of set ``name`` (shown as another face by mistake): it is
        then still to show.  DieSetError when there is no such set or face."""
        path = self._path(name)
        with self._writing:
            if not (path / "dieset.json").is_file():
                raise DieSetError(f"no die set {name!r}")
            dieset = DieSet.load(path)  # a copy of its own, not the one the camera reads with
            dieset.forget(value)
            dieset.save(path)
        return dieset

    def remove(self, name: str) -> None:
        """Remove set ``name`` and its pictures (the camera no longer reads with it from the
        next throw); DieSetError when there is no such set.  A set spoilt on disk can be
        removed too."""
        path = self._path(name)
        with self._writing, self._lock:
            if not (path / "dieset.json").is_file():
                raise DieSetError(f"no die set {name!r}")
            shutil.rmtree(path)
            self._loaded.pop(name, None)

    def use_in(self, reader: DiceReader) -> list[str]:
        """Give ``reader`` every set here (the newest taught state), by die type; a set that
        cannot be loaded is left out, and what is returned says why, one line a set (the
        other sets and pip dice are read as usual); so does what to check in a set that is
        used (DieSet.aside_note: taught through a camera at a steep slant, or on a tray that
        cut its dice's outlines)."""
        reader.diesets = {}
        said = []
        for name in self.names():
            try:
                dieset = self.get(name)
                reader.add_dieset(dieset)
            except DieSetError as err:
                if not (self.folder / name / "dieset.json").is_file():
                    continue  # removed since it was listed
                said.append(f"die set {name!r} is not used ({err}): {MEND}")
                continue
            if note := dieset.aside_note():
                said.append(f"die set {name!r}: {note}")
        return said


def side_by_side(regions: list[np.ndarray], margin: float = MARGIN) -> bytes:
    """Taught or collected pictures as a person looks at them (PNG): each the square around
    its die ``margin`` times the finder's box, cut closer (the die fills most of it, so a
    d20's numeral is legible) and PICTURE px, side by side."""
    shown = []
    for region in regions:
        side = min(region.shape[:2])
        keep = max(1, round(side * min(1.0, CLOSER / margin)))
        top, left = (region.shape[0] - keep) // 2, (region.shape[1] - keep) // 2
        middle = region[top : top + keep, left : left + keep]
        shown.append(cv2.resize(middle, (PICTURE, PICTURE), interpolation=cv2.INTER_CUBIC))
    ok, png = cv2.imencode(".png", np.hstack(shown))
    if not ok:  # (pictures OpenCV itself read or cut encode)
        raise DieSetError("the pictures cannot be shown")
    return png.tobytes()


def summary(dieset: DieSet) -> dict[str, Any]:
    """A set as the API shows it: its name, die, the faces taught, those still to show, and
    those shown once (shown again, turned, fewer dice are left to confirm); ``problem`` is
    empty (DieSetStore.describe fills it for a set that cannot be loaded)."""
    return {"name": dieset.name, "die": dieset.die, "taught": sorted(dieset.crops),
            "missing": dieset.missing(), "once": dieset.shown_once(), "problem": ""}  # fmt: skip
