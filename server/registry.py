"""Registered dice: the physical dice the appliance knows by name, for their audits.

A die's identity (name, type, colour, set) is a ``die`` row in the ledger;
changing it appends a new row with the same id (the newest wins), so the
record of who was what stays.  A reading names its die through
``Reading.identity``; a person's confirmation or correction of a reading is a
``confirmation`` row pointing at the throw.  Both feed the die's audit.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import asdict, dataclass, replace
from typing import Any

from mechanics.reading import DIE_TYPES, Reading, ReadingRefused, faces_of
from server.ledger import Ledger

AUDITABLE = tuple(t for t in DIE_TYPES if t != "d100")  # a d100 is two d10s, audited apart


class RegistryError(ValueError):
    """A die that cannot be registered or found; the message says why."""


class NotFound(RegistryError):
    """No such registered die, throw or die of a throw."""


class AlreadyRegistered(RegistryError):
    """A die of that name is registered already."""


@dataclass(frozen=True)
class DieIdentity:
    id: str  # a slug of the name: "red-d6"
    name: str
    type: str
    colour: str = ""
    set: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def slug(name: str) -> str:
    """A die's id from its name: lower case, accents taken off ("Würfel" → "wurfel"), and
    what is neither letter nor digit a dash; letters of other scripts are kept (a name
    in Chinese had no id at all, an accented one lost its letters)."""
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", name.strip().lower())
        if not unicodedata.combining(c)
    )  # fmt: skip
    return re.sub(r"[\W_]+", "-", folded).strip("-")


def _printable(*texts: str) -> bool:
    """No control character (a new line, a tab, NUL) in any of ``texts``: a name is shown
    on one line of a list, and a new line in it made two rows."""
    return not any(unicodedata.category(c).startswith("C") for t in texts for c in t)


class DiceRegistry:
    """The registered dice of one ledger, read once and kept up to date by this process."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._lock = threading.Lock()
        self._dice: dict[str, DieIdentity] = {}
        self._read_to = 0  # the ledger's rows read so far
        self._catch_up()

    def _catch_up(self) -> None:
        """Read the dice registered since the last look, by this process or another (`dicebridge
        dice add` while the service runs: the Audit page had shown them only after a restart)."""
        newest = self._ledger.last_id()
        if newest == self._read_to:
            return
        for entry in self._ledger.entries(kind="die", after=self._read_to):
            if entry.id > newest:
                break
            die = DieIdentity(**entry.body)
            self._dice[die.id] = die
        self._read_to = newest

    def register(
        self,
        name: str,
        die_type: str,
        colour: str = "",
        set_name: str = "",
        *,
        update: bool = False,
    ) -> DieIdentity:
        """Register a die (or, with ``update``, change an existing one's details)."""
        die_id = slug(name)
        if not die_id or len(name) > 80:
            raise RegistryError("a die needs a name of 1–80 characters with a letter or digit")
        if die_type not in AUDITABLE:
            raise RegistryError(f"die type must be one of {', '.join(AUDITABLE)}, not {die_type!r}")
        if len(colour) > 40 or len(set_name) > 80:
            raise RegistryError("colour is at most 40 characters, set at most 80")
        if not _printable(name, colour, set_name):
            raise RegistryError("a die's name, colour and set hold no control characters "
                                "(a new line, a tab)")  # fmt: skip
        with self._lock:
            self._catch_up()
            old = self._dice.get(die_id)
            if old is None and update:
                raise NotFound(f"no registered die named {name.strip()!r} to update: "
                               "register it first")  # fmt: skip
            if old is not None and not update:
                raise AlreadyRegistered(
                    f"a die named {old.name!r} is already registered (id {die_id})"
                )
            if old is not None and old.type != die_type:
                raise RegistryError(f"{old.name!r} is a {old.type}; a die cannot change its type")
            die = DieIdentity(die_id, name.strip(), die_type, colour.strip(), set_name.strip())
            self._ledger.append("die", die.to_dict())
            self._dice[die_id] = die
        return die

    def get(self, die_id: str) -> DieIdentity:
        with self._lock:
            self._catch_up()
            die = self._dice.get(slug(die_id))
        if die is None:
            raise NotFound(f"no registered die {die_id!r}")
        return die

    def all(self) -> list[DieIdentity]:
        with self._lock:
            self._catch_up()
            return sorted(self._dice.values(), key=lambda d: d.id)

    def check_reading(self, reading: Reading) -> Reading:
        """``reading`` naming its die by the die's id, however it was spelt ("Red d6",
        "RED-D6": the audit gathers a die's readings by id, and left those out);
        ReadingRefused when it names a die that is not registered or not of its type."""
        if reading.identity is None:
            return reading
        try:
            die = self.get(reading.identity)
        except RegistryError as err:
            raise ReadingRefused(str(err)) from None
        if die.type != reading.die:
            raise ReadingRefused(f"{die.name!r} is a {die.type}, not a {reading.die}")
        return replace(reading, identity=die.id)

    def confirm(self, throw_id: int, index: int, face: int) -> dict[str, Any]:
        """A person confirms (or corrects) die ``index`` of throw row ``throw_id``."""
        if not 1 <= throw_id < 2**63:  # past what SQLite numbers rows by
            raise NotFound(f"ledger row {throw_id} is not a throw")
        entry = next(iter(self._ledger.entries(kind="throw", after=throw_id - 1)), None)
        if entry is None or entry.id != throw_id:
            raise NotFound(f"ledger row {throw_id} is not a throw")
        dice = entry.body.get("dice", [])
        if not 0 <= index < len(dice):  # said counting from 1, as people (and the page) do
            raise NotFound(f"throw {throw_id} has {len(dice)} {'die' if len(dice) == 1 else 'dice'}"
                           f" (1 to {len(dice)}), not a die number {index + 1}")  # fmt: skip
        die_type = dice[index]["die"]
        if face not in faces_of(die_type) and not (die_type == "d10" and face == 10):
            raise RegistryError(f"a {die_type} has no face {face}")
        body = {"throw": throw_id, "index": index, "face": face % 10 if die_type == "d10" else face}
        with self._lock:
            rows = self._ledger.entries(kind="confirmation", after=throw_id)
            said = [e.body["face"] for e in rows if (e.body.get("throw"), e.body.get("index"))
                    == (throw_id, index)]  # fmt: skip
            if said and said[-1] == body["face"]:
                return body  # said already (a second press): the last confirmation stands
            self._ledger.append("confirmation", body)
        return body
