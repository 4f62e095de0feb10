"""Frame sources: where pictures of the tray come from.

One small interface (``read`` a frame or None, ``close``) with four kinds:
a webcam, video file or stream through OpenCV's VideoCapture; a folder of
images; the Pi camera through picamera2 (imported only when constructed, so
this module imports on any laptop); and a replay of frames already in memory,
for tests and the demo.  Vendor errors become :class:`CameraError`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.pixels import FrameError, decode_file

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")  # read_image's
MISSES = 3  # failed reads in a row that mean a live camera is gone (one is a hiccup)
HICCUP_S = 1.0  # failed reads are tried again this long; a camera silent longer is gone
PAUSE_S = 0.1  # between a failed read and the next try
STREAM_TIMEOUT_MS = 5000  # a network camera that says nothing this long is gone
V4L_TIMEOUT_S = 2  # a webcam (V4L2) that says nothing this long is gone (OpenCV's default 10)
V4L_TIMEOUT_VAR = "OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT"  # read by OpenCV at its first V4L2 read
# the longest OpenCVCapture.read takes (the last try begun within HICCUP_S waits out its
# timeout): CameraSource.stop waits longer than this for the camera thread to end
LONGEST_READ_S = HICCUP_S + PAUSE_S + max(STREAM_TIMEOUT_MS / 1000, V4L_TIMEOUT_S)


class CameraError(RuntimeError):
    """A camera that cannot be opened or stopped delivering; the message says which."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # H×W×3 BGR uint8
    at: float  # seconds (a monotonic clock, or a video file's own), when it was taken
    name: str = ""  # a file name, when it came from one
    still: bool = False  # a photograph on its own (a folder's): one settled throw as it is,
    # not a frame of a film whose dice must first be seen to stop


class FrameSource(Protocol):
    def read(self) -> Frame | None:
        """The next frame, or None when the source has no more (end of file or folder)."""

    def close(self) -> None: ...


class OpenCVCapture:
    """A webcam (by index), a video file or a stream URL, through cv2.VideoCapture.

    A file ends (``read`` gives None); a webcam or a stream does not: when it stops
    delivering (unplugged, the network gone) ``read`` raises CameraError, so that the
    camera source can open it again."""

    def __init__(
        self,
        device: int | str,
        width: int | None = None,
        height: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._device = device
        self.live = is_live(str(device))
        if isinstance(device, str) and not _utf8(device):  # OpenCV crashes on such a name
            raise CameraError(f"cannot open {device!r}: its name is not UTF-8; rename it")
        if isinstance(device, str) and "://" in device:  # never wait forever on a network
            timeouts = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
                        cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS]  # fmt: skip
            self._capture = cv2.VideoCapture(device, cv2.CAP_FFMPEG, timeouts)
        else:
            if self.live:  # set before the capture's first read (whole seconds); a setting
                # of the person's own stays
                os.environ.setdefault(V4L_TIMEOUT_VAR, str(V4L_TIMEOUT_S))
            self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            there = isinstance(device, str) and not self.live and os.path.isfile(device)
            if there:  # a file, but none OpenCV can read: "no such file" had misled
                raise CameraError(f"cannot open {device!r}: the file is there but cannot be "
                                  "decoded as a video (truncated, or not a video?)")  # fmt: skip
            raise CameraError(f"cannot open camera {device!r}: no such device, file or stream")
        if not self.live and _fourcc(self._capture) in TEXT_CODECS:
            self._capture.release()  # FFmpeg draws a text file as a film of its characters
            raise CameraError(f"cannot open {device!r}: it is a text file, not a video")
        if width and height:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> Frame | None:
        began = self._clock()
        for _ in range(MISSES):
            ok, image = self._capture.read()
            if ok and image is not None:
                at = self._clock() if self.live else self._film_time()
                return Frame(image, at, str(self._device))
            if not self.live:
                return None  # the end of the file
            if self._clock() - began >= HICCUP_S:  # a read that waited out its timeout:
                break  # gone, not a hiccup (three such reads outlasted CameraSource.stop)
            time.sleep(PAUSE_S)
        raise CameraError(f"camera {self._device!r} stopped delivering frames")

    def _film_time(self) -> float:
        """When the frame just read was filmed, seconds into the file: a file is decoded
        far faster than it was filmed, and a throw must be still for that long in the
        film, not while it is decoded (by the clock, a recorded throw never settled)."""
        ms = self._capture.get(cv2.CAP_PROP_POS_MSEC)
        index = self._capture.get(cv2.CAP_PROP_POS_FRAMES)
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        if ms <= 0 and index > 1:  # a container that keeps no times: count frames
            return (index - 1) / fps if fps > 0 else self._clock()
        return ms / 1000

    def close(self) -> None:
        self._capture.release()


class ImageFolder:
    """Every image in a folder (or one picture), in name order: each a photograph of one
    settled throw (``Frame.still``), read as it is."""

    def __init__(self, folder: Path, clock: Callable[[], float] = time.monotonic) -> None:
        folder = Path(folder)
        try:
            mode = _mode(str(folder))
            if stat.S_ISDIR(mode):  # regular files only: reading a named pipe waits forever
                files = sorted(p for p in folder.iterdir()
                               if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())  # fmt: skip
            elif stat.S_ISREG(mode) and folder.suffix.lower() in IMAGE_SUFFIXES:
                files = [folder]
            else:
                raise CameraError(f"{folder} is neither a picture nor a folder of pictures")
        except OSError as err:  # a folder that cannot be listed, a picture in it not looked at
            raise CameraError(f"cannot read {folder}: {err.strerror or err}") from None
        if not files:  # it had ended at once, as if every throw in it had been read
            raise CameraError(f"{folder} holds no pictures ({', '.join(IMAGE_SUFFIXES)})")
        self._files = iter(files)
        self._clock = clock

    def read(self) -> Frame | None:
        for path in self._files:
            try:
                image = decode_file(path)
            except OSError:  # removed or unreadable since the folder was listed: skip it
                continue
            except FrameError:  # a header claiming gigapixels: skipped as any non-picture
                continue
            if image is not None:
                return Frame(image, self._clock(), path.name, still=True)
        return None

    def close(self) -> None:
        self._files = iter(())


class Picamera2Source:
    """The Raspberry Pi camera through picamera2 (only importable on a Pi)."""

    def __init__(self, width: int = 1280, height: int = 960) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as err:
            raise CameraError(
                f"picamera2 is not installed (it comes with Raspberry Pi OS): {err}"
            ) from None
        try:
            self._camera: Any = Picamera2()
        except Exception as err:  # the vendor raises many kinds; all mean "no camera"
            raise CameraError(f"cannot start the Pi camera: {err}") from None
        try:
            config = self._camera.create_still_configuration(
                main={"size": (width, height), "format": "RGB888"}
            )
            self._camera.configure(config)
            self._camera.start()
        except Exception as err:
            # Picamera2() holds the camera from here: left open, every later try to open
            # it again (the camera thread's backoff) finds it in use, for good
            with contextlib.suppress(Exception):
                self._camera.close()
            raise CameraError(f"cannot start the Pi camera: {err}") from None

    def read(self) -> Frame | None:
        try:
            array = self._camera.capture_array()
        except Exception as err:
            raise CameraError(f"the Pi camera stopped delivering frames: {err}") from None
        return Frame(np.ascontiguousarray(array), time.monotonic(), "picamera2")

    def close(self) -> None:
        try:
            self._camera.stop()
            self._camera.close()
        except Exception as err:
            raise CameraError(f"cannot stop the Pi camera: {err}") from None


class Replay:
    """Frames from memory, each stamped ``interval`` seconds after the last; records reads.
    ``hold``: after the last image, keep showing it (a camera over a still tray), one
    frame per ``interval`` of real time, instead of ending."""

    def __init__(
        self, images: Iterable[np.ndarray], interval: float = 0.1, hold: bool = False
    ) -> None:
        self._images: Iterator[np.ndarray] = iter(images)
        self._interval = interval
        self._hold = hold
        self._last: np.ndarray | None = None
        self._at = 0.0
        self.reads = 0
        self.closed = False

    def read(self) -> Frame | None:
        if self.closed:
            raise CameraError("the replay was closed")
        image = next(self._images, None)
        if image is None and self._hold and self._last is not None:
            time.sleep(self._interval)
            image = self._last
        if image is None:
            return None
        self._last = image
        self.reads += 1
        self._at += self._interval
        return Frame(image, self._at, f"replay-{self.reads}")

    def close(self) -> None:
        self.closed = True


TEXT_CODECS = {"ansi"}  # FFmpeg's "tty" demuxer: any text file opens as a film of it


def _fourcc(capture: Any) -> str:
    code = int(capture.get(cv2.CAP_PROP_FOURCC)) & 0xFFFFFFFF
    return code.to_bytes(4, "little").decode("latin-1").strip("\0 ").lower()


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_size(text: str) -> tuple[int, int]:
    """A resolution written WIDTHxHEIGHT ("1280x960") as (width, height); ValueError else."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise ValueError(f"a size is WIDTHxHEIGHT, like 1280x960, not {text!r}")
    return int(width), int(height)


def is_live(spec: str) -> bool:
    """Whether a camera setting names a live camera (the Pi camera, a webcam, a stream),
    which is opened again when lost, rather than a file or folder, which ends.  A webcam
    named by its device (/dev/video0, /dev/v4l/by-id/...: a character device, where the
    link leads) is live too, as is a name under /dev/ not there yet (plugged in later); it
    had been taken for a video file, ended by its first failed read."""
    return spec == "picamera2" or spec.isdigit() or "://" in spec or _device(spec)


def _device(spec: str) -> bool:
    """Whether ``spec`` names a character device (a webcam's /dev/video0, or a link to one),
    or a path under /dev/ that is not there (a webcam unplugged when the service starts)."""
    try:
        return stat.S_ISCHR(os.stat(spec).st_mode)  # follows links (/dev/v4l/by-id/...)
    except (OSError, ValueError):  # not there (or a name no path can be)
        return Path(spec).is_absolute() and Path(spec).parts[1:2] == ("dev",)


def open_camera(spec: str, size: tuple[int, int] | None = None) -> FrameSource:
    """A source from a setting: "picamera2", a webcam index ("0"), a folder or a picture, or
    a video file / URL.
    ``size`` (width, height) asks a live camera for that resolution (a webcam may give
    the nearest it has); files and folders are what they are."""
    if not spec.strip():
        raise CameraError("no camera named: give a webcam number, a file, a folder or a URL")
    if spec == "picamera2":
        return Picamera2Source(*size) if size else Picamera2Source()
    if spec.isdigit():
        return OpenCVCapture(int(spec), *(size or (None, None)))
    if _device(spec):  # a webcam by its device: the size asked of it as of one by number
        return OpenCVCapture(spec, *(size or (None, None)))
    if is_live(spec):
        return OpenCVCapture(spec)  # a stream (its address may end in .jpg)
    mode = _mode(spec)  # 0: no such file; OpenCV says so (or it is a stream it knows)
    if stat.S_ISDIR(mode) or Path(spec).suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolder(Path(spec))  # photographs, each a settled throw
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):  # OpenCV would wait on it for ever
        raise CameraError(f"cannot open {spec!r}: it is a pipe or a socket, not a video file")
    return OpenCVCapture(spec)


def _mode(path: str) -> int:
    """``path``'s stat mode, 0 where nothing is there; CameraError (why) where it cannot be
    looked at: a name too long, a folder on the way not to be searched (a bare OSError had
    passed `dicebridge serve`, which stops at a CameraError only)."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return 0
    except OSError as err:
        raise CameraError(f"cannot open {path!r}: {err.strerror or err}") from None
    except ValueError as err:  # a NUL in the name: no path can be that
        raise CameraError(f"cannot open {path!r}: {err}") from None
