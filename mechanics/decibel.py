"""Decibel: pools of d20s, the outcome of an (N−X)dB check is a spread of values.

Roll N d20s, discard the X highest, and the outcome is the highest remaining die
minus the lowest: ``Y − m`` where ``Y`` is the R-th smallest value (R = N − X,
the *kept* dice) and ``m`` the minimum.  Outcomes run 0..19.

The exact distribution comes from a closed form rather than enumeration.  For
``a ≤ b`` the rolls with every die ≥ a and at least R dice ≤ b number

    H(w, t) = Σ_{j=R..N} C(N, j) w^j t^(N−j),   w = b − a + 1, t = 20 − b

(dice ≥ a split into ``j`` dice in a..b and the rest above b).  Differencing in
``a`` and summing along the diagonal ``b − a = d`` telescopes to the number of
rolls with outcome ≤ d:

    C(d) = d^N + Σ_{j=R..N} C(N, j) ((d+1)^j − d^j) S_{N−j}(19 − d),
    S_k(T) = Σ_{t=0..T} t^k,

and, summing the complementary terms j < R instead, C(d) = 20^N − Σ_{j=1..R−1}
(same summand).  We use whichever sum is shorter, so a check costs about
20 · min(X + 1, R − 1) big-integer products: a simple NdB is one term.
Everything is an integer count over 20^N; Fractions appear only in answers.

Joint questions (compound checks, outcome with its secondary value) live in
:mod:`mechanics.decibel_joint`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from mechanics.distribution import Distribution

FACES = 20
# The seed asks for three or more dice; two dice (|d20 − d20|) are well defined and are
# what a compound check's later simple checks can be left with, so we allow them.
MIN_KEPT = 2
MAX_POOL = 200

ModifierPolicy = Literal["cancel", "stack"]
SecondarySource = Literal["unused", "kept"]


@dataclass(frozen=True, slots=True)
class Check:
    """An (N−X)dB check: ``pool`` d20s, the ``discard`` highest set aside."""

    pool: int
    discard: int = 0

    def __post_init__(self) -> None:
        validate(self.pool, self.discard)

    @property
    def kept(self) -> int:
        return self.pool - self.discard

    @property
    def label(self) -> str:
        return f"{self.pool}dB" if self.discard == 0 else f"({self.pool}−{self.discard})dB"


def validate(pool: int, discard: int = 0) -> None:
    """Raise ValueError unless ``pool`` d20s with ``discard`` discarded is a check."""
    if pool < MIN_KEPT:
        raise ValueError(f"a pool needs at least {MIN_KEPT} dice, not {pool}")
    if pool > MAX_POOL:
        raise ValueError(f"a pool of {pool} dice is beyond the supported {MAX_POOL}")
    if discard < 0:
        raise ValueError(f"cannot discard a negative number of dice ({discard})")
    if pool - discard < MIN_KEPT:
        raise ValueError(
            f"a check needs at least {MIN_KEPT} dice left after discarding: "
            f"{pool} dice with {discard} discarded leaves {pool - discard}"
        )


def pool_for(
    base: int,
    positive: int,
    negative: int,
    policy: ModifierPolicy = "stack",
    base_discard: int = 0,
) -> tuple[int, int]:
    """(N, X) of a (base−base_discard)dB check with modifiers applied.

    A positive modifier adds a die; a negative one adds a die and a discard.
    ``"stack"`` applies every modifier (the seed's example: 5dB, +1, −2 → (8−2)dB);
    ``"cancel"`` first cancels opposing modifiers one for one (→ (6−1)dB).
    """
    if positive < 0 or negative < 0:
        raise ValueError("modifier counts cannot be negative")
    if policy == "cancel":
        common = min(positive, negative)
        positive, negative = positive - common, negative - common
    elif policy != "stack":
        raise ValueError(f"unknown modifier policy {policy!r}")
    validate(base, base_discard)
    pool, discard = base + positive + negative, base_discard + negative
    validate(pool, discard)
    return pool, discard


# ------------------------------------------------------------------ outcome counts
def outcome_counts(pool: int, discard: int = 0) -> tuple[int, ...]:
    """How many of the 20^pool rolls give outcome 0, 1, ..., 19 (a dense tuple of 20)."""
    validate(pool, discard)
    n, kept = pool, pool - discard
    if discard == 0:  # one term: C(d) = d^N + (20 − d)((d+1)^N − d^N)
        powers = [v**n for v in range(FACES + 1)]
        cumulative = [powers[d] + (FACES - d) * (powers[d + 1] - powers[d]) for d in range(FACES)]
    elif kept == 2:  # one term: d ≥ 1 needs the pair (v, v + d) below all others
        spreads = [n * (FACES - d) ** (n - 1) for d in range(1, FACES)]
        return (FACES**n - sum(spreads), *spreads)
    else:
        cumulative = _cumulative_counts(n, kept)
    return (cumulative[0], *(cumulative[d] - cumulative[d - 1] for d in range(1, FACES)))


def _cumulative_counts(n: int, kept: int) -> list[int]:
    """C(d) for d = 0..19: the number of rolls with outcome ≤ d (see the module docstring)."""
    if n - kept + 1 <= kept - 1:  # few terms j = kept..n
        j_low, j_high, sign = kept, n, 1
    else:  # few complementary terms j = 1..kept-1
        j_low, j_high, sign = 1, kept - 1, -1
    count = j_high - j_low + 1
    binomials = _binomial_slice(n, j_low, count)
    # powers[v][i] = v ** (j_low + i) for v = 0..20
    powers = [_power_run(v, j_low, count) for v in range(FACES + 1)]
    # sums[T][i] = S_{n - j_low - i}(T) = Σ_{t ≤ T} t ** (n - j_low - i)
    sums: list[list[int]] = []
    running = [0] * count
    for t in range(FACES):
        row = _power_run(t, n - j_high, count)[::-1]
        running = [s + p for s, p in zip(running, row, strict=True)]
        sums.append(running)
    top = FACES**n
    out = []
    for d in range(FACES):
        lower, upper, tail = powers[d], powers[d + 1], sums[FACES - 1 - d]
        total = 0
        for i in range(count):
            total += binomials[i] * (upper[i] - lower[i]) * tail[i]
        out.append(d**n + total if sign > 0 else top - total)
    return out


def _binomial_slice(n: int, first: int, count: int) -> list[int]:
    """C(n, first), C(n, first + 1), ... (count of them), by the ratio recurrence."""
    value = math.comb(n, first)
    out = [value]
    for j in range(first, first + count - 1):
        value = value * (n - j) // (j + 1)
        out.append(value)
    return out


def _power_run(base: int, first: int, count: int) -> list[int]:
    """base ** first, base ** (first + 1), ... (count of them)."""
    value = base**first
    out = [value]
    for _ in range(count - 1):
        value *= base
        out.append(value)
    return out


def outcome_distribution(pool: int, discard: int = 0) -> Distribution:
    """The exact distribution of the outcome of an (N−X)dB check (outcomes 0..19)."""
    return Distribution.from_dense(0, outcome_counts(pool, discard))


# ------------------------------------------------------------------- resolution
def p_success(pool: int, discard: int, target: int) -> Fraction:
    """Static resolution: P(outcome ≥ target)."""
    return outcome_distribution(pool, discard).p_at_least(target)


def static_degree_distribution(pool: int, discard: int, target: int) -> Distribution:
    """Degree of success of a static roll: outcome − target."""
    return outcome_distribution(pool, discard).shift(-target)


def dynamic_degree_distribution(first: Check, second: Check) -> Distribution:
    """Degree of success of a dynamic roll: outcome of ``first`` − outcome of ``second``."""
    return outcome_distribution(first.pool, first.discard) - outcome_distribution(
        second.pool, second.discard
    )


def dynamic(first: Check, second: Check) -> tuple[Fraction, Fraction, Fraction]:
    """Dynamic resolution: (P(first wins), P(tie), P(first loses)), independent checks."""
    degree = dynamic_degree_distribution(first, second)
    return degree.p_greater(0), degree.probability(0), degree.p_less(0)


# ------------------------------------------------------------- secondary effects
def secondary_rank(pool: int, discard: int, source: SecondarySource = "unused") -> int:
    """Rank from the bottom (1 = lowest die) of the die that governs secondary effects.

    ``"unused"`` (the seed's wording): the largest die not used for the outcome.  The
    discarded dice are not used, so with X ≥ 1 it is the largest die of all; with X = 0 it
    is the second largest.  ``"kept"``: the largest kept die other than the two used, the
    second largest of the kept dice.
    """
    validate(pool, discard)
    kept = pool - discard
    if source == "unused":
        if pool < 3:
            raise ValueError("a 2-die simple check has no unused die for secondary effects")
        return pool if discard > 0 else pool - 1
    if source == "kept":
        if kept < 3:
            raise ValueError("the kept dice are all used: keep at least 3 for secondary effects")
        return kept - 1
    raise ValueError(f"unknown secondary source {source!r}")


def order_statistic_distribution(pool: int, rank: int) -> Distribution:
    """The value of the ``rank``-th smallest of ``pool`` d20s (exact, faces 1..20)."""
    if not 1 <= rank <= pool:
        raise ValueError(f"rank {rank} is outside a pool of {pool}")
    # P(rank-th smallest ≤ v) = P(at least `rank` dice ≤ v)
    cumulative = [
        sum(math.comb(pool, j) * v**j * (FACES - v) ** (pool - j) for j in range(rank, pool + 1))
        for v in range(FACES + 1)
    ]
    return Distribution.from_dense(1, [cumulative[v] - cumulative[v - 1] for v in range(1, 21)])


def secondary_distribution(
    pool: int, discard: int = 0, source: SecondarySource = "unused"
) -> Distribution:
    """Distribution of the value (1..20) that governs secondary effects."""
    return order_statistic_distribution(pool, secondary_rank(pool, discard, source))


# --------------------------------------------------------------- actual rolls
@dataclass(frozen=True, slots=True)
class Resolution:
    """A check resolved from the values actually rolled.

    ``values`` are sorted largest first.  ``secondary`` is the largest die not used for
    the outcome (None when every die is used); ``secondary_kept`` the largest kept die
    other than the two used.  ``compound`` lists the outcomes of the chained checks: the
    first outcome, then each simple check made from the dice left after removing the two
    dice used, for as long as at least two dice remain.
    """

    values: tuple[int, ...]
    discard: int
    outcome: int
    degree: int | None
    secondary: int | None
    secondary_kept: int | None
    compound: tuple[int, ...]


def resolve(values: Sequence[int], discard: int = 0, target: int | None = None) -> Resolution:
    """Resolve an (N−X)dB check from rolled d20 ``values`` (any order)."""
    if any(not 1 <= v <= FACES for v in values):
        raise ValueError(f"d20 values must be 1..20: {list(values)}")
    validate(len(values), discard)
    ordered = tuple(sorted(values, reverse=True))
    kept = list(ordered[discard:])
    outcome = kept[0] - kept[-1]
    unused = ordered[:discard] + ordered[discard + 1 : -1]
    chain = []
    remaining = kept
    while len(remaining) >= MIN_KEPT:
        chain.append(remaining[0] - remaining[-1])
        remaining = remaining[1:-1]
    return Resolution(
        values=ordered,
        discard=discard,
        outcome=outcome,
        degree=None if target is None else outcome - target,
        secondary=max(unused) if unused else None,
        secondary_kept=kept[1] if len(kept) >= 3 else None,
        compound=tuple(chain),
    )
