"""The admin PIN: what store staff type to register dice, correct readings or export.

On first start the service makes a random six-digit PIN, keeps only its salted
PBKDF2 hash in the data folder, and says the PIN once (on standard output,
so in the journal, and on the attached display).  `dicebridge admin pin`
sets another.  Admin requests carry it in the ``X-Admin-PIN`` header; five
wrong tries lock admin actions for a minute.  Players never need it to set
up checks, throw or enter dice.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

from dicebridge.files import write_whole

ITERATIONS = 200_000
MAX_TRIES = 5
LOCK_SECONDS = 60.0


class AdminError(PermissionError):
    """A missing or wrong PIN, or admin actions locked after too many tries."""


def _hash(pin: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, ITERATIONS).hex()


class AdminPin:
    def __init__(self, data_dir: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(data_dir) / "admin.json"
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._locked_until = 0.0

    @property
    def is_set(self) -> bool:
        return self.path.is_file()

    def ensure(self) -> str | None:
        """Make a PIN if there is none yet; returns it (to be shown once) or None."""
        if self.is_set:
            return None
        pin = f"{secrets.randbelow(10**6):06d}"
        self.set(pin)
        return pin

    def set(self, pin: str) -> None:
        if not re.fullmatch(r"[0-9]{4,12}", pin):  # ASCII digits: "²³⁴⁵" passes isdigit()
            raise AdminError("a PIN is 4 to 12 digits")
        salt = secrets.token_bytes(16)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        secret = json.dumps({"salt": salt.hex(), "hash": _hash(pin, salt)}).encode()
        write_whole(self.path, secret, mode=0o600)

    def check(self, pin: str | None) -> None:
        """AdminError unless ``pin`` is the admin PIN."""
        with self._lock:
            now = self._clock()
            if now < self._locked_until:
                wait = math.ceil(self._locked_until - now)
                raise AdminError(f"too many wrong PINs: admin actions are locked for {wait} s")
            if not pin:
                raise AdminError("this needs the admin PIN (header X-Admin-PIN)")
            stored = json.loads(self.path.read_text()) if self.is_set else None
            if stored is not None and hmac.compare_digest(
                _hash(pin, bytes.fromhex(stored["salt"])), stored["hash"]
            ):
                self._failures = 0
                return
            self._failures += 1
            if self._failures >= MAX_TRIES:
                self._failures = 0
                self._locked_until = now + LOCK_SECONDS
            raise AdminError("wrong admin PIN")
