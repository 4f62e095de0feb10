"""The loop that talks to the hardware: the attached display, the kiosk's LEDs, button
and tumbler, and systemd's watchdog.

One thread owns the devices.  It takes the table's events (and button presses)
from a queue, so nothing else ever blocks on I²C or GPIO: a resolved check
shows its result large with what to throw next; an unsure die or a throw with
no dice shows "needs attention".  A press tumbles the dice (the actuator is
always switched off again), then waits for the camera to read the settled
throw; if no reading comes in time the kiosk needs attention, never a made-up
result.  The watchdog is pinged from this loop, so systemd restarts the
service when the loop that talks to the hardware stops turning.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from hardware.display import DisplayError, LumaDisplay, Screen
from hardware.kiosk import KioskPanel
from server.systemd import Notifier
from server.table import Table


def screen_for(check: dict[str, Any], next_prompt: str = "") -> Screen:
    """A check's state as the small display shows it."""
    if check.get("status") != "resolved":
        return Screen("?", check.get("system", ""), check.get("prompt", ""))
    value = check.get("value")
    headline = (
        f"{value:+.2f}" if isinstance(value, float) else str(value if value is not None else "")
    )
    detail = str(check.get("outcome") or ("success" if check.get("success") else "failure"))
    return Screen(headline or detail, detail if headline else "", next_prompt)


class HardwareLoop:
    def __init__(
        self,
        table: Table,
        display: LumaDisplay | None = None,
        panel: KioskPanel | None = None,
        *,
        tumble_s: float = 1.5,
        read_timeout_s: float = 10.0,
        notifier: Notifier | None = None,
        moved_since: Callable[[float], bool] | None = None,
        jam_grace_s: float = 2.0,
    ) -> None:
        self._table = table
        self._display = display
        self._panel = panel
        self.tumble_s = tumble_s
        self.read_timeout_s = read_timeout_s
        self._notifier = notifier or Notifier()
        self._events: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=1000)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hardware", daemon=True)
        self._waiting_until: float | None = None  # a roll waits for the camera until then
        self._moved_since = moved_since  # the camera's word on whether the dice moved
        self.jam_grace_s = jam_grace_s
        self._jam_check: tuple[float, float] | None = None  # (tumble began, give up at)
        self._last_ping = 0.0
        self.rolls = 0
        self.shown: list[Screen] = []  # what the display was asked to show, newest last

    # --- wiring ---------------------------------------------------------------------------
    def start(self) -> None:
        self._unsubscribe = self._table.subscribe(self._offer)
        if self._panel is not None:
            self._panel.button.when_pressed = lambda: self._offer({"type": "press"})
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        if hasattr(self, "_unsubscribe"):
            self._unsubscribe()

    def _offer(self, event: dict[str, Any]) -> None:
        # a display that hangs must not stall the table: past 1000 waiting events, drop news
        with contextlib.suppress(queue.Full):
            self._events.put_nowait(event)

    # --- the loop -------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._ping()
            try:
                event = self._events.get(timeout=0.2)
            except queue.Empty:
                event = None
            if event is not None:
                self.handle(event)
            if self._jam_check is not None and self._moved_since is not None:
                began, give_up = self._jam_check
                if self._moved_since(began):
                    self._jam_check = None
                elif time.monotonic() > give_up:
                    self._jam_check = self._waiting_until = None
                    self._attention("the tumbler seems jammed: the dice did not move")
            if self._waiting_until is not None and time.monotonic() > self._waiting_until:
                self._waiting_until = None
                self._attention("the camera read no dice after the roll")

    def _ping(self) -> None:
        interval = (self._notifier.watchdog_seconds or 0) / 2
        if interval and time.monotonic() - self._last_ping >= interval:
            self._notifier.watchdog()
            self._last_ping = time.monotonic()

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "press":
            self._roll()
        elif kind == "check" and event.get("status") == "resolved":
            self._waiting_until = None
            needs = self._table.needs()
            self._show(screen_for(event, f"throw {needs[0]}" if needs else ""))
            self._state("idle")
        elif kind == "check":
            self._show(screen_for(event))
        elif kind == "reading" and self._waiting_until is not None:
            self._waiting_until = None  # the camera (or a tower) read the roll
            self._state("idle")
        elif kind == "uncertain":
            self._waiting_until = None
            self._attention(str(event.get("advice") or "a die is unclear"))
        elif kind == "source" and event.get("event") in ("attention", "fault"):
            self._waiting_until = None
            self._attention(str(event.get("detail") or "a source needs attention"))

    def _roll(self) -> None:
        if self._panel is None or self._waiting_until is not None:
            return  # no tumbler, or a roll is already waiting for its reading
        self.rolls += 1
        self._state("rolling")
        self._show(Screen("…", "rolling"))
        began = time.monotonic()
        self._panel.actuator.on()
        try:
            self._stop.wait(self.tumble_s)
        finally:
            self._panel.actuator.off()  # never left running, whatever happens
        self._state("reading")
        self._waiting_until = time.monotonic() + self.read_timeout_s
        self._jam_check = (began, time.monotonic() + self.jam_grace_s)

    # --- devices --------------------------------------------------------------------------
    def _attention(self, message: str) -> None:
        self._state("attention")
        self._show(Screen("!", message, "press to try again", attention=True))

    def _state(self, state: str) -> None:
        if self._panel is not None and self._panel.state != state:
            self._panel.show_state(state)
            self._table.source_event("kiosk", "state", {"detail": state})

    def _show(self, screen: Screen) -> None:
        self.shown.append(screen)
        del self.shown[:-50]
        if self._display is None:
            return
        try:
            self._display.show(screen)
        except DisplayError as err:  # a loose wire: say so once, keep the service running
            self._table.source_event("display", "fault", {"detail": str(err)})
            self._display = None
