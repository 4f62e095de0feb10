"""Exact finite distributions over integer outcomes.

A :class:`Distribution` is immutable.  It stores the outcomes as a dense run of
integers starting at ``low`` with one non-negative *integer* weight each; the
probability of an outcome is its weight over ``total``.  Integer weights keep
every operation exact (no Fraction arithmetic in the inner loops) and Python's
big integers never overflow, so a 200dF or a 60-die d20 pool stays exact.

Floats appear only in :meth:`Distribution.to_numpy`, the fast view for charts
and simulations.  Sampling takes an injected random generator and is exact:
it draws an integer below ``total`` and looks it up in the cumulative weights.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # numpy is only needed for the float view
    import numpy as np
    import numpy.typing as npt

Weight = int | Fraction


class IntSource(Protocol):
    """What sampling needs from a random generator: ``random.Random`` fits."""

    def randrange(self, stop: int, /) -> int: ...


def _normalise(weights: Sequence[Weight]) -> tuple[int, ...]:
    """Scale Fraction weights to integers (common denominator), then reduce by the gcd."""
    denominators = [w.denominator for w in weights if isinstance(w, Fraction)]
    scale = math.lcm(*denominators) if denominators else 1
    ints = [int(w * scale) if isinstance(w, Fraction) else int(w) * scale for w in weights]
    if any(w < 0 for w in ints):
        raise ValueError("weights must be non-negative")
    g = math.gcd(*ints)
    if g == 0:
        raise ValueError("a distribution needs at least one outcome with positive weight")
    return tuple(w // g for w in ints) if g > 1 else tuple(ints)


@dataclass(frozen=True, slots=True)
class Distribution:
    """Outcomes ``low, low+1, ...`` with integer ``weights``; P(x) = weight / total."""

    low: int
    weights: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.weights or self.weights[0] == 0 or self.weights[-1] == 0:
            raise ValueError("use Distribution.from_weights: weights must be trimmed")

    # ----------------------------------------------------------------- builders
    @staticmethod
    def from_dense(low: int, weights: Sequence[Weight]) -> Distribution:
        """Outcomes low..low+len-1 with the given (int or Fraction) weights."""
        ints = _normalise(weights)
        start = next(i for i, w in enumerate(ints) if w)
        stop = len(ints) - next(i for i, w in enumerate(reversed(ints)) if w)
        return Distribution(low + start, ints[start:stop])

    @staticmethod
    def from_weights(mapping: Mapping[int, Weight]) -> Distribution:
        """From ``{outcome: weight}``; missing outcomes in between have weight 0."""
        if not mapping:
            raise ValueError("a distribution needs at least one outcome")
        lo, hi = min(mapping), max(mapping)
        dense: list[Weight] = [0] * (hi - lo + 1)
        for outcome, w in mapping.items():
            dense[outcome - lo] += w
        return Distribution.from_dense(lo, dense)

    @staticmethod
    def from_outcomes(outcomes: Iterable[int]) -> Distribution:
        """Each listed outcome counts once (faces of a die, enumerated cases)."""
        counts: dict[int, int] = {}
        for x in outcomes:
            counts[x] = counts.get(x, 0) + 1
        return Distribution.from_weights(counts)

    @staticmethod
    def point(value: int) -> Distribution:
        return Distribution(value, (1,))

    @staticmethod
    def uniform(low: int, high: int) -> Distribution:
        """A fair die with faces low..high."""
        if high < low:
            raise ValueError(f"empty range {low}..{high}")
        return Distribution(low, (1,) * (high - low + 1))

    # ------------------------------------------------------------ basic queries
    @property
    def high(self) -> int:
        return self.low + len(self.weights) - 1

    @property
    def total(self) -> int:
        return sum(self.weights)

    @property
    def support(self) -> list[int]:
        return [self.low + i for i, w in enumerate(self.weights) if w]

    def items(self) -> Iterable[tuple[int, int]]:
        """(outcome, weight) for outcomes of positive weight."""
        return ((self.low + i, w) for i, w in enumerate(self.weights) if w)

    def weight(self, outcome: int) -> int:
        i = outcome - self.low
        return self.weights[i] if 0 <= i < len(self.weights) else 0

    def probability(self, outcome: int) -> Fraction:
        return Fraction(self.weight(outcome), self.total)

    def pmf(self) -> dict[int, Fraction]:
        total = self.total
        return {x: Fraction(w, total) for x, w in self.items()}

    def p_at_least(self, k: int) -> Fraction:
        i = max(0, k - self.low)
        return Fraction(sum(self.weights[i:]), self.total)

    def p_at_most(self, k: int) -> Fraction:
        i = k - self.low + 1
        return Fraction(sum(self.weights[: max(0, i)]), self.total)

    def p_greater(self, k: int) -> Fraction:
        return self.p_at_least(k + 1)

    def p_less(self, k: int) -> Fraction:
        return self.p_at_most(k - 1)

    def p_where(self, predicate: Callable[[int], bool]) -> Fraction:
        return Fraction(sum(w for x, w in self.items() if predicate(x)), self.total)

    def mean(self) -> Fraction:
        return Fraction(sum(x * w for x, w in self.items()), self.total)

    def variance(self) -> Fraction:
        m = self.mean()
        return Fraction(sum((x - m) ** 2 * w for x, w in self.items()), self.total)

    def tail_weights(self) -> list[int]:
        """Suffix sums: element i is the weight of outcomes >= low + i."""
        return list(itertools.accumulate(reversed(self.weights)))[::-1]

    # -------------------------------------------------------------- transforms
    def shift(self, k: int) -> Distribution:
        return Distribution(self.low + k, self.weights)

    def map(self, f: Callable[[int], int]) -> Distribution:
        counts: dict[int, int] = {}
        for x, w in self.items():
            y = f(x)
            counts[y] = counts.get(y, 0) + w
        return Distribution.from_weights(counts)

    def clamp(self, lo: int | None = None, hi: int | None = None) -> Distribution:
        """Outcomes below ``lo`` become ``lo``; above ``hi`` become ``hi``."""
        if lo is not None and hi is not None and hi < lo:
            raise ValueError(f"clamp bounds reversed: {lo} > {hi}")
        low, weights = self.low, list(self.weights)
        if hi is not None and self.high > hi:
            if hi < low:
                return Distribution.point(hi)
            cut = hi - low
            weights = [*weights[:cut], sum(weights[cut:])]
        if lo is not None and low < lo:
            if lo > low + len(weights) - 1:
                return Distribution.point(lo)
            cut = lo - low
            weights = [sum(weights[: cut + 1]), *weights[cut + 1 :]]
            low = lo
        return Distribution.from_dense(low, weights)

    def condition(self, predicate: Callable[[int], bool]) -> Distribution:
        """The distribution given that ``predicate`` holds (rerolls until it does)."""
        kept = {x: w for x, w in self.items() if predicate(x)}
        if not kept:
            raise ValueError("conditioning on an impossible event")
        return Distribution.from_weights(kept)

    def __neg__(self) -> Distribution:
        return Distribution(-self.high, self.weights[::-1])

    def __add__(self, other: Distribution | int) -> Distribution:
        if isinstance(other, int):
            return self.shift(other)
        return Distribution(self.low + other.low, _convolve(self.weights, other.weights))

    __radd__ = __add__

    def __sub__(self, other: Distribution | int) -> Distribution:
        return self + (-other)

    def repeat_sum(self, n: int) -> Distribution:
        """The sum of ``n`` independent copies (exponentiation by squaring)."""
        if n < 0:
            raise ValueError("cannot add a negative number of copies")
        result = Distribution.point(0)
        base = self
        while n:
            if n & 1:
                result = result + base
            n >>= 1
            if n:
                base = base + base
        return result

    def max_with(self, other: Distribution) -> Distribution:
        return self._combine_order(other, take_max=True)

    def min_with(self, other: Distribution) -> Distribution:
        return self._combine_order(other, take_max=False)

    def _combine_order(self, other: Distribution, take_max: bool) -> Distribution:
        # P(max <= x) = F1(x) F2(x); work on integer cumulative weights.
        lo = min(self.low, other.low)
        hi = max(self.high, other.high)
        c1 = _cumulative(self, lo, hi)
        c2 = _cumulative(other, lo, hi)
        t1, t2 = self.total, other.total
        if take_max:
            cdf = [a * b for a, b in zip(c1, c2, strict=True)]
        else:  # P(min <= x) = 1 - (1 - F1)(1 - F2)
            cdf = [t1 * t2 - (t1 - a) * (t2 - b) for a, b in zip(c1, c2, strict=True)]
        dense = [cdf[0]] + [cdf[i] - cdf[i - 1] for i in range(1, len(cdf))]
        return Distribution.from_dense(lo, dense)

    def compare(self, other: Distribution) -> tuple[Fraction, Fraction, Fraction]:
        """(P(self > other), P(self == other), P(self < other)) for independent rolls."""
        diff = self - other
        return diff.p_greater(0), diff.probability(0), diff.p_less(0)

    # ----------------------------------------------------------------- outputs
    def to_numpy(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Outcomes and float probabilities (the fast, inexact view)."""
        import numpy as np

        total = self.total
        outcomes = np.arange(self.low, self.high + 1, dtype=np.int64)
        probs = np.array([w / total for w in self.weights], dtype=np.float64)
        return outcomes, probs

    def sample(self, rng: IntSource) -> int:
        """One exact draw: an integer below ``total`` located in the cumulative weights."""
        r = rng.randrange(self.total)
        cumulative = list(itertools.accumulate(self.weights))
        return self.low + bisect.bisect_right(cumulative, r)

    def sample_many(self, rng: IntSource, n: int) -> list[int]:
        cumulative = list(itertools.accumulate(self.weights))
        total = cumulative[-1]
        return [self.low + bisect.bisect_right(cumulative, rng.randrange(total)) for _ in range(n)]

    def __repr__(self) -> str:
        shown = ", ".join(f"{x}: {w}" for x, w in itertools.islice(self.items(), 8))
        more = ", ..." if len(self.weights) > 8 else ""
        return f"Distribution({{{shown}{more}}} / {self.total})"


def _cumulative(d: Distribution, lo: int, hi: int) -> list[int]:
    """Integer CDF weights of ``d`` on lo..hi."""
    out: list[int] = []
    running = 0
    for x in range(lo, hi + 1):
        running += d.weight(x)
        out.append(running)
    return out


def _convolve(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Exact polynomial product of two non-negative integer weight sequences."""
    if min(len(a), len(b)) <= 8:
        if len(a) < len(b):
            a, b = b, a
        out = [0] * (len(a) + len(b) - 1)
        for j, wb in enumerate(b):
            if wb:
                for i, wa in enumerate(a):
                    out[i + j] += wa * wb
        return tuple(out)
    # Kronecker substitution: pack each sequence into one big integer with slots wide
    # enough that no product coefficient overflows its slot, multiply once (CPython's
    # Karatsuba), unpack.  Far faster than the double loop for long sequences.
    bound = max(a) * max(b) * min(len(a), len(b))
    width = (bound.bit_length() + 8) // 8
    pa = int.from_bytes(b"".join(w.to_bytes(width, "little") for w in a), "little")
    pb = int.from_bytes(b"".join(w.to_bytes(width, "little") for w in b), "little")
    n = len(a) + len(b) - 1
    raw = (pa * pb).to_bytes(n * width, "little")
    return tuple(int.from_bytes(raw[i * width : (i + 1) * width], "little") for i in range(n))
