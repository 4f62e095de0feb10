"""The admin PIN: made at first start, hashed on disk, needed for admin actions only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dicebridge.cli import main
from server.admin import AdminError, AdminPin
from server.app import create_app
from server.ledger import Ledger
from server.table import Table


def test_first_start_makes_a_pin_and_keeps_only_its_hash(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    pin = admin.ensure()
    assert pin is not None and len(pin) == 6 and pin.isdigit()
    assert admin.ensure() is None  # once
    stored = (tmp_path / "admin.json").read_text()
    assert pin not in stored and set(json.loads(stored)) == {"salt", "hash"}
    assert (tmp_path / "admin.json").stat().st_mode & 0o077 == 0  # not readable by others
    admin.check(pin)
    with pytest.raises(AdminError, match="wrong admin PIN"):
        admin.check("000000" if pin != "000000" else "111111")


def test_five_wrong_pins_lock_admin_actions_for_a_minute(tmp_path: Path) -> None:
    now = [0.0]
    admin = AdminPin(tmp_path, clock=lambda: now[0])
    admin.set("2468")
    for _ in range(5):
        with pytest.raises(AdminError, match="wrong"):
            admin.check("1357")
    with pytest.raises(AdminError, match="locked for 60 s"):
        admin.check("2468")  # even the right one, while locked
    now[0] = 61.0
    admin.check("2468")
    with pytest.raises(AdminError, match="4 to 12 digits"):
        admin.set("12a4")


def test_admin_actions_need_the_pin_and_players_do_not(tmp_path: Path) -> None:
    admin = AdminPin(tmp_path)
    admin.set("9090")
    with Ledger(tmp_path) as ledger, TestClient(create_app(Table(ledger), admin)) as client:
        die = {"name": "Red d6", "type": "d6"}
        assert client.post("/api/dice", json=die).status_code == 401
        assert (
            client.post("/api/dice", json=die, headers={"X-Admin-PIN": "1111"}).status_code == 403
        )
        assert (
            client.post("/api/dice", json=die, headers={"X-Admin-PIN": "9090"}).status_code == 201
        )
        assert client.get("/api/export?format=csv").status_code == 401
        export = client.get("/api/export?format=csv", headers={"X-Admin-PIN": "9090"})
        assert export.status_code == 200 and export.text.startswith("id,kind,at,body,hash")
        # a player at the table: a check, dice, a virtual throw — no PIN
        check = client.post(
            "/api/checks", json={"system": "d6pool", "params": {"level": 1, "difficulty": 1}}
        )
        assert check.status_code == 201
        url = f"/api/checks/{check.json()['id']}/dice"
        assert client.post(url, json={"dice": [{"die": "d6", "value": 5}]}).status_code == 200


def test_the_pin_can_be_changed_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admin", "pin", "--data-dir", str(tmp_path), "--pin", "5555"]) == 0
    AdminPin(tmp_path).check("5555")
    assert main(["admin", "pin", "--data-dir", str(tmp_path), "--pin", "55"]) == 2
    assert "4 to 12 digits" in capsys.readouterr().err
    for untypable in ("²³⁴⁵", "１２３４"):  # digits to Python, but no keypad has them
        assert main(["admin", "pin", "--data-dir", str(tmp_path), "--pin", untypable]) == 2
    AdminPin(tmp_path).check("5555")  # the PIN set before still holds


def test_no_pin_typed_is_said_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    def no_one_there(prompt: str = "") -> str:  # as getpass does with input at its end
        raise EOFError

    monkeypatch.setattr(getpass, "getpass", no_one_there)
    assert main(["admin", "pin", "--data-dir", str(tmp_path)]) == 2
    assert "no PIN typed; give --pin for scripts" in capsys.readouterr().err
