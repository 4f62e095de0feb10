"""The kiosk cycle on gpiozero's own MockFactory (a fresh factory per test)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.display import Screen
from hardware.kiosk import KioskCycle, KioskError, KioskPanel, KioskPins
from mechanics.check_factory import create_check
from mechanics.reading import Reading

PINS = KioskPins(button=17, actuator=27, led_idle=5, led_rolling=6, led_reading=13,
                 led_attention=19, buzzer=26)  # fmt: skip


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    pins = MockFactory()
    yield pins
    pins.reset()


@pytest.fixture
def panel(factory: MockFactory) -> Iterator[KioskPanel]:
    p = KioskPanel(PINS, pin_factory=factory)
    yield p
    p.close()


def lit(panel: KioskPanel) -> list[str]:
    return [name for name, led in panel.leds.items() if led.is_lit]


def make_cycle(
    panel: KioskPanel, readings: Sequence[Reading] | None, **options: Any
) -> tuple[KioskCycle, list[Screen], list[list[str]]]:
    screens: list[Screen] = []
    states: list[list[str]] = []

    def show(screen: Screen) -> None:
        screens.append(screen)
        states.append(lit(panel))

    def resolve(dice: Sequence[Reading]) -> dict[str, Any]:
        return create_check("d6pool", level=3, difficulty=2).accept(*dice).to_dict()

    cycle = KioskCycle(panel, read=lambda: readings, resolve=resolve, show=show,
                       tumble_s=0.02, **options)  # fmt: skip
    return cycle, screens, states


DICE = [Reading("d6", 3, 0.9, "camera:0"), Reading("d6", 4, 0.95, "camera:0"),
        Reading("d6", 2, 0.99, "camera:0")]  # fmt: skip


def test_a_press_rolls_reads_resolves_and_shows(factory: MockFactory, panel: KioskPanel) -> None:
    cycle, screens, states = make_cycle(panel, DICE)
    cycle.attach()
    assert lit(panel) == ["idle"]
    actuator = factory.pin(PINS.actuator)
    factory.pin(PINS.button).drive_low()  # press
    deadline = time.monotonic() + 5
    while not cycle.results and time.monotonic() < deadline:
        time.sleep(0.01)
    factory.pin(PINS.button).drive_high()
    result = cycle.results[0]
    assert result.ok and result.resolution is not None
    assert result.resolution["value"] == 2 and result.resolution["success"] is True
    assert states[0] == ["rolling"]
    assert screens[-1].headline == "2" and screens[-1].detail == "success"
    assert lit(panel) == ["idle"]
    # the actuator was switched on for the tumble, then off again
    assert [state for _, state in actuator.states][-2:] == [True, False]


def test_no_dice_seen_needs_attention(panel: KioskPanel) -> None:
    cycle, screens, _ = make_cycle(panel, [])
    result = cycle.roll()
    assert result is not None and not result.ok and "sees no dice" in result.message
    assert lit(panel) == ["attention"] and screens[-1].attention
    assert panel.buzzer is not None


def test_an_unclear_die_asks_for_a_rethrow(panel: KioskPanel) -> None:
    unclear = [*DICE[:2], Reading("d6", 5, 0.2, "camera:0")]
    cycle, _, _ = make_cycle(panel, unclear)
    result = cycle.roll()
    assert result is not None and not result.ok and "re-throw" in result.message


def test_a_jammed_tumbler_or_unsettled_dice_stop_the_cycle(
    factory: MockFactory, panel: KioskPanel
) -> None:
    jammed, _, _ = make_cycle(panel, DICE, tumbler_ok=lambda: False)
    result = jammed.roll()
    assert result is not None and "jammed" in result.message
    assert factory.pin(PINS.actuator).state is False  # never left running
    restless, _, _ = make_cycle(panel, DICE, settle=lambda timeout: False)
    result = restless.roll()
    assert result is not None and "did not settle" in result.message


def test_a_second_press_during_a_roll_is_ignored(panel: KioskPanel) -> None:
    cycle, _, _ = make_cycle(panel, DICE)
    cycle._busy.acquire()
    try:
        assert cycle.roll() is None
    finally:
        cycle._busy.release()
    assert cycle.roll() is not None


def test_pins_in_use_are_a_clear_error(factory: MockFactory, panel: KioskPanel) -> None:
    with pytest.raises(KioskError, match="cannot claim"):
        KioskPanel(PINS, pin_factory=factory)  # the same pins, already claimed


@pytest.mark.parametrize(("kind", "on_state"), [("motor", 0.6), ("servo", None)])
def test_pwm_tumblers_run_for_the_roll_then_stop(kind: str, on_state: float | None) -> None:
    from gpiozero.pins.mock import MockPWMPin

    factory = MockFactory(pin_class=MockPWMPin)
    try:
        panel = KioskPanel(PINS, pin_factory=factory, tumbler=kind, speed=0.6)
        cycle, _, _ = make_cycle(panel, [Reading("d6", 4)])
        assert cycle.roll() is not None
        states = [state for _, state in factory.pin(PINS.actuator).states]
        if kind == "motor":
            assert states[-2:] == [0.6, 0]  # ran at the set speed, then stopped
        else:  # a servo: pulses to its far end while tumbling, then limp (no pulses)
            far = max(states)
            assert far > 0.09 and states[-1] == 0 and not panel.actuator.is_active
        panel.close()
    finally:
        factory.reset()


def test_a_servo_needs_a_pwm_pin_and_bad_tumblers_are_named(factory: MockFactory) -> None:
    with pytest.raises(KioskError, match="GPIO pins"):
        KioskPanel(PINS, pin_factory=factory, tumbler="servo")  # plain MockPin: no PWM
    with pytest.raises(KioskError, match="not 'crank'"):
        KioskPanel(PINS, pin_factory=MockFactory(), tumbler="crank")
