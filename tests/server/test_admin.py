"""The admin PIN: made at first start, hashed on disk, needed for admin actions only."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dicebridge.cli import main
from server.admin import AdminError, AdminPin, AdminUnavailable
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
        assert export.text == ledger.export("csv")  # streamed, piece by piece: the same text
        whole = client.get("/api/export?format=json", headers={"X-Admin-PIN": "9090"})
        assert whole.headers["content-type"] == "application/json"
        assert [row["kind"] for row in whole.json()] == ["die"]
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


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"[]",
        b'{"salt": "zz", "hash": "00"}',
        b'{"salt": "00", "hash": "\xc3\xa9"}',
    ],
    ids=["empty", "not-json", "a-list", "bad-salt", "non-ascii-hash"],
)
def test_a_pin_file_holding_no_pin_is_said_at_start_and_refused_with_503(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each had made every admin request a 500 (JSONDecodeError and the like in check),
    with nothing said at start."""
    (tmp_path / "admin.json").write_bytes(content)
    admin = AdminPin(tmp_path)
    assert admin.ensure() is None  # left as it is: no new PIN over the owner's file
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1
    assert f"{tmp_path / 'admin.json'} cannot be used (it holds no PIN)" in said[0]
    assert f"dicebridge admin pin --data-dir {tmp_path}" in said[0]
    assert (tmp_path / "admin.json").read_bytes() == content
    with pytest.raises(AdminUnavailable, match="admin actions are refused until it is fixed"):
        admin.check("2468")
    with Ledger(tmp_path) as ledger, TestClient(create_app(Table(ledger), admin)) as client:
        for pin in ({"X-Admin-PIN": "2468"}, {}):
            reply = client.post("/api/dice", json={"name": "Red d6", "type": "d6"}, headers=pin)
            assert reply.status_code == 503 and "holds no PIN" in reply.json()["detail"]
    assert main(["admin", "pin", "--data-dir", str(tmp_path), "--pin", "2468"]) == 0
    admin.check("2468")  # the fix the message names works at once, without a restart


CHECKER = """
import sys
from pathlib import Path
from server.admin import AdminPin, AdminUnavailable
admin = AdminPin(Path(sys.argv[1]))
print(admin.ensure())
try:
    admin.check(sys.argv[2])
except AdminUnavailable as err:
    print("refused:", err)
else:
    print("accepted")
"""


def test_a_pin_file_the_service_cannot_read_is_said_not_a_500() -> None:
    """`sudo dicebridge admin pin` had left a root-owned 0600 file: the service, another
    user, met a PermissionError in every admin request."""
    from tests.deploy.unprivileged import open_folder, run_unprivileged

    with open_folder() as folder:
        AdminPin(folder).set("2468")
        if os.geteuid() != 0:
            (folder / "admin.json").chmod(0)  # root's is closed to nobody by its 0600
        try:
            got = run_unprivileged([sys.executable, "-c", CHECKER, str(folder), "2468"])
        finally:
            (folder / "admin.json").chmod(0o600)
    assert got.returncode == 0, got.stderr
    said = got.stderr.splitlines()
    assert len(said) == 1 and "cannot be used (Permission denied)" in said[0]
    assert "make it readable by" in said[0] and "dicebridge admin pin --data-dir" in said[0]
    assert got.stdout.startswith("None\nrefused: the admin PIN file")


def test_root_setting_the_pin_gives_the_file_to_the_folder_s_owner() -> None:
    """With sudo, `dicebridge admin pin` had written a root-owned 0600 file the service
    (the folder's owner) could not read."""
    from tests.deploy.unprivileged import NOBODY, open_folder, run_unprivileged

    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    with open_folder() as folder:
        os.chown(folder, NOBODY, NOBODY)  # the service's folder
        assert main(["admin", "pin", "--data-dir", str(folder), "--pin", "2468"]) == 0
        stat = (folder / "admin.json").stat()
        assert (stat.st_uid, stat.st_gid, stat.st_mode & 0o777) == (NOBODY, NOBODY, 0o600)
        got = run_unprivileged([sys.executable, "-c", CHECKER, str(folder), "2468"])
    assert (got.returncode, got.stdout, got.stderr) == (0, "None\naccepted\n", "")
