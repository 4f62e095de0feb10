"""`dicebridge serve` before it serves: a port in use is said first, and the demo keeps its
throws in a ledger of its own (real processes over HTTP)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from dicebridge.serve import _listening
from server.ledger import Ledger
from tests.server.test_serve import _free_port, _get, _running, _serve


def test_a_port_in_use_is_said_before_the_pin_and_the_address(tmp_path: Path) -> None:
    """uvicorn bound the port last: the first start's admin PIN and "open http://…" were
    printed, the ledger made and the sources started, and only then did it fail."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("--port", str(port), "--data-dir", str(tmp_path))
        said, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert said.strip() == (
        f"dicebridge serve: port {port} on 127.0.0.1 is in use (another dicebridge, or "
        "another program): stop it, or give another --port"
    )
    assert not (tmp_path / "admin.json").exists()  # no PIN made (and none said)
    assert not (tmp_path / "ledger.sqlite3").exists()


def test_the_service_listens_on_the_sockets_it_made_first() -> None:
    """Made as uvicorn's asyncio makes them (one per address the host names), listening at
    once: a second service bound to the port at the same moment is refused there too."""
    port = _free_port()
    listening = _listening("127.0.0.1", port)
    try:
        assert [s.getsockname()[:2] for s in listening] == [("127.0.0.1", port)]
        with pytest.raises(SystemExit, match=f"port {port} on 127.0.0.1 is in use"):
            _listening("127.0.0.1", port)
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # queued until uvicorn serves it
    finally:
        for sock in listening:
            sock.close()
    with pytest.raises(SystemExit, match=r"cannot listen on no-such-host\.invalid: "):
        _listening("no-such-host.invalid", port)


def test_the_demo_keeps_its_throws_in_its_own_ledger(tmp_path: Path) -> None:
    """The demo's synthetic throws went into the owner's ledger, unmarked, beside the
    owner's own (and into the audits of the owner's dice)."""
    with Ledger(tmp_path) as owner:
        owner.append("note", {"text": "the owner's"})
        before = owner.count()
    port = _free_port()
    with _running("--demo", "--data-dir", str(tmp_path), port=port) as proc:
        assert proc.stdout is not None
        said = [proc.stdout.readline() for _ in range(3)]  # the PIN, the sets taught, the URL
        deadline = time.monotonic() + 60
        while not _get(port, "/api/throws?limit=1"):
            assert time.monotonic() < deadline, "the demo threw nothing"
            time.sleep(0.2)
    with Ledger(tmp_path) as owner:
        assert owner.count() == before and not any(owner.entries(kind="throw"))
    with Ledger(tmp_path / "demo") as ledger:
        assert any(ledger.entries(kind="throw")) and ledger.verify().ok
    demo = tmp_path / "demo" / "ledger.sqlite3"
    assert f"the demo's own ledger, apart from yours, in {demo})" in said[2]
    assert (tmp_path / "admin.json").exists()  # the PIN stays the owner's (the appliance's)
    assert not (tmp_path / "demo" / "admin.json").exists()
