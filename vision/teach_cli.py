"""`dicebridge vision teach OUT --die d20 ...`: teach a numbered die set.

Show each face once: either labelled photos (a folder with labels.csv, one die
per photo, as ../shared/data/photos/burks_polyhedral) or photos named on the
command line as VALUE=PATH.  The die in each photo is found, cut out and kept.
Photos taught into a folder that holds a set already join its faces (show the
rest later, or each face again turned); --from-clusters and --synthetic-look
make a whole set and replace it.  A set's name is 1-40 lower-case letters,
digits and dashes, as on the appliance: --name, else the folder's made so
(d6_numeral: d6-numeral).  --name does not rename a set taught before.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from mechanics.reading import faces_of
from vision.teach import DIE_TYPES, FACE_NAME, MARGIN, DieSet, DieSetError, reading_die

SET_NAME = r"[a-z0-9][a-z0-9-]{0,39}"  # a die set's name, here and on the appliance (its
# folder under DATA_DIR/diesets, and a part of the Devices page's URLs)
SET_RULE = "1–40 lower-case letters, digits and dashes"


def add_teach(sub: Any) -> None:
    teach = sub.add_parser("teach", help="teach a numbered die set", description=__doc__)
    teach.add_argument("out", type=Path, metavar="OUT", help="the die set's folder")
    teach.add_argument("--die", required=True, choices=DIE_TYPES)
    teach.add_argument(
        "--name", help=f"a new set's name, {SET_RULE} (default: the folder's, made so)"
    )
    teach.add_argument("--from-labels", type=Path, metavar="DIR", help="labelled photos")
    teach.add_argument("--face", action="append", default=[], metavar="VALUE=PATH")
    teach.add_argument("--empty-tray", type=Path, metavar="IMAGE", help="the tray with no dice")
    teach.add_argument(
        "--synthetic-look",
        type=int,
        metavar="N",
        help="teach from the renderer's own dice of look N (vision.render.PALETTE), to measure",
    )
    teach.add_argument(
        "--from-clusters",
        type=Path,
        metavar="DIR",
        help="group folders from `vision cluster`, renamed to the values their faces show",
    )
    teach.set_defaults(handler=run_teach)

    cluster = sub.add_parser(
        "cluster", help="group throws of one numbered die by face, for teaching without labels"
    )
    cluster.add_argument("frames", type=Path, metavar="FRAMES", help="a folder of settled frames")
    cluster.add_argument("out", type=Path, metavar="OUT", help="where the group folders go")
    cluster.add_argument("--die", required=True, choices=DIE_TYPES)
    cluster.add_argument("--empty-tray", type=Path, metavar="IMAGE", help="the tray with no dice")
    cluster.set_defaults(handler=run_cluster)


def run_cluster(args: argparse.Namespace) -> int:
    from vision.cluster import Groups
    from vision.frames import CameraError, ImageFolder
    from vision.pixels import FrameError, read_image
    from vision.reader import DiceReader

    try:
        tray = read_image(args.empty_tray, "the empty-tray picture") if args.empty_tray else None
        frames = ImageFolder(args.frames)
    except (CameraError, FrameError) as err:
        print(f"dicebridge vision cluster: {err}", file=sys.stderr)
        return 2
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        print(f"dicebridge vision cluster: {args.out} is not an empty folder: the groups are "
              "written into a new one (old groups beside them would be taught too)",
              file=sys.stderr)  # fmt: skip
        return 2
    reader = DiceReader()
    regions, skipped, unread = [], 0, []
    while (frame := frames.read()) is not None:
        try:
            found = reader.find(frame.image, tray)
        except FrameError as err:  # one bad picture among the frames: said, not the end
            unread.append(f"{frame.name}: {err}")
            continue
        if len(found) != 1:
            skipped += 1  # a frame must show exactly one die
            continue
        regions.append(DieSet.region(frame.image, found[0].box))
    for why in unread[:5]:
        print(f"dicebridge vision cluster: left out {why}", file=sys.stderr)
    if len(regions) < 2:
        print("dicebridge vision cluster: fewer than two frames show one die", file=sys.stderr)
        return 2
    try:
        made = Groups.of(regions, args.die).write(args.out)
    except OSError as err:
        print(f"dicebridge vision cluster: cannot write the groups into {args.out}: "
              f"{err.strerror or err}", file=sys.stderr)  # fmt: skip
        return 2
    print(f"{len(regions)} dice in {len(made)} groups under {args.out} ({skipped} frames skipped: "
          "not exactly one die); rename each group folder to the value its face shows, then "
          f"`dicebridge vision teach SET --die {args.die} --from-clusters "
          f"{shlex.quote(str(args.out))}`")  # fmt: skip
    return 0


TEACH_SURE = 0.7  # a find taught from must be this sure (the reader's SURE) ...
ODD_SIZE = 1.5  # ... and no more than this many times larger or smaller than the median die
# of the photos taught with it: a tower's wall or a shadow boxed in a photo with no die (the
# burks background photo's surest find, 0.72, runs past its edge; its dice are 0.79-0.98)


def biggest_change(image: np.ndarray, reader: Any, tray: np.ndarray | None) -> Any:
    """The die in a one-die photo: the finder's surest find (on a changed spot of the tray)
    that lies whole in the picture and is sure (TEACH_SURE); None where there is none."""
    height, width = image.shape[:2]
    for found in reader.find(image, tray):
        x0, y0, x1, y1 = found.box
        if found.score >= TEACH_SURE and x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height:
            return found
    return None


def odd_sized(sides: list[float]) -> list[int]:
    """The indices of the finds whose side is ODD_SIZE times the median side, or more or less
    (among three or more; two alone cannot say which one is odd)."""
    if len(sides) < 3:
        return []
    median = float(np.median(sides))
    return [i for i, side in enumerate(sides) if not median / ODD_SIZE <= side <= median * ODD_SIZE]


def set_name(folder: Path) -> str:
    """A die set's name (SET_NAME) made of its folder's: lower-case, each run of other
    characters a dash, at most 40 ("d6_numeral": "d6-numeral"); "" where nothing is left."""
    return re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")[:40].rstrip("-")


def reader_with(folders: Iterable[Path]) -> Any:
    """A DiceReader that also reads the die sets taught in ``folders`` (`--dieset DIR`);
    DieSetError where one cannot be loaded, or has no face taught yet (every die of its
    type would fail)."""
    from vision.reader import DiceReader

    reader = DiceReader()
    for folder in folders:
        dieset = DieSet.load(folder)
        if not dieset.crops:
            raise DieSetError(f"the die set in {folder} has no faces taught yet: teach its "
                              f"faces (`dicebridge vision teach {folder} --die {dieset.die} "
                              "...`), or leave it out")  # fmt: skip
        reader.add_dieset(dieset)
    return reader


def run_teach(args: argparse.Namespace) -> int:
    from vision.datasets import DatasetError, read_dataset
    from vision.pixels import FrameError, read_image
    from vision.reader import DiceReader

    def fail(message: str) -> int:
        print(f"dicebridge vision teach: {message}", file=sys.stderr)
        return 2

    if args.name is not None and not re.fullmatch(SET_NAME, args.name):
        return fail(f"--name {args.name!r} is not a die set's name: {SET_RULE}, as red-d20")
    name = args.name or set_name(args.out)
    new = (args.synthetic_look is not None or args.from_clusters is not None
           or not (args.out / "dieset.json").is_file())  # fmt: skip
    if new and not name:
        return fail(f"no die set's name can be made of {args.out.name!r}: give --name "
                    f"({SET_RULE}, as red-d20)")  # fmt: skip
    renamed = new and name != args.out.name and args.name is None  # said once it is taught

    shown: list[tuple[int, Path]] = []
    try:
        if args.from_labels is not None:
            for item in read_dataset(args.from_labels):
                if item.die_type == args.die and len(item.values) == 1:
                    shown.append((item.values[0], item.path))
        for text in args.face:
            value, sep, path = text.partition("=")
            if not sep or not re.fullmatch(FACE_NAME, value):
                return fail(f"write a face as VALUE=PATH, not {text!r}")
            shown.append((int(value), Path(path)))
    except DatasetError as err:
        return fail(str(err))
    faces = faces_of(reading_die(args.die))
    if wrong := sorted({value for value, _ in shown if value not in faces}):
        tip = " (its 10 is taught as 0)" if args.die == "d10" and 10 in wrong else ""
        return fail(f"a {args.die} has no face {', '.join(map(str, wrong))}{tip}: its faces are "
                    f"{faces[0]} to {faces[-1]}")  # fmt: skip
    if args.synthetic_look is not None:
        from vision.teach_synthetic import taught_from_renders

        try:
            dieset = taught_from_renders(args.die, args.synthetic_look, name)
        except ValueError as err:
            return fail(str(err))
        if shown:
            return fail("--synthetic-look teaches every face from renders: give no photos")
        if why := _unsaved(dieset, args.out):
            return fail(why)
        print(f"taught every face of a synthetic {args.die} (look {args.synthetic_look}) "
              f"into {args.out}")  # fmt: skip
        _say_name(dieset, args.out, renamed)
        return 0
    if args.from_clusters is not None:
        from vision.cluster import teach_from_folders

        if why := _other_die(args.out, args.die):
            return fail(why)
        try:
            taught = teach_from_folders(args.from_clusters, name, args.die)
        except (DieSetError, OSError) as err:
            return fail(str(err))
        dieset = taught.dieset
        if why := _unsaved(dieset, args.out):
            return fail(why)
        print(f"taught faces {sorted(dieset.crops)} of a {args.die} into {args.out}")
        _say_name(dieset, args.out, renamed)
        missing = dieset.missing()
        if missing:
            print(f"faces not shown yet: {', '.join(map(str, missing))}")
        _say_once(dieset)
        for note in taught.notes:  # a folder holding another die's picture: which one
            print(note)
        return 0
    if not shown:
        return fail(f"no photos of a {args.die}: give --from-labels DIR or --face VALUE=PATH")
    try:
        tray = read_image(args.empty_tray, "the empty-tray picture") if args.empty_tray else None
        photos = [(value, path, read_image(path, f"the photo of face {value}"))
                  for value, path in shown]  # fmt: skip
    except FrameError as err:  # every photo is read before any is taught: nothing half done
        return fail(str(err))
    reader = DiceReader()
    dieset = DieSet(name, args.die)
    if (args.out / "dieset.json").is_file():  # faces shown later join the faces shown before
        try:
            dieset = DieSet.load(args.out)
        except DieSetError as err:
            return fail(f"{err} (teach into another folder, or remove this one)")
        if dieset.die != args.die:
            return fail(f"{args.out} holds a set of {dieset.die}s, not {args.die}s: teach into "
                        "another folder")  # fmt: skip
        if args.name is not None and args.name != dieset.name:
            return fail(f"{args.out} holds the set {dieset.name!r}: --name names a new set, "
                        "it does not rename one (leave --name out, or teach into another "
                        "folder)")  # fmt: skip
        if not dieset.crops:  # every face forgotten: no crop is cut at its old margin
            dieset.margin = MARGIN
        if older := dieset.older_note():
            return fail(f"{args.out}: {older}")
    before = sum(len(crops) for crops in dieset.crops.values())
    finds = []
    for _, path, image in photos:  # every die found before any is taught: nothing half done
        found = biggest_change(image, reader, tray)
        if found is None:
            return fail(f"no die found whole in {path}: is it on the tray, in the light, away "
                        "from the picture's edges?")  # fmt: skip
        finds.append(found)
    sides = [max(f.box[2] - f.box[0], f.box[3] - f.box[1]) for f in finds]
    if odd := odd_sized(sides):
        i = odd[0]
        return fail(f"what was found in {photos[i][1]} is {sides[i]:.0f} px across, the dice in "
                    f"the other photos about {np.median(sides):.0f}: is a die in it? (teach it "
                    "apart if it was taken closer or farther)")  # fmt: skip
    notes = []
    for (value, path, image), found in zip(photos, finds, strict=True):
        try:
            note = dieset.teach(value, DieSet.region(image, found.box))
        except DieSetError as err:
            return fail(f"{path}: {err}")
        if note:
            notes.append(f"check {path}: {note}")
    if why := _unsaved(dieset, args.out):
        return fail(why)
    missing = dieset.missing()
    added = f" (beside the {before} it had)" if before else ""
    print(f"taught {len(shown)} photos of a {args.die} into {args.out}{added}")
    _say_name(dieset, args.out, renamed)
    if missing:
        print(
            f"faces not shown yet: {', '.join(map(str, missing))} (read as uncertain until taught)"
        )
    _say_once(dieset)
    for note in notes:
        print(note)
    if aside := dieset.aside_note():
        print(f"check the set: {aside}")
    return 0


def _other_die(out: Path, die: str) -> str:
    """Why a whole set of ``die`` is not taught into ``out`` ("" where it may be): it holds
    a set of another die (replaced, a d5 of five faces became a d20 of one, unasked)."""
    if not (out / "dieset.json").is_file():
        return ""
    try:
        there = DieSet.load(out).die
    except DieSetError:
        return ""  # a set that cannot be loaded is replaced, as before
    if there == die:
        return ""
    return f"{out} holds a set of {there}s, not {die}s: teach into another folder"


def _unsaved(dieset: DieSet, out: Path) -> str:
    """Why ``dieset`` could not be kept in ``out`` ("" where it was: whole, or the set there
    before left as it was)."""
    if out.exists() and not out.is_dir():
        return f"{out} is a file: OUT is the folder the set is kept in"
    try:
        dieset.save(out)
    except OSError as err:
        return f"cannot write the set into {out}: {err.strerror or err}"
    return ""


def _say_name(dieset: DieSet, out: Path, renamed: bool) -> None:
    """Where a new set's name was made of its folder's (``renamed``), the name and why."""
    if renamed:
        print(f"the set is named {dieset.name!r}: {out.name!r} is not a die set's name "
              f"({SET_RULE}); on the appliance a set's folder is its name, so copy it there "
              f"as diesets/{dieset.name}")  # fmt: skip


def _say_once(dieset: DieSet) -> None:
    once = dieset.shown_once()
    if once:
        print(f"faces shown once: {', '.join(map(str, once))} (a second photo of each, the die "
              "turned, leaves fewer dice to confirm)")  # fmt: skip
