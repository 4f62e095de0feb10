"""What a source reports about one die, and what a check asks for next.

Readings and needs are plain immutable values: a camera, a serial tower, a
web form or a test all produce the same :class:`Reading`.
"""

from __future__ import annotations

from dataclasses import dataclass

DIE_FACES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("d5", (1, 2, 3, 4, 5)),
    ("d6", (1, 2, 3, 4, 5, 6)),
    ("d10", (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
    ("d20", tuple(range(1, 21))),
    ("dF", (-1, 0, 1)),
    ("d100", tuple(range(1, 101))),
)
DIE_TYPES = tuple(name for name, _ in DIE_FACES)
MAX_DICE = 200  # more dice than a table holds: a check asking for more is refused


class ReadingRefused(ValueError):
    """A reading a check cannot take; the message says why. Nothing was changed."""


def faces_of(die: str) -> tuple[int, ...]:
    for name, faces in DIE_FACES:
        if name == die:
            return faces
    raise ReadingRefused(f"unknown die type {die!r}; dice are {', '.join(DIE_TYPES)}")


def normalise_face(die: str, face: int) -> int:
    """The face as stored: a d10's face marked 10 is its 0 face."""
    if die == "d10" and face == 10:
        return 0
    return face


@dataclass(frozen=True, slots=True)
class Reading:
    """One die as a source saw it.

    ``confidence`` is the source's own (1.0 for manual entry); ``source`` says
    where it came from ("manual", "camera:0", "tower:ABC123", "virtual");
    ``identity`` names the registered physical die when the source knows it
    (its audit collects every reading that names it).
    """

    die: str
    face: int
    confidence: float = 1.0
    source: str = "manual"
    identity: str | None = None

    def __post_init__(self) -> None:
        faces = faces_of(self.die)
        if self.face not in faces and not (self.die == "d10" and self.face == 10):
            shown = f"{faces[0]}–{faces[-1]}" if len(faces) > 3 else ", ".join(map(str, faces))
            raise ReadingRefused(f"a {self.die} has no face {self.face} (faces {shown})")
        if not 0.0 <= self.confidence <= 1.0:
            raise ReadingRefused(f"confidence must be between 0 and 1, not {self.confidence}")

    @property
    def value(self) -> int:
        return normalise_face(self.die, self.face)

    @staticmethod
    def parse(text: str, source: str = "manual") -> Reading:
        """``d10:3``, ``dF:+``, ``dF:-1``, ``d6:6`` as typed on a command line."""
        die, sep, face_text = text.strip().partition(":")
        if not sep:
            raise ReadingRefused(f"write a die as TYPE:FACE (like d10:3), not {text!r}")
        if die.lower() == "df":
            die = "dF"
        face_text = {"+": "1", "-": "-1", "−": "-1"}.get(face_text, face_text)
        try:
            face = int(face_text)
        except ValueError:
            raise ReadingRefused(f"the face in {text!r} is not a number") from None
        return Reading(die.lower() if die != "dF" else die, face, 1.0, source)

    def __str__(self) -> str:
        return f"{self.die}:{self.face:+d}" if self.die == "dF" else f"{self.die}:{self.face}"


@dataclass(frozen=True, slots=True)
class Need:
    """What a check asks for next: ``count`` dice of type ``die``, and why."""

    die: str
    count: int
    why: str = ""

    @property
    def prompt(self) -> str:
        """For people: "throw 1 d10", "throw 2 more d6 for the explosions"."""
        why = self.why
        more = ""
        if why == "more" or why.startswith("more "):
            more, why = "more ", why[5:]
        return f"throw {self.count} {more}{self.die}" + (f" {why}" if why else "")
