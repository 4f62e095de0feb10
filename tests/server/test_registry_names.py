"""Registered dice's names: any script, no control characters, and an update only of a die
that is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.ledger import Ledger
from server.registry import DiceRegistry, NotFound, RegistryError


def test_names_in_any_script_keep_their_letters_and_control_characters_are_refused(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path) as ledger:
        registry = DiceRegistry(ledger)
        assert registry.register("Würfel #3", "d6").id == "wurfel-3"  # was "w-rfel-3"
        assert registry.register("红骰子", "d20").id == "红骰子"  # was refused: "no letter"
        assert registry.register("Red d6", "d6").id == "red-d6"  # plain names as before
        assert registry.get("WÜRFEL 3").name == "Würfel #3"
        for name, colour in (("a\nb", ""), ("nul\x01x", ""), ("blue", "dark\nblue")):
            with pytest.raises(RegistryError, match="no control characters"):
                registry.register(name, "d6", colour)
        with pytest.raises(NotFound, match="no registered die named 'Green d6' to update"):
            registry.register("Green d6", "d6", update=True)
        assert [d.id for d in registry.all()] == ["red-d6", "wurfel-3", "红骰子"]


def test_dice_registered_by_another_process_are_seen_without_a_restart(tmp_path: Path) -> None:
    """`dicebridge dice add` while the service ran: the Audit page showed the die only after
    the service was started again."""
    with Ledger(tmp_path) as service_ledger:
        service = DiceRegistry(service_ledger)
        assert service.all() == []
        with Ledger(tmp_path) as command_line:  # another process's connection to the file
            DiceRegistry(command_line).register("Blue d20", "d20")
            command_line.append("check", {"n": 1})  # rows of other kinds after it
        assert [d.id for d in service.all()] == ["blue-d20"]
        assert service.get("Blue d20").type == "d20"


def test_a_row_number_past_any_ledger_is_no_throw(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:  # SQLite's integers end at 2**63: it had overflowed
        for row in (10**23, 0, -5):
            with pytest.raises(NotFound, match="is not a throw"):
                DiceRegistry(ledger).confirm(row, 0, 1)


def test_a_confirmation_said_again_is_recorded_once_and_a_correction_after_it(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path) as ledger:
        registry = DiceRegistry(ledger)
        registry.register("Red d6", "d6")
        throw = ledger.append("throw", {"dice": [{"die": "d6", "face": 3, "identity": "red-d6"}]})

        def said() -> list[int]:
            return [e.body["face"] for e in ledger.entries(kind="confirmation")]

        for _ in range(3):  # a double click, and once more: one row (each had been recorded)
            assert registry.confirm(throw.id, 0, 4) == {"throw": throw.id, "index": 0, "face": 4}
        assert said() == [4]
        registry.confirm(throw.id, 0, 5)  # a correction is recorded: the last one counts
        registry.confirm(throw.id, 0, 4)  # and so is going back to the first face
        assert said() == [4, 5, 4]
