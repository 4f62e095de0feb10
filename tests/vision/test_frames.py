"""Frame sources and picture files that OpenCV alone handles badly: a file name that is not
UTF-8 (cv2.imread and cv2.imwrite crash the process on it), a named pipe among the pictures
(cv2.imread waits on it for ever), a text file opened as a film (FFmpeg draws its
characters as frames)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.frames as frames
from vision.frames import (
    CameraError,
    Frame,
    ImageFolder,
    OpenCVCapture,
    Picamera2Source,
    is_live,
    open_camera,
)
from vision.pixels import FrameError, read_image, write_image
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw
from vision.settle import SettleDetector
from vision.tray_area import suggest

ROOT = Path(__file__).resolve().parents[2]


def _odd_name(folder: Path, name: bytes) -> str:
    """A path whose last part is the bytes ``name`` (not UTF-8), as Python spells it."""
    return os.fsdecode(os.fsencode(folder) + b"/" + name)


def test_pictures_with_names_that_are_not_utf8_are_written_and_read() -> None:
    # in a child process: were it to crash, as cv2.imread does on such a name, the crash
    # is this test's failure, not the end of the test run
    script = (
        "import os, sys, tempfile\n"
        "import numpy as np\n"
        "from vision.frames import ImageFolder, open_camera\n"
        "from vision.frames import CameraError\n"
        "from vision.pixels import read_image, write_image\n"
        "folder = tempfile.mkdtemp()\n"
        "path = os.fsdecode(os.fsencode(folder) + b'/w\\xfcrfel.png')\n"
        "write_image(path, np.full((40, 60, 3), 77, np.uint8))\n"
        "assert read_image(path).shape == (40, 60, 3)\n"
        "frame = ImageFolder(folder).read()\n"
        "assert frame is not None and int(frame.image[0, 0, 0]) == 77\n"
        "film = os.fsdecode(os.fsencode(folder) + b'/w\\xfcrfel.avi')\n"
        "open(film, 'wb').write(b'\\0' * 64)\n"
        "try:\n"
        "    open_camera(film)\n"
        "except CameraError as err:\n"
        "    print('refused:', err)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "refused:" in done.stdout and "not UTF-8; rename it" in done.stdout


def test_a_named_pipe_among_the_pictures_is_passed_over_not_waited_on(tmp_path: Path) -> None:
    write_image(tmp_path / "1.png", np.full((40, 60, 3), 10, np.uint8))
    os.mkfifo(tmp_path / "0.png")  # listed first, and no writer: opening it would block
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(ImageFolder(tmp_path).read()))
    reader.start()
    reader.join(20)
    if reader.is_alive():  # let the thread go: open the pipe's other end
        with open(tmp_path / "0.png", "wb"):
            pass
        reader.join(5)
        pytest.fail("the folder's reader waited on the named pipe")
    frame = got[0]
    assert frame is not None and getattr(frame, "name", "") == "1.png"
    with pytest.raises(FrameError, match="not a regular file"):
        read_image(tmp_path / "0.png")


def test_a_text_file_is_not_opened_as_a_film(tmp_path: Path) -> None:
    notes = tmp_path / "throws.txt"
    notes.write_text("1 2 3 4 5 6 o o o\n" * 30)
    with pytest.raises(CameraError, match="a text file, not a video"):
        open_camera(str(notes))
    video = tmp_path / "throw.avi"  # a real film still opens
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    capture = OpenCVCapture(str(video))
    assert capture.read() is not None
    capture.close()


class _FakeV4L2:
    """cv2.VideoCapture over a webcam by its device: one frame, then nothing (unplugged)."""

    def __init__(self, *args: Any) -> None:
        self.sets: dict[int, float] = {}
        self._frames = [np.full((48, 64, 3), 100, np.uint8)]

    def isOpened(self) -> bool:  # OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        self.sets[prop] = value
        return True

    def get(self, prop: int) -> float:
        return 0.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        return (True, self._frames.pop()) if self._frames else (False, None)

    def release(self) -> None:
        pass


def test_a_webcam_named_by_its_device_is_live_and_asked_for_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """camera = "/dev/video0" (or a /dev/v4l/by-id/ link to it) had been taken for a video
    file: its first failed read ended the camera for good, it was never opened again, and
    camera_size was not asked of it.  A character device is a webcam (/dev/null stands in
    for /dev/video0, a character device too)."""
    link = tmp_path / "usb-Camera-video-index0"  # as in /dev/v4l/by-id/
    link.symlink_to("/dev/null")
    assert is_live("/dev/null") and is_live(str(link))
    assert is_live("/dev/dicebridge-test-no-such-camera")  # not plugged in yet
    film = tmp_path / "throws.avi"
    film.write_bytes(b"")
    for spec in (str(film), str(tmp_path), str(tmp_path / "gone.avi"), "throws.avi"):
        assert not is_live(spec), spec  # files and folders end, as before
    assert is_live("rtsp://10.0.0.5/tray") and is_live("0") and is_live("picamera2")
    monkeypatch.setattr(frames.cv2, "VideoCapture", _FakeV4L2)
    capture = open_camera(str(link), (1280, 720))
    assert isinstance(capture, OpenCVCapture) and capture.live
    fake = capture._capture
    assert isinstance(fake, _FakeV4L2) and fake.sets == {
        cv2.CAP_PROP_FRAME_WIDTH: 1280,
        cv2.CAP_PROP_FRAME_HEIGHT: 720,
    }
    assert capture.read() is not None
    with pytest.raises(CameraError, match="stopped delivering frames"):  # lost, not ended
        capture.read()


def test_no_camera_named_is_refused_not_read_as_the_current_folder() -> None:
    for spec in ("", "  "):
        with pytest.raises(CameraError, match="no camera named"):
            open_camera(spec)


def test_a_picture_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_image(tmp_path / "no-such-folder" / "a.png", np.zeros((9, 9, 3), np.uint8))
    with pytest.raises(FrameError, match="cannot encode"):
        write_image(tmp_path / "a.unknown", np.zeros((9, 9, 3), np.uint8))


def test_every_entry_point_takes_the_frames_the_reader_takes_and_refuses_the_rest() -> None:
    """The settle detector, the finder and the tray's suggestion convert grey, one-channel
    and 16-bit frames as the reader does, and refuse what it refuses with a FrameError (a
    bare OpenCV error before, and float frames of moving dice taken as settled)."""
    rng = np.random.default_rng(5)
    image = render_throw(ThrowSpec(dice=("d6",) * 3), rng).image
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    reader = DiceReader()
    boxes = [f.box for f in reader.find(image)]
    assert len(boxes) == 3
    for same in (grey, grey[:, :, None], grey.astype(np.uint16) << 8):
        assert [f.box for f in reader.find(same)] == [f.box for f in reader.find(grey)]
    still = SettleDetector(0.0)
    assert still.feed(Frame(grey[:, :, None], 0.0)).moving  # the first frame: nothing before
    assert still.feed(Frame(grey.astype(np.uint16) << 8, 0.1)).settled  # the same picture
    for bad, says in [
        (image.astype(np.float32) / 255, "float32 pixels"),
        (image > 0, "bool pixels"),
        (image[:0], "at least 8×8"),
    ]:
        with pytest.raises(FrameError, match=says):
            SettleDetector().feed(Frame(bad, 0.0))
        with pytest.raises(FrameError, match=says):
            reader.find(bad)
        with pytest.raises(FrameError, match=says):
            suggest(bad)
    # a sliver of a picture is made small both ways, not 256 pixels wide and tall beyond
    # measure (an 8 × 2400 picture took 1 GB)
    assert suggest(np.full((4000, 8, 3), 90, np.uint8)) is None


def test_a_frame_ten_thousand_pixels_wide_is_read() -> None:
    """The blank-face search's median window outgrew what OpenCV takes (255 px)."""
    reading = DiceReader().read(np.full((10000, 10000, 3), 120, np.uint8), "any")
    assert reading.dice == () and reading.problem == "no dice seen"


def test_a_pipe_named_as_a_film_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "throws.mp4")
    with pytest.raises(CameraError, match="a pipe or a socket, not a video file"):
        open_camera(str(tmp_path / "throws.mp4"))


def _png_header(width: int, height: int) -> bytes:
    """A PNG of a few dozen bytes whose header claims ``width`` × ``height`` pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    tail = b"IEND"
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)) + struct.pack(">I", 0) + tail
            + struct.pack(">I", zlib.crc32(tail)))  # fmt: skip


def _jpeg_header(width: int, height: int) -> bytes:
    """The start of a JPEG whose frame header claims ``width`` × ``height`` pixels."""
    sof = struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
    return b"\xff\xd8" + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xd9"


@pytest.mark.parametrize(
    ("name", "header", "said"),
    [
        ("huge.png", _png_header(32000, 32000), "far more"),  # 6 GB had been taken
        ("wide.png", _png_header(12000, 9000), "12000×9000 pixels, more"),  # 108 megapixels
        ("huge.jpg", _jpeg_header(65000, 65000), "far more"),
    ],
    ids=["png-32000", "png-108-megapixels", "jpeg-65000"],
)
def test_a_picture_whose_header_claims_too_many_pixels_is_refused_unread(
    tmp_path: Path, name: str, header: bytes, said: str
) -> None:
    path = tmp_path / name
    path.write_bytes(header)
    with pytest.raises(FrameError, match=f"{said} than the 100 megapixels read here"):
        read_image(path)
    # a folder of throws passes over it, as over any file that is no picture, to the next
    write_image(tmp_path / "next.png", np.full((40, 60, 3), 90, np.uint8))
    frame = ImageFolder(tmp_path).read()
    assert frame is not None and frame.image.shape == (40, 60, 3)


def test_a_picture_just_under_the_pixel_limit_is_still_decoded(tmp_path: Path) -> None:
    # 10000 × 10000 is exactly the limit: the header is let through to OpenCV, which
    # decodes the whole picture (one grey row after another, compressed to a few kB)
    picture = np.full((10000, 10000), 128, np.uint8)
    path = tmp_path / "big.png"
    write_image(path, picture)
    assert read_image(path).shape == (10000, 10000, 3)


def test_a_pi_camera_that_fails_to_start_is_let_go_so_that_it_can_be_opened_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Picamera2() takes the camera; one whose configure or start fails must close it, or
    each later try (the camera thread's backoff) finds it in use.  picamera2 runs only on
    a Pi, so a stand-in module plays the vendor here, failing as it may."""
    held: list[str] = []

    class Picamera2:
        def __init__(self) -> None:
            if held:
                raise RuntimeError("Camera __init__ sequence did not complete (in use)")
            held.append("camera")

        def create_still_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
            return {"main": main}

        def configure(self, config: dict[str, Any]) -> None:
            raise RuntimeError("Failed to configure camera")

        def close(self) -> None:
            held.clear()

    vendor = type(sys)("picamera2")
    vendor.Picamera2 = Picamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", vendor)
    for _ in range(2):  # the second try finds the camera free, and fails the same way
        with pytest.raises(CameraError, match="cannot start the Pi camera: Failed to configure"):
            Picamera2Source()
    assert held == []


def test_tiff_pictures_are_photographs_and_a_folder_of_none_says_so(tmp_path: Path) -> None:
    """read_image reads TIFF, but the folder's pictures were only .jpg/.png/.bmp/.webp: a
    folder of .tif throws gave no frame (the camera ended at once, unexplained), and one
    .tif named as the camera was opened as a film, never read as a throw."""
    photos = tmp_path / "photos"
    photos.mkdir()
    write_image(photos / "1.tif", np.full((40, 60, 3), 10, np.uint8))
    write_image(photos / "2.TIFF", np.full((40, 60, 3), 20, np.uint8))
    folder = ImageFolder(photos)
    got = [folder.read() for _ in range(3)]
    assert [(f.name, int(f.image[0, 0, 0]), f.still) for f in got if f] == [
        ("1.tif", 10, True),
        ("2.TIFF", 20, True),
    ] and got[2] is None
    one = open_camera(str(photos / "1.tif")).read()
    assert one is not None and one.still and one.name == "1.tif"
    # a folder with no picture in it had ended at once, as if all its throws had been read
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "throws.txt").write_text("4 2 6\n")
    for bare in ("empty", "notes"):
        with pytest.raises(CameraError, match=f"{bare} holds no pictures \\(.jpg.*.tiff\\)"):
            open_camera(str(tmp_path / bare))


def test_a_camera_name_no_file_can_have_is_a_camera_error(tmp_path: Path) -> None:
    """os.stat's own error (a name too long; a folder on the way not to be searched) had
    passed open_camera as a bare OSError, past `dicebridge serve`, which stops at a
    CameraError only; a link to itself was said to be no such file."""
    for long in ("x" * 300 + ".avi", "x" * 300, "x" * 300 + ".png"):
        with pytest.raises(CameraError, match="File name too long"):
            open_camera(str(tmp_path / long))
    with pytest.raises(CameraError, match="File name too long"):
        ImageFolder(tmp_path / ("x" * 300))  # `vision cluster` opens its frames so
    (tmp_path / "loop.avi").symlink_to(tmp_path / "loop.avi")
    with pytest.raises(CameraError, match="Too many levels of symbolic links"):
        open_camera(str(tmp_path / "loop.avi"))


def test_a_video_file_that_cannot_be_decoded_is_not_said_to_be_missing(tmp_path: Path) -> None:
    video = tmp_path / "throws.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(5):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    cut = tmp_path / "cut.avi"  # copied off a card pulled out too soon
    cut.write_bytes(video.read_bytes()[:200])
    with pytest.raises(CameraError, match="the file is there but cannot be decoded as a video"):
        open_camera(str(cut))
    with pytest.raises(CameraError, match="no such device, file or stream"):
        open_camera(str(tmp_path / "gone.avi"))


class _SilentV4L2(_FakeV4L2):
    """cv2.VideoCapture over a webcam gone silent: each read waits out OpenCV's timeout (by
    the clock ``waited``, seconds) and fails."""

    def __init__(self, waited: list[float]) -> None:
        super().__init__()
        self.waited = waited
        self.reads = 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        self.reads += 1
        self.waited[0] += frames.V4L_TIMEOUT_S
        return False, None


def test_a_silent_webcam_s_read_is_not_waited_out_three_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three reads that each waited out the timeout (3 × 10 s for a webcam, 3 × 5 s for a
    stream) outlasted CameraSource.stop's wait for the camera thread, which then closed the
    capture under the read.  One read that waits it out is a camera gone; one failing at
    once (a hiccup) is still tried three times (test_a_webcam_named_by_its_device_...)."""
    waited = [0.0]
    monkeypatch.delenv(frames.V4L_TIMEOUT_VAR, raising=False)  # (restored after the test)
    monkeypatch.setattr(frames.cv2, "VideoCapture", lambda *args: _SilentV4L2(waited))
    capture = OpenCVCapture("/dev/null", clock=lambda: waited[0])
    silent = capture._capture
    assert isinstance(silent, _SilentV4L2) and capture.live
    with pytest.raises(CameraError, match="stopped delivering frames"):
        capture.read()
    assert silent.reads == 1 and waited[0] < frames.LONGEST_READ_S
    assert os.environ[frames.V4L_TIMEOUT_VAR] == str(frames.V4L_TIMEOUT_S)  # set for a webcam
