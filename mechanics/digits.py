"""Ordinary dice as digits of a uniform number: how physical dice roll a dφ.

A fair die with n faces is one base-n digit of a uniform number u in (0, 1).
After k digits, u is known to lie in an interval [lo, hi) of width n^−k, kept
here as exact Fractions.  The dφ value is Φ⁻¹(u), so it lies in
[Φ⁻¹(lo), Φ⁻¹(hi)); a check succeeds when σΦ⁻¹(u) + μ > 0, that is when u is
above the threshold t = Φ(−μ/σ).  Deciding on u rather than on Φ⁻¹ keeps the
decision exact: the chance of success is exactly 1 − t = Φ(μ/σ), whatever the
dice, and the check only needs another digit while t lies inside [lo, hi) —
which happens with chance n^−k after k digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechanics.dphi import Roll, phi, phi_inverse

# base and the digit a face stands for, per die that can serve as a digit
DIGIT_DICE = ("d10", "d20", "d6", "d100")
# Value mode reads u to at most this width: the seed's "16 or so decimal digits output by
# our dφ roller are more than enough for all practical purposes".  It is what ends a
# leading run of 9s or 0s, whose values reach to ±∞ however many digits are read.
VALUE_RESOLUTION = Fraction(1, 10**16)
# Below this tail Φ⁻¹ comes from the asymptotic series (floats end near 10⁻³⁰⁸).
_FLOAT_TAIL = Fraction(1, 10**300)


def z_of(u: Fraction) -> float:
    """Φ⁻¹(u) for an exact u in [0, 1]: −inf at 0, +inf at 1, never an error.

    The upper half is worked out from its tail 1 − u, kept exact, so a run of
    twenty 9s reads +9.26 where float(u) would have rounded to 1.0 (and Φ⁻¹ to an
    error); tails beyond the floats (a run of 400 digits) use the asymptotic series.
    """
    x = float(u)
    if 1e-300 <= x <= 0.99:  # the float is as good as u here (and quick)
        return phi_inverse(x)
    if u <= 0:
        return -math.inf
    if u >= 1:
        return math.inf
    return _lower_z(u) if x < 0.5 else -_lower_z(1 - u)


def _lower_z(q: Fraction) -> float:
    """Φ⁻¹(q) for 0 < q ≤ 1/2."""
    if q >= _FLOAT_TAIL:
        return phi_inverse(float(q))
    # log Φ(z) = −z²/2 − log(−z) − log(2π)/2 + log(1 − z⁻² + 3z⁻⁴ − 15z⁻⁶ + 105z⁻⁸ …):
    # for z < −37 the terms left out are below 10⁻¹⁴; Newton's method on it converges
    # in a few steps from the leading term.
    target = math.log(q.numerator) - math.log(q.denominator)
    z = -math.sqrt(-2.0 * target)
    for _ in range(100):
        w = 1.0 / (z * z)
        series = 1.0 - w + 3.0 * w * w - 15.0 * w**3 + 105.0 * w**4
        log_phi = -z * z / 2 - math.log(-z) - math.log(2 * math.pi) / 2 + math.log(series)
        step = (log_phi - target) / (-z - 1.0 / z)
        z -= step
        if abs(step) <= 1e-15 * abs(z):
            break
    return z


def digit_base(die: str) -> int:
    bases = {"d10": 10, "d20": 20, "d6": 6, "d100": 100}
    if die not in bases:
        raise ValueError(f"dice that give digits are {', '.join(DIGIT_DICE)}, not {die!r}")
    return bases[die]


def face_to_digit(die: str, face: int) -> int:
    """A face as a digit: a d10's 0–9 (a face marked 10 is 0), d20 1–20 → 0–19,
    d6 1–6 → 0–5, a d100 (two d10s) 1–100 → 0–99, ordered like the faces."""
    base = digit_base(die)
    # a d10's faces are already digits (10 printed for 0); other dice count from 1
    digit = face - 1 if die != "d10" else (0 if face == 10 else face)
    if not 0 <= digit < base:
        raise ValueError(f"a {die} has no face {face}")
    return digit


@dataclass(frozen=True, slots=True)
class UniformInterval:
    """Where u lies after the digits read so far: [lo, hi)."""

    lo: Fraction = Fraction(0)
    hi: Fraction = Fraction(1)

    def push(self, digit: int, base: int) -> UniformInterval:
        if not 0 <= digit < base:
            raise ValueError(f"digit {digit} is not a base-{base} digit")
        width = (self.hi - self.lo) / base
        lo = self.lo + digit * width
        return UniformInterval(lo, lo + width)

    @property
    def width(self) -> Fraction:
        return self.hi - self.lo

    @property
    def midpoint(self) -> Fraction:
        return (self.lo + self.hi) / 2

    @property
    def z_midpoint(self) -> float:
        """Φ⁻¹ of the middle of the interval: the dφ value these digits read."""
        return z_of(self.midpoint)

    def z_bounds(self) -> tuple[float, float]:
        """[Φ⁻¹(lo), Φ⁻¹(hi)): −inf and +inf at the ends of (0, 1); exact in the tails."""
        return z_of(self.lo), z_of(self.hi)

    def value_known(self, precision: float) -> bool:
        """Value mode's stopping rule, the side of the target apart: the values still
        possible span less than ``precision`` (dφ units), or u is known to
        VALUE_RESOLUTION (16 decimal digits), which ends a leading run of 9s or 0s."""
        low, high = self.z_bounds()
        return high - low < precision or self.width <= VALUE_RESOLUTION

    def side_of(self, threshold: Fraction) -> bool | None:
        """True if all of [lo, hi) is at or above the threshold, False if all below,
        None while the threshold is inside (another digit is needed)."""
        if self.lo >= threshold:
            return True
        if self.hi <= threshold:
            return False
        return None


def value_of_digits(digits: Sequence[int], base: int) -> float:
    """Φ⁻¹ of the middle of the digits' interval: the dφ value those digits read."""
    number = 0
    for d in digits:
        if not 0 <= d < base:
            raise ValueError(f"digit {d} is not a base-{base} digit")
        number = number * base + d
    scale = base ** len(digits)
    return z_of(Fraction(2 * number + 1, 2 * scale))


def interval_of(digits: Sequence[int], base: int) -> UniformInterval:
    interval = UniformInterval()
    for d in digits:
        interval = interval.push(d, base)
    return interval


def success_threshold(
    might: float, swing: float, critical: float = 0.0, beat: float = 0.0
) -> Fraction:
    """The u above which σΦ⁻¹(u) + μ > ``beat`` succeeds, as an exact Fraction.

    The float chance is turned into a Fraction exactly, taking whichever tail
    erfc gives accurately, so 1 − threshold is the check's chance to the last
    bit even for a 10⁻²⁰ long shot.  With a critical boost c, u < c always fails
    and u > 1 − c always succeeds: the threshold is clamped to [c, 1 − c], c taken
    as the decimal it was written as (:func:`critical_strip`).
    """
    if not 0.0 <= critical < 0.5:
        raise ValueError(f"a critical boost must be in [0, 0.5), not {critical}")
    roll = Roll(swing, might)
    success = roll.p_above(beat)
    if success <= 0.5:
        threshold = 1 - Fraction(success)
    else:  # the failure tail is the accurate one here
        threshold = Fraction(1 - roll.p_above(beat) if swing == 0 else phi((beat - might) / swing))
    c = critical_strip(critical)
    return min(max(threshold, c), 1 - c)


def critical_strip(critical: float) -> Fraction:
    """The width of a critical strip as the decimal written: 0.05 is 1/20 exactly.

    A boost is given in decimal (the seed: "a critical boost of 5% matches exactly
    the critical rolls on a d20"), while the float 0.05 is 0.05000000000000000277…:
    taken as that binary value, the strip's edge fell 2.8·10⁻¹⁸ inside d100 result
    06, so a d20's 2 or a d10's 0 then 5 asked for more dice, and the printed check
    table split row 06 where the d100 table reads it whole.  The shortest decimal
    that gives back the float (its repr) is the number that was written.
    """
    return Fraction(repr(float(critical)))


def expected_digits(threshold: Fraction, base: int = 10, depth: int = 60) -> Fraction:
    """Exact expected number of digits an adaptive check needs for this threshold.

    After k digits another is needed only if u shares its k-digit cell with the
    threshold: chance base^−k, unless the threshold sits exactly on a cell edge
    (then the check always stops there).  Summed to ``depth`` digits.
    """
    total = Fraction(0)
    for k in range(depth):
        cell = Fraction(base) ** k
        if k and (threshold * cell).denominator == 1:
            break
        total += 1 / cell
    return total


def table_z(d100: int) -> float:
    """The classic two-d10 table: a d100 result k (00 = 100) reads Φ⁻¹((k − 0.5)/100)."""
    if not 1 <= d100 <= 100:
        raise ValueError(f"a d100 reads 1–100 (00 is 100), not {d100}")
    return phi_inverse((d100 - 0.5) / 100)
