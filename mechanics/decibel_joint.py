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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

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
    counts = order_statistics_counts(pool, (1, 2, kept - 1, kept))
    return JointDistribution.from_counts(((e - a, c - b), w) for (a, b, c, e), w in counts.items())


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
