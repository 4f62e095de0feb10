"""The d5 system's printed tables, each beside the exact rule it approximates.

Tables 1 and 2 read a d100 instead of rolling d5s; their last rows recurse
("roll again and add 10").  Tables 3 and 4 are rounded values of formulas the
seed prints; here are the formulas, the printed values, and how one became
the other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechanics.d5 import RULE_CONTINUE, NetResult, StopCount

# Table 1 (one roll): result r for d100 bands; the last band means 10 + roll again.
TABLE1_BANDS: tuple[tuple[int, int, int], ...] = (
    (1, 20, 0),
    (21, 36, 1),
    (37, 49, 2),
    (50, 60, 3),
    (61, 68, 4),
    (69, 74, 5),
    (75, 80, 6),
    (81, 84, 7),
    (85, 87, 8),
    (88, 90, 9),
    (91, 100, 10),
)
# Table 2 (net result): −10 and 10 mean "continue on Table 1" (−10 − r, 10 + r).
TABLE2_BANDS: tuple[tuple[int, int, int], ...] = (
    (1, 6, -10),
    (7, 8, -9),
    (9, 10, -8),
    (11, 12, -7),
    (13, 15, -6),
    (16, 19, -5),
    (20, 24, -4),
    (25, 30, -3),
    (31, 37, -2),
    (38, 46, -1),
    (47, 54, 0),
    (55, 63, 1),
    (64, 70, 2),
    (71, 76, 3),
    (77, 81, 4),
    (82, 85, 5),
    (86, 88, 6),
    (89, 90, 7),
    (91, 92, 8),
    (93, 94, 9),
    (95, 100, 10),
)

# Table 3 as printed: (α, β) → values at steps 0..10 of α (β/α)^(i/10).
TABLE3_PRINTED: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (10, 20, (10, 11, 11, 12, 13, 14, 15, 16, 17, 19, 20)),
    (10, 30, (10, 11, 12, 14, 16, 17, 19, 22, 24, 27, 30)),
    (10, 60, (10, 12, 14, 17, 20, 24, 29, 35, 42, 50, 60)),
    (10, 100, (10, 13, 16, 20, 25, 32, 40, 50, 63, 79, 100)),
    (20, 30, (20, 21, 22, 23, 24, 24, 26, 27, 28, 29, 30)),
    (20, 60, (20, 22, 25, 28, 31, 35, 39, 43, 48, 54, 60)),
    (20, 100, (20, 23, 28, 32, 38, 45, 53, 62, 72, 85, 100)),
    (20, 200, (20, 25, 32, 40, 50, 63, 80, 100, 130, 160, 200)),
    (30, 60, (30, 32, 34, 37, 40, 42, 45, 49, 52, 56, 60)),
    (30, 100, (30, 34, 38, 43, 49, 55, 62, 70, 79, 89, 100)),
    (30, 200, (30, 36, 44, 53, 64, 77, 94, 110, 140, 170, 200)),
    (30, 300, (30, 38, 48, 60, 75, 95, 120, 150, 190, 240, 300)),
    (60, 100, (60, 63, 66, 70, 74, 77, 82, 86, 90, 95, 100)),
    (60, 200, (60, 68, 76, 86, 97, 110, 120, 140, 160, 180, 200)),
    (60, 300, (60, 70, 83, 97, 110, 130, 160, 190, 220, 260, 300)),
    (60, 600, (60, 76, 95, 120, 150, 190, 240, 300, 380, 480, 600)),
)

# Table 4 as printed: row α (bonus of two equal actors) 1..10, columns β 0..10.
TABLE4_PRINTED: tuple[tuple[int, ...], ...] = (
    (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    (2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
    (3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0),
    (4, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0),
    (5, 4, 4, 3, 3, 2, 2, 2, 2, 1, 1),
    (6, 5, 5, 4, 4, 3, 3, 3, 2, 2, 2),
    (7, 6, 6, 5, 5, 4, 4, 4, 3, 3, 3),
    (8, 7, 7, 6, 6, 5, 5, 5, 4, 4, 4),
    (9, 8, 8, 7, 7, 6, 6, 5, 5, 5, 4),
    (10, 9, 9, 8, 8, 7, 7, 6, 6, 6, 5),
)


def _band(bands: Sequence[tuple[int, int, int]], d100: int) -> int:
    if not 1 <= d100 <= 100:
        raise ValueError(f"a d100 reads 1–100 (00 is 100), not {d100}")
    return next(value for lo, hi, value in bands if lo <= d100 <= hi)


def read_table1(rolls: Sequence[int]) -> int:
    """One roll read from d100 results on Table 1 (91–100: add 10, roll again)."""
    total = 0
    for i, d100 in enumerate(rolls):
        value = _band(TABLE1_BANDS, d100)
        total += value
        if value < 10:
            if i != len(rolls) - 1:
                raise ValueError("the result was complete before the last d100")
            return total
    raise ValueError("the last d100 asks for another roll (91–100 add 10 and roll again)")


def read_table2(rolls: Sequence[int]) -> int:
    """A net result read on Table 2; its ends continue on Table 1 (±10 ± that roll)."""
    if not rolls:
        raise ValueError("Table 2 needs at least one d100")
    value = _band(TABLE2_BANDS, rolls[0])
    if abs(value) < 10:
        if len(rolls) > 1:
            raise ValueError("the result was complete after the first d100")
        return value
    rest = read_table1(rolls[1:])
    return value + rest if value > 0 else value - rest


def table1_probability(result: int) -> Fraction:
    """What Table 1 gives a result: (1/10)^q · width/100 for result 10q + r."""
    if result < 0:
        return Fraction(0)
    q, r = divmod(result, 10)
    lo, hi, _ = TABLE1_BANDS[r]
    return Fraction(1, 10) ** q * Fraction(hi - lo + 1, 100)


def table2_probability(result: int) -> Fraction:
    """What Table 2 gives a net result, including its continuation on Table 1."""
    if abs(result) >= 10:
        end = TABLE2_BANDS[-1] if result > 0 else TABLE2_BANDS[0]
        return Fraction(end[1] - end[0] + 1, 100) * table1_probability(abs(result) - 10)
    lo, hi, _ = next(b for b in TABLE2_BANDS if b[2] == result)
    return Fraction(hi - lo + 1, 100)


def table1_p_at_least(result: int) -> Fraction:
    """P(Table 1 gives ≥ result), exactly: (1/10)^q of the tail from r, result = 10q + r."""
    if result <= 0:
        return Fraction(1)
    q, r = divmod(result, 10)
    from_r = sum(hi - lo + 1 for lo, hi, _ in TABLE1_BANDS[r:])  # includes the 91–100 row
    return Fraction(1, 10) ** q * Fraction(from_r, 100)


def table2_p_at_least(result: int) -> Fraction:
    """P(Table 2, with its Table 1 continuations, gives ≥ result), exactly."""
    end = Fraction(6, 100)
    if result >= 10:
        return end * table1_p_at_least(result - 10)
    if result <= -10:  # 1 − P(≤ result − 1), and −10 − t ≤ result − 1 ⇔ t ≥ −9 − result
        return 1 - end * table1_p_at_least(-9 - result)
    return Fraction(sum(hi - lo + 1 for lo, hi, v in TABLE2_BANDS if v >= result), 100)


@dataclass(frozen=True, slots=True)
class TableRow:
    result: int
    printed: Fraction
    exact: Fraction

    @property
    def error(self) -> Fraction:
        return self.printed - self.exact


def table1_rows() -> list[TableRow]:
    """Table 1's rows 0..9 and 10+ beside the exact rule."""
    single = StopCount()
    rows = [TableRow(r, table1_probability(r), single.pmf(r)) for r in range(10)]
    rows.append(TableRow(10, Fraction(10, 100), single.p_at_least(10)))
    return rows


def table2_rows() -> list[TableRow]:
    """Table 2's rows ≤ −10, −9..9, ≥ 10 beside the exact rule."""
    net = NetResult()
    rows = [TableRow(-10, Fraction(6, 100), 1 - net.p_at_least(-9))]
    rows += [TableRow(k, table2_probability(k), net.pmf(k)) for k in range(-9, 10)]
    rows.append(TableRow(10, Fraction(6, 100), net.p_at_least(10)))
    return rows


# --- Table 3: interpolating a scalable dimension ----------------------------------------------
def table3_value(alpha: float, beta: float, step: int) -> float:
    """α (β/α)^(step/10): the value ``step`` tenths of the way from α to β."""
    return alpha * math.pow(beta / alpha, step / 10)


def round_two_significant(x: float) -> int:
    """The printed Table 3's rounding: two significant figures, halves up."""
    digits = math.floor(math.log10(abs(x))) + 1
    scale = int(math.pow(10, max(digits - 2, 0)))
    return math.floor(x / scale + 0.5) * scale


# --- Table 4: combining two actors ------------------------------------------------------------
def table4_value(alpha: float, beta: float) -> float:
    """α ln(1 + e^(−β ln 2 / α)) / ln 2: the bonus added to the better actor's level."""
    return alpha * math.log2(1 + math.pow(2, -beta / alpha))


def table4_printed_rule(alpha: int, beta: int) -> int:
    """How the printed Table 4 rounds the formula: down (floor)."""
    return math.floor(table4_value(alpha, beta) + 1e-12)


def combine_pair(a: int, b: int, alpha: int) -> int:
    """Two actors as one, the table's way: the higher level plus Table 4's entry."""
    high, low = max(a, b), min(a, b)
    return high + table4_printed_rule(alpha, high - low)


def combine(levels: Sequence[int], alpha: int) -> int:
    """Several actors, pairing the two closest levels each time (the seed's advice)."""
    if not levels:
        raise ValueError("combining needs at least one actor")
    pool = sorted(levels)
    while len(pool) > 1:
        i = min(range(len(pool) - 1), key=lambda j: (pool[j + 1] - pool[j], j))
        merged = combine_pair(pool[i], pool[i + 1], alpha)
        pool = sorted([*pool[:i], merged, *pool[i + 2 :]])
    return pool[0]


def combine_exact(levels: Sequence[float], alpha: float) -> float:
    """The formula applied to any number of actors at once: α log2 Σ 2^(level/α).

    Associative and order-free, which is the property the seed claims for the
    rounded table only approximately.
    """
    if not levels:
        raise ValueError("combining needs at least one actor")
    top = max(levels)
    return top + alpha * math.log2(sum(math.pow(2, (x - top) / alpha) for x in levels))


def best_of_two_bonus(target: int) -> Fraction:
    """The bonus making one actor as likely to reach ``target`` as the better of two.

    Exact on the refined result (net plus decimal d10s, uniform in its unit),
    the only reading in which a fractional bonus means something:
    P(net + U ≥ target − b) = 1 − (1 − P(net ≥ target))².  In the tail it tends
    to 387/125 = 3.096 (log 2 / log(5/4) ≈ 3.106 on the smooth curve (5/9)(4/5)^x);
    for easy targets it grows without bound (failing needs both to fail).
    """
    net = NetResult()
    one = net.p_at_least(target)
    return target - net.refined_level(1 - (1 - one) ** 2)


def both_succeed_penalty(target: int) -> Fraction:
    """The penalty making one actor as likely to reach ``target`` as two who both must."""
    net = NetResult()
    return net.refined_level(net.p_at_least(target) ** 2) - target


# --- pragmatics --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pragmatics:
    """The shortcut for a level difference d, against the exact rule."""

    difference: int
    exact_meets: Fraction  # P(net ≥ d): the lower side meets the difference
    exact_exceeds: Fraction  # P(net > d)
    shortcut: Fraction  # no stop digit in d dice, then a fair coin: (4/5)^d / 2


def pragmatics(difference: int) -> Pragmatics:
    """Roll d dice: any stop digit and the lower side loses, else flip a coin.

    The shortcut equals P(net > d) + ½ P(net = d) exactly: it is the exact rule
    with a tie at the difference split evenly.
    """
    if difference < 0:
        raise ValueError("the difference is counted from the lower contestant: use |d|")
    net = NetResult()
    return Pragmatics(
        difference,
        net.p_at_least(difference),
        net.p_greater(difference),
        RULE_CONTINUE**difference / 2,
    )


def pragmatics_roll(faces: Sequence[int], coin_heads: bool | None = None) -> bool | None:
    """Whether the lower contestant wins: False on any stop digit (1 or 2 on a d10),
    else the coin decides (None while the coin has not been flipped)."""
    if any(f in (1, 2) for f in faces):
        return False
    return coin_heads
