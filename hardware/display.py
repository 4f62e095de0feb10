"""The attached display: the last result large, and what to throw next.

Rendering is a pure function from a :class:`Screen` to a Pillow image of the
display's size and colour mode, so it is tested by looking at the pixels; a
:class:`LumaDisplay` shows it on any luma device — an SSD1306 (128×64, I²C), an
ST7789 (240×240, SPI), or luma's own dummy device in tests.  luma is imported
only when a real device is opened.  Text is drawn in :class:`hardware.fonts.Face`'s
fonts: a character the display's font lacks comes from a wider one, or is a "?".
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from PIL import Image, ImageDraw

from hardware.fonts import Face


class DisplayError(RuntimeError):
    """The display could not be opened or written (wiring, bus, address)."""


@dataclass(frozen=True)
class Screen:
    """What the display says: a big headline (the result), a line under it, a prompt."""

    headline: str
    detail: str = ""
    prompt: str = ""
    attention: bool = False  # "needs attention": shown inverted


def _flat(text: object) -> str:
    """One line: each of the display's lines is one, and Pillow cannot measure text with a
    line break in it (a tower's fault text has them)."""
    return " ".join(("" if text is None else str(text)).split())


def _fit(draw: ImageDraw.ImageDraw, text: str, width: int, start: int) -> tuple[Face, str]:
    """The largest face (down to 8 px) in which ``text`` fits the width; below that,
    the text is cut short with an ellipsis."""
    size = start
    while size > 8:
        face = Face(size)
        if face.length(draw, text) <= width:
            return face, text
        size -= 2
    face = Face(8)
    while text and face.length(draw, text + "…") > width:
        text = text[:-1]
    return face, text + "…"


def render(screen: Screen, width: int, height: int, mode: str = "1") -> Image.Image:
    """The screen as an image: mode "1" for monochrome OLEDs, "RGB" for colour LCDs."""
    background, ink = (0, 255) if mode == "1" else ((0, 0, 0), (255, 255, 255))
    if screen.attention:
        background, ink = ink, background
    image = Image.new(mode, (width, height), background)
    draw = ImageDraw.Draw(image)
    margin = max(2, width // 40)
    inner = width - 2 * margin
    big, headline = _fit(draw, _flat(screen.headline), inner, height // 2)
    y = margin
    big.draw(draw, (width // 2, y), headline, ink)
    y += big.size + margin
    for line in (_flat(screen.detail), _flat(screen.prompt)):
        if not line or y >= height:
            continue
        face, shown = _fit(draw, line, inner, max(10, height // 6))
        face.draw(draw, (width // 2, y), shown, ink)
        y += face.size + margin // 2
    return image


class Device(Protocol):
    width: int
    height: int
    mode: str

    def display(self, image: Image.Image) -> None: ...

    def cleanup(self) -> None: ...


class LumaDisplay:
    """Shows screens on a luma device (real, or ``luma.core.device.dummy`` in tests);
    ``interface``: the bus opened for it, let go of by :meth:`close`."""

    def __init__(self, device: Device, interface: Any = None) -> None:
        self.device = device
        self._interface = interface
        self.last: Screen | None = None

    def show(self, screen: Screen) -> None:
        image = render(screen, self.device.width, self.device.height, self.device.mode)
        try:
            self.device.display(image)
        except Exception as err:  # smbus2/spidev's OSError, luma's DeviceNotFoundError (an
            # unplugged SSD1306), a driver's own: each means the image did not arrive
            raise DisplayError(f"the display did not take the image: {_why(err)}") from None
        self.last = screen

    def close(self) -> None:
        """Let go of the bus: a display opened again and again must not keep a file each time."""
        with contextlib.suppress(Exception):  # switching off a display that is gone fails
            self.device.cleanup()
        if self._interface is not None:
            with contextlib.suppress(Exception):
                self._interface.cleanup()


def _why(err: Exception) -> str:
    return str(err) or type(err).__name__


def _on(interface: Any, make: Callable[[], Device], probe: tuple[int, ...] = ()) -> LumaDisplay:
    """The device ``make`` builds on an opened bus, the bus closed again if that fails.
    ``probe``: a command sent first, so that nothing is built where nothing answers (luma
    keeps every device it builds, even one that failed, for its cleanup at exit)."""
    try:
        if probe:
            interface.command(*probe)
        return LumaDisplay(make(), interface)
    except BaseException:
        with contextlib.suppress(Exception):
            interface.cleanup()
        raise


def open_display(kind: str, **options: Any) -> LumaDisplay:
    """A real display: ``ssd1306`` (I²C, address 0x3C) or ``st7789`` (SPI), or ``dummy``."""
    try:
        if kind == "dummy":
            from luma.core.device import dummy

            return LumaDisplay(dummy(width=options.get("width", 128),
                                     height=options.get("height", 64), mode="1"))  # fmt: skip
        if kind == "ssd1306":
            from luma.core.interface.serial import i2c
            from luma.oled.device import ssd1306

            # ``bus``: an opened SMBus (or a stand-in for one in tests) instead of the port
            bus = i2c(bus=options.get("bus"), port=options.get("port", 1),
                      address=options.get("address", 0x3C))  # fmt: skip
            # probed with "display off", the first command of luma's own set-up
            return _on(bus, lambda: ssd1306(bus, width=128, height=64), probe=(0xAE,))
        if kind == "st7789":
            from luma.core.interface.serial import spi
            from luma.lcd.device import st7789

            bus = spi(port=options.get("port", 0), device=options.get("device", 0),
                      gpio_DC=options.get("dc", 24), gpio_RST=options.get("rst", 25))  # fmt: skip
            rotate = options.get("rotate", 0)
            return _on(bus, lambda: st7789(bus, width=240, height=240, rotate=rotate))
    except ImportError as err:
        raise DisplayError(f"the luma driver for {kind} is not installed: {err}") from None
    except Exception as err:  # luma raises its own DeviceNotFoundError and friends
        raise DisplayError(f"cannot open the {kind} display: {err}") from None
    raise DisplayError(f"unknown display {kind!r}: ssd1306, st7789 or dummy")
