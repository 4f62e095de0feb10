"""What a tower sent that could not be read: counted, and said in a shop owner's words.

A noisy cable spoils some frames; a tower at another baud rate, or speaking a
mode the host was not told, spoils all of them.  Both are counted (since the
connection began, and over the last minute) so that the Devices page can show
them, and a tower sending nothing but garbage is told apart from a silent one.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

WINDOW_S = 60.0  # "recent": the last minute


@dataclass(frozen=True)
class ReadCounts:
    """``unreadable``: frames that failed their checks, runs too long to be a frame, lines
    that are no throw; ``refused``: results for a die the tower never announced.  Both
    since this connection began; ``last_minute`` spans reconnections (a tower sending
    garbage is reconnected every few seconds).  ``garbage_only``: bytes arrive, but not
    one thing in them could be read."""

    unreadable: int = 0
    last_minute: int = 0
    refused: int = 0
    unit: str = "frames"  # "lines" for a text tower
    garbage_only: bool = False

    def to_json(self) -> dict[str, Any]:
        """The fields the service's device status carries (``problem``: "" when none)."""
        return {
            "unreadable": self.unreadable,
            "unreadable_last_minute": self.last_minute,
            "refused": self.refused,
            "unreadable_unit": self.unit,
            "garbage_only": self.garbage_only,
            "problem": garbage_words(self) if self.garbage_only else "",
        }


def _many(n: int, what: str) -> str:
    return f"{n} {what}" if n != 1 else f"1 {what[:-1]}"


def garbage_words(counts: ReadCounts) -> str:
    """Why a tower sending only garbage is no use, and what to check: plain words."""
    if counts.last_minute:
        heard = f"{_many(counts.last_minute, 'unreadable ' + counts.unit)} in the last minute"
    else:  # a trickle too short to be cut into frames yet
        heard = "bytes arrive, but not one whole frame or line"
    return (
        f"receiving data but none of it is readable ({heard}): check that the tower sends "
        "at 115,200 baud, that its mode in the settings (auto, binary or text) is the one "
        "it speaks, and its cable"
    )


def counts_words(counts: ReadCounts) -> str:
    """The counts as the Devices page says them ("" when there is nothing to say)."""
    said = []
    if counts.unreadable or counts.last_minute:
        said.append(
            f"{_many(counts.unreadable, 'unreadable ' + counts.unit)} since connected "
            f"({counts.last_minute} in the last minute)"
        )
    if counts.refused:
        said.append(
            f"{_many(counts.refused, 'results')} refused since connected "
            "(a die the tower never announced)"
        )
    return "; ".join(said)


class Tally:
    """Turns a reader's running totals into counts since a connection and per minute."""

    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window_s = window_s
        self._seconds: deque[list[int]] = deque()  # [whole second, unreadable in it]
        self._seen = 0  # the reader's unreadable total when last looked at
        self._at_connect = (0, 0)  # its (unreadable, refused) totals as the connection began

    def connected(self, unreadable: int, refused: int) -> None:
        self._at_connect = (unreadable, refused)

    def counts(
        self, now: float, unreadable: int, refused: int, unit: str, garbage_only: bool
    ) -> ReadCounts:
        second = int(now)
        if unreadable > self._seen:
            if self._seconds and self._seconds[-1][0] == second:
                self._seconds[-1][1] += unreadable - self._seen
            else:
                self._seconds.append([second, unreadable - self._seen])
        self._seen = unreadable
        while self._seconds and self._seconds[0][0] <= now - self.window_s:
            self._seconds.popleft()  # a bucket per second: at most a minute's worth kept
        return ReadCounts(
            unreadable - self._at_connect[0],
            sum(n for _, n in self._seconds),
            refused - self._at_connect[1],
            unit,
            garbage_only,
        )
