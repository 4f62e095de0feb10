"""A live camera that is lost is opened again: a network camera (an MJPEG stream over HTTP,
read by OpenCV's own VideoCapture) goes down mid-session and comes back; the camera source
says so and reads the next throw."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from server.camera import STEADY_SECONDS, CameraSource
from server.ledger import Ledger
from server.table import Table
from tests.server.test_camera import _wait
from vision.frames import CameraError, Frame, OpenCVCapture, is_live, open_camera
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_settling, render_throw
from vision.settle import SettleDetector


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _mjpeg_camera(port: int, frames: list[np.ndarray]) -> Iterator[None]:
    """A network camera on ``port``: the frames at 10 a second, then the last one for ever,
    until the block ends (the camera is switched off: the stream breaks off)."""
    off = threading.Event()
    jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes() for f in frames]

    class Stream(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
            self.end_headers()
            i = 0
            while not off.is_set():
                data = jpegs[min(i, len(jpegs) - 1)]
                part = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                try:
                    self.wfile.write(part % len(data) + data + b"\r\n")
                except OSError:
                    return
                i += 1
                time.sleep(0.1)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Stream)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        off.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_network_camera_that_goes_away_is_opened_again(tmp_path: Path) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/stream.mjpg"
    rng = np.random.default_rng(15)
    throws = [[image for image, _ in render_settling(ThrowSpec(dice=("dF",) * 3), rng, 4, 8)]
              for _ in range(2)]  # fmt: skip
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)

        def news(kind: str) -> list[dict[str, Any]]:
            return [e for e in events if e.get("event") == kind]

        camera = CameraSource(
            "camera", None, DiceReader(), table, SettleDetector(0.3),
            reopen=lambda: OpenCVCapture(url), backoff=(0.2, 0.5),
        )  # fmt: skip
        camera.start()  # the camera is not on yet: the source keeps trying
        _wait(lambda: len(news("retrying")) >= 2)
        assert "cannot open camera" in news("retrying")[0]["detail"]
        with _mjpeg_camera(port, throws[0]):
            _wait(lambda: camera.throws_read == 1)
        _wait(lambda: news("disconnected"))  # switched off mid-session
        assert "stopped delivering frames" in news("disconnected")[0]["detail"]
        tries = len(news("retrying"))
        _wait(lambda: len(news("retrying")) > tries)
        with _mjpeg_camera(port, throws[1]):  # back on: opened again, the next throw read
            _wait(lambda: camera.throws_read == 2)
        camera.stop()
        assert len(news("connected")) == 2
        thrown = [e.body for e in ledger.entries(kind="throw")]
        assert [len(t["dice"]) for t in thrown] == [3, 3]


def test_which_cameras_are_live_and_a_file_still_ends(tmp_path: Path) -> None:
    assert is_live("picamera2") and is_live("0") and is_live("rtsp://10.0.0.5/tray")
    assert not is_live("throws.avi") and not is_live(str(tmp_path))
    video = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(2):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    capture = open_camera(str(video))
    assert capture.read() is not None and capture.read() is not None
    assert capture.read() is None  # a file ends; it is not "lost"
    capture.close()
    with pytest.raises(CameraError, match="cannot open camera"):
        OpenCVCapture(f"http://127.0.0.1:{_free_port()}/nothing.mjpg")
    with pytest.raises(CameraError, match="cannot open camera"):  # a stream, not a picture
        open_camera(f"http://127.0.0.1:{_free_port()}/snapshot.jpg")


class _FailingDriver:
    """A frame source whose driver raises its own error (not CameraError) after a few
    frames, as a V4L2 camera's OSError does when it is pulled out mid-read."""

    def __init__(self, images: list[np.ndarray], error: Exception) -> None:
        self._images = iter(images)
        self._error = error
        self._at = 0.0
        self.closed = False

    def read(self) -> Frame | None:
        image = next(self._images, None)
        if image is None:
            raise self._error
        self._at += 0.1  # ten frames a second, as a camera's own clock stamps them
        return Frame(image, self._at)

    def close(self) -> None:
        self.closed = True


def test_a_driver_s_own_error_is_a_lost_camera_opened_again(tmp_path: Path) -> None:
    rng = np.random.default_rng(16)
    throw = [image for image, _ in render_settling(ThrowSpec(dice=("dF",) * 3), rng, 4, 8)]
    opened: list[_FailingDriver] = []
    failures = [RuntimeError("driver gone"), OSError(19, "No such device")]

    def reopen() -> _FailingDriver:
        if len(opened) == 1:  # the second opening fails too, in the driver's own way
            opened.append(_FailingDriver([], ValueError("unused")))
            raise OSError(16, "Device or resource busy")
        opened.append(_FailingDriver(throw if opened else [], failures[min(len(opened), 1)]))
        return opened[-1]

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource(
            "camera", None, DiceReader(), table, SettleDetector(0.3),
            reopen=reopen, backoff=(0.05, 0.1),
        )  # fmt: skip
        camera.start()
        _wait(lambda: sum(e.get("event") == "disconnected" for e in events) >= 2)
        _wait(lambda: camera.throws_read >= 1)
        camera.stop()
    lost = [e["detail"] for e in events if e.get("event") == "disconnected"]
    assert "RuntimeError: driver gone" in lost[0], lost
    retried = [e["detail"] for e in events if e.get("event") == "retrying"]
    assert any("Device or resource busy" in r for r in retried), retried
    assert camera.throws_read >= 1  # the camera was opened again and read the next throw


class _Dead:
    """A webcam that opens but fails on every read (V4L2's VIDIOC_DQBUF at once)."""

    def read(self) -> Frame | None:
        raise OSError(5, "Input/output error")

    def close(self) -> None:
        pass


class _Delivering:
    """A camera that delivers ``seconds`` of frames (by their stamps, 1 s apart) and is lost."""

    def __init__(self, seconds: int) -> None:
        self._stamps = iter(range(seconds + 1))
        self._image = np.full((48, 64, 3), 90, np.uint8)

    def read(self) -> Frame | None:
        at = next(self._stamps, None)
        if at is None:
            raise CameraError("camera 0 stopped delivering frames")
        return Frame(self._image, float(at))

    def close(self) -> None:
        pass


class _Clock(threading.Event):
    """The camera thread's stop event, whose waits take no time: each is noted, and the
    ``last`` one stops the source."""

    def __init__(self, last: int) -> None:
        super().__init__()
        self.waits: list[float] = []
        self._last = last

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(float(timeout or 0.0))
        if len(self.waits) >= self._last:
            self.set()
        return self.is_set()


def _retried(events: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in events if e.get("event") in ("connected", "disconnected",
                                                             "retrying")]  # fmt: skip


def test_a_camera_that_opens_and_fails_on_reading_is_opened_again_after_the_backoff(
    tmp_path: Path,
) -> None:
    """It had been opened again at once, for ever (70,000 times in 2 s): the backoff
    counted only failures to open, and started again at every opening."""
    opened: list[_Dead] = []
    clock = _Clock(last=7)

    def reopen() -> _Dead:
        if len(opened) >= 50:  # opened again and again without waiting: stopped here
            clock.set()
        opened.append(_Dead())
        return opened[-1]

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", None, DiceReader(), table, reopen=reopen)
        camera._stop = clock
        camera._run()  # on this thread: the clock's waits take no time
    assert clock.waits == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]  # doubling, up to 30 s
    assert len(opened) == 7  # one opening after each wait but the last
    assert _retried(events)[:6] == ["connected", "disconnected", "retrying"] * 2
    tries = [e["detail"] for e in events if e.get("event") == "retrying"]
    assert "Input/output error" in tries[0] and tries[0].endswith("next try in 1.0 s")
    assert tries[2].endswith("next try in 4.0 s")


def test_the_backoff_starts_again_once_a_camera_opened_again_delivers_for_a_while(
    tmp_path: Path,
) -> None:
    """Lost after 5 s of frames: the next wait doubles still; after STEADY_SECONDS of
    frames it is back for good, and the wait after its next loss is the first again."""
    cameras: list[Any] = [_Delivering(5), _Delivering(5), _Delivering(int(STEADY_SECONDS)), _Dead()]
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", None, DiceReader(), table, SettleDetector(1e6),
                              reopen=lambda: cameras.pop(0), backoff=(1.0, 30.0))  # fmt: skip
        clock = _Clock(last=4)
        camera._stop = clock
        camera._run()
    assert clock.waits == [1.0, 2.0, 1.0, 2.0]


def test_stop_ends_the_camera_thread_while_it_waits_to_open_it_again(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", None, DiceReader(), table, reopen=_Dead,
                              backoff=(600.0, 600.0))  # fmt: skip
        camera.start()
        _wait(lambda: any(e.get("event") == "retrying" for e in events))
        camera.stop()
        assert camera._thread is not None and not camera._thread.is_alive()
    assert _retried(events) == ["connected", "disconnected", "retrying"]


class _Stalled:
    """A camera that delivers one photograph of a throw, then stalls in its next read (a
    webcam or stream gone silent) until ``go`` is set, and then delivers another throw.
    It notes who closed it and whether a read was under way then (OpenCV's capture released
    under a read had crashed the process)."""

    def __init__(self, first: np.ndarray, late: np.ndarray | CameraError) -> None:
        self._first: np.ndarray | None = first
        self._late = late
        self.go = threading.Event()
        self.stalled = threading.Event()
        self.reading = False
        self.closes: list[tuple[str, bool]] = []  # (the thread, whether a read was under way)

    def read(self) -> Frame | None:
        image, self._first = self._first, None
        if image is None:
            self.reading = True
            self.stalled.set()
            self.go.wait(60)  # a bound only: the test sets it
            self.reading = False
            if isinstance(self._late, CameraError):
                raise self._late
            image = self._late
        return Frame(image, time.monotonic(), "throw.png", still=True)

    def close(self) -> None:
        self.closes.append((threading.current_thread().name, self.reading))


@pytest.mark.parametrize("late", ["frame", "lost"])
def test_a_camera_stalled_in_a_read_is_closed_by_its_thread_and_its_late_frame_unused(
    tmp_path: Path, late: str
) -> None:
    """stop() had closed the frames from the caller's thread once its wait ran out, with the
    camera thread still inside a read (a real capture on a silent stream: the process
    crashed), and the frame that read returned was still read as a throw, recorded after
    the camera had stopped (or, the ledger closed by then, announced as not read).  A read
    that fails after stop() is no news either, and the camera is not opened again."""
    rng = np.random.default_rng(17)
    first, second = (render_throw(ThrowSpec(dice=("d6",) * 2), rng).image for _ in range(2))
    lost = CameraError("camera 0 stopped delivering frames")
    frames = _Stalled(first, second if late == "frame" else lost)
    opened: list[_Stalled] = []

    def reopen() -> _Stalled:
        opened.append(frames)
        return frames

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", frames, DiceReader(), table,
                              reopen=reopen, backoff=(0.01, 0.01))  # fmt: skip

        def kept() -> int:  # the throw's dice, sure (thrown) and unsure (readings)
            return sum(len(list(ledger.entries(kind=k))) for k in ("throw", "reading"))

        camera.start()
        assert frames.stalled.wait(60)  # the first throw read, the second read stalled
        _wait(lambda: camera.throws_read == 1 and kept() > 0)
        before = kept()
        camera.stop(timeout=0.2)
        assert camera._thread is not None and camera._thread.is_alive()  # still in the read
        assert frames.closes == []  # not closed under the read
        told = len(events)
        frames.go.set()  # the read returns a frame, after stop()
        camera._thread.join(60)
        assert not camera._thread.is_alive()
        assert frames.closes == [("camera", False)]  # by the camera thread, after its read
        assert camera.throws_read == 1 and kept() == before  # the late frame: no throw
        assert events[told:] == []  # and no news: no throw, no "disconnected"
        assert opened == []
