"""What the page tests share: Debian's headless Chromium (driven through Playwright; the
``browser`` fixture of ``conftest.py``) and a service for it to open, served by uvicorn on
a thread of the test's own process (so a test can be the camera, or a tower's host)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "no chromium here (`make test` installs Debian's chromium when it can)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def in_process(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a thread of this process: its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the service did not come up"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def chromium() -> Iterator[Any]:
    """Chromium launched headless (a Playwright ``Browser``), closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox"])  # fmt: skip
        try:
            yield launched
        finally:
            launched.close()
