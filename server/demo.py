"""`dicebridge serve --demo`: the whole chain with nothing attached.

A synthetic camera (rendered throws, moving then settling, read by the real
vision pipeline) and a simulated serial tower on a pseudo-terminal (read by
the real tower driver) feed the same table, ledger and events a Pi would; a
small director keeps a few checks waiting, so there is always something to
resolve.  Nothing here is used outside the demo.
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from firmware_host.protocol import DieCode
from firmware_host.simulator import TowerSimulator, open_pty, serve
from server.config import TowerConfig
from server.diesets import DieSetStore
from server.table import Table
from vision.frames import CameraError, Frame
from vision.render import PALETTE, ThrowSpec, render_settling

# checks the director sets up in turn: the camera reads d6s and dFs, and d20s and d5s with
# the demo's taught sets; the tower throws d10s
DEMO_CHECKS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("d6pool", {"level": 3, "difficulty": 4}),
    ("dphi", {"might": 0.5}),
    ("decibel", {"pool": 2, "target": 10}),
    ("peupfudge", {"dice": 4, "level": 2, "bonus": 0, "difficulty": 2}),
    ("d5", {"at_least": 2}),
    ("dphi", {"might": -1, "hops": 2}),
)
NUMBERED_LOOK = 2  # vision.render.PALETTE: the demo's numbered dice are red, white numerals
DEMO_SETS = (("demo-red-d20", "d20"), ("demo-red-d5", "d5"))  # taught from renders of them


def teach_demo_sets(store: DieSetStore) -> list[str]:
    """Teach the demo's die sets into ``store`` where it lacks them (the demo keeps its own
    store, apart from the sets an owner teaches: `serve --demo`); the names taught."""
    from vision.teach_synthetic import taught_from_renders

    taught = []
    for name, die in DEMO_SETS:
        if name not in store.names():
            store.save(taught_from_renders(die, NUMBERED_LOOK, name))
            taught.append(name)
    return taught


class SyntheticCamera:
    """A frame source that throws rendered dice: ``moving`` frames, then the dice lie still
    for ``rest`` seconds; it throws what ``wanted()`` names (a die type and how many: a
    check takes no more dice at once than it needs now) or a few d6s."""

    def __init__(
        self,
        wanted: Callable[[], tuple[str, int] | None],
        seed: int = 1,
        fps: float = 10.0,
        rest: float = 4.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._wanted = wanted
        self._rng = np.random.default_rng(seed)
        self._period = 1.0 / fps
        self._rest_frames = max(1, int(rest * fps))
        self._sleep = sleep
        self._queue: list[np.ndarray] = []
        self._at = 0.0
        self._closed = False
        self.throws = 0

    def _next_throw(self) -> None:
        wanted = self._wanted()
        die, count = wanted if wanted is not None else ("d6", int(self._rng.integers(1, 5)))
        count = min(count, 4)  # a tray's worth (a big pool is thrown by hand or by the appliance)
        looks = None if die in ("d6", "dF") else (PALETTE[NUMBERED_LOOK],)  # the taught sets'
        spec = ThrowSpec(dice=(die,) * count, looks=looks)
        frames = render_settling(spec, self._rng, moving=5, still=3)
        last = frames[-1][0]
        self._queue = [image for image, _ in frames] + [last] * self._rest_frames
        self.throws += 1

    def read(self) -> Frame | None:
        if self._closed:
            raise CameraError("the synthetic camera was closed")
        if not self._queue:
            self._next_throw()
        self._sleep(self._period)
        self._at += self._period
        return Frame(self._queue.pop(0), self._at, f"synthetic-{self.throws}")

    def close(self) -> None:
        self._closed = True


class DemoTower:
    """A simulated serial tower of two d10s on a pseudo-terminal, throwing every few seconds."""

    def __init__(self, interval: float = 6.0, seed: int = 2) -> None:
        self._master, self.path = open_pty()
        self._stop = threading.Event()
        sim = TowerSimulator(slots=(DieCode.D10,), rng=random.Random(seed))
        self._thread = threading.Thread(
            target=serve, args=(sim, self._master, 0, interval, self._stop), daemon=True
        )

    @property
    def config(self) -> TowerConfig:
        return TowerConfig("demo-tower", port=self.path)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        os.close(self._master)


class Director:
    """Keeps at least ``waiting`` demo checks open, creating the next when one resolves."""

    def __init__(self, table: Table, waiting: int = 2, poll: float = 0.5) -> None:
        self._table = table
        self._waiting = waiting
        self._poll = poll
        self._next = itertools.cycle(DEMO_CHECKS)
        self._open: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="demo-director", daemon=True)

    def top_up(self) -> None:
        waiting = {c["id"] for c in self._table.waiting()}  # (a long-resolved one is forgotten)
        self._open = [c for c in self._open if c in waiting]
        while len(self._open) < self._waiting:
            system, params = next(self._next)
            self._open.append(self._table.create(system, params)["id"])

    def _run(self) -> None:
        while not self._stop.wait(self._poll):
            self.top_up()

    def start(self) -> None:
        self.top_up()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
