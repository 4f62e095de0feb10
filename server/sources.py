"""Throw sources wired to the table: serial towers (each on its own thread).

Blocking serial I/O stays on the towers' threads; the table only receives
readings and news.  Data flows one way: tower → readings → table.  What a
tower sent that could not be read rides on its news (``unreadable`` events and
its connection changes), kept in its details by the table (``status``).
"""

from __future__ import annotations

import functools
from typing import Any

from firmware_host.driver import Event, Status, TowerFleet, usb_port_opener
from firmware_host.health import ReadCounts, counts_words
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
                counts = None if event.counts is None else event.counts.to_json()
                table.source_event(source, event.state, {"detail": event.detail}, counts)
            elif isinstance(event, ReadCounts):  # in words on the page, as figures in the API
                said = {"detail": counts_words(event) or "nothing unreadable"}
                table.source_event(source, "unreadable", said, event.to_json())
            elif event.kind in ("rethrow", "fault", "iam"):
                table.source_event(source, event.kind, tower_news(event))
        except Exception as err:  # a die not recorded (the ledger's disk full) must not end
            # the tower's thread, which would read nothing more: said, and the next one read
            table.source_event(source, "fault", {"detail": (
                f"a die was not recorded ({err}): throw again or enter it by hand")})  # fmt: skip

    openers: dict[str, Any] = {t.name: _opener(t) for t in towers}
    return TowerFleet(openers, on_event, modes={t.name: t.mode for t in towers}, **options)
