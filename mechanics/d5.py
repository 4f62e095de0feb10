"""The d5 stop-die system: roll until a stop face, count the dice that did not stop.

One roll (positive or negative) keeps going with chance q (4/5 on a d5 stopping
on 1, or a d10 stopping on 1 and 2): P(count = k) = (1 − q) q^k and
P(count ≥ k) = q^k.  The net result, positive minus negative, has
P(net = k) = (1 − q)/(1 + q) · q^|k|, which is (4/5)^|k| / 9 for q = 4/5.
Both have infinite support, so they are closed forms answering any k exactly;
``truncated`` gives a finite :class:`Distribution` with its exact outside mass.

The d100 tables, Tables 3 and 4 and the pragmatics live in
:mod:`mechanics.d5_tables`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechanics.distribution import Distribution

RULE_CONTINUE = Fraction(4, 5)


def continue_chance(die: str) -> Fraction:
    """The chance that one die of this kind does not stop.

    d5: stops on 1; d10: stops on 1 and 2 (the same 4/5 exactly); d6: stops on 1
    (5/6, the seed's "marginal error": an approximation, not the rule).
    """
    chances = {"d5": Fraction(4, 5), "d10": Fraction(8, 10), "d6": Fraction(5, 6)}
    try:
        return chances[die]
    except KeyError:
        raise ValueError(f"stop dice are d5, d10 or d6, not {die!r}") from None


def stop_faces(die: str) -> frozenset[int]:
    """Faces that end a roll (a d10's 0 face, printed 10, is not a stop)."""
    faces = {"d5": frozenset({1}), "d10": frozenset({1, 2}), "d6": frozenset({1})}
    if die not in faces:
        raise ValueError(f"stop dice are d5, d10 or d6, not {die!r}")
    return faces[die]


def count_rolls(faces: Sequence[int], die: str = "d5") -> int:
    """Read one roll from thrown faces: the dice before the stop face.

    The sequence must end with its only stop face; anything else is refused.
    """
    stops = stop_faces(die)
    if not faces or faces[-1] not in stops:
        raise ValueError(f"a roll ends with a stop face {sorted(stops)}; this one has none")
    if any(f in stops for f in faces[:-1]):
        raise ValueError("the roll stopped before its last die; faces after it do not count")
    return len(faces) - 1


@dataclass(frozen=True, slots=True)
class StopCount:
    """One positive (or negative) roll: the count of dice before the stop."""

    q: Fraction = RULE_CONTINUE

    def __post_init__(self) -> None:
        if not 0 < self.q < 1:
            raise ValueError(f"a continue chance must be between 0 and 1, not {self.q}")

    def pmf(self, k: int) -> Fraction:
        return (1 - self.q) * self.q**k if k >= 0 else Fraction(0)

    def p_at_least(self, k: int) -> Fraction:
        return self.q ** max(k, 0)

    def mean(self) -> Fraction:
        return self.q / (1 - self.q)

    def support_for(self, tail: float) -> int:
        """The smallest K with P(count > K) = q^(K+1) below ``tail``."""
        return _smallest(lambda k: self.p_at_least(k + 1) < tail, _log_guess(self.q, tail))

    def truncated(self, tail: float) -> tuple[Distribution, Fraction]:
        """Counts 0..K (conditioned on ≤ K) and the exact mass left outside (< tail)."""
        top = self.support_for(tail)
        num, den = self.q.numerator, self.q.denominator
        # P(k) = (den − num) num^k / den^(k+1); over den^(top+1): (den − num) num^k den^(top−k)
        weights = tuple((den - num) * num**k * den ** (top - k) for k in range(top + 1))
        return Distribution(0, weights), self.p_at_least(top + 1)


@dataclass(frozen=True, slots=True)
class NetResult:
    """Positive minus negative roll, both with continue chance ``q``."""

    q: Fraction = RULE_CONTINUE

    def __post_init__(self) -> None:
        StopCount(self.q)  # validates q

    @property
    def _c(self) -> Fraction:
        return (1 - self.q) / (1 + self.q)

    def pmf(self, k: int) -> Fraction:
        return self._c * self.q ** abs(k)

    def p_at_least(self, k: int) -> Fraction:
        if k >= 1:
            return self._c * self.q**k / (1 - self.q)
        return 1 - self._c * self.q ** (1 - k) / (1 - self.q)

    def p_greater(self, k: int) -> Fraction:
        return self.p_at_least(k + 1)

    def p_refined_at_least(self, y: Fraction | int) -> Fraction:
        """P(net + U ≥ y), U uniform in [0, 1): the result refined by endless decimal d10s.

        Exact for any rational y, and equal to ``p_at_least(y)`` at whole y.
        """
        top = _ceil(Fraction(y))
        return self.p_at_least(top) + (top - Fraction(y)) * self.pmf(top - 1)

    def refined_level(self, p: Fraction) -> Fraction:
        """The exact y with P(net + U ≥ y) = p (the inverse of ``p_refined_at_least``)."""
        if not 0 < p < 1:
            raise ValueError(f"a level exists for chances strictly between 0 and 1, not {p}")
        # the whole n with P(net ≥ n + 1) < p ≤ P(net ≥ n): a float guess, then exact steps
        n = _net_level_guess(self.q, p)
        while self.p_at_least(n) < p:
            n -= 1
        while self.p_at_least(n + 1) >= p:
            n += 1
        return n + 1 - (p - self.p_at_least(n + 1)) / self.pmf(n)

    def support_for(self, tail: float) -> int:
        """The smallest K with P(|net| > K) below ``tail``."""
        return _smallest(lambda k: 2 * self.p_at_least(k + 1) < tail, _log_guess(self.q, tail))

    def truncated(self, tail: float) -> tuple[Distribution, Fraction]:
        """Net results −K..K (conditioned on |net| ≤ K) and the exact outside mass."""
        top = self.support_for(tail)
        num, den = self.q.numerator, self.q.denominator
        half = [num**j * den ** (top - j) for j in range(top + 1)]
        weights = (*half[:0:-1], *half)
        return Distribution(-top, weights), 2 * self.p_at_least(top + 1)

    def total_variation(self, other: NetResult, tail: float = 1e-18) -> float:
        """½ Σ |P(k) − P'(k)|, summed until both tails are below ``tail``."""
        top = max(self.support_for(tail), other.support_for(tail))
        diff = sum(abs(self.pmf(k) - other.pmf(k)) for k in range(-top, top + 1))
        return float(diff) / 2


def refine(net: int, digits: Sequence[int]) -> Fraction:
    """A finer result from extra d10s: their faces are the decimals after the point.

    The seed's "+7 ... a roll of 3 and 5 ... gives +7.35": the digits place the
    result uniformly inside [net, net + 1), so finer results never reorder
    coarser ones.  A d10 face read as 10 is the digit 0.
    """
    value = Fraction(net)
    for place, digit in enumerate(digits, start=1):
        d = 0 if digit == 10 else digit
        if not 0 <= d <= 9:
            raise ValueError(f"a d10 shows 0–9 (or 10 for 0), not {digit}")
        value += Fraction(d, 10**place)
    return value


@dataclass(frozen=True, slots=True)
class ControlledRoll:
    """Abort and control: reduce the active roll by n, roll it n + 1 times, average.

    The seed: "the active roll can be repeated n times and the average of all
    (n+1) rolls is taken" (a broken ``</em`` tag there hides the end of the
    sentence from tag-stripping readers).  The active count becomes
    (C₁ + … + C_{n+1}) / (n + 1) − n, with the C's independent stop counts.
    Their sum is negative binomial:
    P(S = s) = C(s + n, n) (1 − q)^(n+1) q^s.
    """

    n: int
    q: Fraction = RULE_CONTINUE

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(f"a roll cannot be reduced by a negative amount ({self.n})")

    def p_sum(self, s: int) -> Fraction:
        if s < 0:
            return Fraction(0)
        return math.comb(s + self.n, self.n) * (1 - self.q) ** (self.n + 1) * self.q**s

    def p_at_least(self, value: Fraction | int) -> Fraction:
        """P(average − n ≥ value), exactly (a finite sum below the threshold)."""
        threshold = (Fraction(value) + self.n) * (self.n + 1)  # on the sum S
        below = sum((self.p_sum(s) for s in range(0, _ceil(threshold))), Fraction(0))
        return 1 - below

    def pmf(self, value: Fraction | int) -> Fraction:
        """P(average − n = value): nonzero only where (value + n)(n + 1) is a whole sum."""
        total = (Fraction(value) + self.n) * (self.n + 1)
        return self.p_sum(total.numerator) if total.denominator == 1 else Fraction(0)

    def mean(self) -> Fraction:
        return self.q / (1 - self.q) - self.n

    def variance(self) -> Fraction:
        """One count's variance q/(1 − q)² shared by n + 1 rolls: the spread it buys down."""
        return self.q / (1 - self.q) ** 2 / (self.n + 1)


def _log_guess(q: Fraction, tail: float) -> int:
    """Where q^k falls below ``tail``: a float estimate, checked exactly by the caller."""
    if not 0 < tail < 1:
        raise ValueError(f"a tail must be between 0 and 1, not {tail}")
    return max(0, int(math.log(tail) / math.log(q)) - 1)


def _net_level_guess(q: Fraction, p: Fraction) -> int:
    """Roughly where P(net ≥ n) = p: (1/(1 + q)) q^n above 0, mirrored below."""
    lq = _log(q)
    if p <= 1 / (1 + q):
        return int((_log(p) + _log(1 + q)) / lq)
    return 1 - int((_log(1 - p) + _log(1 + q)) / lq)


def _log(x: Fraction) -> float:
    """log of a positive Fraction whose float would underflow."""
    return math.log(x.numerator) - math.log(x.denominator)


def _smallest(ok: Callable[[int], bool], guess: int) -> int:
    """The smallest k ≥ 0 with ok(k), for ok monotone, starting the search at guess."""
    k = guess
    while k > 0 and ok(k - 1):
        k -= 1
    while not ok(k):
        k += 1
    return k


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)
