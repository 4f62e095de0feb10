"""The plain text mode that hobby towers print, and telling the two modes apart.

One throw per line, ending in ``\\n`` or ``\\r\\n``; tokens ``<die>:<value>``
separated by spaces, die one of d5 d6 d10 d20 dF (dF values -1 0 +1, or - 0 +):
``d6:3 d6:5 d6:6``.  Any other line is ignored and counted — never guessed at:
one bad token spoils its whole line.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_host.protocol import ProtocolError, decode
from firmware_host.wire import FrameSplitter, WireError

FACES = {
    "d5": range(1, 6),
    "d6": range(1, 7),
    "d10": range(0, 10),
    "d20": range(1, 21),
    "dF": range(-1, 2),
}
DF_SIGNS = {"+": 1, "-": -1, "0": 0, "+1": 1, "-1": -1}
MAX_LINE = 256


@dataclass(frozen=True)
class TextThrow:
    """The dice of one line, in order: (die, value) pairs."""

    dice: tuple[tuple[str, int], ...]


def parse_line(line: str) -> TextThrow | None:
    """One line to a throw, or None if the line is anything but a valid throw."""
    # spaces alone part tokens: a lone \r or a tab inside a line is no separator (a line
    # "d6:3\rd6:4" is two lines run together, not one throw of two dice)
    tokens = [t for t in line.rstrip("\r\n").split(" ") if t]
    if not tokens or len(line) > MAX_LINE:
        return None
    dice = []
    for token in tokens:
        die, sep, value_text = token.partition(":")
        if not sep:
            return None
        die = "dF" if die in ("dF", "df", "DF") else die.lower()
        if die not in FACES:
            return None
        if die == "dF":
            if value_text not in DF_SIGNS:
                return None
            value = DF_SIGNS[value_text]
        else:
            if not value_text.isdigit():
                return None
            value = int(value_text)
            if value not in FACES[die]:
                return None
        dice.append((die, value))
    return TextThrow(tuple(dice))


class LineReader:
    """Splits a byte stream into lines and parses each; counts what it ignored."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overlong = False  # within a line too long to be a throw: skipped to its end
        self.ignored = 0
        self.ignored_examples: list[bytes] = []

    def reset(self) -> None:
        """Forget a line half received (the tower was unplugged mid-line)."""
        self._buffer.clear()
        self._overlong = False

    def feed(self, data: bytes) -> list[TextThrow]:
        # a NUL is never part of a throw: treat it as a line break so text resynchronises
        self._buffer += data.replace(b"\x00", b"\n")
        throws: list[TextThrow] = []
        if self._overlong:  # the rest of an overlong line is no line of its own
            end = self._buffer.find(b"\n")
            if end < 0:
                self._buffer.clear()
                return throws
            del self._buffer[: end + 1]
            self._overlong = False
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            raw = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[: end + 1]
            parsed = self._parse(raw)
            if parsed is not None:
                throws.append(parsed)
        if len(self._buffer) > MAX_LINE:  # a line this long is not a throw, nor its tail
            self._ignore(bytes(self._buffer[:MAX_LINE]))
            self._buffer.clear()
            self._overlong = True
        return throws

    def _parse(self, raw: bytes) -> TextThrow | None:
        if not raw.strip():
            return None  # blank lines are not worth counting
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            self._ignore(raw)
            return None
        parsed = parse_line(text)
        if parsed is None:
            self._ignore(raw)
        return parsed

    def _ignore(self, raw: bytes) -> None:
        self.ignored += 1
        if len(self.ignored_examples) < 20:
            self.ignored_examples.append(raw[:80])


class ModeDetector:
    """Listens to an unknown tower until it proves which mode it speaks.

    ``binary`` once a frame passes its CRC and decodes as a message; ``text``
    once a line parses as a throw.  Garbage — even garbage with 0x00 bytes in
    it — decides nothing.
    """

    def __init__(self) -> None:
        self._frames = FrameSplitter()
        self._lines = LineReader()
        self._bad_frames = 0
        self.mode: str | None = None

    @property
    def unreadable(self) -> int:
        """The garbage heard so far: bad frames (with runs too long to be one) or lines that
        are no throw, whichever counted more (the mode being unknown, either may be meant)."""
        return max(self._bad_frames + self._frames.overflows, self._lines.ignored)

    def feed(self, data: bytes) -> str | None:
        if self.mode is not None:
            return self.mode
        for chunk in self._frames.feed(data):
            try:
                decode(chunk)
            except (WireError, ProtocolError):
                self._bad_frames += 1
                continue
            self.mode = "binary"
            return self.mode
        if self._lines.feed(data):
            self.mode = "text"
        return self.mode
