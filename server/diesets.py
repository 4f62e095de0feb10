"""The taught die sets of one appliance: `DATA_DIR/diesets/<name>/`, one folder per set.

The camera source reads with whatever sets are here (reloaded when one
changes); the Devices page teaches a face from the camera's last settled
throw (admin only).  Both get this store as an argument.  A set is named by
its folder, whatever its dieset.json says (a set copied in under another
name): that is the name it is listed, read, mended and removed by.
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
from vision.teach_cli import SET_NAME, SET_RULE
from vision.tray_area import TrayArea, on_tray

PICTURE = 128  # px: a taught or collected photo's side as the Devices page shows it
CLOSER = 1.25  # ... cut to this many times the finder's box around the die (it is a
# square MARGIN times the box: the die was a quarter of it, its numeral a few pixels)
MEND = (
    'teach it again (the Devices page\'s "Teach the named groups" replaces it), or remove '
    "it on the Devices page"
)
EMPTY = "no faces taught yet: teach its faces or remove it"  # not read with (every die of its
# type would fail to be read)


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
        """The folder of set ``name``, new or not: a name by the rule (SET_NAME)."""
        if not re.fullmatch(SET_NAME, name):
            raise DieSetError(f"a die set's name is {SET_RULE}")
        return self.folder / name

    def _listed(self, name: str) -> Path:
        """The folder of the listed set ``name``, whatever its name (one copied in under a
        name that breaks the rule can be looked at, mended and removed): one of this
        store's folders, never a path elsewhere (``..``, ``a/b``, an absolute path);
        DieSetError where there is no such set."""
        path = self.folder / name
        if name in ("", ".", "..") or "/" in name or path.name != name:
            raise DieSetError(f"no die set {name!r}")
        if not (path / "dieset.json").is_file():  # as names() lists them
            raise DieSetError(f"no die set {name!r}")
        return path

    def names(self) -> list[str]:
        """Every set's folder name (each set's name), sorted."""
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.iterdir() if (p / "dieset.json").is_file())

    def get(self, name: str) -> DieSet:
        """Set ``name``, loaded again when its folder changes; DieSetError when it is not
        there or cannot be loaded (a face's picture gone, a half-written dieset.json).  Its
        name is its folder's, whatever dieset.json says."""
        path = self._listed(name)
        meta = path / "dieset.json"
        with self._lock:
            # a face's picture put back changes the folder, not dieset.json
            stamp = (meta.stat().st_mtime_ns, path.stat().st_mtime_ns)
            cached = self._loaded.get(name)
            if cached is None or cached[0] != stamp:
                try:
                    loaded: DieSet | str = _load(path)
                except DieSetError as err:
                    loaded = str(err)  # kept, so a spoilt set is not read again every throw
                cached = (stamp, loaded)
                self._loaded[name] = cached
        if isinstance(cached[1], str):
            raise DieSetError(cached[1])
        return cached[1]

    def describe(self) -> list[dict[str, Any]]:
        """Every set as the API shows it; ``problem`` says why one is not read with (it
        cannot be loaded, has no face taught, or its folder's name breaks the rule), or why
        no face can be added to it (taught by an older version: DieSet.older_note)."""
        out = []
        for name in self.names():
            try:
                dieset = self.get(name)
            except DieSetError as err:
                out.append({"name": name, "die": "", "taught": [], "missing": [], "once": [],
                            "problem": f"{err}: {MEND}"})  # fmt: skip
                continue
            problem = unused(name, dieset) or dieset.older_note()
            out.append(summary(dieset) | {"problem": problem})
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
        check ("": nothing; see DieSet.teach).  DieSetError where it cannot be taught (into
        a set of the older format: DieSet.older_note); OSError where it cannot be written (a
        full disk: the set is left as it was)."""
        if die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {die!r}")
        path = self._path(name)
        checked_face(die, value)  # said first: not "show one die" for a face it lacks
        found = on_tray(reader.find(image), area, image.shape[1], image.shape[0])
        with self._writing:
            # a copy of its own, not the one the camera's thread reads with
            dieset = _load(path) if (path / "dieset.json").is_file() else DieSet(name, die)
            if not dieset.crops:  # every face forgotten: no crop is cut at its old margin
                dieset.margin = MARGIN
            if dieset.die != die:
                raise DieSetError(f"{name!r} is a set of {dieset.die}, not {die}")
            if older := dieset.older_note():  # a face cut now would never be read in it
                raise DieSetError(f"{name!r}: {older}")
            if len(found) != 1:
                raise DieSetError(
                    f"show exactly one die to teach a face; the camera sees {len(found)}"
                )
            note = dieset.teach(value, DieSet.region(image, found[0].box))
            new = not (path / "dieset.json").is_file()
            try:
                dieset.save(path)  # OSError (a full disk): the set on disk is as it was ...
            except OSError:
                if new:  # ... and a new one is not begun
                    shutil.rmtree(path, ignore_errors=True)
                raise
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
        then still to show (the set's last face forgotten, the set is not read with until
        one is taught).  DieSetError when there is no such set or face; OSError where it
        cannot be written (a full disk: the set is left as it was)."""
        with self._writing:
            path = self._listed(name)
            dieset = _load(path)  # a copy of its own, not the one the camera reads with
            dieset.forget(value)
            dieset.save(path)
        return dieset

    def remove(self, name: str) -> None:
        """Remove set ``name`` and its pictures (the camera no longer reads with it from the
        next throw); DieSetError when there is no such set.  A set spoilt on disk, or whose
        folder's name breaks the rule, can be removed too."""
        with self._writing, self._lock:
            path = self._listed(name)
            shutil.rmtree(path)
            self._loaded.pop(name, None)

    def use_in(self, reader: DiceReader) -> list[str]:
        """Give ``reader`` every set here (the newest taught state), by die type; a set that
        cannot be loaded, has no face taught yet, or whose folder's name breaks the rule is
        left out, and what is returned says why, one line a set (the other sets and pip dice
        are read as usual); so does what to check in a set that is used (DieSet.aside_note:
        taught through a camera at a steep slant, or on a tray that cut its dice's
        outlines)."""
        reader.diesets = {}
        said = []
        for name in self.names():
            try:
                dieset = self.get(name)
            except DieSetError as err:
                if not (self.folder / name / "dieset.json").is_file():
                    continue  # removed since it was listed
                said.append(f"die set {name!r} is not used ({err}): {MEND}")
                continue
            if why := unused(name, dieset):
                said.append(f"die set {name!r} is not used: {why}")
                continue
            reader.add_dieset(dieset)
            if note := dieset.aside_note():
                said.append(f"die set {name!r}: {note}")
        return said


def unused(name: str, dieset: DieSet) -> str:
    """Why the set ``dieset``, loaded from the folder ``name``, is not read with ("" where
    it is): no face is taught yet (every die of its type would fail to be read: DieSet.match
    has nothing to compare), or its folder's name breaks the rule (the Devices page could
    not teach it)."""
    if not re.fullmatch(SET_NAME, name):
        return (f"its folder's name is not a die set's name ({SET_RULE}): rename the folder, "
                "or remove it on the Devices page")  # fmt: skip
    if not dieset.crops:
        return EMPTY
    return ""


def _load(folder: Path) -> DieSet:
    """The set in ``folder``, named by the folder (its dieset.json may name it otherwise:
    a set copied in, or two copies of one set)."""
    dieset = DieSet.load(folder)
    dieset.name = folder.name
    return dieset


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
