"""A check on the table, and the ledger rows a throw makes.

A throw is planned before anything is kept (:func:`fed`: a check's new state and its
rows; :class:`Unassigned`: dice no check takes), then its rows are appended in one
transaction (server/table.py), so a throw is kept whole or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mechanics.check import DiceCheck
from mechanics.reading import Need, Reading


@dataclass
class ActiveCheck:
    id: str
    system: str
    params: dict[str, Any]
    check: DiceCheck
    changed: int = 0  # the table's count of check changes at its last one (0: restored)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "system": self.system, "params": self.params, **self.check.to_dict()}


Rows = list[tuple[str, dict[str, Any]]]  # ledger rows to append: (kind, body)


@dataclass(frozen=True)
class Fed:
    """A check's share of a throw, planned: its new check and state, and its rows (the
    throw, and its resolution where it resolves it), not yet recorded."""

    active: ActiveCheck
    updated: DiceCheck
    dice: list[dict[str, Any]]
    state: dict[str, Any]
    rows: Rows


@dataclass(frozen=True)
class Unassigned:
    """Dice thrown together that no check takes: recorded all the same; ``refused``: the
    check (id, why) that waits for that die but fewer of them now."""

    dice: list[dict[str, Any]]
    rows: Rows
    refused: tuple[str, str] | None


def fed(
    active: ActiveCheck, readings: Sequence[Reading], extras: Sequence[dict[str, Any]] | None
) -> Fed:
    """``active`` fed ``readings``, planned (ReadingRefused: a face it cannot use)."""
    updated = active.check.accept(*readings)
    dice = plain(readings, extras)
    state = ActiveCheck(active.id, active.system, active.params, updated).to_dict()
    rows: Rows = [("throw", {"check": active.id, "dice": dice})]
    if state["status"] == "resolved":
        rows.append(("resolution", {"check": active.id, **state}))
    return Fed(active, updated, dice, state, rows)


def unsure_row(source: str, detail: dict[str, Any]) -> dict[str, Any]:
    """The ledger body of a die a source could not read surely."""
    return {"source": source, "uncertain": True, **detail}


def too_many(thrown: int, need: Need, read_before: int) -> str:
    """Why a throw of ``thrown`` dice went to no check: the check needs fewer now.  Where
    it has dice already, they may have been thrown again with the new ones (the camera does
    not read again a die lying where it lay: those may stay on the tray)."""
    dice = f"{need.count} {need.die}"
    at_a_time = " at a time (in this roll the order counts)" if need.count == 1 else ""
    clear = (
        " (dice already read may stay where they lie: throw only the new ones)"
        if read_before
        else ""
    )
    return (f"{thrown} {need.die}s were thrown together, but the check needs {dice}{at_a_time}: "
            f"they are recorded, not used; {need.prompt}{clear}")  # fmt: skip


def reading_of(row: Any) -> Reading:
    """A die as a ``throw`` row holds it (:func:`_plain`), as a Reading again."""
    if not isinstance(row, dict) or "die" not in row or "face" not in row:
        raise ValueError(f"a die recorded as {row!r}")
    identity = row.get("identity")
    return Reading(
        str(row["die"]),
        row["face"],
        float(row.get("confidence", 1.0)),
        str(row.get("source", "manual")),
        None if identity is None else str(identity),
    )


def plain(
    readings: Sequence[Reading], extras: Sequence[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Readings as the ledger and the events hold them; ``extras`` (a crop's hash, a box)
    are merged into each reading's row."""
    plain = []
    for i, r in enumerate(readings):
        row: dict[str, Any] = {
            "die": r.die, "face": r.face, "confidence": r.confidence, "source": r.source
        }  # fmt: skip
        if r.identity is not None:
            row["identity"] = r.identity
        if extras is not None and i < len(extras):
            row.update(extras[i])
        plain.append(row)
    return plain
