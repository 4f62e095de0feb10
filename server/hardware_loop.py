"""The loop that talks to the hardware: the attached display, the kiosk's LEDs, button
and tumbler, and systemd's watchdog.

One thread owns the devices.  It takes the table's events (and button presses)
from a queue, so nothing else ever blocks on I²C or GPIO: a resolved check
shows its result large with what to throw next; an unsure die or a throw with
no dice shows "needs attention".  A press tumbles the dice (the actuator is
always switched off again), then waits for the camera to read the settled
throw; if no reading comes in time the kiosk needs attention, never a made-up
result.  The watchdog is pinged from this loop, so systemd restarts the
service when the loop that talks to the hardware stops turning.  A display that
stops answering is said once and tried again every few seconds; an event that
fails (a GPIO device gone) is said and the loop turns on.
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

OWN_SOURCES = ("display", "kiosk")  # this loop's own news: no "needs attention" for the dice


def display_down(table: Table, why: str) -> None:
    """Once per outage: the news (a ``fault``) and the display's state (``disconnected``,
    read by /api/health and the Devices page until it is ``connected`` again)."""
    table.source_event("display", "fault", {"detail": why})
    table.source_event("display", "disconnected", {"detail": why})


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
    """``reopen_display`` opens the display anew (a controller that lost power must be set
    up again); given with no ``display``, the display is down from the start (its opener
    said why: :func:`display_down`) and opened every ``display_retry_s`` until it answers."""

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
        reopen_display: Callable[[], LumaDisplay] | None = None,
        display_retry_s: float = 5.0,
    ) -> None:
        self._table = table
        self._display = display
        self._panel = panel
        self.tumble_s = tumble_s
        self.read_timeout_s = read_timeout_s
        self._notifier = notifier or Notifier()
        self._events: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=1000)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._waiting_until: float | None = None  # a roll waits for the camera until then
        self._moved_since = moved_since  # the camera's word on whether the dice moved
        self.jam_grace_s = jam_grace_s
        self._jam_check: tuple[float, float] | None = None  # (tumble began, give up at)
        self._reopen = reopen_display
        self.display_retry_s = display_retry_s
        down = display is None and reopen_display is not None
        # while the display is down: when to try it again
        self._retry_display_at = time.monotonic() + display_retry_s if down else None
        self._last_ping = 0.0
        self.rolls = 0
        self.shown: list[Screen] = []  # what the display was asked to show, newest last

    # --- wiring ---------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._unsubscribe = self._table.subscribe(self._offer)
        if self._panel is not None:
            self._panel.button.when_pressed = lambda: self._offer({"type": "press"})
        self._thread = threading.Thread(target=self._run, name="hardware", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._panel is not None and self._panel.button.when_pressed is not None:
            # a press now would wait for a restart (gpiozero warns of a None set twice)
            self._panel.button.when_pressed = None
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        # what came before the stop (a press) is stale news to a loop started again
        with contextlib.suppress(queue.Empty):
            while True:
                self._events.get_nowait()

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
            try:
                if event is not None:
                    self.handle(event)
                self._timers()
            except Exception as err:  # a GPIO device gone, a driver's own error: one event
                # lost, said; the button, LEDs, display and watchdog must go on turning
                what = event.get("type") if event is not None else "a timer"
                self._table.source_event(
                    "kiosk",
                    "fault",
                    {"detail": f"could not handle {what}: {type(err).__name__}: {err}"},
                )

    def _timers(self) -> None:
        if self._retry_display_at is not None and time.monotonic() > self._retry_display_at:
            self._retry_display()
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
            self._settled()
            needs = self._table.needs()
            self._show(screen_for(event, f"throw {needs[0]}" if needs else ""))
            self._state("idle")
        elif kind == "check":
            self._show(screen_for(event))
        elif kind == "reading":
            self._reading(event)
        elif kind == "withdrawn":  # its prompt must not stay on the screen: the next one's
            waiting = self._table.waiting()
            none = Screen("-", "check withdrawn", "no check waits for dice")
            self._show(screen_for(waiting[0]) if waiting else none)
        elif kind == "refused":  # thrown together where the check needs fewer at a time
            self._settled()
            prompt = self._prompt_of(event.get("check"))
            self._attention("too many dice at once: not used", prompt or "throw again")
        elif kind == "uncertain":
            self._settled()
            self._attention(str(event.get("advice") or "a die is unclear"))
        elif (
            kind == "source"
            and event.get("event") in ("attention", "fault")
            and event.get("source") not in OWN_SOURCES
        ):
            self._settled()
            self._attention(str(event.get("detail") or "a source needs attention"))

    def _settled(self) -> None:
        """The roll came to something (dice read, a result, a fault): no more waiting for
        it, and no jam to report for it (its dice moved, or the news says what is wrong)."""
        self._waiting_until = self._jam_check = None

    def _reading(self, event: dict[str, Any]) -> None:
        if self._waiting_until is not None:  # the camera (or a tower) read the roll
            self._settled()
            self._state("idle")
        if event.get("check") is not None:
            return  # its check's news follows, and shows it
        # no check took it: said, rather than "rolling" on and on (a refusal may follow)
        waiting = self._table.waiting()
        prompt = str(waiting[0].get("prompt") or "") if waiting else "no check waits for dice"
        self._show(Screen("?", f"the {event.get('die', 'die')} went to no check", prompt))

    def _prompt_of(self, check_id: Any) -> str:
        return next(
            (str(c.get("prompt") or "") for c in self._table.waiting() if c["id"] == check_id), ""
        )

    def _roll(self) -> None:
        if self._panel is None or self._waiting_until is not None:
            return  # no tumbler, or a roll is already waiting for its reading
        self.rolls += 1
        self._state("rolling")
        self._show(Screen("…", "rolling"))
        began = time.monotonic()
        self._panel.actuator.on()
        try:
            self._tumble()
        finally:
            self._panel.actuator.off()  # never left running, whatever happens
        self._state("reading")
        self._waiting_until = time.monotonic() + self.read_timeout_s
        self._jam_check = (began, time.monotonic() + self.jam_grace_s)

    def _tumble(self) -> None:
        """Waits out the tumble in slices, pinging: to systemd a long tumble is no hung loop."""
        end = time.monotonic() + self.tumble_s
        while (left := end - time.monotonic()) > 0 and not self._stop.wait(min(left, 0.1)):
            self._ping()

    # --- devices --------------------------------------------------------------------------
    def _attention(self, message: str, prompt: str = "press to try again") -> None:
        self._state("attention")
        self._show(Screen("!", message, prompt, attention=True))

    def _state(self, state: str) -> None:
        if self._panel is not None and self._panel.state != state:
            self._panel.show_state(state)
            self._table.source_event("kiosk", "state", {"detail": state})

    def _show(self, screen: Screen) -> None:
        self.shown.append(screen)
        del self.shown[:-50]
        if self._display is None or self._retry_display_at is not None:
            return  # none, or down: the newest screen is shown when it answers again
        try:
            self._display.show(screen)
        except DisplayError as err:  # a loose wire: said once, tried again every few seconds
            display_down(self._table, str(err))
            self._retry_display_at = time.monotonic() + self.display_retry_s

    def _retry_display(self) -> None:
        self._retry_display_at = time.monotonic() + self.display_retry_s
        try:
            if self._reopen is not None:
                if self._display is not None:
                    self._display.close()
                self._display = None
                self._display = self._reopen()
            if self._display is not None and self.shown:
                self._display.show(self.shown[-1])
        except DisplayError:
            return  # still down: said already, tried again later
        self._retry_display_at = None
        self._table.source_event("display", "connected", {"detail": "the display answers again"})
