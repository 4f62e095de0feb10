"""Decibel questions about two numbers from one roll: compound checks, secondary effects.

Both reduce to the joint distribution of a few order statistics of N d20s (the
values at given ranks from the bottom).  We sweep the faces 1..20 upwards with a
dynamic programme whose state is the number of dice placed so far and the values
already given to the tracked ranks; ``c`` of the remaining ``N − p`` dice showing
the current face contribute ``C(N − p, c)`` (the multinomial, built one face at a
time).  As soon as every tracked rank has its value the state is closed: the dice
still unplaced all show higher faces, ``(20 − f)^(N − p)`` ways.  Counts are
integers over 20^N, exact for any pool.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product

from mechanics.decibel import FACES, MIN_KEPT, SecondarySource, secondary_rank, validate
from mechanics.distribution import Distribution


@dataclass(frozen=True, slots=True)
class JointDistribution:
    """An exact joint distribution of two integers: ``(x, y, weight)`` rows over ``total``."""

    rows: tuple[tuple[int, int, int], ...]
    total: int

    @staticmethod
    def from_counts(counts: Iterable[tuple[tuple[int, int], int]]) -> JointDistribution:
        merged: dict[tuple[int, int], int] = {}
        for key, weight in counts:
            merged[key] = merged.get(key, 0) + weight
        rows = tuple((x, y, w) for (x, y), w in sorted(merged.items()) if w)
        return JointDistribution(rows, sum(w for _, _, w in rows))

    def probability(self, x: int, y: int) -> Fraction:
        return Fraction(sum(w for a, b, w in self.rows if (a, b) == (x, y)), self.total)

    def p_where(self, predicate: Callable[[int, int], bool]) -> Fraction:
        return Fraction(sum(w for x, y, w in self.rows if predicate(x, y)), self.total)

    def first(self) -> Distribution:
        """The marginal distribution of ``x``."""
        return Distribution.from_weights(_sum_by(((x, w) for x, _, w in self.rows)))

    def second(self) -> Distribution:
        """The marginal distribution of ``y``."""
        return Distribution.from_weights(_sum_by(((y, w) for _, y, w in self.rows)))


def _sum_by(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for key, weight in pairs:
        out[key] = out.get(key, 0) + weight
    return out


def order_statistics_counts(pool: int, ranks: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """How many of the 20^pool rolls put the values ``v`` at the given ranks (from the bottom).

    ``ranks`` must be strictly increasing, within 1..pool; keys are value tuples in the
    same order.  Counts sum to 20^pool.
    """
    if not ranks or list(ranks) != sorted(set(ranks)) or ranks[0] < 1 or ranks[-1] > pool:
        raise ValueError(f"ranks {ranks} must increase strictly within 1..{pool}")
    last = ranks[-1]
    reached_by = [sum(1 for r in ranks if r <= k) for k in range(pool + 1)]  # ranks ≤ k
    done: dict[tuple[int, ...], int] = {}
    # state: (dice placed so far, values of the ranks already reached) -> count
    states: dict[tuple[int, tuple[int, ...]], int] = {(0, ()): 1}
    for face in range(1, FACES + 1):
        above = FACES - face
        following: dict[tuple[int, tuple[int, ...]], int] = {}
        for (placed, values), count in states.items():
            free = pool - placed
            ways = 1  # C(free, c), updated by the ratio recurrence
            for c in range(free + 1):
                if c:
                    ways = ways * (free - c + 1) // c
                now = placed + c
                reached = values + (face,) * (reached_by[now] - reached_by[placed])
                weight = count * ways
                if now >= last:
                    done[reached] = done.get(reached, 0) + weight * above ** (pool - now)
                else:
                    key = (now, reached)
                    following[key] = following.get(key, 0) + weight
        states = following
    return done


# -------------------------------------------------------------- compound checks
def compound_distribution(pool: int, discard: int = 0) -> JointDistribution:
    """Joint distribution of (first outcome, second outcome) of a compound check.

    The first outcome is the (N−X)dB outcome ``v_R − v_1``; the two dice used are removed
    and the remaining ``R − 2`` kept dice make a simple check, ``v_(R−1) − v_2``.  Needs
    R ≥ 4 (the seed recommends R ≥ 5 so that the second check has three dice).
    """
    validate(pool, discard)
    kept = pool - discard
    if kept - 2 < MIN_KEPT:
        raise ValueError(
            f"a compound check needs at least {MIN_KEPT + 2} kept dice, this one keeps {kept}"
        )
    return JointDistribution.from_counts(_compound_counts(pool, kept))


def _compound_counts(n: int, kept: int) -> Iterator[tuple[tuple[int, int], int]]:
    """((v_R − v_1, v_(R−1) − v_2), count) over the rolls of ``n`` d20s, R = ``kept`` ≥ 4.

    In closed form, where :func:`order_statistics_counts` took 36 s for 200 dice.  The
    rolls with v_1 ≥ a, v_2 ≥ b, v_(R−1) ≤ c and v_R ≤ e (a ≤ b ≤ c ≤ e) have every die
    ≥ a, at most one below b, at least R − 1 at most c and at least R at most e.  With i
    (0 or 1) dice in [a, b), the other n − i fall in [b, c] (m faces), (c, e] or above e
    (t faces): at least α = R − 1 − i in [b, c], and one more either there or in (c, e]:

        G = Σ_i C(n, i) (b − a)^i [S(n − i, α + 1; m, 20 − c)
                                   + C(n − i, α) m^α ((20 − c)^(n−R+1) − t^(n−R+1))],

    S(M, k; p, q) = Σ_{j ≥ k} C(M, j) p^j q^(M−j).  Each exact point count is G's
    difference in its four arguments (v_1 = a is v_1 ≥ a less v_1 ≥ a + 1, …), over the
    8,855 quadruples a ≤ b ≤ c ≤ e: about 0.5 s for any pool.
    """
    tail = n - kept + 1

    @cache
    def at_least(m: int, k: int, p: int, q: int) -> int:  # S(m, k; p, q)
        if k > m:
            return 0
        if m - k + 1 <= k:  # the shorter of the two sums
            above: int = sum(math.comb(m, j) * p**j * q ** (m - j) for j in range(k, m + 1))
            return above
        below: int = sum(math.comb(m, j) * p**j * q ** (m - j) for j in range(k))
        every: int = (p + q) ** m
        return every - below

    memo: dict[tuple[int, int, int, int], int] = {}

    def rolls(a: int, b: int, c: int, e: int) -> int:  # G(a, b, c, e), any arguments
        b, c = max(a, b), min(c, e)  # v_2 ≥ v_1 ≥ a, v_(R−1) ≤ v_R ≤ e already
        if a > FACES or e < 1 or b > c:  # v_2 ≤ v_(R−1): R ≥ 4
            return 0
        key = (a, b, c, e)
        if key not in memo:
            m, rest, t = c - b + 1, FACES - c, FACES - e
            spill = rest**tail - t**tail
            total = 0
            for i, low in ((0, 1), (1, n * (b - a))):
                if low:
                    alpha = kept - 1 - i
                    total += low * (
                        at_least(n - i, alpha + 1, m, rest)
                        + math.comb(n - i, alpha) * m**alpha * spill
                    )
            memo[key] = total
        return memo[key]

    corners = [(*d, (-1) ** sum(d)) for d in product((0, 1), repeat=4)]
    for a in range(1, FACES + 1):
        for b in range(a, FACES + 1):
            for c in range(b, FACES + 1):
                for e in range(c, FACES + 1):
                    w = sum(
                        sign * rolls(a + da, b + db, c - dc, e - de)
                        for da, db, dc, de, sign in corners
                    )
                    if w:
                        yield (e - a, c - b), w


def p_compound_success(pool: int, discard: int, first_target: int, second_target: int) -> Fraction:
    """P(first outcome ≥ first_target and second outcome ≥ second_target)."""
    joint = compound_distribution(pool, discard)
    return joint.p_where(lambda x, y: x >= first_target and y >= second_target)


# ------------------------------------------------------------ secondary effects
def outcome_and_secondary(
    pool: int, discard: int = 0, source: SecondarySource = "unused"
) -> JointDistribution:
    """Joint distribution of (outcome, secondary value) of an (N−X)dB check."""
    kept = pool - discard
    rank = secondary_rank(pool, discard, source)
    ranks = tuple(sorted({1, kept, rank}))
    counts = order_statistics_counts(pool, ranks)
    where = {r: i for i, r in enumerate(ranks)}
    return JointDistribution.from_counts(
        ((v[where[kept]] - v[where[1]], v[where[rank]]), w) for v, w in counts.items()
    )
