"""Checks still waiting for dice, rebuilt from the ledger at a start.

Each check's creation is replayed through create_check and its recorded throws
through its accept, in ledger order, appending nothing; a check set up by mistake
was withdrawn (a ``note`` row, ``"note": "withdrawn"``, that the replay honours).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

from mechanics.check_factory import create_check
from server.ledger import Ledger, LedgerError
from server.throw_rows import ActiveCheck, reading_of

RESTORE_WITHIN = timedelta(hours=24)  # a check waiting longer is not restored at a start:
# one left by a game that ended, or lost at an older version's restart, would take throws
WITHDRAWN = {"note": "withdrawn"}  # the body of a withdrawal's ledger row (kind "note"),
# with "check" (its id) and "reason"

log = logging.getLogger("server.table")  # said as the table's: restoring is its start


def restored(
    ledger: Ledger, within: timedelta
) -> tuple[dict[str, ActiveCheck], list[dict[str, Any]]]:
    """The checks ``ledger`` holds that were still waiting for dice (created, neither
    resolved nor withdrawn), waiting again where they stood, oldest first; and those left
    out, each with ``id``, ``system``, ``params``, its creation's ``row`` and the
    ``problem``.  One that cannot be rebuilt (parameters a newer version refuses, a throw
    it no longer takes) is left out and logged; the rest are restored all the same.  A
    ledger that cannot be read through (a damaged file, a row that is no JSON) restores
    none, said in the log: the service starts as it did before checks were restored, and
    `dicebridge ledger verify` says what is wrong.  A check set up longer than ``within``
    before the start is not restored (a game that ended; checks an older version lost at
    its restarts, which would otherwise all come back and take the camera's throws): how
    many, said in the log."""
    checks: dict[str, ActiveCheck] = {}
    unrestored: list[dict[str, Any]] = []
    try:
        created, thrown, stale = _waiting_rows(ledger, within)
    except (LedgerError, sqlite3.DatabaseError, ValueError) as err:
        log.warning("no waiting check was restored: the ledger could not be read (%s); "
                    "`dicebridge ledger verify` says where", err)  # fmt: skip
        return checks, unrestored
    resolved_unrecorded = []
    for check_id, (row, body) in created.items():
        try:
            active = _replayed(check_id, body, thrown[check_id])
        except ValueError as err:  # this check alone is left out
            unrestored.append({"id": check_id, "system": body.get("system"),
                               "params": body.get("params"), "row": row,
                               "problem": str(err)})  # fmt: skip
            continue
        checks[check_id] = active
        if active.check.need() is None:  # fed whole, but the resolution's row is missing
            resolved_unrecorded.append(check_id)  # (a ledger written before a throw and
            # its resolution were one transaction, stopped between the two rows)
    if stale:
        log.warning(
            "%d check(s) in the ledger were still waiting for dice, set up more than %s "
            "before this start: not restored (a game that ended, or checks an older "
            "version lost at a restart; their throws stay in the ledger)",
            stale,
            _hours(within),
        )
    if unrestored:
        log.warning(
            "%d waiting check(s) in the ledger could not be restored and wait no more "
            "(withdraw them to stop this message): %s",
            len(unrestored),
            "; ".join(f"{u['id']} (row {u['row']}): {u['problem']}" for u in unrestored),
        )
    if resolved_unrecorded:
        log.warning(
            "check(s) %s took all their dice before the restart, but no resolution was "
            "recorded: kept as resolved",
            ", ".join(resolved_unrecorded),
        )
    return checks, unrestored


def _waiting_rows(
    ledger: Ledger, within: timedelta
) -> tuple[dict[str, tuple[int, dict[str, Any]]], dict[str, list[Any]], int]:
    """The waiting checks' ``check`` rows (id -> (row, body), oldest first) and each
    one's throws' dice, oldest first, of the checks created within ``within``;
    and how many waiting checks are older.  Read by kind, bodies only (no crop is
    opened): the checks, the resolutions and the notes whole, the throws only from the
    oldest restored check's row on."""
    created: dict[str, tuple[int, dict[str, Any]]] = {}
    made_at: dict[str, str] = {}
    for entry in ledger.entries(kind="check"):
        check_id = check_named(entry.body)
        if check_id is not None:
            created[check_id] = (entry.id, entry.body)
            made_at[check_id] = entry.at
    for kind in ("resolution", "note") if created else ():
        for entry in ledger.entries(kind=kind):
            check_id = check_named(entry.body)  # (None: the body is no dict either)
            if check_id is None:
                continue
            if kind == "resolution" or entry.body.get("note") == WITHDRAWN["note"]:
                created.pop(check_id, None)
    since = (datetime.now(UTC) - within).isoformat(timespec="microseconds")
    stale = [check_id for check_id in created if made_at[check_id] < since]  # ISO: in order
    for check_id in stale:
        del created[check_id]
    thrown: dict[str, list[Any]] = {check_id: [] for check_id in created}  # their dice
    if created:
        oldest = min(row for row, _ in created.values())
        for entry in ledger.entries(kind="throw", after=oldest):
            check_id = check_named(entry.body)
            if check_id is not None and check_id in thrown:
                thrown[check_id].append(entry.body.get("dice"))
    return created, thrown, len(stale)


def _hours(span: timedelta) -> str:
    hours = span.total_seconds() / 3600
    return f"{hours:g} hour{'s' if hours != 1 else ''}"


def check_named(body: Any) -> str | None:
    """The check id a row's body names (``check``), or None (a throw of no check, a row
    written by hand)."""
    check_id = body.get("check") if isinstance(body, dict) else None
    return check_id if isinstance(check_id, str) else None


def _replayed(check_id: str, body: dict[str, Any], throws: list[Any]) -> ActiveCheck:
    """A check rebuilt from its ledger rows: created as ``body`` (a ``check`` row) says,
    fed each throw's dice (``throw`` rows, oldest first) as they were recorded.  A
    ValueError says why it cannot be, and at which step."""
    step = "its row"
    try:
        system, params = body.get("system"), body.get("params")
        if not isinstance(system, str) or not isinstance(params, dict):
            raise ValueError("it names no system and parameters")
        step = "its parameters"
        check = create_check(system, **params)
        for n, dice in enumerate(throws, 1):
            step = f"its throw {n} of {len(throws)}"
            if not isinstance(dice, list) or not dice:
                raise ValueError("no dice recorded")
            check = check.accept(*(reading_of(row) for row in dice))
        step = "its odds"
        active = ActiveCheck(check_id, system, dict(params), check)
        json.dumps(active.to_dict(), allow_nan=False)  # worked out, as at its creation
    except Exception as err:  # what a version or a row it was not made for may raise
        raise ValueError(f"{step}: {str(err) or type(err).__name__}") from err
    return active
