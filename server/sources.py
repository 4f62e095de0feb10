"""Throw sources wired to the table: serial towers (each on its own thread).

Blocking serial I/O stays on the towers' threads; the table only receives
readings and news.  Data flows one way: tower → readings → table.  What a
tower sent that could not be read rides on its news (``unreadable`` events and
its connection changes); :class:`TowerCounts` keeps the latest for the API.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import Any

from firmware_host.driver import Event, Status, TowerFleet, usb_port_opener
from firmware_host.health import FIELDS, ReadCounts, counts_words
from firmware_host.port import SerialPort
from firmware_host.reader import TowerEvent, TowerReading
from mechanics.reading import Reading
from server.config import TowerConfig
from server.table import Table


def _opener(tower: TowerConfig) -> Any:
    if tower.port is not None:
        return functools.partial(SerialPort, tower.port)
    assert tower.usb is not None
    parts = tower.usb.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"tower {tower.name}: usb must be vid:pid or vid:pid:serial")
    return usb_port_opener(
        int(parts[0], 16), int(parts[1], 16), parts[2] if len(parts) == 3 else None
    )


def tower_news(event: TowerEvent) -> dict[str, str]:
    """A tower's news for the table, its ``detail`` in words (the Devices page shows it
    beside the event's name: "iam" alone told people nothing)."""
    d = event.detail
    news = {k: str(getattr(v, "die", v)) for k, v in d.items() if k != "slots"}
    if event.kind == "iam":
        dice = ", ".join(code.die for code in d.get("slots", ()))
        firmware = ".".join(map(str, d.get("firmware", ())))
        news["slots"] = dice
        news["detail"] = f"tower {d.get('device_id', '?')}, firmware {firmware}, dice: {dice}"
    elif event.kind == "rethrow":
        news["detail"] = f"slot {d.get('slot', '?')}: {d.get('why', 'not read')}, throw it again"
    elif event.kind == "fault":
        news["detail"] = f"{d.get('code', 'fault')}: {d.get('detail', '')}".rstrip(": ")
    return news


def counts_news(counts: ReadCounts) -> dict[str, Any]:
    """A tower's counts as news: in words (``detail``) and as numbers for the API."""
    return {"detail": counts_words(counts) or "nothing unreadable", **counts.to_json()}


class TowerCounts:
    """The latest counts of what each tower sent that could not be read, heard from the
    table's events (the table keeps a source's last news only in words)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, Any]] = {}

    def hear(self, event: Mapping[str, Any]) -> None:
        if event.get("type") == "source" and "unreadable" in event:
            with self._lock:
                self._counts[str(event["source"])] = {k: event[k] for k in FIELDS if k in event}

    def add_to(self, details: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """``details`` (the table's, per source) with each tower's counts added."""
        with self._lock:
            return {name: {**d, **self._counts.get(name, {})} for name, d in details.items()}


def tower_fleet(towers: tuple[TowerConfig, ...], table: Table, **options: Any) -> TowerFleet:
    """A fleet whose readings and news go to the table (named by slot when configured).
    A tower's dice go one by one, in slot order: its slots have an order of their own,
    which no player chooses (docs/ledger.md, "Dice thrown together").  ``options``: the
    drivers' (heartbeat_s, report_s, …)."""
    identities = {t.name: t.dice for t in towers}

    def on_event(name: str, event: Event | Status) -> None:
        source = f"tower:{name}"
        try:
            if isinstance(event, TowerReading):
                slots = identities.get(name, ())
                slot = event.slot
                identity = slots[slot] if slot is not None and 0 <= slot < len(slots) else None
                reading = Reading(event.die, event.value, 1.0, source, identity)
                table.from_source(source, [reading])
            elif isinstance(event, Status):
                counts = {} if event.counts is None else event.counts.to_json()
                table.source_event(source, event.state, {"detail": event.detail, **counts})
            elif isinstance(event, ReadCounts):
                table.source_event(source, "unreadable", counts_news(event))
            elif event.kind in ("rethrow", "fault", "iam"):
                table.source_event(source, event.kind, tower_news(event))
        except Exception as err:  # a die not recorded (the ledger's disk full) must not end
            # the tower's thread, which would read nothing more: said, and the next one read
            table.source_event(source, "fault", {"detail": (
                f"a die was not recorded ({err}): throw again or enter it by hand")})  # fmt: skip

    openers: dict[str, Any] = {t.name: _opener(t) for t in towers}
    return TowerFleet(openers, on_event, modes={t.name: t.mode for t in towers}, **options)
