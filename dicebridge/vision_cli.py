"""`dicebridge vision eval|read|synth|teach`: the camera reader, measured and tried.

eval DIR reads DIR/labels.csv (columns file, die_type, values) and prints the
reader's figures beside a naive SimpleBlobDetector pip counter's, measured in
the same run.  Photo sets of the project's training half are read with
`--split held_out` to measure only photos the networks never saw.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SPLITS = ("all", "held_out", "train")
MAX_PERSPECTIVE = 0.6  # synth's camera tilt: at 0.5 a flat die's sides show as large as its top


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser("vision", help="the camera reader: measure it, try it, teach it")
    sub = parser.add_subparsers(dest="vision", metavar="ACTION", required=True)
    ev = sub.add_parser(
        "eval", help="measure the reader on a labelled photo set", description=__doc__
    )
    ev.add_argument("directory", type=Path, metavar="DIR")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--split", choices=SPLITS, default="all", help="which half of the set")
    ev.add_argument("--die", choices=("auto", "d6", "dF", "any"), default="auto",
                    help="the dice to expect (auto: each image's die_type)")  # fmt: skip
    ev.add_argument("--dieset", type=Path, metavar="DIR", action="append",
                    help="a taught die set, for numbered dice (again for each set; sets of one "
                         "die type are all read with)")  # fmt: skip
    ev.add_argument("--empty-tray", type=Path, metavar="IMAGE", help="the tray with no dice")
    ev.add_argument("--errata", type=Path, metavar="CSV",
                    help="label corrections checked by eye (docs/label-errata/)")  # fmt: skip
    ev.add_argument("--no-baseline", action="store_true", help="skip the naive blob counter")
    ev.add_argument("--limit", type=int, metavar="N", help="only the first N images")
    ev.set_defaults(handler=run_eval)

    rd = sub.add_parser("read", help="read the dice in one picture")
    rd.add_argument("image", type=Path)
    rd.add_argument("--die", choices=("d6", "dF", "any"), default="any")
    rd.add_argument("--empty-tray", type=Path, metavar="IMAGE", help="the tray with no dice")
    rd.add_argument("--dieset", type=Path, metavar="DIR", action="append",
                    help="a taught die set, for numbered dice")  # fmt: skip
    rd.add_argument("--crop", action="store_true", help="the picture is one die's crop")
    rd.add_argument("--tray-area", metavar="X,Y;X,Y;...",
                    help="the tray's corners in the picture, shares of its width and height: "
                         "dice outside it are left out")  # fmt: skip
    rd.add_argument("--json", action="store_true")
    rd.set_defaults(handler=run_read)

    sy = sub.add_parser("synth", help="write a synthetic labelled photo set")
    sy.add_argument("directory", type=Path, metavar="OUT")
    sy.add_argument("--dice", nargs="+", default=["d6"], choices=("d5", "d6", "d10", "d20", "dF"))
    sy.add_argument("--count", type=int, default=100, help="images (default 100)")
    sy.add_argument("--seed", type=int, default=1)
    sy.add_argument("--look", type=int, metavar="N",
                    help="every die in look N of vision.render.PALETTE (default: any)")  # fmt: skip
    sy.add_argument("--big-ones", action="store_true",
                    help="d6s whose 1 is one large pip, Chinese dice among them (red 1 and 4): "
                         "the looks of vision.render.BIG_ONES")  # fmt: skip
    sy.add_argument("--per-image", type=int, metavar="N",
                    help="exactly N dice per image (default: 1 to 8)")  # fmt: skip
    sy.add_argument("--perspective", type=float, metavar="P",
                    help="camera tilt, 0 for straight down to 0.6 (default: the renderer's "
                         "0.15)")  # fmt: skip
    sy.add_argument("--tray", metavar="R,G,B",
                    help="a felt tray of this colour, e.g. 20,20,20 for black (default: grey, "
                         "green felt or wood at random)")  # fmt: skip
    sy.add_argument("--debris", type=int, default=0, metavar="N",
                    help="N specks, crumbs and bits of lint on the tray (default 0)")  # fmt: skip
    sy.add_argument("--shadow", type=float, metavar="L",
                    help="each die's shadow L die edges long, 0 to 3: a lamp low beside the tray "
                         "(default: the renderer's 0.14, diffuse light)")  # fmt: skip
    sy.add_argument("--glare", type=float, metavar="G",
                    help="a lamp's reflection on each die, G opaque at its brightest, 0 to 1 "
                         "(0.9: a bare bulb over glossy dice; default 0)")  # fmt: skip
    sy.set_defaults(handler=run_synth)

    from vision.check_cli import add_check
    from vision.teach_cli import add_teach

    add_teach(sub)
    add_check(sub)


def _fail(message: str) -> int:
    print(f"dicebridge vision: {message}", file=sys.stderr)
    return 2


def _tray(path: Path | None) -> Any:
    """The empty-tray picture named on the command line, or None; FrameError if unreadable."""
    from vision.pixels import read_image

    return None if path is None else read_image(path, "the empty-tray picture")


def _tray_unfit(tray: Any, image: Any, name: str) -> str:
    """Where the empty-tray picture is of another size than the photo ``name`` (the reader
    then reads without it), the two sizes; "" where it fits or there is none."""
    if tray is None or tray.shape == image.shape:
        return ""
    return (f"the empty-tray picture is {tray.shape[1]}×{tray.shape[0]}, {name} "
            f"{image.shape[1]}×{image.shape[0]}")  # fmt: skip


def _reader_for(diesets: list[Path] | None) -> Any:
    from vision.teach_cli import reader_with  # a set with no face taught yet is refused

    return reader_with(diesets or ())


def run_eval(args: argparse.Namespace) -> int:
    import cv2

    from vision.baseline import BlobCounter
    from vision.datasets import DatasetError, iter_split, read_dataset
    from vision.errata import apply_errata, read_errata
    from vision.evaluate import evaluate
    from vision.faces import ALLOWED as PIP_READABLE
    from vision.faces import ModelError
    from vision.pixels import FrameError
    from vision.teach import DieSetError

    cv2.setNumThreads(1)  # the figure is "on one core"
    try:
        everything = read_dataset(args.directory)
        if args.errata is not None:
            everything = apply_errata(everything, read_errata(args.errata))
        items = list(iter_split(everything, args.split))
        reader = _reader_for(args.dieset)
    except (DatasetError, ModelError, DieSetError) as err:
        return _fail(str(err))
    try:
        tray = _tray(args.empty_tray)
    except FrameError as err:
        return _fail(str(err))
    items = [i for i in items if i.die_type != "none"]  # an empty tray has nothing to read
    if args.limit is not None:
        if args.limit < 1:
            return _fail("--limit must be 1 or more")
        items = items[: args.limit]
    if not items:
        return _fail(f"no images in {args.directory} ({args.split})")
    untaught = sorted({_die(args.die, i.die_type) for i in items} - set(PIP_READABLE)
                      - set(reader.diesets))  # fmt: skip
    if untaught:
        return _fail(f"images of {', '.join(untaught)} are read with a taught die set: give "
                     "--dieset DIR for each (`dicebridge vision teach` makes one)")  # fmt: skip

    told = False  # of a photo of another size than the empty-tray picture (said once)

    def read(image: Any, item: Any) -> Any:
        nonlocal told
        if item.kind == "crop":
            return reader.read_crop(image, _die(args.die, item.die_type))
        if (unfit := _tray_unfit(tray, image, item.path.name)) and not told:
            told = True
            print(f"dicebridge vision eval: {unfit}: photos of another size are read without "
                  "it", file=sys.stderr)  # fmt: skip
        return reader.read(image, _die(args.die, item.die_type), tray)

    def progress(n: int) -> None:
        if not args.json and (n % 25 == 0 or n == len(items)):
            print(f"  read {n}/{len(items)} images", file=sys.stderr, flush=True)

    scores = evaluate(items, read, progress, args.directory)
    # said on stderr, so --json's stdout stays one object
    _left_out(scores.unreadable, len(items), "images not read")
    _left_out(scores.failed, len(items), "images the reader failed on (a fault: please report "
              "it with the picture)")  # fmt: skip
    if not scores.images:
        return _fail(f"none of the {len(items)} images listed in {args.directory} could be read")
    ours = scores.to_json()
    result: dict[str, Any] = {**ours, "split": args.split}
    if args.errata is not None:
        result["errata"] = str(args.errata)
    if not args.no_baseline and all(i.die_type == "d6" and i.kind != "crop" for i in items):
        counter = BlobCounter()
        naive = evaluate(
            items, lambda image, item: counter.read(image), None, args.directory
        ).to_json()
        result["baseline_blob_counter"] = {
            k: naive[k] for k in ("per_die_accuracy", "coverage", "ms_per_image")
        }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{args.directory} ({args.split}): {result['images']} images, {result['dice']} dice")
    for key in ("answered", "correct", "per_die_accuracy", "coverage", "error_rate_answered",
                "image_exact", "ms_per_image"):  # fmt: skip
        print(f"  {key:20} {result[key]}")
    if "baseline_blob_counter" in result:
        base = result["baseline_blob_counter"]
        print(f"  naive blob counter:  per_die_accuracy {base['per_die_accuracy']}, "
              f"{base['ms_per_image']} ms per image")  # fmt: skip
    return 0


def _left_out(named: list[tuple[str, str]], listed: int, what: str) -> None:
    """Says on stderr which of the ``listed`` images were left out of the figures, and why."""
    if not named:
        return
    print(f"dicebridge vision eval: {len(named)} of {listed} listed {what}, left out of the "
          "figures:", file=sys.stderr)  # fmt: skip
    for _, why in named[:10]:
        print(f"  {why}", file=sys.stderr)
    if len(named) > 10:
        print(f"  … and {len(named) - 10} more", file=sys.stderr)


def _die(choice: str, die_type: str) -> str:
    if choice != "auto":
        return choice
    return die_type if die_type in ("d6", "dF", "d5", "d10", "d20", "d6_numeral") else "any"


def run_read(args: argparse.Namespace) -> int:
    from vision.faces import ModelError
    from vision.pixels import FrameError, read_image
    from vision.reader import NUMBERED_KIND
    from vision.teach import DieSetError
    from vision.tray_area import TrayArea, TrayAreaError, within

    try:
        image = read_image(args.image)
        tray = _tray(args.empty_tray)
    except FrameError as err:
        return _fail(str(err))
    try:
        area = None if args.tray_area is None else TrayArea.parse(args.tray_area)
    except TrayAreaError as err:
        return _fail(f"--tray-area: {err}")
    if area is not None and args.crop:
        return _fail("--tray-area is for a picture of the tray, not a die's crop (--crop)")
    try:
        reader = _reader_for(args.dieset)
    except (ModelError, DieSetError) as err:
        return _fail(str(err))
    # with sets of several types, a die of one is read by its own (`also`), not as the first's
    die, *also = list(reader.diesets) or [args.die]
    if unfit := _tray_unfit(tray, image, "the photo"):
        print(f"dicebridge vision read: {unfit}: read without it", file=sys.stderr)
        tray = None
    result = (reader.read_crop(image, die) if args.crop
              else reader.read(image, die, tray, also=also))  # fmt: skip
    result = within(result, area, image.shape[1], image.shape[0])
    if args.json:
        print(json.dumps({"dice": [d.to_dict() for d in result.dice], "problem": result.problem,
                          "ms": round(result.ms, 2),
                          "beyond_the_tray": [list(b) for b in result.beyond]}))  # fmt: skip
        return 0
    if result.problem:
        print(result.problem)
    if result.beyond:
        print(f"left out, beyond the tray's area: {len(result.beyond)} "
              f"{'die' if len(result.beyond) == 1 else 'dice'}")  # fmt: skip
    for d in result.dice:
        shown = "?" if d.value is None else (f"{d.value:+d}" if d.die == "dF" else str(d.value))
        die = "numbered die" if d.die == NUMBERED_KIND else d.die  # a d5, d10 or d20
        line = f"{d.colour + ' ' if d.colour else ''}{die}: {shown} ({100 * d.confidence:.0f}%)"
        print(line + (f"  — uncertain: {d.advice}" if d.uncertain else ""))
    return 0


def run_synth(args: argparse.Namespace) -> int:
    import numpy as np

    from vision.render import BIG_ONES, PALETTE, write_dataset

    if not 1 <= args.count <= 100_000:
        return _fail("--count must be between 1 and 100000")
    spec: dict[str, Any] = {}
    if args.look is not None:
        if not 0 <= args.look < len(PALETTE):
            return _fail(f"--look must be 0 to {len(PALETTE) - 1}")
        spec["looks"] = (PALETTE[args.look],)
    if args.big_ones:
        if args.look is not None:
            return _fail("--big-ones and --look each choose the looks: give one of them")
        spec["looks"] = BIG_ONES
    if args.per_image is not None:
        if not 1 <= args.per_image <= 8:
            return _fail("--per-image must be 1 to 8")
        spec["per_image"] = (args.per_image, args.per_image)
    if args.perspective is not None:
        if not 0 <= args.perspective <= MAX_PERSPECTIVE:  # NaN too
            return _fail(f"--perspective must be 0 (straight down) to {MAX_PERSPECTIVE}")
        spec["perspective"] = args.perspective
    if args.tray is not None:
        try:
            r, g, b = (int(v) for v in args.tray.split(","))
            if not all(0 <= v <= 255 for v in (r, g, b)):
                raise ValueError
        except ValueError:
            return _fail(f"--tray must be three numbers R,G,B from 0 to 255, not {args.tray!r}")
        spec["tray"] = (b, g, r)
    if not 0 <= args.debris <= 500:
        return _fail("--debris must be 0 to 500")
    if args.debris:
        spec["debris"] = args.debris
    if args.shadow is not None:
        if not 0 <= args.shadow <= 3:
            return _fail("--shadow must be 0 to 3 (die edges)")
        spec["shadow"] = args.shadow
    if args.glare is not None:
        if not 0 <= args.glare <= 1:
            return _fail("--glare must be 0 to 1")
        spec["glare"] = args.glare
    if args.directory.exists() and not args.directory.is_dir():
        return _fail(f"{args.directory} is a file: OUT is the folder the set is written to")
    if (args.directory / "labels.csv").exists() or any((args.directory / "images").glob("*")):
        return _fail(f"{args.directory} holds a photo set already (labels.csv or images/): "
                     "write the new one into an empty folder")  # fmt: skip
    if args.seed < 0:
        return _fail("--seed must be 0 or more")

    step = min(100, max(1, args.count // 10))  # a large set takes minutes (6 images a second)

    def progress(n: int) -> None:
        if n % step == 0 and n < args.count:
            print(f"  wrote {n}/{args.count} images", file=sys.stderr, flush=True)

    try:
        labels = write_dataset(
            args.directory, args.count, np.random.default_rng(args.seed),
            dice_choices=tuple(args.dice), progress=progress, **spec,
        )  # fmt: skip
    except OSError as err:
        return _fail(f"cannot write the set into {args.directory}: {err.strerror or err}")
    print(f"wrote {args.count} images and {labels}")
    return 0
