"""The d5 stop-die system with physical dice: rolled until a stop face, or read off a d100.

* ``d5``: a d5 until a 1 shows (the rule);
* ``d10``: a d10 until a 1 or a 2 shows (exactly the rule);
* ``d6``: a d6 until a 1 shows (an approximation: each die goes on 5/6 of the
  time instead of 4/5; the chance reported is the d6's own, with the rule's beside it);
* ``d100``: Table 2 for the net result (Table 1 for a single roll), its end rows
  asking for another d100 on Table 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from mechanics import d5, d5_tables
from mechanics.check import DiceCheck, Resolution
from mechanics.reading import Need, Reading

MAX_AT_LEAST = 1000  # beyond it the chance is 0 or 1 to a hundred digits
MAX_DECIMALS = 15


@dataclass(frozen=True, kw_only=True)
class D5Check(DiceCheck):
    """Net result (positive − negative), or one roll with ``single``, at least ``at_least``."""

    at_least: int
    single: bool = False
    die: str = "d5"
    decimals: int = 0
    system: str = field(default="d5", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.die not in ("d5", "d10", "d6", "d100"):
            raise ValueError("the d5 system is thrown with d5, d10, d6 or d100")
        if not 0 <= self.decimals <= MAX_DECIMALS:
            raise ValueError(f"decimals run from 0 to {MAX_DECIMALS}, not {self.decimals}")
        if abs(self.at_least) > MAX_AT_LEAST:
            raise ValueError(
                f"at_least must be within ±{MAX_AT_LEAST} (beyond it the chance is 0 or 1 "
                "to a hundred digits)"
            )

    @property
    def _roll_readings(self) -> tuple[Reading, ...]:
        """The readings of the roll itself; the decimal d10s come after them."""
        return self.readings[: len(self.readings) - len(self._decimal_readings())]

    def _decimal_readings(self) -> tuple[Reading, ...]:
        if not self.decimals:
            return ()
        base = replace(self, readings=(), decimals=0)
        for i in range(len(self.readings) + 1):
            if replace(base, readings=self.readings[:i]).need() is None:
                return self.readings[i:]
        return ()

    # --- reading the sequence ---------------------------------------------------------------
    def _stop_rolls(self) -> tuple[list[int], list[int], bool]:
        """(positive faces, negative faces, whether the positive roll has stopped)."""
        stops = d5.stop_faces(self.die)
        positive: list[int] = []
        negative: list[int] = []
        stopped = False
        for r in self.readings:
            (negative if stopped else positive).append(r.face)
            if not stopped and r.face in stops:
                stopped = True
        return positive, negative, stopped

    def _table_complete(self) -> bool:
        faces = [r.face for r in self.readings]
        reader = d5_tables.read_table1 if self.single else d5_tables.read_table2
        try:
            reader(faces)
        except ValueError:
            return False
        return True

    def need(self) -> Need | None:
        if self.decimals:
            extra = self._decimal_readings()
            if len(extra) or replace(self, decimals=0).need() is None:
                left = self.decimals - len(extra)
                return Need("d10", left, "for the decimals") if left > 0 else None
            return replace(self, decimals=0).need()
        if self.die == "d100":
            if self._table_complete():
                return None
            table = "Table 1" if self.single or self.readings else "Table 2"
            return Need("d100", 1, f"on {table}" + (" again" if self.readings else ""))
        stops = " or ".join(str(f) for f in sorted(d5.stop_faces(self.die)))
        positive, negative, stopped = self._stop_rolls()
        if not stopped:
            which = "the positive roll" if not self.single else "the roll"
            again = " again" if positive else ""
            return Need(self.die, 1, f"{again} for {which}, until a {stops} shows".lstrip())
        if self.single or (negative and negative[-1] in d5.stop_faces(self.die)):
            return None
        again = " again" if negative else ""
        return Need(self.die, 1, f"{again} for the negative roll, until a {stops} shows".lstrip())

    # --- the chance and the result ----------------------------------------------------------
    def _rule(self, q: Fraction) -> d5.StopCount | d5.NetResult:
        return d5.StopCount(q) if self.single else d5.NetResult(q)

    def chance(self) -> tuple[float, Fraction | None]:
        if self.die == "d100":
            tail = d5_tables.table1_p_at_least if self.single else d5_tables.table2_p_at_least
            p = tail(self.at_least)
            return float(p), p
        p = self._rule(d5.continue_chance(self.die)).p_at_least(self.at_least)
        return float(p), p

    def value(self) -> int:
        if self.decimals:
            return replace(self, readings=self._roll_readings, decimals=0).value()
        if self.die == "d100":
            faces = [r.face for r in self.readings]
            return d5_tables.read_table1(faces) if self.single else d5_tables.read_table2(faces)
        positive, negative, _ = self._stop_rolls()
        count = len(positive) - 1
        return count if self.single else count - (len(negative) - 1)

    def resolve(self) -> Resolution:
        whole = self.value()
        fine = d5.refine(whole, [r.face for r in self._decimal_readings()])
        value: int | Fraction = fine if self.decimals else whole
        p, exact = self.chance()
        success = whole >= self.at_least  # the decimals refine inside [whole, whole + 1)
        what = "roll" if self.single else "net result"
        notes: list[tuple[str, object]] = []
        if self.die == "d6":
            rule = self._rule(d5.RULE_CONTINUE).p_at_least(self.at_least)
            notes.append(("rule_probability", float(rule)))
        roll_only = (
            replace(self, readings=self._roll_readings, decimals=0) if self.decimals else self
        )
        if self.die == "d100":
            how = "d100 " + ", ".join(str(r.face) for r in roll_only.readings)
        else:
            positive, negative, _ = roll_only._stop_rolls()
            how = f"positive {len(positive) - 1}"
            how += "" if self.single else f", negative {len(negative) - 1}"
        return Resolution(
            system=self.system,
            value=value,
            success=success,
            degree=whole - self.at_least,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=(
                f"{how}: {what} {_signed(value)} against {self.at_least:+d} needed, "
                f"{'success' if success else 'failure'}"
                + (" (d6s approximate the d5 rule)" if self.die == "d6" else "")
            ),
            details=tuple(notes),
        )


def _signed(value: int | Fraction) -> str:
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{float(value):+g}"
    return f"{int(value):+d}"
