"""Daily upkeep of the data folder: dice pictures older than the settings keep are removed.

A camera kiosk keeps a picture of every die it reads (3-12 kB each, measured: a
busy store keeps gigabytes a year on an SD card).  The ledger
rows that name them stay and still verify; only the pictures go.  Runs at start
and then once a day, on its own thread, stopped with the service.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from server.ledger import Ledger

DAY = 86400.0


class Housekeeping:
    def __init__(
        self,
        ledger: Ledger,
        keep_crops_days: float,
        every: float = DAY,
        say: Callable[[str], None] = print,
    ) -> None:
        self._ledger = ledger
        self._keep = keep_crops_days
        self._every = every
        self._say = say
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0

    def start(self) -> None:
        if self._keep <= 0:
            return  # kept for ever: nothing to do
        self._thread = threading.Thread(target=self._run, name="housekeeping", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                files, size = self._ledger.prune_crops(self._keep)
            except OSError as err:  # a folder that cannot be read today may be fine tomorrow
                self._say(f"dicebridge: could not prune old dice pictures: {err}")
            else:
                if files:
                    self._say(f"dicebridge: removed {files} dice pictures older than "
                              f"{self._keep:g} days ({size / 2**20:.1f} MB)")  # fmt: skip
            self.rounds += 1
            self._stop.wait(self._every)
