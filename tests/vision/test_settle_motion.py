"""Settle detection (vision/settle.py) on rendered throws: a frame with a die still moving is
never settled, however slowly it moves, however small it is; sensor noise and a light that
drifts do not hold a still tray back; frame stamps that stall or go back do not freeze it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.frames import Frame
from vision.render import RenderedThrow, ThrowSpec, render_settling, render_throw
from vision.settle import STALLED_FPS, SettleDetector, SettleState, light_fit


def _sliding(throw: RenderedThrow, step: float, moving: int, still: int) -> list[np.ndarray]:
    """``throw``'s one die sliding ``step`` px a frame for ``moving`` frames (towards the
    side with room), then lying where it stopped for ``still`` frames; each frame with
    its own sensor noise."""
    w = throw.image.shape[1]
    x0, y0, x1, y1 = throw.dice[0].box
    way = 1 if x1 + step * moving < w else -1
    assert x0 - step * moving >= 0 or way == 1, "no room to slide"
    die = np.abs(throw.image.astype(np.int16) - throw.empty_tray).sum(axis=2) > 30
    die = die[y0:y1, x0:x1]  # the die's own pixels (and its shadow's dark edge)
    rng = np.random.default_rng(0)
    frames = []
    for k in range(moving + still):
        image = throw.empty_tray.copy()
        dx = way * round(step * min(k, moving - 1))
        image[y0:y1, x0 + dx : x1 + dx][die] = throw.image[y0:y1, x0:x1][die]
        frames.append(np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8))
    return frames


def _fed(detector: SettleDetector, frames: list[np.ndarray], fps: float) -> list[SettleState]:
    return [detector.feed(Frame(image, k / fps)) for k, image in enumerate(frames)]


@pytest.mark.parametrize(
    ("size", "die_px", "step"),
    [((1280, 960), (60, 70), 4.0), ((1280, 960), (60, 70), 8.0), ((640, 480), (34, 40), 2.0)],
)
def test_a_die_sliding_slowly_is_never_taken_as_settled(
    size: tuple[int, int], die_px: tuple[int, int], step: float
) -> None:
    """A die sliding a few pixels a frame (120 px/s at 1280 x 960, 30 fps) changed too
    little from one frame to the next, and was "settled" after it had moved 72 px; now
    each frame is compared with the still run's first too."""
    spec = ThrowSpec(dice=("d6",), size=size, die_px=die_px, jpeg=False, noise=0)
    throw = render_throw(spec, np.random.default_rng(3))
    states = _fed(SettleDetector(0.6), _sliding(throw, step, 30, 30), fps=30)
    assert not any(s.settled for s in states[:30])  # never while it slides
    settled = [k for k, s in enumerate(states) if s.settled]
    assert len(settled) == 1 and settled[0] >= 29 + 0.6 * 30  # once, 0.6 s after it stopped


def test_a_small_die_turning_in_place_or_blinking_is_movement() -> None:
    """A die 2-5% of the frame wide turning over where it lies (a face each frame), or one
    seen and gone by turns, changed a few dozen pixels of a 160-px copy's share, and
    settled; a patch of changed pixels a die's corner large is movement now."""
    spec = ThrowSpec(dice=("d6",), size=(1280, 960), die_px=(60, 70))
    turning = [render_throw(replace(spec, values=(v % 6 + 1,)), np.random.default_rng(11)).image
               for v in range(12)]  # the same die, where it lies, a face each frame  # fmt: skip
    states = _fed(SettleDetector(0.6), turning + [turning[-1]] * 8, fps=10)
    assert not any(s.settled for s in states[:12])
    assert [k for k, s in enumerate(states) if s.settled] == [12 + 6]  # 0.6 s still
    for die_px, seed in [((40, 44), 12), ((30, 34), 13)]:
        spec = ThrowSpec(dice=("d6",), size=(1280, 960), die_px=die_px)
        throw = render_throw(spec, np.random.default_rng(seed))
        blinking = [throw.image if k % 2 else throw.empty_tray for k in range(16)]
        assert not any(s.settled for s in _fed(SettleDetector(0.6), blinking, fps=10))


@pytest.mark.parametrize("size", [(640, 480), (1280, 960)])
def test_sensor_noise_or_a_drifting_light_does_not_hold_a_still_tray_back(
    size: tuple[int, int],
) -> None:
    """A still tray whose frames differ by strong sensor noise (12 grey levels), or whose
    light dims 1% a frame (a camera's exposure drifting): still, settled once."""
    spec = ThrowSpec(dice=("d6",) * 3, size=size, noise=12.0)
    frames = render_settling(spec, np.random.default_rng(4), moving=6, still=14)
    states = _fed(SettleDetector(0.3), [image for image, _ in frames], fps=10)
    assert not any(s.moving for s in states[7:])  # the first still frame differs from the last
    assert [k for k, s in enumerate(states) if s.settled] == [10]
    still = [image for image, flag in frames if flag]
    dimming = [(image * (1 - 0.01 * k)).astype(np.uint8) for k, image in enumerate(still)]
    states = _fed(SettleDetector(0.3), dimming, fps=10)
    assert not any(s.moving for s in states[1:])
    assert [k for k, s in enumerate(states) if s.settled] == [3]


def test_frame_stamps_that_go_back_or_stall_do_not_freeze_settling() -> None:
    """A stamp before the last (a film looping, a clock set back) times the still run from
    it: it had waited till the stamps came back to where they were.  Stamps that stall
    pass no time, and the frames are counted instead, at most STALLED_FPS a second: the
    still run had never ended."""
    frames = [image for image, _ in render_settling(ThrowSpec(dice=("d6",) * 2),
                                                    np.random.default_rng(6), 6, 14)]  # fmt: skip
    back = [k * 0.1 if k < 8 else k * 0.1 - 100 for k in range(20)]  # back 100 s at frame 8
    detector = SettleDetector(0.3)
    states = [detector.feed(Frame(image, at)) for image, at in zip(frames, back, strict=True)]
    after = next(k for k in range(8, 20) if back[k] - back[8] >= 0.3)  # 0.3 s after the jump
    assert [k for k, s in enumerate(states) if s.settled] == [after]
    stalled = frames + [frames[-1]] * 10
    detector = SettleDetector(0.3)
    states = [detector.feed(Frame(image, 5.0)) for image in stalled]
    settled = [k for k, s in enumerate(states) if s.settled]
    first_still = next(k for k, s in enumerate(states) if k and not s.moving)
    assert settled == [first_still + round(0.3 * STALLED_FPS)]
    assert all(not s.settled for s in states if s.moving)


def test_a_wait_that_is_no_number_is_refused() -> None:
    for wait in (float("nan"), -0.1):
        with pytest.raises(ValueError, match="still_seconds must be 0 or more"):
            SettleDetector(wait)


def test_a_change_of_light_is_fitted_as_gain_and_offset_and_anything_else_is_not() -> None:
    rng = np.random.default_rng(3)
    was = rng.integers(40, 200, (30, 30)).astype(np.float32)
    gain, offset = light_fit(was, was * 1.3 - 12) or (0.0, 0.0)
    assert gain == pytest.approx(1.3) and offset == pytest.approx(-12, abs=1e-6)
    assert light_fit(was, was * 3.0) is None  # no lamp triples the tray: something else
    assert light_fit(was, 250 - was) is None  # a picture turned negative: not the light
    flat = np.full((30, 30), 90, np.uint8)  # a flat reference has no gain to fit
    assert light_fit(flat, flat + 7) == (1.0, pytest.approx(7))
