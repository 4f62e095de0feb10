"""The d5 stop-die system: closed forms against enumeration, the tables, the examples."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechanics import d5_tables as tables
from mechanics.d5 import (
    ControlledRoll,
    NetResult,
    StopCount,
    continue_chance,
    count_rolls,
    refine,
)


def enumerated_count(die_faces: int, stops: set[int], depth: int) -> dict[int, Fraction]:
    """P(count = k) for k < depth by listing every face sequence of that length."""
    counts = dict.fromkeys(range(depth), Fraction(0))
    for length in range(1, depth + 1):
        for seq in itertools.product(range(1, die_faces + 1), repeat=length):
            if seq[-1] in stops and not any(f in stops for f in seq[:-1]):
                counts[length - 1] += Fraction(1, die_faces**length)
    return counts


@pytest.mark.parametrize(("faces", "stops", "die"), [(5, {1}, "d5"), (10, {1, 2}, "d10")])
def test_single_count_matches_enumerated_sequences(faces: int, stops: set[int], die: str) -> None:
    count = StopCount(continue_chance(die))
    for k, p in enumerated_count(faces, stops, 5 if faces == 5 else 4).items():
        assert count.pmf(k) == p
    assert count.p_at_least(3) == Fraction(64, 125)


def test_d5_and_d10_are_the_same_rule() -> None:
    assert continue_chance("d5") == continue_chance("d10") == Fraction(4, 5)


def test_net_result_is_four_fifths_to_the_distance_over_nine() -> None:
    net = NetResult()
    single = StopCount()
    for k in range(-6, 7):
        by_sum = sum(
            (single.pmf(p) * single.pmf(p - k) for p in range(max(k, 0), max(k, 0) + 400)),
            Fraction(0),
        )
        assert abs(by_sum - net.pmf(k)) < Fraction(1, 10**30)
        assert net.pmf(k) == Fraction(4, 5) ** abs(k) / 9


@given(st.integers(-60, 60))
def test_net_is_symmetric_and_tails_agree(k: int) -> None:
    net = NetResult()
    assert net.pmf(k) == net.pmf(-k)
    assert net.p_at_least(k) == 1 - net.p_at_least(1 - k)
    assert net.p_at_least(k) - net.p_at_least(k + 1) == net.pmf(k)


@given(st.integers(0, 40), st.integers(0, 40))
def test_a_roll_has_no_memory(j: int, k: int) -> None:
    count = StopCount()
    assert count.p_at_least(j + k) / count.p_at_least(j) == count.p_at_least(k)


def test_truncations_report_their_exact_outside_mass() -> None:
    for roll in (StopCount(), NetResult()):
        dist, outside = roll.truncated(1e-15)
        assert outside < Fraction(1, 10**15)
        inside = sum((roll.pmf(k) for k in range(dist.low, dist.high + 1)), Fraction(0))
        assert inside + outside == 1
        assert dist.probability(0) == roll.pmf(0) / inside  # conditioned on the listed range


# --- the seed's worked examples ---------------------------------------------------------------
def test_d100_examples() -> None:
    assert tables.read_table1([24]) - tables.read_table1([50]) == 1 - 3 == -2
    assert tables.read_table2([28]) == -3
    assert tables.read_table1([96, 99, 93, 61]) == 34


def test_d10_sequences() -> None:
    positive = count_rolls([3, 8, 10, 7, 9, 4, 6, 3, 10, 10, 8, 4, 2], "d10")
    negative = count_rolls([3, 6, 9, 4, 4, 1], "d10")
    assert (positive, negative, positive - negative) == (12, 5, 7)
    assert refine(7, [3, 5]) == Fraction(735, 100)
    assert refine(-2, [10]) == -2  # a d10's 10 face is the digit 0


def test_bad_rolls_are_refused() -> None:
    with pytest.raises(ValueError, match="stop face"):
        count_rolls([3, 4], "d5")
    with pytest.raises(ValueError, match="before its last die"):
        count_rolls([1, 3, 1], "d5")
    with pytest.raises(ValueError, match="another roll"):
        tables.read_table1([95])
    with pytest.raises(ValueError, match="complete"):
        tables.read_table1([20, 95])
    with pytest.raises(ValueError, match="1–100"):
        tables.read_table2([0])
    with pytest.raises(ValueError, match="d5, d10 or d6"):
        continue_chance("d8")


# --- the printed tables ----------------------------------------------------------------------
def test_table_1_rows_beside_the_rule() -> None:
    rows = {r.result: r for r in tables.table1_rows()}
    assert [r.printed for r in tables.table1_rows()] == [
        Fraction(w, 100) for w in (20, 16, 13, 11, 8, 6, 6, 4, 3, 3, 10)
    ]
    assert rows[0].exact == Fraction(1, 5) and rows[0].error == 0
    assert rows[10].exact == Fraction(4, 5) ** 10
    # every printed band is within 1.2 points of the exact chance
    assert max(abs(r.error) for r in rows.values()) < Fraction(12, 1000)


def test_second_rows_continue_chances() -> None:
    single, net = StopCount(), NetResult()
    for k in range(0, 30):  # Table 1: "80%" to move up one, at every result
        assert single.p_at_least(k + 1) / single.p_at_least(k) == Fraction(4, 5)
    for k in range(1, 30):  # Table 2: 80% to move away from 0, both ways
        assert net.p_at_least(k + 1) / net.p_at_least(k) == Fraction(4, 5)
        assert (1 - net.p_at_least(-k)) / (1 - net.p_at_least(1 - k)) == Fraction(4, 5)
    # below 0: "44%/44%", 4/9 up, 4/9 down and 1/9 to stay
    assert (net.p_greater(0), net.pmf(0), 1 - net.p_at_least(0)) == (
        Fraction(4, 9),
        Fraction(1, 9),
        Fraction(4, 9),
    )


def test_table_1_recursion_is_self_consistent() -> None:
    total = sum((tables.table1_probability(k) for k in range(0, 120)), Fraction(0))
    assert 1 - total < Fraction(1, 10**11)
    # "91-100 again": 10 + r is a tenth as likely as r
    assert tables.table1_probability(13) == tables.table1_probability(3) / 10


def test_table_2_rows_beside_the_rule() -> None:
    rows = {r.result: r for r in tables.table2_rows()}
    assert rows[0].printed == Fraction(8, 100)
    assert rows[0].exact == Fraction(1, 9)  # the seed's own remark: 8% against 11%
    assert rows[10].exact == Fraction(5, 9) * Fraction(4, 5) ** 10
    assert sum(r.printed for r in rows.values()) == 1
    assert tables.table2_probability(-12) == tables.table2_probability(12)


def test_table_3_is_the_formula_to_two_significant_figures() -> None:
    for alpha, beta, printed in tables.TABLE3_PRINTED:
        computed = [
            tables.round_two_significant(tables.table3_value(alpha, beta, i)) for i in range(11)
        ]
        assert tuple(computed) == printed, (alpha, beta)


def test_table_4_is_the_formula_rounded_down() -> None:
    for alpha in range(1, 11):
        row = tuple(tables.table4_printed_rule(alpha, beta) for beta in range(11))
        assert row == tables.TABLE4_PRINTED[alpha - 1]
    # plain rounding would not reproduce it: 10 log2(1 + 2^−0.1) = 9.51 is printed 9
    assert round(tables.table4_value(10, 1)) == 10 and tables.TABLE4_PRINTED[9][1] == 9


def test_combining_four_searchers() -> None:
    assert tables.combine_pair(5, 7, 5) == 11
    assert tables.combine_pair(11, 13, 5) == 17
    assert tables.combine_pair(17, 17, 5) == 22
    assert tables.combine([5, 7, 13, 17], 5) == 22
    # "a full 10 for equal characters, the better 5 points ahead ... plus 7"
    assert tables.TABLE4_PRINTED[10 - 1][5] == tables.table4_printed_rule(10, 5) == 7
    assert tables.combine_exact([5, 7, 13, 17], 5) == pytest.approx(22.0497, abs=1e-4)
    # the formula is order-free; the rounded table only nearly so
    assert tables.combine_exact([17, 5, 13, 7], 5) == pytest.approx(
        tables.combine_exact([5, 7, 13, 17], 5)
    )


def test_design_guideline_claims() -> None:
    net, single = NetResult(), StopCount()
    assert float(net.p_at_least(10)) == pytest.approx(0.0597, abs=1e-4)  # "approximately 5%"
    assert float(single.p_at_least(10)) == pytest.approx(0.1074, abs=1e-4)  # "about 10%"


def test_refined_result_is_the_net_spread_uniformly_over_its_unit() -> None:
    net = NetResult()
    assert net.p_refined_at_least(Fraction(735, 100)) == net.p_at_least(8) + Fraction(
        65, 100
    ) * net.pmf(7)
    assert net.refined_level(Fraction(1, 2)) == Fraction(1, 2)  # the middle of the 0 unit
    for k in range(-5, 6):
        assert net.p_refined_at_least(k) == net.p_at_least(k)


@given(st.fractions(min_value=Fraction(1, 10**12), max_value=1 - Fraction(1, 10**12)))
def test_refined_level_inverts_the_refined_tail(p: Fraction) -> None:
    net = NetResult()
    assert net.p_refined_at_least(net.refined_level(p)) == p


def test_best_of_two_is_worth_about_three_not_five() -> None:
    net = NetResult()
    for t in range(-12, 40):
        bonus = tables.best_of_two_bonus(t)
        one = net.p_at_least(t)
        assert net.p_refined_at_least(t - bonus) == 1 - (1 - one) ** 2  # exact equivalence
        assert tables.both_succeed_penalty(1 - t) == bonus  # the reverse roll, as the seed says
    # in the tail: 4 − 0.904 (the refined unit), beside log 2 / log(5/4) on the smooth curve
    assert abs(tables.best_of_two_bonus(80) - Fraction(387, 125)) < Fraction(1, 10**6)
    assert float(Fraction(387, 125)) == pytest.approx(0.6931 / 0.2231, abs=0.02)
    assert all(tables.best_of_two_bonus(t) < Fraction(16, 5) for t in range(1, 60))
    # row 5 fits only easy checks, where each actor alone succeeds about 2 times in 3
    assert tables.best_of_two_bonus(-1) < 5 < tables.best_of_two_bonus(-2)


def test_d6_approximation_error() -> None:
    d6 = NetResult(continue_chance("d6"))
    assert d6.pmf(0) == Fraction(1, 11)
    assert float(StopCount(Fraction(5, 6)).mean() - StopCount().mean()) == 1.0
    tv = NetResult().total_variation(d6)
    assert 0.07 < tv < 0.08
    # "3% on each roll": 5/6 − 4/5 = 1/30 per die, compounding down the tail
    assert continue_chance("d6") - continue_chance("d5") == Fraction(1, 30)
    d6_single = StopCount(continue_chance("d6"))
    assert d6_single.p_at_least(10) / StopCount().p_at_least(10) == Fraction(25, 24) ** 10
    assert float(d6.p_at_least(3)) == pytest.approx(0.3157, abs=1e-4)


def test_pragmatics_is_the_rule_with_a_tie_split() -> None:
    for d in range(0, 12):
        p = tables.pragmatics(d)
        assert p.shortcut == p.exact_exceeds + (p.exact_meets - p.exact_exceeds) / 2
        assert p.exact_meets - p.shortcut == Fraction(1, 18) * Fraction(4, 5) ** d
    # the climber: 57 against 49, eight dice, a 1 among them
    assert tables.pragmatics_roll([3, 5, 6, 1, 3, 9, 9, 8]) is False
    assert tables.pragmatics_roll([3, 5, 6, 7, 3, 9, 9, 8]) is None
    assert tables.pragmatics_roll([3, 5, 6, 7, 3, 9, 9, 8], coin_heads=True) is True


def test_controlled_roll_is_a_negative_binomial_average() -> None:
    plain = ControlledRoll(0)
    assert plain.p_at_least(3) == StopCount().p_at_least(3)
    two = ControlledRoll(1)
    # average of two counts minus 1 ≥ 0  ⇔  C1 + C2 ≥ 2
    single = StopCount()
    by_hand = 1 - sum(single.pmf(a) * single.pmf(b) for a in range(2) for b in range(2 - a))
    assert two.p_at_least(0) == by_hand
    assert two.mean() == 3
    assert two.variance() == StopCount().mean() * 5 / 2  # 20 / (n + 1)
    assert two.pmf(Fraction(1, 2)) == 4 * Fraction(1, 25) * Fraction(4, 5) ** 3  # C1 + C2 = 3
    assert two.pmf(Fraction(1, 3)) == 0
    assert sum(two.p_sum(s) for s in range(400)) > 1 - Fraction(1, 10**30)
    with pytest.raises(ValueError, match="negative"):
        ControlledRoll(-1)
