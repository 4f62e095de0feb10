"""`dicebridge vision check [CAMERA]`: is the camera set up well?  Looks at a still tray
with a few dice on it for a few seconds and says what to change (vision/camera_check.py).
Exit status 0: nothing to change; 1: advice given; 2: the camera could not be read."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

MAX_FRAMES = 300


def add_check(sub: Any) -> None:
    check = sub.add_parser("check", help="is the camera set up well? (a still tray, a few dice)",
                           description=__doc__)  # fmt: skip
    check.add_argument("camera", nargs="?", default="0",
                       help='"0" (a webcam), "picamera2", a video, a folder or a URL')  # fmt: skip
    check.add_argument("--seconds", type=float, default=3.0, help="how long to look (default 3)")
    check.add_argument("--size", metavar="WxH", help="ask a live camera for this resolution")
    check.add_argument("--die", choices=("d6", "dF", "any"), default="any")
    check.add_argument("--dieset", type=Path, metavar="DIR", action="append",
                       help="a taught die set, for numbered dice")  # fmt: skip
    check.add_argument("--empty-tray", type=Path, metavar="IMAGE", help="the tray with no dice")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.set_defaults(handler=run_check)


def _fail(message: str) -> int:
    print(f"dicebridge vision check: {message}", file=sys.stderr)
    return 2


def run_check(args: argparse.Namespace) -> int:
    from vision.camera_check import check_camera
    from vision.faces import ModelError
    from vision.frames import CameraError, Frame, open_camera, parse_size
    from vision.pixels import FrameError, as_bgr8, read_image
    from vision.teach import DieSetError
    from vision.teach_cli import reader_with

    if not 0 < args.seconds <= 600:  # NaN too
        return _fail("--seconds must be more than 0 and at most 600")
    try:
        reader = reader_with(args.dieset or ())  # refuses a set with no face taught
        tray = None
        if args.empty_tray is not None:
            tray = read_image(args.empty_tray, "the empty-tray picture")
        try:
            size = parse_size(args.size) if args.size else None
            if size is not None and min(size) < 1:
                raise ValueError
        except ValueError:
            return _fail(f"--size is WIDTHxHEIGHT, like 1280x960, not {args.size!r}")
        camera = open_camera(args.camera, size)
    except (ModelError, DieSetError, CameraError, FrameError) as err:
        return _fail(str(err))
    frames: list[Frame] = []
    try:
        while len(frames) < MAX_FRAMES:
            frame = camera.read()
            if frame is None:
                break
            what = f"the picture {frame.name}" if frame.still else "a frame"
            try:
                image = as_bgr8(frame.image, what)
            except FrameError as err:
                if not frame.still:
                    raise  # a camera's or a film's frames are all alike: it cannot be checked
                # one stray picture (an icon) in a folder of photos: the others are checked
                print(f"dicebridge vision check: left out: {err}", file=sys.stderr)
                continue
            frames.append(Frame(image, frame.at, frame.name, frame.still))
            if frame.at - frames[0].at >= args.seconds:
                break
    except (CameraError, FrameError) as err:
        return _fail(str(err))
    finally:
        with contextlib.suppress(CameraError):
            camera.close()
    if not frames:
        return _fail(f"{args.camera} gave no frames")
    die = next(iter(reader.diesets)) if reader.diesets else args.die
    result = check_camera(frames, reader, die, tray)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        if result.unsteady is None:  # a folder's photos or one picture: no live camera
            noun = "picture" if result.frames == 1 else "pictures"
            frames_said = (f"{result.frames} {noun} (not a live camera: frames a second and "
                           "steadiness not measured)")  # fmt: skip
            steady = ""
        else:
            frames_said = "1 frame" if result.frames == 1 else f"{result.frames} frames"
            frames_said += "" if result.fps is None else f", {result.fps:.1f} a second"
            steady = f"unsteady {result.unsteady:.2%}; "
        across = "—" if result.die_px is None else f"{result.die_px:.0f} px"
        print(f"{args.camera}: {result.width} x {result.height}, {frames_said}; "
              f"brightest {result.brightest:.0f} of 255; {steady}"
              f"dice {result.dice} ({result.unsure} unsure), {across} across")  # fmt: skip
        for line in result.advice or ("nothing to change: the camera is set up well",):
            print(f"  - {line}")
    return 1 if result.advice else 0
