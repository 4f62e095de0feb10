"""The notify protocol against a real Unix datagram socket standing in for systemd."""

from __future__ import annotations

import socket
from pathlib import Path

from server.systemd import Notifier


def test_messages_reach_the_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(path)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000"})
        assert notifier.enabled and notifier.watchdog_seconds == 20.0
        assert notifier.ready() and notifier.watchdog() and notifier.status("2 towers")
        got = [systemd.recv(100).decode() for _ in range(3)]
    assert got == ["READY=1", "WATCHDOG=1", "STATUS=2 towers"]


def test_outside_systemd_everything_is_a_no_op(tmp_path: Path) -> None:
    notifier = Notifier({})
    assert not notifier.enabled and notifier.watchdog_seconds is None
    assert notifier.ready() is False
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert gone.watchdog() is False
