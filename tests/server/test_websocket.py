"""The live-events WebSocket over a real uvicorn server and a real client (`websockets`)."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
import websockets

from server.app import create_app
from server.ledger import Ledger
from server.table import Table


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _service(
    tmp_path: Path, ping: float
) -> Iterator[tuple[uvicorn.Server, threading.Thread, Table, str]]:
    """The service on a thread, pinging its WebSocket clients every ``ping`` seconds."""
    ledger = Ledger(tmp_path)
    table = Table(ledger)
    port = _free_port()
    config = uvicorn.Config(create_app(table), host="127.0.0.1", port=port,
                            log_config=None, ws_ping_interval=ping, ws_ping_timeout=ping,
                            timeout_graceful_shutdown=3)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the service did not start"
        time.sleep(0.05)
    try:
        yield server, thread, table, f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True  # (the stop test asks first, and times it)
        thread.join(20)
        ledger.close()


def test_a_client_that_sends_a_message_is_kept_and_still_hears_the_news(tmp_path: Path) -> None:
    """A message from the page was never read, and then nothing more was: the server's
    pings went unanswered and the client was dropped (after 40 s at the default 20 s ping;
    here 0.3 s), never hearing a later throw."""

    async def visit(url: str, table: Table) -> list[str]:
        async with websockets.connect(url, ping_interval=None) as client:
            assert "hello" in str(await client.recv())
            await client.send('{"type": "ping"}')
            await client.send("x" * 100_000)
            await asyncio.sleep(2.0)  # six pings' worth
            table.source_event("tower:left", "fault", {"detail": "door open"})
            return [str(await asyncio.wait_for(client.recv(), 5))]

    with _service(tmp_path, ping=0.3) as (_, _, table, url):
        heard = asyncio.run(visit(url, table))
    assert "door open" in heard[0]


def test_stopping_with_a_page_open_ends_its_socket_at_once_without_errors(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stopping service had waited its whole grace for every open page (they were never
    read, so their close went unseen), then cancelled them with a traceback each."""

    async def stay(url: str, opened: threading.Event, closed: list[float]) -> None:
        async with websockets.connect(url, ping_interval=None) as client:
            await client.recv()
            await client.send("hello from the page")
            opened.set()
            try:
                await asyncio.wait_for(client.recv(), 30)
            except websockets.ConnectionClosed:
                closed.append(time.monotonic())

    opened, closed = threading.Event(), []  # type: ignore[var-annotated]
    with caplog.at_level(logging.ERROR), _service(tmp_path, ping=20) as (server, service, _, url):
        pages = [threading.Thread(target=asyncio.run, args=(stay(url, opened, closed),))
                 for _ in range(3)]  # fmt: skip
        for page in pages:
            page.start()
        assert opened.wait(10)
        time.sleep(0.5)
        asked = time.monotonic()
        server.should_exit = True
        service.join(20)
        stopped = time.monotonic() - asked
        for page in pages:
            page.join(20)
    assert len(closed) == 3 and stopped < 2.0  # not the 3 s grace, then a cancel
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
