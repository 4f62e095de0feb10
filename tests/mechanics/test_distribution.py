"""The exact Distribution: every operation against a brute-force enumeration."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechanics.distribution import Distribution, _convolve

small_weights = st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=12).filter(
    lambda ws: ws[0] > 0 and ws[-1] > 0
)
dists = st.builds(Distribution, st.integers(min_value=-20, max_value=20), small_weights.map(tuple))


def enumerate_pairs(a: Distribution, b: Distribution) -> list[tuple[int, int, int]]:
    """(x, y, weight) for every pair of outcomes of two independent rolls."""
    return [(x, y, wa * wb) for (x, wa), (y, wb) in itertools.product(a.items(), b.items())]


def from_pairs(pairs: list[tuple[int, int, int]], f) -> dict[int, Fraction]:
    total = sum(w for _, _, w in pairs)
    acc: Counter[int] = Counter()
    for x, y, w in pairs:
        acc[f(x, y)] += w
    return {k: Fraction(v, total) for k, v in acc.items() if v}


def test_a_die_has_equal_chances() -> None:
    d6 = Distribution.uniform(1, 6)
    assert d6.pmf() == {k: Fraction(1, 6) for k in range(1, 7)}
    assert d6.mean() == Fraction(7, 2)
    assert d6.variance() == Fraction(35, 12)


def test_three_d6_by_enumeration() -> None:
    counts = Counter(sum(r) for r in itertools.product(range(1, 7), repeat=3))
    three = Distribution.uniform(1, 6).repeat_sum(3)
    assert three.pmf() == {k: Fraction(v, 216) for k, v in counts.items()}
    assert three.p_at_least(10) == Fraction(135, 216)
    assert three.p_at_least(11) == Fraction(1, 2)


def test_fraction_weights_are_scaled_to_integers() -> None:
    d = Distribution.from_weights({0: Fraction(1, 3), 2: Fraction(1, 6)})
    assert d.weights == (2, 0, 1)
    assert d.probability(0) == Fraction(2, 3)
    assert d.probability(1) == 0


def test_bad_weights_are_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Distribution.from_weights({1: -1, 2: 3})
    with pytest.raises(ValueError, match="positive weight"):
        Distribution.from_weights({1: 0})
    with pytest.raises(ValueError, match="at least one"):
        Distribution.from_weights({})
    with pytest.raises(ValueError, match="trimmed"):
        Distribution(0, (0, 1))


def test_values_are_immutable() -> None:
    d = Distribution.uniform(1, 4)
    with pytest.raises(AttributeError):
        d.low = 3  # type: ignore[misc]


@given(dists, dists)
def test_sum_matches_enumeration(a: Distribution, b: Distribution) -> None:
    assert (a + b).pmf() == from_pairs(enumerate_pairs(a, b), lambda x, y: x + y)


@given(dists, dists)
def test_difference_matches_enumeration(a: Distribution, b: Distribution) -> None:
    assert (a - b).pmf() == from_pairs(enumerate_pairs(a, b), lambda x, y: x - y)


@given(dists, dists)
def test_max_and_min_match_enumeration(a: Distribution, b: Distribution) -> None:
    pairs = enumerate_pairs(a, b)
    assert a.max_with(b).pmf() == from_pairs(pairs, max)
    assert a.min_with(b).pmf() == from_pairs(pairs, min)


@given(dists, dists)
def test_compare_partitions_certainty(a: Distribution, b: Distribution) -> None:
    gt, eq, lt = a.compare(b)
    pairs = enumerate_pairs(a, b)
    total = sum(w for *_, w in pairs)
    assert gt == Fraction(sum(w for x, y, w in pairs if x > y), total)
    assert eq == Fraction(sum(w for x, y, w in pairs if x == y), total)
    assert gt + eq + lt == 1


@given(
    st.lists(st.integers(min_value=0, max_value=10**30), min_size=1, max_size=60),
    st.lists(st.integers(min_value=0, max_value=10**30), min_size=1, max_size=60),
)
def test_packed_convolution_equals_schoolbook(a: list[int], b: list[int]) -> None:
    expected = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            expected[i + j] += x * y
    if max(a) == 0 or max(b) == 0:
        return  # the packed path needs a positive bound; distributions never hit this
    assert list(_convolve(a, b)) == expected


@given(dists, st.integers(min_value=0, max_value=6))
def test_repeat_sum_equals_repeated_addition(d: Distribution, n: int) -> None:
    expected = Distribution.point(0)
    for _ in range(n):
        expected = expected + d
    assert d.repeat_sum(n) == expected


@given(dists, st.integers(-25, 25), st.integers(0, 10))
def test_clamp_moves_mass_to_the_bounds(d: Distribution, lo: int, width: int) -> None:
    hi = lo + width
    clamped = d.clamp(lo, hi)
    assert clamped.pmf() == d.map(lambda x: min(max(x, lo), hi)).pmf()


def test_clamp_refuses_reversed_bounds() -> None:
    with pytest.raises(ValueError, match="reversed"):
        Distribution.uniform(1, 6).clamp(5, 2)


@given(dists, st.integers(-25, 25))
def test_tail_queries_agree(d: Distribution, k: int) -> None:
    pmf = d.pmf()
    assert d.p_at_least(k) == sum((p for x, p in pmf.items() if x >= k), Fraction(0))
    assert d.p_at_most(k) == sum((p for x, p in pmf.items() if x <= k), Fraction(0))
    assert d.p_at_least(k) + d.p_less(k) == 1
    assert d.p_greater(k) + d.p_at_most(k) == 1
    assert sum(d.pmf().values()) == 1


def test_condition_is_a_reroll() -> None:
    d6 = Distribution.uniform(1, 6)
    assert d6.condition(lambda x: x != 6).pmf() == {k: Fraction(1, 5) for k in range(1, 6)}
    with pytest.raises(ValueError, match="impossible"):
        d6.condition(lambda x: x > 6)


def test_float_view_matches_exact_values() -> None:
    d = Distribution.uniform(-1, 1).repeat_sum(4)
    outcomes, probs = d.to_numpy()
    assert outcomes.tolist() == list(range(-4, 5))
    assert probs.tolist() == pytest.approx([float(d.probability(x)) for x in range(-4, 5)])


def test_sampling_uses_only_the_injected_generator() -> None:
    d = Distribution.uniform(1, 20)
    first = d.sample_many(random.Random(7), 50)
    random.seed(12345)  # the global generator must not matter
    second = d.sample_many(random.Random(7), 50)
    assert first == second
    assert d.sample(random.Random(7)) == first[0]


def test_sampling_frequencies_follow_the_weights() -> None:
    d = Distribution.from_weights({0: 1, 1: 3})
    draws = d.sample_many(random.Random(2026), 40_000)
    share = draws.count(1) / len(draws)
    # 3/4 with a binomial standard error of about 0.0022; 5 standard errors of slack
    assert abs(share - 0.75) < 0.011
    assert set(draws) == {0, 1}
