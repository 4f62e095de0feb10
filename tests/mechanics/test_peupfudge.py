"""Peupfudge: NdF against enumeration, the seed's tables and every worked example."""

from __future__ import annotations

import itertools
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechanics.peupfudge import Action, Participant, Progress, from_xp, fudge, opposed, xp_cost

# Appendix D as printed: rows 1dF..9dF, columns ≥ −5 .. ≥ 5.
APPENDIX_D = {
    1: "1.00 1.00 1.00 1.00 1.00 0.67 0.33 0.00 0.00 0.00 0.00",
    2: "1.00 1.00 1.00 1.00 0.89 0.67 0.33 0.11 0.00 0.00 0.00",
    3: "1.00 1.00 1.00 0.96 0.85 0.63 0.37 0.15 0.04 0.00 0.00",
    4: "1.00 1.00 0.99 0.94 0.81 0.62 0.38 0.19 0.06 0.01 0.00",
    5: "1.00 1.00 0.98 0.91 0.79 0.60 0.40 0.21 0.09 0.02 0.00",
    6: "1.00 0.99 0.96 0.89 0.77 0.60 0.40 0.23 0.11 0.04 0.01",
    7: "1.00 0.98 0.95 0.87 0.75 0.59 0.41 0.25 0.13 0.05 0.02",
    8: "0.99 0.98 0.94 0.86 0.74 0.58 0.42 0.26 0.14 0.06 0.02",
    9: "0.99 0.97 0.92 0.84 0.73 0.58 0.42 0.27 0.16 0.08 0.03",
}
REFERENCE_SHEET = {
    -3: ".99",
    -2: ".94",
    -1: ".81",
    0: ".62",
    1: ".38",
    2: ".19",
    3: ".06",
    4: ".01",
}


def two_decimals(p: Fraction) -> Decimal:
    return (Decimal(p.numerator) / Decimal(p.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )


@pytest.mark.parametrize("n", range(0, 8))
def test_fudge_sum_matches_enumeration(n: int) -> None:
    counts = Counter(sum(faces) for faces in itertools.product((-1, 0, 1), repeat=n))
    assert fudge(n).pmf() == {k: Fraction(c, 3**n) for k, c in counts.items()}


def test_two_hundred_fudge_dice_are_exact() -> None:
    d = fudge(200)
    assert (d.low, d.high, d.total) == (-200, 200, 3**200)
    assert d.weight(200) == 1 and d.weight(199) == 200
    assert d.variance() == Fraction(2 * 200, 3)


@pytest.mark.parametrize("n", APPENDIX_D)
def test_appendix_d_reproduces_to_two_decimals(n: int) -> None:
    printed = [Decimal(x) for x in APPENDIX_D[n].split()]
    exact = [two_decimals(fudge(n).p_at_least(k)) for k in range(-5, 6)]
    assert exact == printed


def test_reference_sheet_reproduces() -> None:
    for k, printed in REFERENCE_SHEET.items():
        assert two_decimals(fudge(4).p_at_least(k)) == Decimal("0" + printed)


def test_the_highlighted_columns_are_near_one_half() -> None:
    # columns ≥ 0 and ≥ 1 bracket one half for every N
    for n in range(1, 10):
        assert fudge(n).p_at_least(1) < Fraction(1, 2) < fudge(n).p_at_least(0)


def test_spread_grows_like_the_square_root() -> None:
    var = {n: fudge(n).variance() for n in (2, 4, 6)}
    assert var == {2: Fraction(4, 3), 4: Fraction(8, 3), 6: Fraction(4)}
    sd = {n: float(v) ** 0.5 for n, v in var.items()}
    assert sd[4] - sd[2] > sd[6] - sd[4]


@given(st.integers(0, 60), st.integers(-70, 70))
def test_fudge_is_symmetric(n: int, k: int) -> None:
    d = fudge(n)
    assert d.probability(k) == d.probability(-k)
    assert sum(d.pmf().values()) == 1


@given(st.integers(-10, 10), st.integers(-10, 10), st.integers(-10, 10), st.integers(1, 9))
def test_more_level_helps_more_difficulty_hurts(lv: int, bonus: int, d: int, n: int) -> None:
    base = Action(lv, d, bonus, n).p_success()
    assert Action(lv + 1, d, bonus, n).p_success() >= base
    assert Action(lv, d + 1, bonus, n).p_success() <= base


# --- worked examples ------------------------------------------------------------------------
def test_example_1_magical_bridge() -> None:
    bridge = Action(level=6, difficulty=7, bonus=-1)
    assert bridge.needed == 2
    assert 6 - 1 + 3 >= 7  # the roll of +3 succeeds
    assert bridge.p_success() == fudge(4).p_at_least(2)
    assert Progress(0).allocate(3) == Progress(2, 0)  # Mycology 0 → 2
    magic = Progress(6, 22).allocate(7)
    assert magic == Progress(6, 29) and magic.next_cost == 64


def test_example_2_starting_xp() -> None:
    kotorikh = {"Perception": 19, "Knowledge": 31}
    obazana = {"Muscle": 21, "Charisma": 13, "Perception": 7, "Knowledge": 9}
    assert str(from_xp(kotorikh["Perception"])) == "4 (+4/16)"  # before the +7 bonus
    assert str(from_xp(kotorikh["Perception"] + 7)) == "4 (+11/16)"  # as printed
    assert str(from_xp(kotorikh["Knowledge"])) == "5"
    assert {k: str(from_xp(v)) for k, v in obazana.items()} == {
        "Muscle": "4 (+6/16)",
        "Charisma": "3 (+6/8)",
        "Perception": "3",
        "Knowledge": "3 (+2/8)",
    }
    # the night's Perception checks, both Tired (A = −1) against D = 3
    assert Action(4, 3, -1).p_success() == fudge(4).p_at_least(0) == Fraction(50, 81)
    assert Action(3, 3, -1).p_success() == fudge(4).p_at_least(1) == Fraction(31, 81)
    assert 4 - 1 - 1 < 3 and 3 - 1 + 0 < 3  # both rolled 2 and slept through


def test_example_3_the_arrow_is_about_one_in_five() -> None:
    arrow = Action(level=2, difficulty=4)
    assert arrow.needed == 2
    assert arrow.p_success() == Fraction(5, 27)
    assert abs(float(arrow.p_success()) - 1 / 5) < 0.02
    assert arrow.performance().low == 2 - 4 - 4  # the worst performance possible
    assert 2 + 0 - 1 - 4 == -3


def test_example_4_the_race() -> None:
    racers = [
        Participant("Gromanno", 2 + 1),
        Participant("Nyrv", 5 - 1),
        Participant("Polthova", 8),
    ]
    odds = opposed(racers)
    assert sum(odds.wins) + odds.tie == 1
    assert odds.wins[2] > odds.wins[1] > odds.wins[0]  # before the roll Polthova is favoured
    totals = {"Gromanno": 3 + 0, "Nyrv": 4 + 2, "Polthova": 8 - 3}
    assert max(totals, key=totals.__getitem__) == "Nyrv"


def test_opposed_matches_enumeration() -> None:
    people = [Participant("a", 1, 2), Participant("b", 0, 2), Participant("c", 2, 1)]
    wins: Counter[int | str] = Counter()
    for faces in itertools.product((-1, 0, 1), repeat=5):
        totals = [1 + faces[0] + faces[1], 0 + faces[2] + faces[3], 2 + faces[4]]
        top = max(totals)
        winners = [i for i, t in enumerate(totals) if t == top]
        wins[winners[0] if len(winners) == 1 else "tie"] += 1
    odds = opposed(people)
    assert odds.wins == tuple(Fraction(wins[i], 3**5) for i in range(3))
    assert odds.tie == Fraction(wins["tie"], 3**5)
    with pytest.raises(ValueError, match="two participants"):
        opposed(people[:1])


def test_example_5_level_modifiers() -> None:
    hobbit = Progress(3)
    assert hobbit.modified(-1) == 2
    stronger = hobbit.allocate(9)
    assert str(stronger) == "4 (+1/16)" and stronger.modified(-1) == 3
    ant = Progress(7)
    assert ant.modified(-50) == -43
    assert ant.allocate(xp_cost(7)).modified(-50) == -42
    assert xp_cost(ant.level) == 2**7  # the cost uses the unmodified level


def test_xp_table_of_the_reference_sheet() -> None:
    assert [xp_cost(lv) for lv in range(10)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert [from_xp(x).level for x in (0, 1, 3, 7, 15, 31, 63, 127, 255, 511)] == list(range(10))
    assert [from_xp(x - 1).level for x in (1, 3, 7, 15)] == [0, 1, 2, 3]


def test_bad_xp_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        from_xp(-1)
    with pytest.raises(ValueError, match="cannot be taken back"):
        Progress(2).allocate(-1)
    with pytest.raises(ValueError, match="outside"):
        Progress(2, 4)
    with pytest.raises(ValueError, match="negative number"):
        fudge(-1)
