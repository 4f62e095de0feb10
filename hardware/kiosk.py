"""The kiosk cycle: press → tumble → settle → read → resolve → show.

:class:`KioskPanel` is the GPIO side (gpiozero: a roll button, the tumble
actuator, four status LEDs and an optional buzzer), built on whatever pin
factory it is given — the real one on a Pi, gpiozero's MockFactory in tests.
:class:`KioskCycle` runs one roll with everything else passed in as functions,
and ends every failure (a jammed tumbler, no dice seen, a die that stays
uncertain) in "needs attention", never in a made-up result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.display import Screen
from mechanics.reading import Reading

STATES = ("idle", "rolling", "reading", "attention")
TUMBLERS = ("relay", "motor", "servo")


class KioskError(RuntimeError):
    """The GPIO pins could not be claimed (wrong numbers, in use, no GPIO here)."""


@dataclass(frozen=True)
class KioskPins:
    """BCM pin numbers, from the config file."""

    button: int = 17
    actuator: int = 27
    led_idle: int = 5
    led_rolling: int = 6
    led_reading: int = 13
    led_attention: int = 19
    buzzer: int | None = None


class Tumbler:
    """The tumble actuator, whatever drives it: ``relay`` (on/off output), ``motor``
    (a DC motor on a PWM output at ``speed``) or ``servo`` (swings to its far end
    while on, back and then limp when off)."""

    def __init__(self, kind: str, pin: int, pin_factory: Any = None, speed: float = 1.0) -> None:
        from gpiozero import OutputDevice, PWMOutputDevice, Servo

        if kind not in TUMBLERS:
            raise KioskError(f"the tumbler is a {', '.join(TUMBLERS)}, not {kind!r}")
        if not 0 < speed <= 1:
            raise KioskError(f"the motor's speed is above 0 and at most 1, not {speed}")
        self.kind = kind
        self._speed = speed
        self.device: Any
        if kind == "relay":
            self.device = OutputDevice(pin, pin_factory=pin_factory)
        elif kind == "motor":
            self.device = PWMOutputDevice(pin, pin_factory=pin_factory)
        else:
            self.device = Servo(pin, pin_factory=pin_factory, initial_value=None)
        self.is_active = False

    def on(self) -> None:
        if self.kind == "relay":
            self.device.on()
        elif self.kind == "motor":
            self.device.value = self._speed
        else:
            self.device.max()
        self.is_active = True

    def off(self) -> None:
        if self.kind == "servo":
            self.device.min()
            self.device.detach()  # limp: a servo held against a jam would burn
        else:
            self.device.off()
        self.is_active = False

    def close(self) -> None:
        self.device.close()


class KioskPanel:
    def __init__(
        self, pins: KioskPins, pin_factory: Any = None, tumbler: str = "relay", speed: float = 1.0
    ) -> None:
        try:
            from gpiozero import LED, Button, Buzzer, GPIOZeroError
        except ImportError as err:  # pragma: no cover - gpiozero is a dependency
            raise KioskError(f"gpiozero is not installed: {err}") from None
        try:
            self.button = Button(pins.button, pin_factory=pin_factory, bounce_time=None)
            self.actuator = Tumbler(tumbler, pins.actuator, pin_factory, speed)
            self.leds = {
                "idle": LED(pins.led_idle, pin_factory=pin_factory),
                "rolling": LED(pins.led_rolling, pin_factory=pin_factory),
                "reading": LED(pins.led_reading, pin_factory=pin_factory),
                "attention": LED(pins.led_attention, pin_factory=pin_factory),
            }
            self.buzzer = (
                Buzzer(pins.buzzer, pin_factory=pin_factory) if pins.buzzer is not None else None
            )
        except (GPIOZeroError, OSError) as err:
            raise KioskError(f"cannot claim the kiosk's GPIO pins: {err}") from None
        self.state = "idle"
        self.show_state("idle")

    def show_state(self, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"unknown kiosk state {state!r}")
        self.state = state
        for name, led in self.leds.items():
            led.value = name == state
        if self.buzzer is not None:
            if state == "attention":
                self.buzzer.beep(on_time=0.1, off_time=0.1, n=3)
            else:
                self.buzzer.off()

    def close(self) -> None:
        for device in (self.button, self.actuator, *self.leds.values(), self.buzzer):
            if device is not None:
                device.close()


@dataclass(frozen=True)
class CycleResult:
    ok: bool
    message: str
    resolution: dict[str, Any] | None = None


class KioskCycle:
    """One roll at a time; presses during a roll are ignored."""

    def __init__(
        self,
        panel: KioskPanel,
        *,
        read: Callable[[], Sequence[Reading] | None],
        resolve: Callable[[Sequence[Reading]], dict[str, Any]],
        show: Callable[[Screen], None],
        tumble_s: float = 1.5,
        settle: Callable[[float], bool] | None = None,
        tumbler_ok: Callable[[], bool] | None = None,
        settle_timeout_s: float = 10.0,
        min_confidence: float = 0.5,
    ) -> None:
        self.panel = panel
        self._read, self._resolve, self._show = read, resolve, show
        self.tumble_s = tumble_s
        self._settle = settle or (lambda timeout: True)
        self._tumbler_ok = tumbler_ok or (lambda: True)
        self.settle_timeout_s = settle_timeout_s
        self.min_confidence = min_confidence
        self._busy = threading.Lock()
        self.results: list[CycleResult] = []

    def attach(self) -> None:
        """Roll when the button is pressed (in gpiozero's callback thread)."""
        self.panel.button.when_pressed = lambda: self.roll()

    def roll(self) -> CycleResult | None:
        if not self._busy.acquire(blocking=False):
            return None  # already rolling: a second press does nothing
        try:
            result = self._cycle()
            self.results.append(result)
            return result
        finally:
            self._busy.release()

    def _attention(self, message: str) -> CycleResult:
        self.panel.show_state("attention")
        self._show(Screen("!", message, "press to try again", attention=True))
        return CycleResult(False, message)

    def _cycle(self) -> CycleResult:
        self.panel.show_state("rolling")
        self._show(Screen("…", "rolling"))
        self.panel.actuator.on()
        try:
            time.sleep(self.tumble_s)
        finally:
            self.panel.actuator.off()  # never left running, whatever happens
        if not self._tumbler_ok():
            return self._attention("the tumbler is jammed")
        if not self._settle(self.settle_timeout_s):
            return self._attention("the dice did not settle")
        self.panel.show_state("reading")
        readings = self._read()
        if not readings:
            return self._attention("the camera sees no dice")
        unsure = [r for r in readings if r.confidence < self.min_confidence]
        if unsure:
            return self._attention(f"re-throw: the {unsure[0].die} is unclear")
        resolution = self._resolve(readings)
        headline = str(resolution.get("value", "?"))
        if isinstance(resolution.get("value"), float):
            headline = f"{resolution['value']:+.2f}"
        outcome = resolution.get("outcome", resolution.get("status", ""))
        self._show(Screen(headline, str(outcome), resolution.get("prompt", "")))
        self.panel.show_state("idle")
        return CycleResult(True, str(outcome), resolution)
