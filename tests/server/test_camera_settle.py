"""The camera source's settling (server/camera.py) on rendered frames, a real ledger and
table: a light that flickers every few frames is said, and a die rolling where a knocked
camera's tray now lies holds its throw back."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from server.camera import CameraSource
from server.ledger import Ledger
from server.table import Table
from server.tray_areas import TrayAreaStore
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw
from vision.settle import SettleDetector


def _wait(condition: Any, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _watched(camera: CameraSource, events: list[dict[str, Any]]) -> None:
    """Run ``camera`` through its frames (a Replay's: then it says "disconnected")."""
    camera.start()
    try:
        _wait(lambda: any(e.get("event") == "disconnected" for e in events))
    finally:
        camera.stop()


@pytest.mark.parametrize("pattern", ["AABB", "AAAB"])
def test_a_light_that_flickers_every_few_frames_is_said_once(tmp_path: Path, pattern: str) -> None:
    """A still tray under a light 20% brighter every few frames (at 10 frames a second:
    still runs of 0.1-0.2 s, under the 0.6 s a throw waits): no throw is read, and after
    30 s it is said.  Each still frame had restarted the 30 s, so nothing was said."""
    image = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(16)).image
    brighter = np.clip(image * 1.2, 0, 255).astype(np.uint8)
    frames = [image if pattern[k % 4] == "A" else brighter for k in range(320)]  # 32 s
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = CameraSource("camera", Replay(frames, interval=0.1), DiceReader(), table)
        _watched(camera, events)
        told = [e["detail"] for e in events if e.get("event") == "notice"]
        assert len(told) == 1 and told[0].startswith("the picture has not held still for 30 s")
        assert camera.throws_read == 0


def test_a_die_rolling_where_a_knocked_camera_now_sees_the_tray_holds_the_throw_back(
    tmp_path: Path,
) -> None:
    """The tray's area marked on the left half; the camera knocked 60 px since (the tray
    lies further right in its picture, and is read there): a die rolling down the strip
    between where the area was marked and where it lies now was watched for as if off the
    tray, and the throw read while it rolled.  Now the tray is read once, after it lay
    still, in the frame where it had stopped."""
    throw = render_throw(ThrowSpec(dice=("d6",) * 3, touching=0.0), np.random.default_rng([77, 3]))
    other = render_throw(ThrowSpec(dice=("d6",), die_px=(28, 28)), np.random.default_rng(5))
    x0, y0, x1, y1 = other.dice[0].box
    die = other.image[y0:y1, x0:x1]  # a rendered die, rolling down the strip x 338-366
    h, w = throw.image.shape[:2]
    knocked = cv2.warpAffine(throw.image, np.array([[1, 0, 60], [0, 1, 0]], np.float32), (w, h),
                             borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    rolling = []
    for k in range(20):
        image = knocked.copy()
        y = 40 + 25 * k
        image[y : y + die.shape[0], 338 : 338 + die.shape[1]] = die
        rolling.append(image)
    frames = [throw.image] * 2 + rolling + [rolling[-1].copy() for _ in range(8)]
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        areas = TrayAreaStore(tmp_path)
        areas.mark([[0, 0], [0.5, 0], [0.5, 1], [0, 1]], throw.image)
        camera = CameraSource("camera", Replay(frames, interval=0.1), DiceReader(), table,
                              SettleDetector(0.3), areas=areas)  # fmt: skip
        _watched(camera, events)
        assert camera.throws_read == 1
        read = table.last_frame("camera")
        assert any(read is still for still in frames[-8:])  # read once it lay still
