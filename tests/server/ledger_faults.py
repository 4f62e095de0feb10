"""A ledger that refuses a row once, as a locked or full database would: the real SQLite
connection, with a temporary trigger (on that connection only: the file is unchanged)."""

from __future__ import annotations

from server.ledger import Ledger


def refuse_once(ledger: Ledger, when: str) -> list[int]:
    """Make ``ledger`` refuse, once, the first row inserted for which SQL ``when`` holds
    (NEW is the row): "database is locked".  Returns the count of rows it was asked
    about, so a test can tell that the refusal happened."""
    asked = [0]

    def first() -> int:
        asked[0] += 1
        return int(asked[0] == 1)

    db = ledger._db  # the connection the ledger writes by
    db.create_function("refuse_first", 0, first)
    refusal = "SELECT RAISE(ABORT, 'database is locked')"
    db.execute(f"CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.entries "
               f"WHEN ({when}) AND refuse_first() BEGIN {refusal}; END")  # fmt: skip
    return asked
