"""Peupfudge: L + A + R ≥ D with R the sum of N Fudge dice (−1, 0, +1).

NdF in O(N) exact steps: the weights of (1 + x + x²)^N obey
(k+1)·a[k+1] = (N−k)·a[k] + (2N−k+1)·a[k−1] (differentiate, match coefficients),
an integer recurrence whose divisions are exact, so even 500dF is instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechanics.distribution import Distribution

CHECK_DICE = 4
OPPOSED_DICE = 3


def fudge(n: int) -> Distribution:
    """The sum of ``n`` Fudge dice, outcomes −n..n, total weight 3^n."""
    if n < 0:
        raise ValueError(f"cannot roll a negative number of Fudge dice ({n})")
    # The weights are symmetric: run the recurrence to the middle and mirror it.
    half = [1]
    previous, current = 0, 1
    for k in range(n):
        current, previous = ((n - k) * current + (2 * n - k + 1) * previous) // (k + 1), current
        half.append(current)
    return Distribution(-n, (*half, *half[-2::-1]))


@dataclass(frozen=True, slots=True)
class Action:
    """An action: success when ``level + bonus + NdF ≥ difficulty``."""

    level: int
    difficulty: int
    bonus: int = 0
    dice: int = CHECK_DICE

    @property
    def needed(self) -> int:
        """The roll R at least needed: D − L − A."""
        return self.difficulty - self.level - self.bonus

    def total(self) -> Distribution:
        """The distribution of L + A + R."""
        return fudge(self.dice) + (self.level + self.bonus)

    def performance(self) -> Distribution:
        """L + A + R − D, the seed's "relative performance"."""
        return self.total() - self.difficulty

    def p_success(self) -> Fraction:
        return fudge(self.dice).p_at_least(self.needed)


@dataclass(frozen=True, slots=True)
class Participant:
    """One side of an opposed action: its L + A and its number of dice."""

    name: str
    score: int
    dice: int = OPPOSED_DICE

    def total(self) -> Distribution:
        return fudge(self.dice) + self.score


@dataclass(frozen=True, slots=True)
class OpposedOdds:
    """P(each participant is strictly highest) and P(a tie for the top)."""

    names: tuple[str, ...]
    wins: tuple[Fraction, ...]
    tie: Fraction


def opposed(participants: Sequence[Participant]) -> OpposedOdds:
    """Opposed action: every L + A + R compared; equal tops are a tie, not a win.

    P(i strictly highest) = Σ_v P(i = v) · Π_{j≠i} P(j < v), all independent.
    """
    if len(participants) < 2:
        raise ValueError("an opposed action needs at least two participants")
    dists = [p.total() for p in participants]
    wins = []
    for i, d in enumerate(dists):
        others = [o for j, o in enumerate(dists) if j != i]
        chance = Fraction(0)
        for value, weight in d.items():
            term = Fraction(weight, d.total)
            for o in others:
                term *= o.p_less(value)
            chance += term
        wins.append(chance)
    tie = 1 - sum(wins, Fraction(0))
    return OpposedOdds(tuple(p.name for p in participants), tuple(wins), tie)


# --- experience ------------------------------------------------------------------------------
def xp_cost(level: int) -> int:
    """XP to raise an ability from ``level`` (unmodified) to the next: 2^level."""
    if level < 0:
        raise ValueError(f"an unmodified level cannot be negative ({level})")
    return 1 << level


def total_xp(level: int) -> int:
    """XP needed to reach ``level`` from 0: 2^level − 1."""
    return xp_cost(level) - 1


@dataclass(frozen=True, slots=True)
class Progress:
    """An ability's unmodified level and the XP allocated towards the next one."""

    level: int
    progress: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.progress < xp_cost(self.level):
            raise ValueError(f"progress {self.progress} is outside 0..{xp_cost(self.level) - 1}")

    @property
    def next_cost(self) -> int:
        return xp_cost(self.level)

    @property
    def xp(self) -> int:
        return total_xp(self.level) + self.progress

    def allocate(self, xp: int) -> Progress:
        """Spend ``xp`` on the ability; levels rise as soon as a cost is covered."""
        if xp < 0:
            raise ValueError("allocated XP is spent and cannot be taken back")
        return from_xp(self.xp + xp)

    def modified(self, modifier: int) -> int:
        """The level used in actions; the XP cost keeps using the unmodified level."""
        return self.level + modifier

    def __str__(self) -> str:
        return (
            f"{self.level} (+{self.progress}/{self.next_cost})"
            if self.progress
            else str(self.level)
        )


def from_xp(xp: int) -> Progress:
    """Level and progress of an ability that has received ``xp`` in total."""
    if xp < 0:
        raise ValueError(f"XP cannot be negative ({xp})")
    level = (xp + 1).bit_length() - 1  # largest level with 2^level − 1 ≤ xp
    return Progress(level, xp - total_xp(level))
