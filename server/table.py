"""The table: the active checks, fed by readings, recorded in the ledger, announced to outputs.

Data flows one way: a source hands readings to :meth:`Table.add_dice`, the check
resolves (or asks for more), the ledger records it, and every subscriber (the
WebSocket, the attached display) hears about it.  Nothing downstream reaches
back.  A refused reading changes nothing and is not recorded as a throw.

A throw is one record: its dice, the resolution they bring and its unsure dice are
appended in one ledger transaction (planned first: server/throw_rows.py), so it is
kept whole or not at all, and no check changes before its rows are kept.

The checks still waiting for dice outlive the process: a Table made on a ledger
restores them from its rows (server/restore.py: each check's creation replayed,
then its throws, in ledger order, appending nothing), and a check set up
by mistake is withdrawn (:meth:`Table.withdraw`: a ``note`` row, ``"note":
"withdrawn"``, that the replay honours).
"""

from __future__ import annotations

import json
import logging
import random
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from mechanics.check_factory import create_check
from mechanics.reading import Need, Reading, ReadingRefused, faces_of
from server.ledger import Ledger
from server.registry import DiceRegistry
from server.restore import RESTORE_WITHIN, WITHDRAWN, restored
from server.throw_rows import ActiveCheck, Fed, Unassigned, fed, plain, too_many, unsure_row

Listener = Callable[[dict[str, Any]], None]
log = logging.getLogger(__name__)


class UnknownCheck(KeyError):
    """No check with that id."""


class AlreadyResolved(ValueError):
    """The check is resolved: it cannot be withdrawn any more."""


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
        """Tell every listener; one that fails (a page's event loop closing as it leaves)
        is logged: the news is recorded already, and the source that brought it must not
        take it for a failed record and bring it again."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("a listener failed on a %s event", event.get("type"))

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
        rows: list[tuple[str, dict[str, Any]]] = [(  # recorded first: a check the ledger
            "check",  # refused is no check
            {"check": active.id, "system": system, "params": params,
             "probability": state["probability"]},
        )]  # fmt: skip
        if state["status"] == "resolved":  # a check that needs no dice (a d6 pool of level
            # 0, dφ at a zero swing): resolved as it is made, and recorded so, as any other
            rows.append(("resolution", {"check": active.id, **state}))
        self._ledger.append_many(rows)  # both or neither
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
        with self._changing:
            # (withdrawn meanwhile: UnknownCheck); refused before anything is recorded
            planned = fed(self._active(check_id), readings, extras)
            self._ledger.append_many(planned.rows)  # the throw and its resolution: one record
            self._took(planned)
        self._tell_fed(planned)
        return planned.state

    def _took(self, fed: Fed) -> None:
        """A check's new state, once its rows are recorded (called with ``_changing``
        held): a throw the ledger refused is none."""
        with self._lock:
            fed.active.check = fed.updated
            fed.active.changed = self._changed()

    def _tell_fed(self, fed: Fed) -> None:
        if fed.state["status"] == "resolved":
            self._forget_old_resolved()
        self._count(fed.dice)
        for reading in fed.dice:
            self._announce({"type": "reading", "check": fed.active.id, **reading})
        self._announce({"type": "check", **fed.state})

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
        """The checks the ledger holds that were still waiting for dice, waiting again where
        they stood (server/restore.py); those it could not rebuild in :attr:`unrestored`."""
        self._checks, self._unrestored = restored(self._ledger, self._restore_within)
        self._forget_old_resolved()

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
        entry = self._ledger.append("reading", unsure_row(source, detail))
        self._tell_unsure(source, entry.id, detail)
        return entry.id

    def _tell_unsure(self, source: str, row: int, detail: dict[str, Any]) -> None:
        self._count([{"source": source}], "uncertain")
        self._announce({"type": "uncertain", "source": source, "row": row, **detail})

    def from_source(
        self,
        source: str,
        readings: Sequence[Reading],
        extras: Sequence[dict[str, Any]] | None = None,
        unsure: dict[str, int] | None = None,
        asked: Sequence[dict[str, Any]] = (),
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
        to a person): they were thrown together too; ``asked``: those dice's rows, kept as
        :meth:`uncertain` keeps one.

        Dice of several kinds thrown together (a pool's d6s and another check's Fudge
        dice) are each kind a throw of its own: they went to no check at all.  Each kind
        goes by what the checks waited for when it was thrown: a d10 thrown with a d5's
        stop face is not that check's decimals die, asked for only once the stop is seen
        (planned one kind after another, it had been, where the camera listed it after).

        The whole throw is one ledger transaction: every row of it is kept, or none is
        (LedgerError, and no check changed), so a source may read the throw again whole.

        Returns the state of the (first) check they fed, or None.
        """
        readings = [self._known_identity(source, r) for r in readings]
        shares: list[Fed | Unassigned] = []
        with self._changing:  # no check changes between the plan and its rows
            for kind in dict.fromkeys(r.die for r in readings):
                mine = [i for i, r in enumerate(readings) if r.die == kind]
                more = None if extras is None else [extras[i] for i in mine if i < len(extras)]
                shares.append(self._share(source, [readings[i] for i in mine], more, unsure))
            rows = [row for share in shares for row in share.rows]
            rows += [("reading", unsure_row(source, detail)) for detail in asked]
            kept = self._ledger.append_many(rows)
            for share in shares:
                if isinstance(share, Fed):
                    self._took(share)
        for share in shares:
            if isinstance(share, Fed):
                self._tell_fed(share)
            else:
                self._tell_unassigned(source, share)
        for entry, detail in zip(kept[len(kept) - len(asked) :], asked, strict=True):
            self._tell_unsure(source, entry.id, detail)
        return next((share.state for share in shares if isinstance(share, Fed)), None)

    def _share(
        self,
        source: str,
        readings: list[Reading],
        extras: Sequence[dict[str, Any]] | None,
        unsure: dict[str, int] | None,
    ) -> Fed | Unassigned:
        """Where dice of one kind thrown together go (called with ``_changing`` held): the
        oldest check waiting for them all, else no check."""
        with self._lock:
            waiting = [a for a in self._checks.values() if a.check.need() is not None]
        fewer: tuple[ActiveCheck, Need] | None = None  # waits for that die, but fewer now
        together = len(readings) + (unsure or {}).get(readings[0].die, 0)
        for active in waiting:  # dicts keep creation order: the oldest first
            need = active.check.need()
            if need is None or not all(need.die == r.die for r in readings):
                continue
            if together > need.count:
                fewer = fewer or (active, need)
                continue  # another check may need them all
            try:
                named = [self.registry.check_reading(given) for given in readings]
                return fed(active, named, extras)
            except ReadingRefused:
                continue  # a face this check cannot use: try the next check
        dice = plain(readings, extras)
        refused = None
        if fewer is not None:
            active, need = fewer
            refused = (active.id, too_many(together, need, len(active.check.readings)))
        return Unassigned(dice, [("throw", {"check": None, "source": source, "dice": dice})],
                           refused)  # fmt: skip

    def _tell_unassigned(self, source: str, share: Unassigned) -> None:
        self._count(share.dice)
        for reading in share.dice:
            self._announce({"type": "reading", "check": None, **reading})
        if share.refused is not None:
            check_id, why = share.refused
            self._announce({"type": "refused", "check": check_id, "source": source, "detail": why})

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


__all__ = ["AlreadyResolved", "ReadingRefused", "Table", "UnknownCheck"]
