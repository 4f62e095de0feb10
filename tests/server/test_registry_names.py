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
