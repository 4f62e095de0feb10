"""The admin PIN: what store staff type to register dice, correct readings or export.

On first start the service makes a random six-digit PIN, keeps only its salted
PBKDF2 hash in the data folder, and says the PIN once (on standard output,
so in the journal, and on the attached display).  `dicebridge admin pin`
sets another.  Admin requests carry it in the ``X-Admin-PIN`` header; five
wrong tries lock admin actions for a minute.  Players never need it to set
up checks, throw or enter dice.

A PIN file that cannot be read (another user's, mode 0600) or holds no PIN is
AdminUnavailable: said once at start, and each admin request is refused with
what to do, never a server error.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import pwd
import re
import secrets
import sys
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


class AdminUnavailable(AdminError):
    """The PIN file is there but cannot be read or holds no PIN: no PIN can be checked
    until someone fixes it (the message says how)."""


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _hash(pin: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, ITERATIONS).hex()


class AdminPin:
    def __init__(
        self,
        data_dir: Path,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] = _to_stderr,
    ) -> None:
        """``say``: where :meth:`ensure` tells of a PIN file it cannot use (the journal,
        under systemd)."""
        self.path = Path(data_dir) / "admin.json"
        self._clock = clock
        self._say = say
        self._lock = threading.Lock()
        self._failures = 0
        self._locked_until = 0.0

    @property
    def is_set(self) -> bool:
        return self.path.is_file()

    def ensure(self) -> str | None:
        """Make a PIN if there is none yet; returns it (to be shown once) or None."""
        if self.is_set:
            try:
                self._stored()
            except AdminUnavailable as err:  # left as it is: it may hold the owner's PIN
                self._say(f"dicebridge: {err}")
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
        folder = self.path.parent.stat()
        if os.geteuid() == 0 and folder.st_uid != 0:
            # root (`sudo dicebridge admin pin`) setting the service's PIN: a root-owned
            # 0600 file is one the service cannot read, so it goes to the folder's owner
            # (after the rename: an admin request in that instant gets one 503)
            os.chown(self.path, folder.st_uid, folder.st_gid)

    def _stored(self) -> tuple[bytes, str] | None:
        """The salt and hash on disk; None where no PIN file is; AdminUnavailable where
        one is that cannot be read or holds no PIN."""
        try:
            stored = json.loads(self.path.read_bytes())
            salt, digest = bytes.fromhex(stored["salt"]), stored["hash"]
            if not re.fullmatch(r"[0-9a-f]{64}", digest):  # compare_digest takes ASCII only
                raise ValueError("no SHA-256 hash")
            return salt, digest
        except FileNotFoundError:
            return None
        except OSError as err:
            why = err.strerror or str(err)
            fix = f"make it readable by {_user()}, or "
        except (ValueError, TypeError, KeyError):  # not JSON, or no salt and hash in it
            why = "it holds no PIN"
            fix = ""
        folder = self.path.parent.resolve()
        raise AdminUnavailable(
            f"the admin PIN file {folder / self.path.name} cannot be used ({why}): admin "
            f"actions are refused until it is fixed; {fix}set a new PIN as {_user()}: "
            f"sudo -u {_user()} dicebridge admin pin --data-dir {folder}"
        )

    def check(self, pin: str | None) -> None:
        """AdminError unless ``pin`` is the admin PIN."""
        with self._lock:
            now = self._clock()
            if now < self._locked_until:
                wait = math.ceil(self._locked_until - now)
                raise AdminError(f"too many wrong PINs: admin actions are locked for {wait} s")
            stored = self._stored()  # an unusable file first: no PIN typed would help
            if not pin:
                raise AdminError("this needs the admin PIN (header X-Admin-PIN)")
            if stored is not None and hmac.compare_digest(_hash(pin, stored[0]), stored[1]):
                self._failures = 0
                return
            self._failures += 1
            if self._failures >= MAX_TRIES:
                self._failures = 0
                self._locked_until = now + LOCK_SECONDS
            raise AdminError("wrong admin PIN")


def _user() -> str:
    """The name of the user this runs as (the service's, under systemd)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid with no name (a container's)
        return str(os.geteuid())
