"""Teaching without labels: group a few dozen throws of one die by the face they show.

The owner throws one numbered die some dozens of times; every pair of the
dice seen is compared with the same matcher that reads (over all turns), and
average-linkage clustering makes at most one group per face the die has.
The groups are written as folders of crops; the owner renames each folder to
the value its face shows, and `dicebridge vision teach --from-clusters`
teaches them all at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mechanics.reading import faces_of
from vision.pixels import FrameError, read_image, write_image
from vision.teach import FACE_NAME, DieSet, DieSetError, reading_die


def similarity(regions: list[np.ndarray], die: str) -> np.ndarray:
    """How alike each pair of dice looks to the reading matcher (1 on the diagonal)."""
    n = len(regions)
    scores = np.eye(n)
    for i, region in enumerate(regions):
        probe = DieSet("probe", die)
        probe.teach(faces_of(reading_die(die))[0], region)
        for j in range(i + 1, n):
            match = probe.match(regions[j])
            scores[i, j] = scores[j, i] = match.score if match.seen else 0.0
    return scores


@dataclass
class Groups:
    die: str
    members: list[list[np.ndarray]] = field(default_factory=list)  # regions per group

    @classmethod
    def of(cls, regions: list[np.ndarray], die: str) -> Groups:
        """Average-linkage groups, at most one per face the die has."""
        from scipy.cluster.hierarchy import fcluster, linkage
        from scipy.spatial.distance import squareform

        if len(regions) < 2:
            return cls(die, [list(regions)] if regions else [])
        distance = 1.0 - similarity(regions, die)
        np.fill_diagonal(distance, 0.0)
        tree = linkage(squareform(np.clip(distance, 0, 2), checks=False), method="average")
        faces = len(faces_of(reading_die(die)))
        labels = fcluster(tree, t=min(faces, len(regions)), criterion="maxclust")
        members: dict[int, list[np.ndarray]] = {}
        for label, region in zip(labels, regions, strict=True):
            members.setdefault(int(label), []).append(region)
        return cls(die, list(members.values()))

    def write(self, folder: Path) -> list[Path]:
        """One folder per group, largest first: group-01, group-02, … (rename to the value)."""
        folder.mkdir(parents=True, exist_ok=True)
        order = sorted(range(len(self.members)), key=lambda i: -len(self.members[i]))
        made = []
        for rank, index in enumerate(order, start=1):
            sub = folder / f"group-{rank:02d}"
            sub.mkdir(exist_ok=True)
            for k, region in enumerate(self.members[index]):
                write_image(sub / f"{k:03d}.png", region)
            made.append(sub)
        return made


@dataclass
class Taught:
    dieset: DieSet
    notes: list[str] = field(default_factory=list)  # what to check, each naming its picture


def teach_shown(shown: list[tuple[int, np.ndarray, str]], name: str, die: str) -> Taught:
    """A die set taught from ``shown``: (face value, region, where the picture came from).
    Its ``notes`` say what to check, each naming the picture: one of another die, grouped with
    a face's by mistake, would widen what the set takes for its own colour and outline."""
    dieset = DieSet(name, die)
    notes = []
    for value, region, where in shown:
        if note := dieset.teach(value, region):
            notes.append(f"check {where}: {note}")
    return Taught(dieset, notes)


def teach_from_folders(folder: Path, name: str, die: str) -> Taught:
    """A die set from group folders the owner renamed to face values (others are skipped)."""
    shown = []
    for sub in sorted(p for p in Path(folder).iterdir() if p.is_dir()):
        if not re.fullmatch(FACE_NAME, sub.name):
            continue  # still "group-NN": not labelled yet
        for png in sorted(sub.glob("*.png")):
            try:
                shown.append((int(sub.name), read_image(png, "a grouped picture"), str(png)))
            except FrameError as err:
                raise DieSetError(str(err)) from None
    if not shown:
        raise DieSetError(f"no folder in {folder} is named after a face value yet")
    return teach_shown(shown, name, die)
