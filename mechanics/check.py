"""A check that asks for dice: the bridge between thrown dice and the engine.

A check is an immutable value.  It always knows what it needs next
(:meth:`DiceCheck.need`), takes readings with :meth:`DiceCheck.accept` — which
returns a *new* check and leaves the old one untouched, so a refused reading
can never lose an accepted one — and, once it has enough, offers a
:class:`Resolution`.  Each system's check lives in its own module and only
says what it needs and how it resolves; the bookkeeping is here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Self

from mechanics.reading import Need, Reading, ReadingRefused

Number = int | float | Fraction


@dataclass(frozen=True, slots=True)
class Resolution:
    """The result of a check, ready to be stored and sent.

    ``success`` is None for a tie.  ``probability`` is the chance of success the
    check had before any die was thrown (``exact`` when it is rational).
    """

    system: str
    value: Number
    success: bool | None
    degree: Number | None
    probability: float
    exact: Fraction | None
    readings: tuple[Reading, ...]
    explanation: str
    details: tuple[tuple[str, Any], ...] = ()

    @property
    def outcome(self) -> str:
        return "tie" if self.success is None else "success" if self.success else "failure"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: numbers as floats, exact values as "p/q" strings."""

        def plain(x: Any) -> Any:
            if isinstance(x, Fraction):
                return int(x) if x.denominator == 1 else float(x)
            return x

        return {
            "system": self.system,
            "outcome": self.outcome,
            "success": self.success,
            "value": plain(self.value),
            "degree": plain(self.degree),
            "probability": self.probability,
            "exact": None
            if self.exact is None
            else f"{self.exact.numerator}/{self.exact.denominator}",
            "readings": [
                {"die": r.die, "face": r.face, "confidence": r.confidence, "source": r.source}
                for r in self.readings
            ],
            "explanation": self.explanation,
            **{key: plain(value) for key, value in self.details},
        }


@dataclass(frozen=True, kw_only=True)
class DiceCheck:
    """Bookkeeping shared by every system's check.

    Subclasses define ``system``, :meth:`need` (None once resolved),
    :meth:`resolve` (called only when nothing is needed), :meth:`chance` and,
    where a die may stand in for another, :meth:`accepts_die`.
    """

    readings: tuple[Reading, ...] = ()
    min_confidence: float = 0.5
    system: str = field(default="", init=False)

    def __post_init__(self) -> None:
        """Checks what every check takes; each system's ``__post_init__`` calls it first.

        A reading's confidence lies in [0, 1] (1.0 for manual entry and the virtual
        source), so a ``min_confidence`` outside it, or NaN, would refuse every die.
        """
        m = self.min_confidence
        if (
            isinstance(m, bool)
            or not isinstance(m, int | float | Fraction)
            or not math.isfinite(m)
            or not 0 <= m <= 1
        ):
            raise ValueError(
                f"min_confidence must be a number from 0 to 1 (a reading's confidence lies "
                f"there, 1.0 for dice typed in), not {m!r}"
            )

    def need(self) -> Need | None:
        raise NotImplementedError

    def resolve(self) -> Resolution:
        raise NotImplementedError

    def chance(self) -> tuple[float, Fraction | None]:
        """The chance of success before the throw: (float, exact or None)."""
        raise NotImplementedError

    def accepts_die(self, needed: str, die: str) -> bool:
        return needed == die

    def validate_face(self, reading: Reading) -> None:
        """Refuse a face the check cannot use (the Reading already checked the die)."""

    @property
    def resolved(self) -> bool:
        return self.need() is None

    def resolution(self) -> Resolution | None:
        return self.resolve() if self.resolved else None

    def reached(
        self,
        value: int,
        target: int,
        explanation: str,
        details: tuple[tuple[str, Any], ...] = (),
    ) -> Resolution:
        """The resolution of a "value ≥ target" check, with its chance before the throw."""
        p, exact = self.chance()
        success = value >= target
        return Resolution(
            system=self.system,
            value=value,
            success=success,
            degree=value - target,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=f"{explanation}, {'success' if success else 'failure'}",
            details=details,
        )

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data, in the shape of `dicebridge resolve --json`."""
        need = self.need()
        if need is not None:
            p, exact = self.chance()
            return {
                "status": "need",
                "need": [{"die": need.die, "count": need.count}],
                "prompt": need.prompt,
                "probability": p,
                "exact": None if exact is None else f"{exact.numerator}/{exact.denominator}",
                "readings": len(self.readings),
            }
        return {"status": "resolved", **self.resolve().to_dict()}

    def accept(self, *readings: Reading) -> Self:
        """This check with the readings added, in order; all or nothing.

        A reading of the wrong die type, an impossible face, an uncertain
        reading, or more dice than the check needs is refused with a
        ReadingRefused that says why; the check it was offered to is unchanged.
        """
        check = self
        asked = self.need()  # the dice thrown together: they have no order among them
        for i, reading in enumerate(readings):
            need = check.need()
            if need is None and asked is not None and i < asked.count:
                # the check settled part way through one throw (a d6 pool at its cap): the
                # rest of that throw is taken as it came, as thrown in another order it
                # would have been, and changes nothing settled
                need = asked
            if need is None:
                extra = len(readings) - i
                raise ReadingRefused(
                    f"the check was already resolved; {extra} more "
                    f"{'die was' if extra == 1 else 'dice were'} not needed"
                )
            if not check.accepts_die(need.die, reading.die):
                raise ReadingRefused(f"this check needs a {need.die} now, not a {reading.die}")
            if reading.confidence < self.min_confidence:
                raise ReadingRefused(
                    f"the {reading.die} read as {reading.face} is uncertain "
                    f"(confidence {reading.confidence:.2f}): confirm it or throw it again"
                )
            check.validate_face(reading)
            check = replace(check, readings=(*check.readings, reading))
        return check
