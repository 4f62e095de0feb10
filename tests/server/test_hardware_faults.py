"""The hardware loop when the hardware misbehaves: luma's own SSD1306 class over an I²C
wire that a test pulls out and pushes back in, gpiozero's MockFactory for the kiosk, a
real Unix socket for systemd's watchdog."""

from __future__ import annotations

import atexit
import errno
import functools
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dicebridge.serve import _hardware_loop
from hardware.display import DisplayError, Screen, open_display
from hardware.kiosk import KioskPanel
from mechanics.reading import Reading
from server.camera import CameraSource
from server.config import Config
from server.hardware_loop import HardwareLoop
from server.systemd import Notifier
from server.table import Table
from tests.server.test_hardware_loop import _until, lit
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw

# luma's SSD1306 class reads the image with a Pillow call Pillow now deprecates: luma's to mend
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")


class Wire:
    """Stands in for smbus2.SMBus (there is no I²C bus here): the OLED's wire, pulled out
    and pushed back in by the test; what reaches the display is counted."""

    def __init__(self) -> None:
        self.plugged = True
        self.tries = 0  # blocks sent, answered or not
        self.blocks = 0  # blocks the display took

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.tries += 1
        if not self.plugged:  # what smbus2 raises when nothing acknowledges the address
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.blocks += 1


@pytest.fixture
def events(table: Table) -> list[dict[str, Any]]:
    heard: list[dict[str, Any]] = []
    table.subscribe(heard.append)
    return heard


def press(panel: KioskPanel) -> None:
    panel.button.pin.drive_low()
    panel.button.pin.drive_high()


def display_news(events: list[dict[str, Any]], kind: str) -> int:
    return sum(e.get("source") == "display" and e.get("event") == kind for e in events)


def test_luma_s_own_errors_become_display_errors() -> None:
    wire = Wire()
    display = open_display("ssd1306", bus=wire)
    wire.plugged = False
    with pytest.raises(DisplayError, match="I2C device not found"):  # luma's, not an OSError
        display.show(Screen("3"))


def test_a_display_that_does_not_answer_is_asked_before_luma_builds_one() -> None:
    # the service opens a missing display every few seconds: luma keeps every device it
    # builds (even one that failed) for its cleanup at exit, so none may be built each time
    wire = Wire()
    wire.plugged = False
    kept = atexit._ncallbacks()
    for _ in range(3):
        with pytest.raises(DisplayError, match="cannot open the ssd1306"):
            open_display("ssd1306", bus=wire)
    assert wire.tries == 3 and atexit._ncallbacks() == kept


def test_an_unplugged_display_is_said_once_and_the_kiosk_runs_on(
    table: Table, panel: KioskPanel, events: list[dict[str, Any]]
) -> None:
    wire = Wire()
    loop = HardwareLoop(table, open_display("ssd1306", bus=wire), panel, tumble_s=0.05,
                        read_timeout_s=0.3)  # fmt: skip
    loop.start()
    try:
        check = table.create("decibel", {"pool": 2, "target": 10})
        _until(lambda: loop.shown and loop.shown[-1].prompt == "throw 2 d20")
        wire.plugged = False
        table.add_dice(check["id"], [Reading("d20", 14), Reading("d20", 3)])
        _until(lambda: display_news(events, "fault") == 1)
        table.create("dphi", {"might": 0.5})  # more news for the display that is gone
        press(panel)  # the button, the tumbler and the LEDs still work
        _until(lambda: lit(panel) == ["attention"])  # no dice read after the roll
        assert loop.rolls == 1 and display_news(events, "fault") == 1
        assert table.source_details()["display"]["state"] == "disconnected"
    finally:
        loop.stop()


def test_a_failing_event_is_said_and_the_loop_turns_on(
    table: Table, panel: KioskPanel, events: list[dict[str, Any]]
) -> None:
    display = open_display("dummy")
    loop = HardwareLoop(table, display, panel)
    loop.start()
    try:
        panel.leds["attention"].close()  # a GPIO device gone from under the loop
        table.uncertain("camera", {"die": "d6", "advice": "re-throw the red d6"})
        _until(lambda: any(e.get("source") == "kiosk" and e["event"] == "fault" for e in events))
        table.create("dphi", {"might": 0.5})
        _until(lambda: display.last is not None and display.last.prompt == "throw 1 d10")
    finally:
        loop.stop()


@pytest.mark.parametrize("opened_again", [True, False], ids=["reopened", "same-device"])
def test_a_display_back_after_an_outage_is_used_again(
    table: Table, events: list[dict[str, Any]], opened_again: bool
) -> None:
    wire = Wire()
    reopen = functools.partial(open_display, "ssd1306", bus=wire) if opened_again else None
    loop = HardwareLoop(table, open_display("ssd1306", bus=wire), reopen_display=reopen,
                        display_retry_s=0.05)  # fmt: skip
    loop.start()
    try:
        wire.plugged = False
        check = table.create("decibel", {"pool": 2, "target": 10})
        _until(lambda: display_news(events, "fault") == 1)
        tried = wire.tries
        _until(lambda: wire.tries > tried + 2)  # tried again and again, said once
        assert display_news(events, "fault") == 1
        assert table.source_details()["display"]["state"] == "disconnected"
        wire.plugged = True
        _until(lambda: display_news(events, "connected") == 1)
        assert table.source_details()["display"]["state"] == "connected"
        taken = wire.blocks
        table.add_dice(check["id"], [Reading("d20", 14), Reading("d20", 3)])
        _until(lambda: wire.blocks > taken)  # the result reached the display
    finally:
        loop.stop()


@pytest.mark.skipif(Path("/dev/i2c-1").exists(), reason="an I²C bus here: an OLED may answer")
def test_serve_runs_on_without_the_ssd1306_it_was_told_of(
    table: Table, events: list[dict[str, Any]]
) -> None:
    loop = _hardware_loop(Config(display="ssd1306"), table, None)
    assert display_news(events, "fault") == 1
    assert table.source_details()["display"]["state"] == "disconnected"
    loop.start()
    try:
        table.create("dphi", {"might": 0.5})
        _until(lambda: loop.shown and loop.shown[-1].prompt == "throw 1 d10")
    finally:
        loop.stop()


def test_a_throw_refused_after_a_press_says_what_to_throw(table: Table, panel: KioskPanel) -> None:
    display = open_display("dummy")
    loop = HardwareLoop(table, display, panel, tumble_s=0.05)
    loop.start()
    try:
        table.create("dphi", {"might": 0.5})
        press(panel)
        _until(lambda: lit(panel) == ["reading"])
        table.from_source("camera", [Reading("d10", 4), Reading("d10", 8)])  # one at a time
        _until(lambda: lit(panel) == ["attention"])
        # the LEDs change a moment before the screen is drawn: wait for the screen too
        _until(lambda: display.last is not None and display.last.attention)
        assert display.last is not None and display.last.prompt == "throw 1 d10"
    finally:
        loop.stop()


def test_a_throw_no_check_waits_for_ends_the_rolling_screen(
    table: Table, panel: KioskPanel
) -> None:
    display = open_display("dummy")
    loop = HardwareLoop(table, display, panel, tumble_s=0.05)
    loop.start()
    try:
        press(panel)
        _until(lambda: lit(panel) == ["reading"])
        table.from_source("tower:left", [Reading("d6", 3)])
        _until(lambda: lit(panel) == ["idle"])
        _until(lambda: display.last is not None and "no check" in display.last.detail)
    finally:
        loop.stop()


def test_dice_read_within_the_jam_grace_are_no_jam(table: Table, panel: KioskPanel) -> None:
    still = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(9)).image
    camera = CameraSource("camera", Replay([still] * 2000, interval=0.01), DiceReader(), table)
    loop = HardwareLoop(table, None, panel, tumble_s=0.05, moved_since=camera.moved_since,
                        jam_grace_s=0.3)  # fmt: skip
    camera.start()
    loop.start()
    try:
        _until(lambda: any("went to no check" in shown.detail for shown in loop.shown))
        check = table.create("decibel", {"pool": 2, "target": 10})
        press(panel)  # the camera sees nothing move: a tower reads this roll
        _until(lambda: lit(panel) == ["reading"])
        table.from_source("tower:left", [Reading("d20", 14), Reading("d20", 3)])
        _until(lambda: table.get(check["id"])["status"] == "resolved" and lit(panel) == ["idle"])
        time.sleep(0.6)  # past the grace: the result stays
        assert lit(panel) == ["idle"] and loop.shown[-1].headline == "11"
    finally:
        loop.stop()
        camera.stop()


def test_the_watchdog_is_pinged_during_a_long_tumble(
    table: Table, panel: KioskPanel, tmp_path: Path
) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(path)
        systemd.settimeout(5)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
        loop = HardwareLoop(table, None, panel, tumble_s=1.5, notifier=notifier)
        loop.start()
        try:
            press(panel)
            _until(lambda: panel.actuator.is_active)
            pings = 0
            while panel.actuator.is_active:
                assert systemd.recv(100) == b"WATCHDOG=1"
                pings += panel.actuator.is_active
            assert pings >= 3  # every 0.1 s asked for; 1.5 s of tumble
        finally:
            loop.stop()


def test_the_loop_starts_again_after_a_stop_and_keeps_no_press_from_while_stopped(
    table: Table, panel: KioskPanel
) -> None:
    display = open_display("dummy")
    loop = HardwareLoop(table, display, panel, tumble_s=0.05)
    loop.start()
    loop.stop()
    press(panel)  # nobody there to roll: not kept for later
    loop.start()
    try:
        table.create("dphi", {"might": 0.5})  # heard after any press kept from before
        _until(lambda: display.last is not None and display.last.prompt == "throw 1 d10")
        assert loop.rolls == 0 and lit(panel) == ["idle"]
        press(panel)
        _until(lambda: loop.rolls == 1)
    finally:
        loop.stop()


def test_a_withdrawn_check_s_prompt_leaves_the_screen(table: Table, panel: KioskPanel) -> None:
    """The screen had kept asking for a withdrawn check's dice until the next news."""
    display = open_display("dummy")
    loop = HardwareLoop(table, display, panel, tumble_s=0.05)
    loop.start()
    try:
        first = table.create("decibel", {"pool": 2, "target": 13})["id"]
        second = table.create("dphi", {"might": 0.5})["id"]
        _until(lambda: display.last is not None and display.last.prompt == "throw 1 d10")
        table.withdraw(second)
        _until(lambda: display.last is not None and display.last.prompt == "throw 2 d20")
        table.withdraw(first)
        _until(lambda: display.last is not None and display.last.detail == "check withdrawn")
        assert display.last is not None and display.last.prompt == "no check waits for dice"
    finally:
        loop.stop()
