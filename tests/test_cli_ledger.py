"""`dicebridge dice …` finds the service's data folder as `dicebridge ledger …` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from dicebridge.cli import main
from server.ledger import Ledger


def test_dice_commands_use_the_service_s_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dice add` had written a new ledger into ./data whatever $DICEBRIDGE_DATA_DIR said:
    a die registered there was unknown to the service and to `ledger verify`."""
    service = tmp_path / "service"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DICEBRIDGE_DATA_DIR", str(service))
    assert main(["dice", "add", "red d6", "--type", "d6"]) == 0
    assert not (tmp_path / "data").exists()
    with Ledger(service) as ledger:
        assert [e.body["name"] for e in ledger.entries(kind="die")] == ["red d6"]
    capsys.readouterr()
    assert main(["dice", "list"]) == 0
    assert "red d6" in capsys.readouterr().out
    assert main(["ledger", "verify"]) == 0  # the same folder
    assert "ledger intact: 1 rows" in capsys.readouterr().out
    monkeypatch.delenv("DICEBRIDGE_DATA_DIR")
    assert main(["dice", "list", "--json"]) == 0  # without it: ./data, none there
    assert capsys.readouterr().out == "[]\n"
