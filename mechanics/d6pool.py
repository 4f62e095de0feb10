"""The exploding d6 pool: 1–2 lose, 3–4 win, 5–6 win and roll one more die.

Exact, with no cut-off on the explosions.  A die loses with chance A, wins with
B, wins and explodes with C; the wins from one starting die have generating
function (A + Bx)/(1 − Cx), so N dice give (A + Bx)^N (1 − Cx)^(−N):

    P(W = k) = Σ_j C(N, j) A^(N−j) B^j · C(N−1+k−j, k−j) C^(k−j).

Only k below the cap is needed; the rest of the mass is the capped score.  The
sum runs in integers over a common power of 6, so it is exact and quick.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from mechanics.distribution import Distribution

MORTAL_CAP = 9
SUPERNATURAL_CAP = 12

DIFFICULTY_NAMES = (
    "trivial",
    "very easy",
    "easy",
    "mundane",
    "moderate",
    "challenging",
    "difficult",
    "very difficult",
    "nearly impossible",
    "impossible",
)

GroupRule = Literal["max", "min", "average"]


class Fate(enum.Enum):
    """Faces (out of 6) that lose, win, and win-and-explode under each fate."""

    CURSED = (2, 4, 0)  # 5–6 still win but are not rerolled
    UNLUCKY = (2, 3, 1)  # 5 wins without a reroll; 6 still explodes
    NEUTRAL = (2, 2, 2)
    LUCKY = (1, 3, 2)  # 2 wins instead of losing
    BLESSED = (0, 4, 2)  # 1 and 2 win instead of losing

    @property
    def lose(self) -> int:
        return self.value[0]

    @property
    def win(self) -> int:
        return self.value[1]

    @property
    def explode(self) -> int:
        return self.value[2]

    @staticmethod
    def named(name: object) -> Fate:
        """The fate of that name (any case); a Fate is itself.  Anything else is refused."""
        if isinstance(name, Fate):
            return name
        if isinstance(name, str) and name.upper() in Fate.__members__:
            return Fate[name.upper()]
        raise ValueError(f"unknown fate {name!r}; one of {Fate.names()}")

    @staticmethod
    def names() -> str:
        return ", ".join(f.name.lower() for f in Fate)


def difficulty_name(difficulty: int) -> str:
    if not 1 <= difficulty <= len(DIFFICULTY_NAMES):
        return "off the scale"
    return DIFFICULTY_NAMES[difficulty - 1]


def wins(dice: int, cap: int, fate: Fate = Fate.NEUTRAL) -> Distribution:
    """min(W, cap) for ``dice`` d6 under ``fate``: the Score, exact."""
    if dice < 0:
        raise ValueError(f"cannot roll a negative number of dice ({dice})")
    if cap < 0:
        raise ValueError(f"the cap cannot be negative ({cap})")
    if dice == 0 or cap == 0:
        return Distribution.point(0)
    a, b, c = fate.value
    n = dice
    if not c:  # cursed: nothing explodes, a plain binomial over 6^n
        weights: list[int] = []
        term = a**n
        for j in range(min(n, cap - 1) + 1):
            weights.append(term)
            term = term * (n - j) * b // ((j + 1) * a)
        tail = 6**n - sum(weights)
        return Distribution(0, (*weights, tail) if tail else tuple(weights))
    # Integer weights over the common denominator 6^(n + cap − 1):
    #   (a + b x)^n            -> first[j]  = C(n, j) a^(n−j) b^j           (over 6^n)
    #   (1 − (c/6) x)^(−n)     -> series[m] = C(n−1+m, m) c^m 6^(cap−1−m)   (over 6^(cap−1))
    # and P(W = k) is their product's coefficient k, for k below the cap.
    first = [0] * cap
    if a:
        term = a**n
        for j in range(min(n, cap - 1) + 1):
            first[j] = term
            term = term * (n - j) * b // ((j + 1) * a)  # the next binomial term, exactly
    elif n < cap:  # blessed: every die wins, (b x)^n
        first[n] = b**n
    series = [0] * cap
    series[0] = 6 ** (cap - 1)
    for m in range(1, cap):
        # C(n−1+m, m) c^m 6^(cap−1−m) from the previous coefficient
        series[m] = series[m - 1] * (n - 1 + m) * c // (m * 6)
    weights = [sum(first[j] * series[k - j] for j in range(k + 1)) for k in range(cap)]
    weights.append(6 ** (n + cap - 1) - sum(weights))
    # trim the zero start: blessed dice never score 0
    start = 0
    while not weights[start]:
        start += 1
    return Distribution(start, tuple(weights[start:]))


def dice_for(level: int, labor: int = 0) -> int:
    """Dice rolled: level + labor, but labor never takes a trained skill below 1 die.

    A level-0 skill rolls no dice (score 0, as the seed's note implies); positive
    labor still adds dice to it, negative labor cannot go below none.
    """
    if level < 0:
        raise ValueError(f"a skill level cannot be negative ({level})")
    return max(1 if level >= 1 else 0, level + labor)


def resolve_modifier(
    updates: Sequence[int], minima: Sequence[int] = (), maxima: Sequence[int] = ()
) -> int:
    """Sum the updates, then apply the highest minimum and the lowest maximum.

    When that maximum is below that minimum, the minimum is ignored (the seed).
    """
    value = sum(updates)
    low = max(minima) if minima else None
    high = min(maxima) if maxima else None
    if high is not None and low is not None and high < low:
        low = None
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    return value


MAX_LEVERAGE = 1000  # far past any character's (a Score's cap is a few dozen)


@dataclass(frozen=True, slots=True)
class Roller:
    """One character's roll of one skill, with its modifiers.

    The total is ``min(W, cap) + leverage``: the cap bounds what the dice can
    score and leverage stands beside it (the seed adds leverage "to the Score",
    and the Score is already capped).  ``leverage_before_cap`` reads it the
    other way, ``min(W + leverage, cap)``.
    """

    level: int
    fate: Fate = Fate.NEUTRAL
    labor: int = 0
    leverage: int = 0
    supernatural: bool = False
    leverage_before_cap: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.fate, Fate):  # a 3 or a "lucky" here failed later, in .value
            raise ValueError(f"a roller's fate is a Fate ({Fate.names()}), not {self.fate!r}")
        if abs(self.leverage) > MAX_LEVERAGE:  # read before the cap, the dice's wins are
            # worked out as far as the leverage reaches: 10**6 ran into gigabytes
            raise ValueError(f"leverage must be within ±{MAX_LEVERAGE}, not {self.leverage}")

    @property
    def dice(self) -> int:
        return dice_for(self.level, self.labor)

    @property
    def cap(self) -> int:
        return SUPERNATURAL_CAP if self.supernatural else MORTAL_CAP

    def total(self) -> Distribution:
        if self.leverage_before_cap:
            raw = wins(self.dice, self.cap + abs(self.leverage) + 1, self.fate)
            return (raw + self.leverage).clamp(hi=self.cap)
        return wins(self.dice, self.cap, self.fate) + self.leverage


def p_check(roller: Roller, difficulty: int) -> Fraction:
    """A skill check: success when the total reaches the difficulty."""
    return roller.total().p_at_least(difficulty)


def p_check_two_skills(first: Roller, second: Roller, difficulty: int) -> Fraction:
    """A roll with two skills: the scores add and the difficulty doubles."""
    return (first.total() + second.total()).p_at_least(2 * difficulty)


def group_total(rollers: Sequence[Roller], rule: GroupRule) -> Distribution:
    """The max or min of the characters' totals, or (for "average") their sum."""
    if not rollers:
        raise ValueError("a group check needs at least one character")
    totals = [r.total() for r in rollers]
    result = totals[0]
    for t in totals[1:]:
        if rule == "max":
            result = result.max_with(t)
        elif rule == "min":
            result = result.min_with(t)
        elif rule == "average":
            result = result + t
        else:
            raise ValueError(f"unknown group rule {rule!r}")
    return result


def p_group_check(rollers: Sequence[Roller], rule: GroupRule, difficulty: int) -> Fraction:
    """Group check: the max, min or average total must reach the difficulty.

    The average is compared exactly: mean ≥ D exactly when sum ≥ D·n.
    """
    total = group_total(rollers, rule)
    threshold = difficulty * len(rollers) if rule == "average" else difficulty
    return total.p_at_least(threshold)


@dataclass(frozen=True, slots=True)
class ContestOdds:
    first: Fraction
    tie: Fraction
    second: Fraction

    def rerolling_ties(self) -> tuple[Fraction, Fraction]:
        """When a tie is impossible the contest is rerolled: the chances given no tie."""
        if self.tie == 1:
            raise ValueError("every roll ties: rerolling never ends")
        return self.first / (1 - self.tie), self.second / (1 - self.tie)


def contest(first: Sequence[Roller], second: Sequence[Roller]) -> ContestOdds:
    """Each side's totals (score + leverage) summed over its skills; higher wins.

    With two skills against one, the one-skill side lists its roller twice,
    as the seed says ("roll their single skill twice").
    """
    if not first or not second:
        raise ValueError("each side of a contest needs at least one roll")
    if len(first) != len(second):
        raise ValueError("both sides of a contest roll the same number of skills")
    a = _sum_totals(first)
    b = _sum_totals(second)
    win, tie, lose = a.compare(b)
    return ContestOdds(win, tie, lose)


def _sum_totals(rollers: Sequence[Roller]) -> Distribution:
    result = Distribution.point(0)
    for r in rollers:
        result = result + r.total()
    return result
