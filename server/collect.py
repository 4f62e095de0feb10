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

import hashlib
import json
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np

from dicebridge.files import write_whole
from mechanics.reading import faces_of, normalise_face
from server.diesets import DieSetStore, side_by_side
from vision.cluster import Groups, Taught, teach_shown
from vision.pixels import FrameError, decode_file, read_image, write_image
from vision.reader import DiceReader
from vision.teach import DIE_TYPES, DieSet, DieSetError, reading_die
from vision.tray_area import TrayArea, on_tray

GROUPS = "groups"
VIEWS = 3  # pictures taught per group, at most
SHOWN = 3  # pictures of a group shown to name it by
LIKE = 3  # a throw is kept where its die looks like the first this many pictures kept


class Regrouped(DieSetError):
    """The groups named are not the groups there now (made again meanwhile): 409."""


class FaceCollector:
    def __init__(self, data_dir: Path, store: DieSetStore) -> None:
        self.folder = Path(data_dir) / "collect"
        self._store = store
        self._lock = threading.Lock()  # guards the attributes below; taken inside a set's lock
        self._active: tuple[str, str] | None = None  # (set name, die) while collecting
        # one lock a set, held while its folder is read or changed: two teaches at once had
        # filled one folder with both's labels, and a group made while teaching read the
        # groups half removed
        self._sets: dict[str, threading.Lock] = {}
        self._starts: dict[str, int] = {}  # a set's collections started: grouping one is
        # not written over the next's pictures

    def _path(self, name: str) -> Path:
        self._store.path(name)  # the same names as die sets (DieSetError otherwise)
        return self.folder / name

    def _held(self, name: str) -> threading.Lock:
        """Set ``name``'s lock (``name`` checked first: no lock is made for a bad name)."""
        self._path(name)
        with self._lock:
            return self._sets.setdefault(name, threading.Lock())

    def start(self, name: str, die: str) -> dict[str, Any]:
        """Collect from now on for ``name``, a set of ``die`` (earlier pictures are dropped)."""
        if die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {die!r}")
        path = self._path(name)
        with self._held(name):
            with self._lock:
                self._starts[name] = self._starts.get(name, 0) + 1
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)
            # whole or not at all: a power cut while starting leaves no half-written file
            write_whole(path / "collect.json", json.dumps({"name": name, "die": die}).encode())
            with self._lock:
                self._active = (name, die)
            return self._describe(name)

    def stop(self, name: str | None = None) -> None:
        """Stop collecting; with ``name``, only where that set is the one being collected
        for (checked and stopped at once: another request may start another meanwhile).
        Once stopped, no picture is kept (a throw being kept is waited for)."""
        with self._lock:
            target = self._active[0] if self._active else None
        if target is None or (name is not None and name != target):
            return
        with self._held(target), self._lock:
            if self._active is not None and self._active[0] == target:
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
        name, die = active
        path = self.folder / name
        region = DieSet.region(image, found[0].box)
        with self._held(name):
            with self._lock:
                if self._active != active:  # stopped, or started again, meanwhile
                    return "not collecting"
            kept = _numbered(path)
            if unlike := _unlike(kept[:LIKE], region, die):
                return (f"not kept: {unlike} the first {min(len(kept), LIKE)} pictures kept: "
                        f"throw the {die} collected for (if those are of another die, start "
                        "collecting again)")  # fmt: skip
            # after the highest number, not the count: with a picture removed by hand, the
            # count named the last picture kept, and every throw was written over it
            number = int(kept[-1].stem) + 1 if kept else 0
            write_image(path / f"{number:03d}.png", region)
            return f"picture {len(list(path.glob('*.png')))} kept for {name}"

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
        with self._held(name):
            return self._describe(name)

    def _describe(self, name: str) -> dict[str, Any]:
        """What was collected for ``name``; its ``grouping`` names the groups as they are
        (teach is given it back: groups made again meanwhile are not taught by old names)."""
        meta = self._meta(name)
        path = self._path(name)
        with self._lock:
            collecting = self._active is not None and self._active[0] == name
        return {
            "name": name, "die": meta["die"], "collecting": collecting,
            "pictures": len(list(path.glob("*.png"))),
            "groups": [{"group": int(g.name[len("group-"):]),
                        "pictures": len(list(g.glob("*.png")))} for g in _groups(path)],
            "grouping": _grouping(path),
        }  # fmt: skip

    def group(self, name: str) -> dict[str, Any]:
        """Sort the pictures into groups by the face they show (at most one per face)."""
        with self._held(name):
            meta = self._meta(name)
            path = self._path(name)
            with self._lock:
                started = self._starts.get(name)
            read = [decode_file(p) for p in sorted(path.glob("*.png")) if p.is_file()]
        regions: list[np.ndarray] = [r for r in read if r is not None]
        faces = len(faces_of(reading_die(meta["die"])))
        if len(regions) < faces:
            raise DieSetError(f"{len(regions)} pictures collected: throw the {meta['die']} at "
                              f"least {faces} times (two or three times that is best)")  # fmt: skip
        # sorted with the set's lock let go: it takes seconds, and throws go on being kept
        groups = Groups.of(regions, meta["die"])
        with self._held(name):
            with self._lock:
                again = self._starts.get(name) != started
            if again or not (path / "collect.json").is_file():
                raise Regrouped("collecting was started again while grouping: group the new "
                                "pictures")  # fmt: skip
            shutil.rmtree(path / GROUPS, ignore_errors=True)
            groups.write(path / GROUPS)
            return self._describe(name)

    def picture(self, name: str, group: int) -> bytes:
        """A group's first few pictures side by side, cut close around the die, as PNG
        (what the owner names the group by; several, so a group that mixes two faces shows)."""
        with self._held(name):
            first = sorted(_group(self._path(name), group).glob("*.png"))[:SHOWN]
            if not first:
                raise LookupError(f"{name!r} has no group {group}")
            try:
                pictures = [read_image(path, "a collected picture") for path in first]
            except FrameError as err:
                raise LookupError(str(err)) from None
        return side_by_side(pictures)

    def teach(self, name: str, values: dict[int, int], grouping: str) -> Taught:
        """Teach the named groups (group -> face value) into the die set ``name``; two groups
        may name one face (a face seen two ways).  ``grouping``: the groups' as the owner saw
        them named (describe's); Regrouped where they were made again since.  Its notes: what
        to check (a group holding another die's pictures)."""
        if not values:
            raise DieSetError("name at least one group's face")
        shown: list[tuple[int, np.ndarray, str]] = []
        with self._held(name):  # the groups read as named, none made again halfway
            meta = self._meta(name)
            reads_as = reading_die(meta["die"])
            path = self._path(name)
            for value in values.values():  # every name checked before any group is read
                if normalise_face(reads_as, value) not in faces_of(reads_as):
                    raise DieSetError(f"a {meta['die']} has no face {value}")
            if not _groups(path):
                raise DieSetError("there are no groups: group the pictures first")
            if grouping != _grouping(path):
                raise Regrouped("regrouped since: look at the groups again (the pictures were "
                                "grouped again after these names were given)")  # fmt: skip
            for group, value in values.items():
                source = _group(path, group)
                if not source.is_dir():
                    raise DieSetError(f"there is no group {group}: group the pictures first")
                face = normalise_face(reads_as, value)
                # a few views per face: each one taught makes reading a little slower
                for png in sorted(source.glob("*.png"))[:VIEWS]:
                    try:
                        region = read_image(png, "a grouped picture")
                    except FrameError as err:
                        raise DieSetError(str(err)) from None
                    shown.append((face, region, f"group {group} ({png.name})"))
        if not shown:
            raise DieSetError("the groups named hold no pictures: group the pictures again")
        # taught from what was read, in memory: no folder shared with a teach running beside
        taught = teach_shown(shown, name, meta["die"])
        self._store.save(taught.dieset)
        return taught


def _numbered(path: Path) -> list[Path]:
    """The pictures kept in ``path`` (named by number), in the order kept."""
    kept = [p for p in path.glob("*.png") if re.fullmatch(r"\d+", p.stem)]
    return sorted(kept, key=lambda p: int(p.stem))


def _unlike(kept: list[Path], region: np.ndarray, die: str) -> str:
    """How the die in ``region`` is unlike those in the pictures ``kept`` ("its colour is
    not that of"; "" where it is not): a d20 thrown while collecting for a d5 would be
    grouped with one of its faces and taught as that face."""
    probe = DieSet("probe", die)
    face = faces_of(reading_die(die))[0]  # any: colour and outline are compared, not faces
    for png in kept:
        if (seen := decode_file(png)) is not None:
            probe.teach(face, seen)
    return probe.unlike_crop(region)


def _groups(path: Path) -> list[Path]:
    """The group folders (as Groups.write names them; a folder made by hand is no group)."""
    folder = path / GROUPS
    if not folder.is_dir():
        return []
    return sorted(g for g in folder.iterdir() if re.fullmatch(r"group-\d+", g.name) and g.is_dir())


def _grouping(path: Path) -> str:
    """What the groups hold now, in 16 hex digits ("" where there are none): groups made
    again (more pictures since, or moved by hand) are numbered anew, largest first, so names
    given to the old numbers would teach other faces."""
    if not (groups := _groups(path)):
        return ""
    digest = hashlib.sha256()
    for group in groups:
        for png in sorted(group.glob("*.png")):
            digest.update(f"{group.name}/{png.name}\0".encode())
            digest.update(hashlib.sha256(png.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _group(path: Path, group: int) -> Path:
    """Group ``group``'s folder of pictures (as vision.cluster.Groups.write names them)."""
    return path / GROUPS / f"group-{group:02d}"
