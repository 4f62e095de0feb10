"""systemd's notify protocol, without a library: READY, WATCHDOG and STATUS datagrams.

Under `Type=notify` with `WatchdogSec=`, systemd restarts the service when the
loop that talks to the hardware stops pinging.  Outside systemd (no
NOTIFY_SOCKET) every call is a no-op, so the same code runs on a laptop.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):  # an abstract socket
            address = "\0" + address[1:]
        self._address = address or None
        usec = env.get("WATCHDOG_USEC", "")
        self.watchdog_seconds = int(usec) / 1e6 if usec.isdigit() else None

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def _send(self, message: str) -> bool:
        if self._address is None:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            try:
                sock.sendto(message.encode(), self._address)
            except OSError:
                return False  # systemd went away: nothing to tell
        return True

    def ready(self) -> bool:
        return self._send("READY=1")

    def watchdog(self) -> bool:
        return self._send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self._send(f"STATUS={text}")
