"""Teaching a numbered die without naming each face: throw it, let the appliance group the
faces, then name the groups (the Devices page; the same steps as `vision cluster` and
`vision teach --from-clusters` on the command line).

While collecting for a set, every settled throw that shows exactly one die keeps
that die's picture under `DATA_DIR/collect/<set>/`.  "Group" sorts the pictures
by the face they show (vision/cluster.py: the reading matcher, average linkage,
at most one group per face); the owner looks at a group's first pictures and names
its value; "teach" teaches every named group at once into the die set (groups
left unnamed are skipped, so a stray group costs nothing).
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np

from dicebridge.files import write_whole
from mechanics.reading import faces_of, normalise_face
from server.diesets import DieSetStore, side_by_side
from vision.cluster import Groups, teach_from_folders
from vision.pixels import FrameError, decode_file, read_image, write_image
from vision.reader import DiceReader
from vision.teach import DIE_TYPES, DieSet, DieSetError, reading_die
from vision.tray_area import TrayArea, on_tray

GROUPS = "groups"
VIEWS = 3  # pictures taught per group, at most
SHOWN = 3  # pictures of a group shown to name it by


class FaceCollector:
    def __init__(self, data_dir: Path, store: DieSetStore) -> None:
        self.folder = Path(data_dir) / "collect"
        self._store = store
        self._lock = threading.Lock()
        self._active: tuple[str, str] | None = None  # (set name, die) while collecting

    def _path(self, name: str) -> Path:
        self._store.path(name)  # the same names as die sets (DieSetError otherwise)
        return self.folder / name

    def start(self, name: str, die: str) -> dict[str, Any]:
        """Collect from now on for ``name``, a set of ``die`` (earlier pictures are dropped)."""
        if die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {die!r}")
        path = self._path(name)
        with self._lock:
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)
            # whole or not at all: a power cut while starting leaves no half-written file
            write_whole(path / "collect.json", json.dumps({"name": name, "die": die}).encode())
            self._active = (name, die)
        return self.describe(name)

    def stop(self, name: str | None = None) -> None:
        """Stop collecting; with ``name``, only where that set is the one being collected
        for (checked and stopped at once: another request may start another meanwhile)."""
        with self._lock:
            if name is None or (self._active is not None and self._active[0] == name):
                self._active = None

    @property
    def collecting(self) -> str | None:
        """The set being collected for, or None."""
        with self._lock:
            return self._active[0] if self._active else None

    def offer(self, image: np.ndarray, reader: DiceReader, area: TrayArea | None = None) -> str:
        """Keep the one die in ``image`` (a settled frame) while collecting: what happened,
        in words for the Devices page.  ``area``: the tray's; what lies beyond it does not
        count (a die left beside the tray)."""
        with self._lock:
            active = self._active
        if active is None:
            return "not collecting"
        found = on_tray(reader.find(image), area, image.shape[1], image.shape[0])
        if len(found) != 1:
            return f"not kept: show one die at a time (the camera sees {len(found)})"
        path = self.folder / active[0]
        with self._lock:
            number = len(list(path.glob("*.png")))
            write_image(path / f"{number:03d}.png", DieSet.region(image, found[0].box))
        return f"picture {number + 1} kept for {active[0]}"

    def _meta(self, name: str) -> dict[str, Any]:
        meta = self._path(name) / "collect.json"
        if not meta.is_file():
            raise DieSetError(f"nothing was collected for {name!r}: start collecting first")
        try:  # spoilt (empty, cut short, edited by hand): said (a 4xx), not a server error
            read = json.loads(meta.read_bytes())
        except ValueError as err:  # not JSON, not UTF-8
            why = f"not JSON: {err}"
        else:
            if isinstance(read, dict) and read.get("die") in DIE_TYPES:
                return dict(read)
            why = "it names no die to teach"
        raise DieSetError(f"cannot read what was collected for {name!r} ({meta.name}, {why}): "
                          "start collecting again")  # fmt: skip

    def describe(self, name: str) -> dict[str, Any]:
        meta = self._meta(name)
        path = self._path(name)
        groups = sorted((path / GROUPS).glob("group-*")) if (path / GROUPS).is_dir() else []
        return {
            "name": name, "die": meta["die"],
            "collecting": self._active is not None and self._active[0] == name,
            "pictures": len(list(path.glob("*.png"))),
            "groups": [{"group": int(g.name.split("-")[1]), "pictures": len(list(g.glob("*.png")))}
                       for g in groups],
        }  # fmt: skip

    def group(self, name: str) -> dict[str, Any]:
        """Sort the pictures into groups by the face they show (at most one per face)."""
        meta = self._meta(name)
        path = self._path(name)
        read = [decode_file(p) for p in sorted(path.glob("*.png")) if p.is_file()]
        regions: list[np.ndarray] = [r for r in read if r is not None]
        faces = len(faces_of(reading_die(meta["die"])))
        if len(regions) < faces:
            raise DieSetError(f"{len(regions)} pictures collected: throw the {meta['die']} at "
                              f"least {faces} times (two or three times that is best)")  # fmt: skip
        shutil.rmtree(path / GROUPS, ignore_errors=True)
        Groups.of(regions, meta["die"]).write(path / GROUPS)
        return self.describe(name)

    def picture(self, name: str, group: int) -> bytes:
        """A group's first few pictures side by side, cut close around the die, as PNG
        (what the owner names the group by; several, so a group that mixes two faces shows)."""
        first = sorted(_group(self._path(name), group).glob("*.png"))[:SHOWN]
        if not first:
            raise LookupError(f"{name!r} has no group {group}")
        try:
            return side_by_side([read_image(path, "a collected picture") for path in first])
        except FrameError as err:
            raise LookupError(str(err)) from None

    def teach(self, name: str, values: dict[int, int]) -> DieSet:
        """Teach the named groups (group -> face value) into the die set ``name``; two groups
        may name one face (a face seen two ways)."""
        meta = self._meta(name)
        reads_as = reading_die(meta["die"])
        if not values:
            raise DieSetError("name at least one group's face")
        path = self._path(name)
        named = path / "named"
        shutil.rmtree(named, ignore_errors=True)
        for group, value in values.items():
            face = normalise_face(reads_as, value)
            if face not in faces_of(reads_as):
                raise DieSetError(f"a {meta['die']} has no face {value}")
            source = _group(path, group)
            if not source.is_dir():
                raise DieSetError(f"there is no group {group}: group the pictures first")
            (named / str(face)).mkdir(parents=True, exist_ok=True)
            # a few views per face: each one taught makes reading a little slower
            for k, png in enumerate(sorted(source.glob("*.png"))[:VIEWS]):
                shutil.copy(png, named / str(face) / f"{group:02d}-{k:03d}.png")
        dieset = teach_from_folders(named, name, meta["die"])
        self._store.save(dieset)
        return dieset


def _group(path: Path, group: int) -> Path:
    """Group ``group``'s folder of pictures (as vision.cluster.Groups.write names them)."""
    return path / GROUPS / f"group-{group:02d}"
