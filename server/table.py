"""The table: the active checks, fed by readings, recorded in the ledger, announced to outputs.

Data flows one way: a source hands readings to :meth:`Table.add_dice`, the check
resolves (or asks for more), the ledger records it, and every subscriber (the
WebSocket, the attached display) hears about it.  Nothing downstream reaches
back.  A refused reading changes nothing and is not recorded as a throw.
"""

from __future__ import annotations

import json
import random
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mechanics.check import DiceCheck
from mechanics.check_factory import create_check
from mechanics.reading import Need, Reading, ReadingRefused, faces_of
from server.ledger import Ledger
from server.registry import DiceRegistry

Listener = Callable[[dict[str, Any]], None]


class UnknownCheck(KeyError):
    """No check with that id."""


@dataclass
class ActiveCheck:
    id: str
    system: str
    params: dict[str, Any]
    check: DiceCheck

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "system": self.system, "params": self.params, **self.check.to_dict()}


class Table:
    def __init__(
        self,
        ledger: Ledger,
        registry: DiceRegistry | None = None,
        rng: random.Random | None = None,
        keep_resolved: int = 500,
    ) -> None:
        """``keep_resolved``: the resolved checks kept in memory (the newest; every one is in
        the ledger): a kiosk runs for weeks, and each reading looks through the checks."""
        self._keep_resolved = keep_resolved
        # the virtual source's dice: the operating system's randomness unless one is given
        self._rng = rng if rng is not None else random.SystemRandom()
        self._ledger = ledger
        self.ledger = ledger  # read by the audits
        self.registry = registry if registry is not None else DiceRegistry(ledger)
        self._checks: dict[str, ActiveCheck] = {}
        self._listeners: list[Listener] = []
        self._sources: dict[str, str] = {"manual": "ready"}
        self._source_info: dict[str, dict[str, Any]] = {}  # last news and counts per source
        self._previews: dict[str, bytes] = {}  # a source's latest picture (JPEG), for people
        self._frames: dict[str, Any] = {}  # and the frame itself (teach mode reads it)
        self._lock = threading.Lock()

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
        with self._lock:
            self._checks[active.id] = active
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
        active = self._active(check_id)
        for given in readings:
            self.registry.check_reading(given)
        with self._lock:
            updated = active.check.accept(*readings)  # raises before anything is recorded
            active.check = updated
        dice = _plain(readings, extras)
        self._ledger.append("throw", {"check": check_id, "dice": dice})
        self._count(dice)
        for reading in dice:
            self._announce({"type": "reading", "check": check_id, **reading})
        state = active.to_dict()
        if state["status"] == "resolved":
            self._ledger.append("resolution", {"check": check_id, **state})
            self._forget_old_resolved()
        self._announce({"type": "check", **state})
        return state

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
            except ReadingRefused:
                continue  # a face this check cannot use: try the next check
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
            self.registry.check_reading(reading)
            identity = reading.identity
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


__all__ = ["ReadingRefused", "Table", "UnknownCheck"]
