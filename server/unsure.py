"""A person settles a die the camera was unsure of ("confirm: 5? (the red d6)").

The unsure reading is already in the ledger (a ``reading`` row, uncertain, with
its crop and the camera's guess).  Confirming it feeds it exactly as the camera
would have fed a sure reading (the oldest check waiting for that die, else
recorded unassigned), with its crop and ``confirms`` naming the unsure row, so
the dispute trail runs from the check back to the picture.  Players may do this
without the admin PIN, as they may enter dice by hand; each unsure row is
confirmed once.
"""

from __future__ import annotations

import threading
from typing import Any

from mechanics.reading import Reading, ReadingRefused
from server.table import Table
from vision.advice import NUMBERED_DIE, NUMBERED_UNTAUGHT
from vision.reader import NUMBERED_KIND


class UnknownReading(LookupError):
    """No unsure reading in that ledger row."""


class AlreadyConfirmed(ValueError):
    """The unsure reading was confirmed before."""


_one_at_a_time = threading.Lock()  # two people pressing "confirm" at once feed it once


def confirm_unsure(table: Table, row: int, face: int | None = None) -> dict[str, Any] | None:
    """Feed the unsure reading of ledger ``row`` as showing ``face`` (None: the camera's
    guess).  Returns the state of the check it fed, or None (recorded unassigned)."""
    with _one_at_a_time:
        entry = next(iter(table.ledger.entries(kind="reading", after=row - 1)), None)
        if entry is None or entry.id != row or not entry.body.get("uncertain"):
            raise UnknownReading(f"ledger row {row} is not an unsure reading")
        for later in table.ledger.entries(kind="throw", after=row):
            if any(d.get("confirms") == row for d in later.body.get("dice", [])):
                raise AlreadyConfirmed(f"row {row} was confirmed already (row {later.id})")
        body = entry.body
        # a numbered die the camera named among pip dice (rows written before such dice
        # carried "numbered" carry "d6" or "dF"); one a check waits for carries its die
        named = body.get("problem") in (NUMBERED_DIE, NUMBERED_UNTAUGHT)
        if body.get("die") == NUMBERED_KIND or (named and body.get("die") in ("d6", "dF")):
            raise ReadingRefused(
                "this die is a numbered die (d5, d10 or d20), not one of the dice the camera "
                "was reading: enter it by hand as the die it is, or take it out of the tray"
            )
        face = body.get("value") if face is None else face
        if face is None:
            raise ReadingRefused("the camera has no guess for this die: say which face it shows")
        source = str(body.get("source", "camera"))
        die = body.get("identity")  # the registered die the camera took it for, if any
        reading = Reading(str(body["die"]), int(face), 1.0, source,  # a person says so
                          die if isinstance(die, str) else None)  # fmt: skip
        extras = [{"crop": body.get("crop"), "box": body.get("box"), "confirms": row}]
        return table.from_source(source, [reading], extras)


def unsure_readings(table: Table, limit: int = 50) -> list[dict[str, Any]]:
    """The latest unsure readings, newest first, each with ``confirmed``: the face a person
    gave and the throw row it went into, or None while nobody has."""
    rows = [e for e in table.ledger.latest("reading", limit) if e.body.get("uncertain")]
    if not rows:
        return []
    settled: dict[int, dict[str, int]] = {}
    for throw in table.ledger.entries(kind="throw", after=rows[-1].id):
        for die in throw.body.get("dice", []):
            if isinstance(die.get("confirms"), int):
                settled[die["confirms"]] = {"throw": throw.id, "face": die["face"]}
    return [{"row": e.id, "at": e.at, **{k: v for k, v in e.body.items() if k != "uncertain"},
             "confirmed": settled.get(e.id)} for e in rows]  # fmt: skip
