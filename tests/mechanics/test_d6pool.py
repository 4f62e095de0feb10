"""The exploding d6 pool against independent oracles, and the seed's rules one by one."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechanics.d6pool import (
    DIFFICULTY_NAMES,
    Fate,
    Roller,
    contest,
    dice_for,
    difficulty_name,
    p_check,
    p_check_two_skills,
    p_group_check,
    resolve_modifier,
    wins,
)
from mechanics.distribution import Distribution

# What each fate does to the six faces, straight from the seed's table:
# (counts as a win, causes another die)
FACES = {
    Fate.CURSED: {1: (0, 0), 2: (0, 0), 3: (1, 0), 4: (1, 0), 5: (1, 0), 6: (1, 0)},
    Fate.UNLUCKY: {1: (0, 0), 2: (0, 0), 3: (1, 0), 4: (1, 0), 5: (1, 0), 6: (1, 1)},
    Fate.NEUTRAL: {1: (0, 0), 2: (0, 0), 3: (1, 0), 4: (1, 0), 5: (1, 1), 6: (1, 1)},
    Fate.LUCKY: {1: (0, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0), 5: (1, 1), 6: (1, 1)},
    Fate.BLESSED: {1: (1, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0), 5: (1, 1), 6: (1, 1)},
}


def chain_oracle(dice: int, cap: int, fate: Fate) -> dict[int, Fraction]:
    """An absorbing chain over (dice still to roll, wins still wanted), face by face.

    Independent of the generating-function algebra: it rolls one physical face
    at a time using the seed's face table above.
    """
    faces = FACES[fate]

    @cache
    def exactly(left: int, wanted: int) -> Fraction:
        if wanted < 0:
            return Fraction(0)
        if left == 0:
            return Fraction(int(wanted == 0))
        total = Fraction(0)
        for win, again in faces.values():
            # an exploding die leaves the number of dice to roll unchanged
            total += Fraction(1, 6) * exactly(left - 1 + again, wanted - win)
        return total

    pmf = {k: exactly(dice, k) for k in range(cap)}
    pmf[cap] = 1 - sum(pmf.values(), Fraction(0))
    return {k: p for k, p in pmf.items() if p}


@pytest.mark.parametrize("fate", list(Fate), ids=lambda f: f.name.lower())
@pytest.mark.parametrize("dice", [0, 1, 2, 3, 5, 8, 13])
def test_score_matches_the_face_by_face_chain(fate: Fate, dice: int) -> None:
    for cap in (1, 4, 9, 12):
        assert wins(dice, cap, fate).pmf() == chain_oracle(dice, cap, fate)


def simulate(dice: int, cap: int, fate: Fate, rng: random.Random) -> int:
    """Throw real d6 faces until no die asks for another."""
    score, left = 0, dice
    while left:
        win, again = FACES[fate][rng.randint(1, 6)]
        score += win
        left += again - 1
    return min(score, cap)


def test_simulated_throws_agree_with_the_exact_distribution() -> None:
    rng = random.Random(2026)
    exact = wins(5, 9, Fate.LUCKY)
    n = 30_000
    counts = [0] * 10
    for _ in range(n):
        counts[simulate(5, 9, Fate.LUCKY, rng)] += 1
    for k in range(10):
        p = float(exact.probability(k))
        assert abs(counts[k] / n - p) < 5 * (p * (1 - p) / n) ** 0.5 + 1e-9


def test_twenty_dice_need_no_truncation() -> None:
    d = wins(20, 12, Fate.NEUTRAL)
    assert 6 ** (20 + 11) % d.total == 0  # exact weights over a power of 6, no remainder term
    assert sum(d.pmf().values()) == 1


def test_one_more_die_is_worth_one_win_on_average() -> None:
    # uncapped mean wins per die = (B + C) / (1 − C): exactly 1 for neutral dice
    for fate in Fate:
        _lose, win, explode = fate.value
        per_die = Fraction(win + explode, 6 - explode)
        big_cap = wins(1, 400, fate)
        assert abs(big_cap.mean() - per_die) < Fraction(1, 10**20)
    assert Fraction(2 + 2, 6 - 2) == 1
    # with the cap the expectation is lower than the dice count
    assert wins(9, 9).mean() < 9


def test_fates_order_the_chances() -> None:
    order = [Fate.CURSED, Fate.UNLUCKY, Fate.NEUTRAL, Fate.LUCKY, Fate.BLESSED]
    for level in range(1, 11):
        for difficulty in range(1, 11):
            chances = [p_check(Roller(level, fate), difficulty) for fate in order]
            assert chances == sorted(chances)


@given(st.integers(1, 15), st.integers(1, 12), st.sampled_from(list(Fate)))
def test_more_dice_help_harder_tasks_hurt(level: int, difficulty: int, fate: Fate) -> None:
    p = p_check(Roller(level, fate), difficulty)
    assert p_check(Roller(level + 1, fate), difficulty) >= p
    assert p_check(Roller(level, fate), difficulty + 1) <= p


def test_difficulty_names() -> None:
    assert len(DIFFICULTY_NAMES) == 10
    assert difficulty_name(1) == "trivial"
    assert difficulty_name(6) == "challenging"
    assert difficulty_name(10) == "impossible"
    assert difficulty_name(11) == "off the scale"


def test_the_seeds_descriptions_of_hard_difficulties() -> None:
    # "very difficult" (8): the greatest mortal practitioners succeed slightly more than half
    assert Fraction(1, 2) < p_check(Roller(8), 8) < Fraction(3, 5)
    # "impossible" (10): out of mortal reach; a god succeeds about two times out of three
    assert p_check(Roller(30), 10) == 0
    god = p_check(Roller(11, supernatural=True), 10)
    assert abs(float(god) - 2 / 3) < 0.02


def test_supernatural_potential_raises_the_cap() -> None:
    assert wins(30, 9).high == 9
    assert wins(30, 12).high == 12
    assert Roller(5, supernatural=True).cap == 12


def test_leverage_is_added_after_the_cap_by_default() -> None:
    capped_then_added = Roller(30, leverage=3).total()
    assert capped_then_added.high == 12
    assert Roller(30, leverage=3, leverage_before_cap=True).total().high == 9
    # the two readings agree wherever the cap is not reached
    low = Roller(1, leverage=2)
    assert low.total().p_at_least(4) == Roller(
        1, leverage=2, leverage_before_cap=True
    ).total().p_at_least(4)


def test_negative_leverage_before_the_cap() -> None:
    total = Roller(3, leverage=-2, leverage_before_cap=True).total()
    raw = wins(3, 40)
    assert total.pmf() == (raw - 2).clamp(hi=9).pmf()


def test_labor_never_leaves_a_trained_skill_without_a_die() -> None:
    assert dice_for(5, 2) == 7
    assert dice_for(3, -5) == 1
    assert dice_for(0) == 0 and dice_for(0, 2) == 2 and dice_for(0, -1) == 0
    assert Roller(0).total() == Distribution.point(0)
    with pytest.raises(ValueError, match="negative"):
        dice_for(-1)


def test_modifier_minima_and_maxima() -> None:
    assert resolve_modifier([1, 2, -1]) == 2
    assert resolve_modifier([0], minima=[2, 1]) == 2  # the highest minimum applies
    assert resolve_modifier([5], maxima=[4, 3]) == 3  # the lowest maximum applies
    assert resolve_modifier([5], minima=[1], maxima=[3]) == 3
    assert resolve_modifier([0], minima=[4], maxima=[2]) == 0  # max < min: minimum ignored
    assert resolve_modifier([6], minima=[4], maxima=[2]) == 2


def test_group_checks() -> None:
    team = [Roller(3), Roller(5)]
    a, b = (r.total() for r in team)
    d = 4
    assert p_group_check(team, "max", d) == 1 - a.p_less(d) * b.p_less(d)
    assert p_group_check(team, "min", d) == a.p_at_least(d) * b.p_at_least(d)
    mean_ok = sum(
        (Fraction(wa, a.total) * Fraction(wb, b.total))
        for x, wa in a.items()
        for y, wb in b.items()
        if Fraction(x + y, 2) >= d
    )
    assert p_group_check(team, "average", d) == mean_ok
    with pytest.raises(ValueError, match="at least one"):
        p_group_check([], "max", 3)


def test_contests_and_rerolled_ties() -> None:
    odds = contest([Roller(5)], [Roller(5)])
    assert odds.first == odds.second and odds.first + odds.tie + odds.second == 1
    first, second = odds.rerolling_ties()
    assert first == second == Fraction(1, 2)
    fire = contest([Roller(3, leverage=5)], [Roller(3)])
    assert fire.first > 0.9
    with pytest.raises(ValueError, match="same number"):
        contest([Roller(3), Roller(2)], [Roller(3)])


def test_two_skills_double_the_difficulty() -> None:
    craft, talk = Roller(4), Roller(3)
    both = craft.total() + talk.total()
    assert p_check_two_skills(craft, talk, 5) == both.p_at_least(10)
    # against a single skill, the other side rolls it twice
    odds = contest([craft, talk], [Roller(4), Roller(4)])
    assert odds.first + odds.tie + odds.second == 1


def test_unknown_fate_is_named_in_the_error() -> None:
    assert Fate.named("Lucky") is Fate.LUCKY
    with pytest.raises(ValueError, match="cursed, unlucky, neutral, lucky, blessed"):
        Fate.named("jinxed")


def test_leverage_past_any_character_is_refused_not_worked_out() -> None:
    """Read before the cap, a leverage of 10**6 worked the dice's wins out that far (gigabytes)."""
    from mechanics.d6pool import MAX_LEVERAGE

    assert Roller(3, leverage=MAX_LEVERAGE, leverage_before_cap=True).total().p_at_least(4) == 1
    for leverage in (MAX_LEVERAGE + 1, -(10**6)):
        with pytest.raises(ValueError, match="leverage must be within"):
            Roller(3, leverage=leverage, leverage_before_cap=True)
