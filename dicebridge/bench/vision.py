"""`dicebridge bench vision`: how long the camera reader takes per settled frame, by frame
size and die type, on one core, beside a naive SimpleBlobDetector pip counter.

Rendered throws (vision/render.py: the tilted camera, blur, noise, JPEG) stand in
for a camera: pip dice (d6) and taught numbered dice (d20, taught from the
renderer's two designs, two photos a face), at 640 × 640 (the issue's budget:
15 ms), a Pi camera's 1280 × 960, and a wide view (2400 px, small dice: the
finder's closer look); and at 640 × 640 d20s of one design read by a set taught
one photo a face, as an owner teaches a real set (half the views to compare).
The reader reads each frame once; p50 and p90 of the times, and for 640 × 640
d6s the blob counter's p50 on the same frames.  Run it on the Pi itself to plan
for it: its cores are slower than a laptop's.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections import Counter
from typing import Any

from dicebridge.bench import machine, machine_line, positive

SIZES = ((640, 640), (1280, 960), (2400, 2400))


def add_subcommand(kinds: Any) -> None:
    parser = kinds.add_parser("vision", help="camera reader: ms per frame by size and die")
    parser.add_argument("--frames", type=positive, default=20, help="frames per case (default 20)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)


def _frames(
    die: str, size: tuple[int, int], count: int, design: int | None = None
) -> list[tuple[Any, list[int]]]:
    """``count`` rendered frames of four dice, each with the faces it shows."""
    import dataclasses

    import cv2
    import numpy as np

    from vision.render import PALETTE, ThrowSpec, render_throw

    rng = np.random.default_rng(17)
    frames = []
    for k in range(count):
        look = dataclasses.replace(PALETTE[2 if die == "d20" else k % 12], design=design)
        spec = ThrowSpec(dice=(die,) * 4, looks=(look,))
        throw = render_throw(spec, rng)
        image = throw.image
        w, h = size
        if (w, h) == (2400, 2400):  # the same dice, a small share of a wide view
            tray = [int(v) for v in np.median(image.reshape(-1, 3), axis=0)]
            pad = (w - image.shape[1]) // 2
            image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=tray)
        elif (w, h) != image.shape[1::-1]:
            image = cv2.resize(image, (h, h), interpolation=cv2.INTER_CUBIC)
            image = cv2.copyMakeBorder(image, 0, 0, (w - h) // 2, (w - h) // 2,
                                       cv2.BORDER_REPLICATE)  # fmt: skip
        frames.append((image, [d.value for d in throw.dice]))
    return frames


def _times(read: Any, frames: list[tuple[Any, list[int]]]) -> tuple[list[float], list[Any]]:
    """Each frame's reading time in ms, and what was read."""
    out, said = [], []
    for image, _ in frames:
        start = time.perf_counter()
        said.append(read(image))
        out.append((time.perf_counter() - start) * 1000)
    return out, said


def _read_right(frames: list[tuple[Any, list[int]]], results: list[Any]) -> int:
    """How many of the frames' dice were read for sure as the faces they show: a reading
    that found 1 of 4 dice is timed, but is no reading of the throw."""
    right = 0
    for (_, values), result in zip(frames, results, strict=True):
        read = Counter(d.value for d in result.dice if not d.uncertain)
        right += sum((read & Counter(values)).values())
    return right


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.baseline import BlobCounter
    from vision.reader import DiceReader
    from vision.teach_synthetic import taught_from_renders

    cv2.setNumThreads(1)  # the figure is "on one core"
    reader = DiceReader()
    reader.add_dieset(taught_from_renders("d20", 2))
    one_photo = DiceReader()  # a set as an owner teaches it: one design, one photo a face
    one_photo.add_dieset(taught_from_renders("d20", 2, design=0))
    cases: list[tuple[str, tuple[int, int], Any, int | None]] = [
        (die, size, reader, None) for die in ("d6", "d20") for size in SIZES
    ]
    cases.insert(len(SIZES), ("dF", (640, 640), reader, None))  # Fudge dice: the blank faces'
    # blob search (vision/plain_faces.py) comes on top of the d6's work
    cases.append(("d20", (640, 640), one_photo, 0))
    rows: list[dict[str, Any]] = []
    if not args.json:
        print(machine_line(), flush=True)
    for die, size, read_with, design in cases:
        frames = _frames(die, size, args.frames, design)
        read_with.read(frames[0][0], die)  # warm up: the first call sets up the networks
        ms, results = _times(lambda image, d=die, r=read_with: r.read(image, d), frames)
        ms.sort()
        row = {"die": die, "frame": f"{size[0]}x{size[1]}", "dice_per_frame": 4,
               "p50_ms": round(statistics.median(ms), 1),
               "p90_ms": round(ms[math.ceil(0.9 * len(ms)) - 1], 1),
               "read_right": _read_right(frames, results), "dice": 4 * len(frames)}  # fmt: skip
        if die == "d20":
            row["taught"] = "one photo a face" if design is not None else "two photos a face"
        if die == "d6" and size == (640, 640):
            blob = BlobCounter()
            row["blob_counter_p50_ms"] = round(statistics.median(_times(blob.read, frames)[0]), 1)
        rows.append(row)
        if not args.json:
            extra = (f", blob counter {row['blob_counter_p50_ms']} ms"
                     if "blob_counter_p50_ms" in row else "")  # fmt: skip
            taught = f" ({row['taught']})" if "taught" in row else ""
            print(f"{die:4} {row['frame']:>9}: p50 {row['p50_ms']} ms, p90 {row['p90_ms']} ms"
                  f"{extra}{taught}; {row['read_right']} of {row['dice']} dice read right",
                  flush=True)  # fmt: skip
    if args.json:
        print(json.dumps({"frames": args.frames, "cases": rows, "machine": machine()}))
    return 0
