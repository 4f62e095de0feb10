"""The attached display, drawn on luma's own dummy device and checked by its pixels."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import ImageFont

from hardware import fonts
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


def same(a, b) -> bool:  # type: ignore[no-untyped-def]
    return bool(a.tobytes() == b.tobytes())


def test_what_no_font_has_is_a_stand_in_not_a_box(monkeypatch: pytest.MonkeyPatch) -> None:
    # a player's name in Chinese, a die set named with an emoji: drawn as the font's
    # .notdef boxes, they were unreadable; with no font that has them, each is a "?"
    monkeypatch.setattr(fonts, "FALLBACKS", ())
    main = fonts.Face(16).font
    assert bytes(main.getmask("李")) != bytes(main.getmask("?"))  # it draws a box
    shown = render(Screen("李🎲", "player 李明", "throw 🎲 d6"), 128, 64)
    assert same(shown, render(Screen("??", "player ??", "throw ? d6"), 128, 64))
    # what only joins or colours the emoji before it is left out, not a "?" of its own:
    # a ZWJ family is three faces, U+FE0F asks for an emoji, 🏽 is a skin tone
    family = render(Screen("👨\u200d👩\u200d👧", "🎲\ufe0f 👍🏽 e\u0301"), 128, 64)
    assert same(family, render(Screen("???", "? ? é"), 128, 64))


def test_a_character_the_main_font_lacks_comes_from_a_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pillow's own font (Aileron) has no Cyrillic and DejaVu Sans has: the path a CJK name
    takes to Unifont, testable on any machine with DejaVu."""
    try:
        dejavu = str(ImageFont.truetype("DejaVuSans.ttf", 16).path)
    except OSError:
        pytest.skip("DejaVu Sans is not installed (fonts-dejavu-core)")
    monkeypatch.setattr(fonts, "MAIN", ())
    monkeypatch.setattr(fonts, "FALLBACKS", (dejavu,))
    if fonts._has("", "Ж"):
        pytest.skip("Pillow's own font has Cyrillic here")
    mixed = render(Screen("Ж6", "player Жук"), 128, 64)
    assert not same(mixed, render(Screen("?6", "player ???"), 128, 64))
    assert ink(mixed, (0, 0, 64, 34)) > 50  # the Ж, left of the middle
    # a line all in the fallback is drawn as that font draws it
    alone = render(Screen("Жук"), 128, 64)
    monkeypatch.setattr(fonts, "MAIN", (dejavu,))
    monkeypatch.setattr(fonts, "FALLBACKS", ())
    assert same(alone, render(Screen("Жук"), 128, 64))
    # runs in two fonts are measured together: shrunk, then cut, within the margins
    monkeypatch.setattr(fonts, "MAIN", ())
    monkeypatch.setattr(fonts, "FALLBACKS", (dejavu,))
    long = render(Screen("dЖ", "Жжжжж " * 10 + "end", "throw Ж" * 3), 128, 64)
    assert ink(long, (0, 0, 2, 64)) == 0 and ink(long, (126, 0, 128, 64)) == 0


UNIFONT = fonts.FALLBACKS[:2]


@pytest.mark.skipif(
    not all(Path(name).is_file() for name in UNIFONT), reason="fonts-unifont is not installed"
)
def test_unifont_draws_cjk_and_emoji() -> None:
    drawn = render(Screen("李🎲", "player 李明"), 128, 64)
    for stand_ins in (Screen("??", "player ??"), Screen("李?", "player 李明")):
        assert not same(drawn, render(stand_ins, 128, 64))
