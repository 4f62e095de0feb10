"""The loop that talks to the hardware, inside the service: gpiozero's MockFactory for the
kiosk, luma's dummy device for the display, a real Unix socket for systemd's watchdog."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hardware.display import open_display
from hardware.kiosk import KioskPanel
from mechanics.reading import Reading
from server.camera import CameraSource
from server.hardware_loop import HardwareLoop
from server.systemd import Notifier
from server.table import Table
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw


def _until(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def lit(panel: KioskPanel) -> list[str]:
    return [name for name, led in panel.leds.items() if led.is_lit]


def test_the_display_shows_each_result_and_what_to_throw_next(table: Table) -> None:
    display = open_display("dummy")
    loop = HardwareLoop(table, display)
    loop.start()
    try:
        first = table.create("decibel", {"pool": 2, "target": 10})
        table.create("dphi", {"might": 0.5})
        table.add_dice(first["id"], [Reading("d20", 14), Reading("d20", 3)])
        _until(lambda: display.last is not None and display.last.prompt == "throw d10")
        pixels = np.asarray(display.device.image)  # type: ignore[attr-defined]
        assert pixels.any() and not pixels.all()  # something drawn, not an inverted screen
        assert display.last is not None and display.last.attention is False
    finally:
        loop.stop()


def test_a_press_tumbles_then_the_camera_read_settles_the_kiosk(
    table: Table, panel: KioskPanel
) -> None:
    loop = HardwareLoop(table, None, panel, tumble_s=0.2, read_timeout_s=5)
    loop.start()
    try:
        table.create("d6pool", {"level": 1, "difficulty": 1})
        panel.button.pin.drive_low()  # a press
        panel.button.pin.drive_high()
        _until(lambda: panel.actuator.is_active)
        _until(lambda: lit(panel) == ["reading"])
        assert not panel.actuator.is_active  # switched off after the tumble
        image = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(3)).image
        CameraSource("camera", Replay([]), DiceReader(), table).read_throw(image)
        _until(lambda: lit(panel) == ["idle"])
        assert loop.rolls == 1
    finally:
        loop.stop()


def test_no_reading_after_a_roll_needs_attention(table: Table, panel: KioskPanel) -> None:
    loop = HardwareLoop(table, None, panel, tumble_s=0.05, read_timeout_s=0.3)
    loop.start()
    try:
        panel.button.pin.drive_low()
        panel.button.pin.drive_high()
        _until(lambda: lit(panel) == ["attention"])
        assert loop.shown[-1].attention and "no dice" in loop.shown[-1].detail
    finally:
        loop.stop()


def test_an_unsure_die_needs_attention_with_its_advice(table: Table, panel: KioskPanel) -> None:
    loop = HardwareLoop(table, None, panel)
    loop.start()
    try:
        table.uncertain("camera", {"die": "d6", "advice": "re-throw the red d6"})
        _until(lambda: lit(panel) == ["attention"])
        assert loop.shown[-1].detail == "re-throw the red d6"
    finally:
        loop.stop()


def test_the_watchdog_is_pinged_from_the_hardware_loop(table: Table, tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(path)
        systemd.settimeout(5)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
        loop = HardwareLoop(table, open_display("dummy"), notifier=notifier)
        loop.start()
        try:
            assert systemd.recv(100) == b"WATCHDOG=1"
            assert systemd.recv(100) == b"WATCHDOG=1"
        finally:
            loop.stop()
        systemd.settimeout(0.5)
        with pytest.raises(TimeoutError):  # a stopped loop pings no more
            while True:
                systemd.recv(100)


def test_a_tumble_the_camera_saw_no_motion_in_is_a_jam(table: Table, panel: KioskPanel) -> None:
    still = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(9)).image
    frames = Replay([still] * 2000, interval=0.01)  # the dice never move
    camera = CameraSource("camera", frames, DiceReader(), table)
    loop = HardwareLoop(table, None, panel, tumble_s=0.05, moved_since=camera.moved_since,
                        jam_grace_s=0.5)  # fmt: skip
    camera.start()
    loop.start()
    try:
        # the camera has read the still tray, and the loop heard of it (a reading heard
        # after the press would count as the roll's own: the dice moved)
        _until(lambda: any("went to no check" in shown.detail for shown in loop.shown))
        panel.button.pin.drive_low()
        panel.button.pin.drive_high()
        _until(lambda: lit(panel) == ["attention"])
        assert "jammed" in loop.shown[-1].detail
    finally:
        loop.stop()
        camera.stop()
