"""The table: the active checks, fed by readings, recorded in the ledger, announced to outputs.

Data flows one way: a source hands readings to :meth:`Table.add_dice`, the check
resolves (or asks for more), the ledger records it, and every subscriber (the
WebSocket, the attached display) hears about it.  Nothing downstream reaches
back.  A refused reading changes nothing and is not recorded as a throw.

The checks still waiting for dice outlive the process: a Table made on a ledger
restores them from its rows (:meth:`Table._restore`: each check's creation
replayed, then its throws, in ledger order, appending nothing), and a check set up
by mistake is withdrawn (:meth:`Table.withdraw`: a ``note`` row, ``"note":
"withdrawn"``, that the replay honours).
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from mechanics.check import DiceCheck
from mechanics.check_factory import create_check
from mechanics.reading import Need, Reading, ReadingRefused, faces_of
from server.ledger import Ledger, LedgerError
from server.registry import DiceRegistry

Listener = Callable[[dict[str, Any]], None]
RESTORE_WITHIN = timedelta(hours=24)  # a check waiting longer is not restored at a start:
# one left by a game that ended, or lost at an older version's restart, would take throws
WITHDRAWN = {"note": "withdrawn"}  # the body of a withdrawal's ledger row (kind "note"),
# with "check" (its id) and "reason"

log = logging.getLogger(__name__)


class UnknownCheck(KeyError):
    """No check with that id."""


class AlreadyResolved(ValueError):
    """The check is resolved: it cannot be withdrawn any more."""


@dataclass
class ActiveCheck:
    id: str
    system: str
    params: dict[str, Any]
    check: DiceCheck
    changed: int = 0  # the table's count of check changes at its last one (0: restored)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "system": self.system, "params": self.params, **self.check.to_dict()}


class Table:
    def __init__(
        self,
        ledger: Ledger,
        registry: DiceRegistry | None = None,
        rng: random.Random | None = None,
        keep_resolved: int = 500,
        restore_within: timedelta = RESTORE_WITHIN,
    ) -> None:
        """``keep_resolved``: the resolved checks kept in memory (the newest; every one is in
        the ledger): a kiosk runs for weeks, and each reading looks through the checks.
        ``restore_within``: a waiting check in the ledger is restored where its last row (its
        creation or its last throw) is this recent (see :meth:`_restore`)."""
        self._restore_within = restore_within
        self._keep_resolved = keep_resolved
        # the virtual source's dice: the operating system's randomness unless one is given
        self._rng = rng if rng is not None else random.SystemRandom()
        self._ledger = ledger
        self.ledger = ledger  # read by the audits
        self.registry = registry if registry is not None else DiceRegistry(ledger)
        self._checks: dict[str, ActiveCheck] = {}
        self._changes = 0  # the checks' changes (set up, or given dice) since the start
        self._listeners: list[Listener] = []
        self._sources: dict[str, str] = {"manual": "ready"}
        self._source_info: dict[str, dict[str, Any]] = {}  # last news and counts per source
        self._previews: dict[str, bytes] = {}  # a source's latest picture (JPEG), for people
        self._frames: dict[str, Any] = {}  # and the frame itself (teach mode reads it)
        self._lock = threading.Lock()
        # held from a check's new state to its ledger rows (a throw, a resolution, a
        # withdrawal): the rows are in the order the check took them, as the replay feeds
        # them, and a check withdrawn meanwhile takes no more dice
        self._changing = threading.Lock()
        self._unrestored: list[dict[str, Any]] = []
        self._restore()

    # --- outputs ----------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _announce(self, event: dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

    # --- checks -----------------------------------------------------------------------------
    def create(self, system: str, params: dict[str, Any]) -> dict[str, Any]:
        """A new check; ValueError says what is wrong with the parameters."""
        check = create_check(system, **params)
        active = ActiveCheck(uuid.uuid4().hex[:12], system, dict(params), check)
        state = active.to_dict()  # a check whose odds cannot be worked out is refused here,
        # not kept unseen: it would take the camera's throws and fail every listing of checks
        try:
            json.dumps(state, allow_nan=False)  # ... as one the ledger could not keep
        except ValueError:
            raise ValueError(f"{system}: these parameters give no finite odds") from None
        self._ledger.append(  # recorded first: a check the ledger refused is no check
            "check",
            {"check": active.id, "system": system, "params": params,
             "probability": state["probability"]},
        )  # fmt: skip
        if state["status"] == "resolved":  # a check that needs no dice (a d6 pool of level
            # 0, dφ at a zero swing): resolved as it is made, and recorded so, as any other
            self._ledger.append("resolution", {"check": active.id, **state})
        with self._lock:
            self._checks[active.id] = active
            active.changed = self._changed()
        self._announce({"type": "check", **state})
        return state

    def get(self, check_id: str) -> dict[str, Any]:
        return self._active(check_id).to_dict()

    def waiting(self) -> list[dict[str, Any]]:
        """The checks still waiting for dice, oldest first: what a page opened (or reloaded)
        mid-game shows, wherever they were set up."""
        with self._lock:
            active = list(self._checks.values())
        return [a.to_dict() for a in active if a.check.need() is not None]

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The checks kept (those waiting, the newest resolved ones), the last ``limit`` to
        change (set up, or given dice), in the order they last changed: what a page that was
        away (a kiosk whose Wi-Fi dropped) missed, to show in that order.  Checks restored
        at the start come first, oldest first; a withdrawn one is no more listed."""
        with self._lock:
            active = sorted(self._checks.values(), key=lambda a: a.changed)
        return [a.to_dict() for a in active[max(0, len(active) - limit) :]]

    def _changed(self) -> int:
        """The next count of the checks' changes (called with ``_lock`` held)."""
        self._changes += 1
        return self._changes

    def _forget_old_resolved(self) -> None:
        with self._lock:
            resolved = [k for k, a in self._checks.items() if a.check.need() is None]
            for old in resolved[: max(0, len(resolved) - self._keep_resolved)]:
                del self._checks[old]  # dicts keep creation order: the oldest go

    def _active(self, check_id: str) -> ActiveCheck:
        with self._lock:
            if check_id not in self._checks:
                raise UnknownCheck(check_id)
            return self._checks[check_id]

    def add_dice(
        self,
        check_id: str,
        readings: Sequence[Reading],
        extras: Sequence[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Feed readings to a check; ReadingRefused (nothing changed) or the new state."""
        self._active(check_id)  # an unknown check is said before the dice are looked at
        readings = [self.registry.check_reading(given) for given in readings]  # named by id
        dice = _plain(readings, extras)
        with self._changing:
            active = self._active(check_id)  # (withdrawn meanwhile: UnknownCheck)
            updated = active.check.accept(*readings)  # raises before anything is recorded
            self._ledger.append("throw", {"check": check_id, "dice": dice})
            with self._lock:  # kept only once recorded: a throw the ledger refused is none
                active.check = updated
                active.changed = self._changed()
            state = active.to_dict()
            if state["status"] == "resolved":
                self._ledger.append("resolution", {"check": check_id, **state})
        if state["status"] == "resolved":
            self._forget_old_resolved()
        self._count(dice)
        for reading in dice:
            self._announce({"type": "reading", "check": check_id, **reading})
        self._announce({"type": "check", **state})
        return state

    def withdraw(self, check_id: str, reason: str = "") -> dict[str, Any]:
        """Take a waiting check off the table (set up by mistake, or no longer played): a
        ledger row says so (kind ``note``, ``"note": "withdrawn"``, with ``reason``), it
        waits for no more dice, and a ``withdrawn`` event tells the pages.  Its throws stay
        in the ledger.  A check the restore left out (:attr:`unrestored`) is withdrawn the
        same way, so a restart no longer reports it.  UnknownCheck for an unknown (or
        already withdrawn) check, AlreadyResolved for a resolved one; the state it had,
        with ``status: "withdrawn"``, ``reason`` and the ledger ``row``."""
        with self._changing:
            with self._lock:
                active = self._checks.get(check_id)
                left_out = next((u for u in self._unrestored if u["id"] == check_id), None)
            if active is None and left_out is None:
                raise UnknownCheck(check_id)
            if active is not None and active.check.need() is None:
                raise AlreadyResolved(f"check {check_id} is resolved: it cannot be withdrawn")
            before = active.to_dict() if active is not None else dict(left_out or {})
            entry = self._ledger.append("note", {**WITHDRAWN, "check": check_id, "reason": reason})
            with self._lock:
                self._checks.pop(check_id, None)
                self._unrestored = [u for u in self._unrestored if u["id"] != check_id]
        self._announce({"type": "withdrawn", "check": check_id, "reason": reason, "row": entry.id})
        return {**before, "id": check_id, "status": "withdrawn", "reason": reason, "row": entry.id}

    @property
    def unrestored(self) -> list[dict[str, Any]]:
        """The waiting checks the ledger holds that this table could not restore: ``id``,
        ``system``, ``params``, the ledger ``row`` of its creation and the ``problem``."""
        with self._lock:
            return [dict(u) for u in self._unrestored]

    def _restore(self) -> None:
        """The checks the ledger holds that were still waiting for dice (created, neither
        resolved nor withdrawn), waiting again where they stood: each one's creation
        replayed through create_check and its recorded throws through its accept, in ledger
        order, appending nothing.  One that cannot be rebuilt (parameters a newer version
        refuses, a throw it no longer takes) is left out, kept in :attr:`unrestored` and
        logged; the rest are restored all the same.  A ledger that cannot be read through
        (a damaged file, a row that is no JSON) restores none, said in the log: the service
        starts as it did before checks were restored, and `dicebridge ledger verify` says
        what is wrong.  A check set up longer than ``restore_within`` before the start is
        not restored (a game that ended; checks an older version lost at its restarts,
        which would otherwise all come back and take the camera's throws): how many, said
        in the log."""
        try:
            created, thrown, stale = self._waiting_rows()
        except (LedgerError, sqlite3.DatabaseError, ValueError) as err:
            log.warning("no waiting check was restored: the ledger could not be read (%s); "
                        "`dicebridge ledger verify` says where", err)  # fmt: skip
            return
        resolved_unrecorded = []
        for check_id, (row, body) in created.items():
            try:
                active = _replayed(check_id, body, thrown[check_id])
            except ValueError as err:  # this check alone is left out
                self._unrestored.append({"id": check_id, "system": body.get("system"),
                                         "params": body.get("params"), "row": row,
                                         "problem": str(err)})  # fmt: skip
                continue
            self._checks[check_id] = active
            if active.check.need() is None:  # fed whole, but the resolution's row is missing
                resolved_unrecorded.append(check_id)  # (stopped between the two rows)
        self._forget_old_resolved()
        if stale:
            log.warning(
                "%d check(s) in the ledger were still waiting for dice, set up more than %s "
                "before this start: not restored (a game that ended, or checks an older "
                "version lost at a restart; their throws stay in the ledger)",
                stale,
                _hours(self._restore_within),
            )
        if self._unrestored:
            log.warning(
                "%d waiting check(s) in the ledger could not be restored and wait no more "
                "(withdraw them to stop this message): %s",
                len(self._unrestored),
                "; ".join(f"{u['id']} (row {u['row']}): {u['problem']}" for u in self._unrestored),
            )
        if resolved_unrecorded:
            log.warning(
                "check(s) %s took all their dice before the restart, but no resolution was "
                "recorded: kept as resolved",
                ", ".join(resolved_unrecorded),
            )

    def _waiting_rows(
        self,
    ) -> tuple[dict[str, tuple[int, dict[str, Any]]], dict[str, list[Any]], int]:
        """The waiting checks' ``check`` rows (id -> (row, body), oldest first) and each
        one's throws' dice, oldest first, of the checks created within ``restore_within``;
        and how many waiting checks are older.  Read by kind, bodies only (no crop is
        opened): the checks, the resolutions and the notes whole, the throws only from the
        oldest restored check's row on."""
        created: dict[str, tuple[int, dict[str, Any]]] = {}
        made_at: dict[str, str] = {}
        for entry in self._ledger.entries(kind="check"):
            check_id = _check_named(entry.body)
            if check_id is not None:
                created[check_id] = (entry.id, entry.body)
                made_at[check_id] = entry.at
        for kind in ("resolution", "note") if created else ():
            for entry in self._ledger.entries(kind=kind):
                check_id = _check_named(entry.body)  # (None: the body is no dict either)
                if check_id is None:
                    continue
                if kind == "resolution" or entry.body.get("note") == WITHDRAWN["note"]:
                    created.pop(check_id, None)
        since = (datetime.now(UTC) - self._restore_within).isoformat(timespec="microseconds")
        stale = [check_id for check_id in created if made_at[check_id] < since]  # ISO: in order
        for check_id in stale:
            del created[check_id]
        thrown: dict[str, list[Any]] = {check_id: [] for check_id in created}  # their dice
        if created:
            oldest = min(row for row, _ in created.values())
            for entry in self._ledger.entries(kind="throw", after=oldest):
                check_id = _check_named(entry.body)
                if check_id is not None and check_id in thrown:
                    thrown[check_id].append(entry.body.get("dice"))
        return created, thrown, len(stale)

    def roll_virtual(self, check_id: str) -> dict[str, Any]:
        """The virtual source: the appliance throws the dice the check asks for itself."""
        need = self._active(check_id).check.need()
        if need is None:
            raise ReadingRefused("the check is resolved: it needs no more dice")
        faces = faces_of(need.die)
        readings = [
            Reading(need.die, self._rng.choice(faces), 1.0, "virtual") for _ in range(need.count)
        ]
        return self.add_dice(check_id, readings)

    def needs(self) -> list[str]:
        """The die types the unresolved checks wait for, oldest check first."""
        return [need.die for need in self.pending()]

    def pending(self) -> list[Need]:
        """What the unresolved checks wait for (die type and how many now), oldest first."""
        with self._lock:
            waiting = [a.check.need() for a in self._checks.values()]
        return [need for need in waiting if need is not None]

    def uncertain(self, source: str, detail: dict[str, Any]) -> int:
        """A die a source saw but could not read surely: kept (for disputes), announced
        with what to do and its ledger row (a person may confirm it: server/unsure.py),
        fed to no check.  Returns the row."""
        entry = self._ledger.append("reading", {"source": source, "uncertain": True, **detail})
        self._count([{"source": source}], "uncertain")
        self._announce({"type": "uncertain", "source": source, "row": entry.id, **detail})
        return entry.id

    def from_source(
        self,
        source: str,
        readings: Sequence[Reading],
        extras: Sequence[dict[str, Any]] | None = None,
        unsure: dict[str, int] | None = None,
    ) -> dict[str, Any] | None:
        """Readings a source saw by itself (a tower, the camera), the dice of one throw:
        they go to the oldest unresolved check that is waiting for that die and needs at
        least that many now; with none they are still recorded and announced as unassigned —
        never dropped, never guessed into a check.

        Dice thrown together have no order, and a check fed more than it needs now would
        take them one after another in whatever order the source listed them (the camera:
        where they lie): which d5 came before the stop face, which d6 was an explosion's.
        Such a throw is refused whole, and the check waiting for that die is told why
        (a "refused" event), so the players throw again as asked.  ``unsure``: how many
        dice of each kind the same throw held that the source could not read surely (left
        to a person): they were thrown together too.

        Dice of several kinds thrown together (a pool's d6s and another check's Fudge
        dice) are each kind a throw of its own: they went to no check at all.

        Returns the state of the (first) check they fed, or None.
        """
        kinds = list(dict.fromkeys(r.die for r in readings))
        if len(kinds) > 1:
            states = []
            for kind in kinds:
                mine = [i for i, r in enumerate(readings) if r.die == kind]
                more = None if extras is None else [extras[i] for i in mine if i < len(extras)]
                states.append(self.from_source(source, [readings[i] for i in mine], more, unsure))
            return next((state for state in states if state is not None), None)
        readings = [self._known_identity(source, r) for r in readings]
        with self._lock:
            waiting = [a for a in self._checks.values() if a.check.need() is not None]
        too_many: tuple[ActiveCheck, Need] | None = None
        together = len(readings) + (unsure or {}).get(readings[0].die if readings else "", 0)
        for active in waiting:  # dicts keep creation order: the oldest first
            need = active.check.need()
            if need is None or not all(need.die == r.die for r in readings):
                continue
            if together > need.count:
                too_many = too_many or (active, need)
                continue  # another check may need them all
            try:
                return self.add_dice(active.id, readings, extras)
            except (ReadingRefused, UnknownCheck):
                continue  # a face this check cannot use, or withdrawn: try the next check
        dice = _plain(readings, extras)
        self._ledger.append("throw", {"check": None, "source": source, "dice": dice})
        self._count(dice)
        for reading in dice:
            self._announce({"type": "reading", "check": None, **reading})
        if too_many is not None:
            active, need = too_many
            why = _too_many(together, need, len(active.check.readings))
            self._announce({"type": "refused", "check": active.id, "source": source, "detail": why})
        return None

    def _known_identity(self, source: str, reading: Reading) -> Reading:
        """A source's reading naming an unknown die keeps its face but loses the name
        (and the source is told why): a throw is never dropped over a label."""
        try:
            identity = self.registry.check_reading(reading).identity  # by its id
        except ReadingRefused as err:
            self.source_event(source, "unknown-die", {"detail": str(err)})
            identity = None
        # the source's own name, unless the reading already carries a more precise one
        named = reading.source if reading.source not in ("", "manual") else source
        return Reading(reading.die, reading.face, reading.confidence, named, identity)

    def source_event(
        self,
        source: str,
        kind: str,
        detail: dict[str, Any],
        status: Mapping[str, Any] | None = None,
    ) -> None:
        """A source's own news (connected, disconnected, a die to re-throw, a fault);
        ``status``: figures the source reports about itself (a tower's unreadable frames),
        kept in its details until it reports them again, and announced with the news."""
        with self._lock:
            info = self._info(source)
            if kind in ("connected", "disconnected", "retrying"):
                self._sources[source] = kind
                info["since"] = _now()
            info["last_event"] = kind
            info["detail"] = str(detail.get("detail", ""))
            info["events"] += 1
            info.update(status or {})
        self._announce({"type": "source", "source": source, "event": kind, **detail,
                        **(status or {})})  # fmt: skip

    def set_preview(self, source: str, jpeg: bytes, frame: Any = None) -> None:
        """A camera's latest settled frame with its dice outlined (the Devices page shows it),
        and the frame itself (teach mode learns a face from it)."""
        with self._lock:
            self._previews[source] = jpeg
            self._frames[source] = frame
        self._announce({"type": "preview", "source": source})

    def last_frame(self, source: str) -> Any:
        with self._lock:
            return self._frames.get(source)

    def preview(self, source: str) -> bytes | None:
        with self._lock:
            return self._previews.get(source)

    def sources(self) -> dict[str, str]:
        with self._lock:
            return dict(self._sources)

    def source_details(self) -> dict[str, dict[str, Any]]:
        """Per source: its state, since when, its last news, and how many dice it gave."""
        with self._lock:
            return {
                name: {"state": self._sources.get(name, "ready"), **info}
                for name, info in self._source_info.items()
            }

    def _info(self, source: str) -> dict[str, Any]:
        return self._source_info.setdefault(
            source,
            {"since": None, "last_event": None, "detail": "", "events": 0, "readings": 0,
             "uncertain": 0, "last_reading_at": None},
        )  # fmt: skip

    def _count(self, readings: Sequence[dict[str, Any]], key: str = "readings") -> None:
        with self._lock:
            for r in readings:
                info = self._info(str(r.get("source", "manual")))
                info[key] += 1
                info["last_reading_at"] = _now()

    def throws(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest throws, newest first; a die a person confirmed or corrected carries
        ``confirmed`` (the face they gave, the latest if more than one)."""
        rows = [{"id": e.id, "at": e.at, **e.body} for e in self._ledger.latest("throw", limit)]
        by_id = {row["id"]: row for row in rows}
        for entry in self._ledger.entries(kind="confirmation", after=rows[-1]["id"] if rows else 0):
            row = by_id.get(entry.body.get("throw"))
            index = entry.body.get("index")
            if row is not None and isinstance(index, int) and 0 <= index < len(row["dice"]):
                row["dice"][index] = {**row["dice"][index], "confirmed": entry.body["face"]}
        return rows


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _too_many(thrown: int, need: Need, read_before: int) -> str:
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


def _hours(span: timedelta) -> str:
    hours = span.total_seconds() / 3600
    return f"{hours:g} hour{'s' if hours != 1 else ''}"


def _check_named(body: Any) -> str | None:
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
            check = check.accept(*(_reading(row) for row in dice))
        step = "its odds"
        active = ActiveCheck(check_id, system, dict(params), check)
        json.dumps(active.to_dict(), allow_nan=False)  # worked out, as at its creation
    except Exception as err:  # what a version or a row it was not made for may raise
        raise ValueError(f"{step}: {str(err) or type(err).__name__}") from err
    return active


def _reading(row: Any) -> Reading:
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


def _plain(
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


__all__ = ["AlreadyResolved", "ReadingRefused", "Table", "UnknownCheck"]
