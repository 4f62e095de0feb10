"""The display's fonts: its own first, then wider ones for the characters it lacks.

Pillow draws a character its font has no glyph for as the font's .notdef glyph, a box:
a player's name in Chinese or a die set named with an emoji came out as a row of boxes.
Here each character is drawn in the first font that has it — the display's own
(:data:`MAIN`, else Pillow's), then :data:`FALLBACKS` (Debian's and Raspberry Pi OS's
paths; any of them may be missing) — and one that no font has is drawn as
:data:`STAND_IN`.  A font lacks a character when it draws it exactly as it draws U+FFFF,
which no font maps: that is its .notdef.
"""

from __future__ import annotations

import functools
import unicodedata

from PIL import ImageDraw, ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

MAIN = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf")  # fonts-dejavu-core; the first found
FALLBACKS = (
    "/usr/share/fonts/opentype/unifont/unifont.otf",  # fonts-unifont: all of the BMP, CJK too
    "/usr/share/fonts/opentype/unifont/unifont_upper.otf",  # the planes above it: emoji
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",  # fonts-droid-fallback: CJK
)
STAND_IN = "?"
_PROBE = 16  # the size a font's glyphs are compared at


@functools.lru_cache(maxsize=128)
def _load(name: str, size: int) -> Font | None:
    """The font file ``name`` at ``size`` px ("": Pillow's own), or None where it is missing."""
    try:
        return ImageFont.load_default(size) if name == "" else ImageFont.truetype(name, size)
    except (OSError, ImportError):  # no such file; a Pillow built without FreeType
        return None


def _drawn(font: Font, ch: str) -> tuple[tuple[int, int], bytes] | None:
    try:
        mask = font.getmask(ch)
    except (UnicodeError, ValueError):  # a bitmap font past Latin-1, a lone surrogate
        return None
    return mask.size, bytes(mask)


@functools.lru_cache(maxsize=16)
def _notdef(name: str) -> tuple[tuple[int, int], bytes] | None:
    font = _load(name, _PROBE)
    return None if font is None else _drawn(font, "\uffff")


@functools.lru_cache(maxsize=4096)
def _has(name: str, ch: str) -> bool:
    """Whether the font file ``name`` has a glyph of its own for ``ch``."""
    font = _load(name, _PROBE)
    if font is None:
        return False
    drawn = _drawn(font, ch)
    return drawn is not None and drawn != _notdef(name)


def _ignorable(ch: str) -> bool:
    """Drawn as nothing: joiners and format marks (the ZWJ in 👨‍👩‍👧), variation selectors
    (U+FE0F, "as an emoji"), an emoji's skin tone (a colour, on a one-colour display)."""
    cp = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"
        or 0xFE00 <= cp <= 0xFE0F
        or 0xE0100 <= cp <= 0xE01EF
        or 0x1F3FB <= cp <= 0x1F3FF
    )


class Face:
    """The display's fonts at one size: text is measured and drawn in runs, each run in
    the first font that has all of its characters."""

    def __init__(self, size: int) -> None:
        self.size = size
        main = next((name for name in MAIN if _load(name, _PROBE) is not None), "")
        self._names = (main, *(name for name in FALLBACKS if _load(name, _PROBE) is not None))

    @property
    def font(self) -> Font:
        """The display's own font (Pillow's where none of :data:`MAIN` is installed)."""
        return self._font(self._names[0])

    def _font(self, name: str) -> Font:
        font = _load(name, self.size)
        return font if font is not None else ImageFont.load_default(self.size)

    def runs(self, text: str) -> list[tuple[Font, str]]:
        """``text`` as (font, part) runs; what no font has is :data:`STAND_IN`, or dropped
        when it only changes the character before it."""
        runs: list[tuple[Font, str]] = []
        for ch in unicodedata.normalize("NFC", text):
            if _ignorable(ch):
                continue
            if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn"):
                name: str | None = self._names[0]  # controls and unassigned: the stand-in
                shown = ch if ch.isspace() else STAND_IN
            else:
                name = next((n for n in self._names if _has(n, ch)), None)
                shown = ch
            if name is None:
                if unicodedata.category(ch) in ("Mn", "Me"):  # an accent on the one before
                    continue
                name, shown = self._names[0], STAND_IN
            font = self._font(name)
            if runs and runs[-1][0] is font:
                runs[-1] = (font, runs[-1][1] + shown)
            else:
                runs.append((font, shown))
        return runs

    def length(self, draw: ImageDraw.ImageDraw, text: str) -> float:
        return _length(draw, self.runs(text))

    def draw(
        self,
        draw: ImageDraw.ImageDraw,
        xy: tuple[int, int],
        text: str,
        fill: float | tuple[int, ...],
    ) -> None:
        """``text`` drawn centred on ``x``, its top (the main font's ascender) at ``y``."""
        runs = self.runs(text)
        if len(runs) == 1:
            font, part = runs[0]
            draw.text(xy, part, font=font, fill=fill, anchor="ma")
            return
        x = xy[0] - _length(draw, runs) / 2
        main = self.font
        ascent = main.getmetrics()[0] if isinstance(main, ImageFont.FreeTypeFont) else 0
        for font, part in runs:  # on one baseline, the main font's
            draw.text((x, xy[1] + ascent), part, font=font, fill=fill, anchor="ls")
            x += draw.textlength(part, font=font)


def _length(draw: ImageDraw.ImageDraw, runs: list[tuple[Font, str]]) -> float:
    return sum(draw.textlength(part, font=font) for font, part in runs)
