"""`dicebridge serve` as a process: how it starts, refuses and stops (real HTTP, signals)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(*argv: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "dicebridge", "serve", *argv]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _get(port: int, path: str) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as reply:
        answer: dict[str, object] = json.loads(reply.read())
        return answer


@contextmanager
def _running(*argv: str, port: int) -> Iterator[subprocess.Popen[str]]:
    proc = _serve("--port", str(port), *argv)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(port, "/api/health")
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()[0]
                assert time.monotonic() < deadline, "the service did not come up"
                time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.communicate(timeout=20)  # its output read and its pipe closed


def test_a_stop_by_sigterm_closes_the_ledger_as_ctrl_c_does(tmp_path: Path) -> None:
    """systemd stops a service with SIGTERM: uvicorn raised it again once stopped, and the
    default handler ended the process there, before any stop ran (exit -15, the ledger's
    write-ahead log left beside it, a tumbler's relay left as it was)."""
    port = _free_port()
    with _running("--data-dir", str(tmp_path), port=port) as proc:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert (tmp_path / "ledger.sqlite3").exists()
    assert not (tmp_path / "ledger.sqlite3-wal").exists()  # closed: checkpointed, removed


def test_a_second_service_on_one_data_folder_is_refused(tmp_path: Path) -> None:
    """Both had run, driving the same towers and camera into one ledger."""
    port = _free_port()
    with _running("--data-dir", str(tmp_path), port=port) as first:
        second = _serve("--port", str(_free_port()), "--data-dir", str(tmp_path))
        said, _ = second.communicate(timeout=60)
        assert second.returncode != 0
        assert f"another dicebridge service (pid {first.pid}) is using {tmp_path}" in said
        assert _get(port, "/api/health")["status"] == "ok"  # the first runs on


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--port", "70000"], "port must be between 1 and 65535, not 70000"),  # had listened
        (["--port", "0"], "port must be between 1 and 65535, not 0"),  # on 4464, and on any
        (["--host", ""], "--host cannot be empty"),  # every network
    ],
)
def test_command_line_values_are_checked_as_the_settings_are(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    proc = _serve(*argv, "--data-dir", str(tmp_path))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0 and said in out


def test_the_demo_keeps_to_its_own_tray_and_leaves_the_owner_s_alone(tmp_path: Path) -> None:
    """The demo's camera had read with an owner's tray area and empty-tray picture (it read
    a throw a minute), and marking or taking them in the demo wrote over the owner's."""
    area = tmp_path / "tray-area.json"
    area.write_text(json.dumps({"points": [[0, 0], [0.25, 0], [0.25, 0.25], [0, 0.25]]}))
    before = area.read_bytes()
    port = _free_port()
    with _running("--demo", "--data-dir", str(tmp_path), port=port):
        assert _get(port, "/api/tray-area")["in_use"] == "whole"
        assert _get(port, "/api/empty-tray")["in_use"] == "none"
    assert area.read_bytes() == before
