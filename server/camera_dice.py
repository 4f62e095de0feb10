"""Which registered die each die of a camera's throw is, from the settings' ``[camera_dice]``
(die type -> a registered die): a throw's one die of a type names it, so its readings
feed that die's fairness audit (docs/audit.md).  Two or more dice of one type in a throw
look alike to the camera: none of them is named (a wrong name would spoil two audits),
and the camera says so.  Uncertain dice count too: they are dice of that type on the
tray, and the one a person confirms later keeps the name it would have had."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence


def identities(
    kinds: Sequence[str], named: Mapping[str, str]
) -> tuple[list[str | None], dict[str, int]]:
    """The registered die of each die of a throw (``kinds``: their types, in order), None
    where none is set for its type or its type lies more than once; and the named types
    that lay more than once, with how many."""
    counts = Counter(kinds)
    crowded = {die: n for die, n in counts.items() if die in named and n > 1}
    return [named.get(die) if counts[die] == 1 else None for die in kinds], crowded


def crowded_note(crowded: Mapping[str, int], named: Mapping[str, str]) -> str:
    """What the camera says where ``crowded`` types lay more than once in a throw."""
    parts = [f"{n} {die}s" for die, n in sorted(crowded.items())]
    dice = ", ".join(named[die] for die in sorted(crowded))
    return (f"{' and '.join(parts)} in one throw: the camera cannot tell which is {dice} "
            "(camera_dice in the settings), so those readings are kept without its name "
            "and feed no die's audit; throw it alone to audit it")  # fmt: skip
