"""dφ with physical dice: each die is a digit of u, and the roll is σΦ⁻¹(u) + μ.

Three modes:

* ``adaptive`` (default): one digit at a time until the whole interval of
  possible rolls lies on one side of the target; 1.11 d10s on average, and the
  chance of success is exactly the dφ chance.
* ``value``: digits until the roll itself is known to ``precision`` (in dφ
  units) and its side is decided — for degree of success, secret and split rolls.
* ``table``: the classic d100 table, z = Φ⁻¹((k − 0.5)/100); its chance is the
  share of the 100 rows that succeed, close to but not exactly the dφ chance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from mechanics import digits
from mechanics.check import DiceCheck, Resolution
from mechanics.dphi import BASE_SWING, SPLIT_HOPS, Roll, hops_to_factor
from mechanics.reading import Need, Reading, ReadingRefused

Mode = Literal["adaptive", "value", "table"]


MAX_HOPS = 1000  # far past any table's use; the arithmetic overflows near 10⁹

# What a one-roll check takes and PC against PC (a split check) does not: each with the
# value that changes nothing (taken and dropped) and why any other is refused.  `resolve
# dphi --versus`, `odds dphi --versus` and POST /api/checks refuse the same.
SPLIT_REFUSED: Mapping[str, tuple[object, str]] = MappingProxyType(
    {
        "static": (
            False,
            "a static challenge does not roll, and PC against PC is two characters rolling",
        ),
        "critical": (
            0,
            'the seed: the critical boost "is at odds with other mechanics in dφ, such as '
            'splitting dice rolls"',
        ),
        "beat": (0, "the higher roll wins: there is no other target to beat"),
        "mode": ("adaptive", "each PC's dice are read until the two rolls are apart"),
        "precision": (0.01, "each PC's dice are read until the two rolls are apart"),
    }
)


def refuse_for_split(params: Mapping[str, object]) -> None:
    """ValueError naming the first of ``params`` that PC against PC cannot take."""
    for name, value in params.items():
        if name in SPLIT_REFUSED and value is not None and value != SPLIT_REFUSED[name][0]:
            why = SPLIT_REFUSED[name][1]
            raise ValueError(f"{name} {value!r} does not apply to PC against PC (versus): {why}")


@dataclass(frozen=True, kw_only=True)
class DphiCheck(DiceCheck):
    """σdφ + μ > ``beat`` from physical dice used as digits (``die``: d10, d20, d6, d100)."""

    might: float
    swing: float = BASE_SWING
    hops: float = 0.0
    static: bool = False
    critical: float = 0.0
    beat: float = 0.0
    mode: Mode = "adaptive"
    die: str = "d10"
    precision: float = 0.01
    system: str = field(default="dphi", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in ("adaptive", "value", "table"):
            raise ValueError(f"unknown mode {self.mode!r}: adaptive, value or table")
        if self.mode == "table" and self.die not in ("d100", "d10"):
            raise ValueError("table mode reads a d100, or two d10s (tens, then units)")
        digits.digit_base(self.die)
        if self.precision <= 0:
            raise ValueError("the precision must be positive")
        if not abs(self.hops) <= MAX_HOPS:
            raise ValueError(f"hops must be within ±{MAX_HOPS}, not {self.hops}")
        self.threshold  # noqa: B018 (validates the roll and the critical boost)

    @property
    def roll(self) -> Roll:
        return Roll(self.swing, self.might).with_hops(
            self.hops + (SPLIT_HOPS if self.static else 0)
        )

    @property
    def threshold(self) -> Fraction:
        r = self.roll
        return digits.success_threshold(r.might, r.swing, self.critical, self.beat)

    @property
    def base(self) -> int:
        return digits.digit_base(self.die)

    def interval(self) -> digits.UniformInterval:
        return digits.interval_of(
            [digits.face_to_digit(r.die, r.face) for r in self.readings], self.base
        )

    def validate_face(self, reading: Reading) -> None:
        try:
            digits.face_to_digit(reading.die, reading.face)
        except ValueError as err:
            raise ReadingRefused(str(err)) from None

    # --- what it needs ----------------------------------------------------------------------
    def need(self) -> Need | None:
        if self.mode == "table":
            wanted = 1 if self.die == "d100" else 2
            left = wanted - len(self.readings)
            return Need(self.die, left, "for the dφ table") if left > 0 else None
        interval = self.interval()
        side = interval.side_of(self.threshold)
        if self.mode == "value":  # to the precision, or u to 10⁻¹⁶ (a leading run of 9s or 0s)
            if side is not None and interval.value_known(self.precision):
                return None
            return Need(self.die, 1, "for the next digit" if self.readings else "")
        if side is not None:
            return None
        return Need(self.die, 1, "for the next digit" if self.readings else "")

    # --- the chance and the result ----------------------------------------------------------
    def chance(self) -> tuple[float, Fraction | None]:
        if self.mode == "table":
            p = Fraction(sum(self._table_succeeds(k) for k in range(1, 101)), 100)
            return float(p), p
        return float(1 - self.threshold), None

    def _table_d100(self) -> int:
        if self.die == "d100":
            return self.readings[0].face
        tens, units = (digits.face_to_digit("d10", r.face) for r in self.readings)
        return 10 * tens + units or 100

    def _table_succeeds(self, k: int) -> bool:
        c = self.critical
        if c and (k - 0.5) / 100 < c:
            return False
        if c and (k - 0.5) / 100 > 1 - c:
            return True
        return self.roll.value_at((k - 0.5) / 100) > self.beat

    def resolve(self) -> Resolution:
        r = self.roll
        p, exact = self.chance()
        shown = ", ".join(str(x.face) for x in self.readings)
        if self.mode == "table":
            k = self._table_d100()
            value = r.might + r.swing * digits.table_z(k)
            success = self._table_succeeds(k)
            how = f"d100 {k} reads z = {digits.table_z(k):+.3f}"
            details: tuple[tuple[str, object], ...] = (("d100", k),)
        else:
            interval = self.interval()
            low, high = interval.z_bounds()
            success = bool(interval.side_of(self.threshold))
            value = r.might + r.swing * interval.z_midpoint  # exact in the tails
            low_text, high_text = _decimals(interval.lo, interval.hi)
            how = f"{self.die}s {shown} put u in [{low_text}, {high_text})"
            details = (
                ("u_low", float(interval.lo)),
                ("u_high", float(interval.hi)),
                ("roll_low", r.might + r.swing * low if math.isfinite(low) else None),
                ("roll_high", r.might + r.swing * high if math.isfinite(high) else None),
                ("digits", len(self.readings)),
            )
        target = f"above {self.beat:g}" if self.beat else "positive"
        roll_text = f"{r.swing:.4g}dφ {'-' if r.might < 0 else '+'} {abs(r.might):g}"
        about = "" if self.mode != "adaptive" else "about "
        explanation = (
            f"{roll_text} rolled {about}{value:+.2f}: {how}; "
            f"{'success' if success else 'failure'} ({target} needed, chance {100 * p:.1f}%)"
        )
        return Resolution(
            system="dphi",
            value=value,
            success=success,
            degree=(value - self.beat) / r.swing if r.swing else None,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=explanation,
            details=(("mode", self.mode), *details),
        )


@dataclass(frozen=True, kw_only=True)
class DphiSplitCheck(DiceCheck):
    """PC against PC, both rolling at −10ℏ: the higher roll wins.

    Each PC's dice are digits of their own u.  The check asks for a digit from
    whichever roll is less known (the wider interval of values) until the two
    intervals no longer overlap; the readings' order records whose each one was,
    so replaying them rebuilds the same check.  The first PC's chance is
    Φ((μ₁ − μ₂)/σ), the same as one unsplit roll.

    As in value mode, a u is read to ``digits.VALUE_RESOLUTION`` and no further: two
    leading runs of 9s (or of 0s) overlap however many digits are read.  Once both
    are read that far, or at a zero swing (where dice change nothing), the values
    read (Φ⁻¹ of the middle of each u's interval) decide, and equal values are a tie.
    """

    first: float
    second: float
    swing: float = BASE_SWING
    hops: float = 0.0
    die: str = "d10"
    system: str = field(default="dphi", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        digits.digit_base(self.die)
        if not abs(self.hops) <= MAX_HOPS:  # as DphiCheck (NaN too)
            hops_to_factor(self.hops)  # past ±20,000ℏ its words as before: "beyond any swing"
            raise ValueError(f"hops must be within ±{MAX_HOPS}, not {self.hops}")
        if not (math.isfinite(self.first) and math.isfinite(self.second)):
            raise ValueError(f"the mights must be finite numbers, not {self.first}, {self.second}")
        self.each  # noqa: B018 (validates the swing)
        self.chance()  # validates the unsplit roll (μ₁ − μ₂ may overflow)

    @property
    def each(self) -> Roll:
        return Roll(self.swing).with_hops(self.hops + SPLIT_HOPS)

    def _intervals(self) -> tuple[digits.UniformInterval, digits.UniformInterval]:
        a, b = digits.UniformInterval(), digits.UniformInterval()
        base = digits.digit_base(self.die)
        for r in self.readings:
            d = digits.face_to_digit(r.die, r.face)
            if self._next_is_first(a, b):
                a = a.push(d, base)
            else:
                b = b.push(d, base)
        return a, b

    def _values(self, u: digits.UniformInterval, might: float) -> tuple[float, float]:
        low, high = u.z_bounds()
        return might + self.each.swing * low, might + self.each.swing * high

    def _next_is_first(self, a: digits.UniformInterval, b: digits.UniformInterval) -> bool:
        if _read_out(a) or _read_out(b):  # a roll read to the limit is asked no more
            return _read_out(b)
        a_lo, a_hi = self._values(a, self.first)
        b_lo, b_hi = self._values(b, self.second)
        if math.isinf(a_hi - a_lo) or math.isinf(b_hi - b_lo):
            return a.width >= b.width  # both start unbounded: alternate by digits read
        return a_hi - a_lo >= b_hi - b_lo

    def validate_face(self, reading: Reading) -> None:
        try:
            digits.face_to_digit(reading.die, reading.face)
        except ValueError as err:
            raise ReadingRefused(str(err)) from None

    def _winner(self, a: digits.UniformInterval, b: digits.UniformInterval) -> bool | None:
        """Who wins on the intervals of values alone; None while they overlap."""
        a_lo, a_hi = self._values(a, self.first)
        b_lo, b_hi = self._values(b, self.second)
        if a_lo >= b_hi:
            return True
        if a_hi <= b_lo:
            return False
        return None  # also at a zero swing, where the values are 0·∞ (NaN)

    def _settled(self, a: digits.UniformInterval, b: digits.UniformInterval) -> bool:
        """Nothing more to read (the values read decide where the intervals overlap)."""
        apart = self._winner(a, b) is not None
        return apart or (_read_out(a) and _read_out(b)) or self.each.swing == 0

    def need(self) -> Need | None:
        a, b = self._intervals()
        if self._settled(a, b):
            return None
        who = "first" if self._next_is_first(a, b) else "second"
        return Need(self.die, 1, f"for the {who} PC's roll")

    def chance(self) -> tuple[float, Fraction | None]:
        """The first PC's chance of the higher roll.  At a zero swing no die is read and
        the mights decide: 1 or 0, and 0 for equal mights, which tie (not ½, which is a
        one-roll check's limit as its swing shrinks)."""
        if self.each.swing == 0:
            won = Fraction(int(self.first > self.second))
            return float(won), won
        whole = Roll(self.swing, self.first - self.second).with_hops(self.hops)
        return whole.p_success(), None

    def resolve(self) -> Resolution:
        a, b = self._intervals()
        first = self.first + self.each.swing * a.z_midpoint
        second = self.second + self.each.swing * b.z_midpoint
        won = self._winner(a, b)
        limit = won is None and self.each.swing != 0  # what stopped the reading
        how = ""
        if won is None:  # both read to the limit, or a zero swing: the values read decide
            won = None if first == second else first > second
            how = (
                f"both u read to 10⁻¹⁶ ({len(self.readings) // 2} {self.die}s each), "
                if limit
                else "a zero swing compares the mights, "
            ) + ("and the values are equal: " if won is None else "the higher value wins: ")
        verdict = "a tie" if won is None else f"the {'first' if won else 'second'} PC wins"
        p, exact = self.chance()
        s = self.each.swing
        return Resolution(
            system="dphi",
            value=first,
            success=won,
            degree=(first - second) / s if s else None,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=(
                f"{s:.4g}dφ + {self.first:g} rolled about {first:+.2f} against "
                f"{s:.4g}dφ + {self.second:g} about {second:+.2f}: "
                f"{how}{verdict} (first's chance {100 * p:.1f}%)"
            ),
            details=(
                ("second_value", second),
                ("digits", len(self.readings)),
                ("read_to_limit", limit),
            ),
        )


def _read_out(u: digits.UniformInterval) -> bool:
    """u known to value mode's limit (16 d10s, 13 d20s, 21 d6s, 8 d100s): read no further."""
    return u.width <= digits.VALUE_RESOLUTION


def _decimals(lo: Fraction, hi: Fraction) -> tuple[str, str]:
    """``lo`` and ``hi`` written with as many decimals as tell them apart (six at least):
    sixteen 9s put u in [0.9999999999999999, 1), which six significant digits wrote as
    [1, 1).  ``lo`` is rounded down and ``hi`` up, so the interval written holds u."""
    width = hi - lo
    places = 6 if width <= 0 else min(40, max(6, math.ceil(-math.log10(width)) + 1))

    def written(x: Fraction, up: bool) -> str:
        scaled = x * 10**places
        whole = math.ceil(scaled) if up else math.floor(scaled)
        digits_ = str(abs(whole)).rjust(places + 1, "0")
        text = f"{'-' if whole < 0 else ''}{digits_[:-places]}.{digits_[-places:]}"
        return text.rstrip("0").rstrip(".")

    return written(lo, False), written(hi, True)
