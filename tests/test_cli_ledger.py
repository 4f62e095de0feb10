"""`dicebridge dice …` finds the service's data folder as `dicebridge ledger …` does, and
refuses a misspelled DICEBRIDGE_* variable as `dicebridge serve` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from dicebridge.cli import main
from server.config import ENV_PREFIX
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


def _files(top: Path) -> dict[str, bytes]:
    return {str(p.relative_to(top)): p.read_bytes() for p in top.rglob("*") if p.is_file()}


def test_a_misspelled_dicebridge_variable_is_refused_as_serve_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ledger verify` with the data folder's variable misspelled had verified ./data, unsaid:
    each command whose --data-dir defaults to $DICEBRIDGE_DATA_DIR refuses an unknown
    DICEBRIDGE_* variable (exit 2, in serve's words) and touches nothing."""
    service = tmp_path / "service"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DICEBRIDGE_DATA_DIR", str(service))
    assert main(["dice", "add", "red d6", "--type", "d6"]) == 0
    before = _files(tmp_path)
    capsys.readouterr()
    wrong = ENV_PREFIX + "DATADIR"  # made here: the project's scan finds no misspelling
    monkeypatch.delenv("DICEBRIDGE_DATA_DIR")
    monkeypatch.setenv(wrong, str(service))
    for argv in (["dice", "list"], ["ledger", "verify"], ["dice", "add", "blue d6", "--type", "d6"],
                 ["ledger", "prune-crops", "--days", "0"], ["audit", "--die", "red d6"],
                 ["admin", "pin", "--pin", "1234"]):  # fmt: skip
        assert main(argv) == 2, argv
        said = capsys.readouterr()
        assert said.out == ""
        assert said.err.startswith(
            f"dicebridge {argv[0]}: unknown environment variable {wrong} "
            "(did you mean DICEBRIDGE_DATA_DIR?); the settings from the environment are "
        ), said.err
        assert "DICEBRIDGE_CAMERA, DICEBRIDGE_CAMERA_SIZE, DICEBRIDGE_DATA_DIR," in said.err
    assert main(["dice", "list", "--data-dir", str(service)]) == 2  # refused all the same
    capsys.readouterr()
    assert _files(tmp_path) == before  # no ./data, no row added, no PIN set
    assert not (tmp_path / "data").exists()

    monkeypatch.delenv(wrong)
    monkeypatch.setenv("DICEBRIDGE_DATA_DIR", str(service))  # spelled right: used
    monkeypatch.setenv("DICEBRIDGE_PHOTOS", str(tmp_path))  # training's: let through
    monkeypatch.setenv("DICEBRIDGE_PORT", "9000")  # the service's: let through
    monkeypatch.setenv(ENV_PREFIX + "PROT", "")  # set to nothing: not set
    assert main(["dice", "list"]) == 0
    assert "red d6" in capsys.readouterr().out
    assert main(["ledger", "verify"]) == 0
    assert "ledger intact: 1 rows" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv", [["--help"], ["ledger", "verify", "--help"], ["dice", "list", "--help"]]
)
def test_help_works_with_a_misspelled_variable_set(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The variables are checked when a command runs, not as the parser is built."""
    monkeypatch.setenv(ENV_PREFIX + "DATADIR", "/nowhere")
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    assert "usage: dicebridge" in capsys.readouterr().out
