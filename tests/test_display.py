"""The attached display, drawn on luma's own dummy device and checked by its pixels."""

from __future__ import annotations

import subprocess
import sys

import pytest
from luma.core.device import dummy

from hardware.display import DisplayError, LumaDisplay, Screen, open_display, render


def ink(image, box) -> int:  # type: ignore[no-untyped-def]
    """How many lit pixels a monochrome image has inside ``box``."""
    region = image.convert("L").crop(box)
    return int(sum(region.point(lambda v: 1 if v > 127 else 0).histogram()[1:]))


def test_ssd1306_shows_the_result_large_and_the_prompt() -> None:
    device = dummy(width=128, height=64, mode="1")
    display = LumaDisplay(device)
    display.show(Screen("17", "success", "throw 4 dF"))
    image = device.image
    assert image.size == (128, 64)
    top, bottom = ink(image, (0, 0, 128, 34)), ink(image, (0, 34, 128, 64))
    assert top > 300  # the headline fills the upper half
    assert 50 < bottom < top  # smaller text below it
    assert display.last == Screen("17", "success", "throw 4 dF")


def test_st7789_colour_screen() -> None:
    device = dummy(width=240, height=240, mode="RGB")
    LumaDisplay(device).show(Screen("+7", "net result", "throw 1 d10"))
    assert device.image.size == (240, 240) and device.image.mode == "RGB"
    assert ink(device.image, (0, 0, 240, 120)) > 2000


def test_needs_attention_is_inverted() -> None:
    normal = render(Screen("?", "re-throw the red d6"), 128, 64)
    alarm = render(Screen("?", "re-throw the red d6", attention=True), 128, 64)
    total = 128 * 64
    assert ink(normal, (0, 0, 128, 64)) < total / 4
    assert ink(alarm, (0, 0, 128, 64)) > total * 3 / 4


def test_long_text_is_shrunk_to_fit() -> None:
    image = render(Screen("success", "a rather long explanation of the result", "throw"), 128, 64)
    assert ink(image, (0, 0, 2, 64)) == 0 and ink(image, (126, 0, 128, 64)) == 0


def test_display_errors_are_ours() -> None:
    with pytest.raises(DisplayError, match="unknown display"):
        open_display("vga")
    with pytest.raises(DisplayError, match="cannot open the ssd1306"):
        open_display("ssd1306", port=99)  # no such I²C bus here
    assert open_display("dummy").device.width == 128


def test_importing_the_display_module_loads_no_luma() -> None:
    code = "import sys, hardware.display; print(any(m.startswith('luma') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_line_break_is_drawn_as_a_space() -> None:
    # a tower's fault text has line breaks; Pillow cannot measure those, and each of the
    # display's lines is one line
    broken = render(Screen("3\n4", "jam: door open\nclose the door", "throw\r\nagain"), 128, 64)
    flat = render(Screen("3 4", "jam: door open close the door", "throw again"), 128, 64)
    assert broken.tobytes() == flat.tobytes()
