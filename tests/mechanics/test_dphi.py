"""dφ: every worked example of the seed, and the properties the rules promise."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechanics import dphi
from mechanics.dphi import Check, Roll

mights = st.floats(min_value=-60, max_value=60, allow_nan=False)
swings = st.floats(min_value=0.05, max_value=60, allow_nan=False)
hops = st.floats(min_value=-60, max_value=60, allow_nan=False)


# --- hops -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("h", "printed"),
    [
        (1, 1.0352649238413775),
        (2, 1.0717734625362932),
        (3, 1.1095694720678450),
        (10, math.sqrt(2)),
        (20, 2.0),
    ],
)
def test_the_seeds_hop_table(h: int, printed: float) -> None:
    assert dphi.hops_to_factor(h) == pytest.approx(printed, rel=1e-15)


def test_opposite_hops_cancel_and_three_hops_is_not_point_three() -> None:
    assert dphi.hops_to_factor(-3) * dphi.hops_to_factor(3) == pytest.approx(1.0)
    assert dphi.hops_to_factor(-20) == pytest.approx(0.5)
    assert dphi.factor_to_hops(2.0) == pytest.approx(20.0)
    assert dphi.factor_to_hops(1.5) == pytest.approx(11.699, abs=1e-3)


@given(hops, hops)
def test_hops_add_where_factors_multiply(a: float, b: float) -> None:
    r = Roll(8.0, 1.0)
    assert r.with_hops(a).with_hops(b).swing == pytest.approx(r.with_hops(a + b).swing)


def test_splitting_among_rollers() -> None:
    assert dphi.split_hops(1) == 0
    assert dphi.split_hops(2) == -10
    assert dphi.split_hops(4) == -20
    with pytest.raises(ValueError, match="at least one roller"):
        dphi.split_hops(0)


# --- the worked examples --------------------------------------------------------------------
def test_jarvil_cutting_the_ropes_has_even_chances() -> None:
    # might score 3 + 2 + 3 − 4 = 4 against the ropes' challenge 4
    assert dphi.pc_vs_npc(3 + 2 + 3 - 4, 4).p_success == 0.5


def test_jarvils_rapier_attack_is_52_5_percent() -> None:
    # 3 + 1.5 + 2 = 6.5 against the guard's 2 + 0 + 3 + 1 = 6: 8dφ + 0.5
    attack = dphi.pc_vs_npc(3 + 1.5 + 2, 2 + 0 + 3 + 1)
    assert attack.roll == Roll(8.0, 0.5)
    assert round(100 * attack.p_success, 1) == 52.5


def test_xihaia_against_the_dragon() -> None:
    plain = dphi.pc_vs_npc(14, 27)
    assert round(100 * plain.p_success) == 5
    chaos = dphi.pc_vs_npc(14, 27, hops=16)
    assert round(chaos.roll.swing, 1) == 13.9
    assert round(100 * chaos.p_success, 1) == 17.5
    assert chaos.roll.p_above(0) < chaos.roll.p_above(-3.67)  # her 3.67 is a success


def test_yuvash_against_the_trap_uses_the_static_swing() -> None:
    trap = dphi.static_challenge(4 + 1 + 0, 6)
    assert trap.roll.might == -1
    assert trap.roll.swing == pytest.approx(5.657, abs=5e-4)
    assert trap.roll.swing == pytest.approx(8 / math.sqrt(2))


def test_chancon_and_orval_split_swing() -> None:
    bout = dphi.pc_vs_pc(4, 6)
    assert bout.first.swing == pytest.approx(5.6569, abs=5e-5)
    assert bout.second.swing == bout.first.swing
    # splitting changes nothing: the same chance as one 8dφ + (4 − 6) roll
    assert bout.p_first_wins == pytest.approx(dphi.pc_vs_npc(4, 6).p_success, rel=1e-12)


def test_chancon_against_fleurence() -> None:
    thrust = dphi.pc_vs_npc(5, 10)
    riposte = dphi.pc_vs_npc(4, 8.5)
    assert thrust.roll == Roll(8.0, -5.0)
    assert riposte.roll == Roll(8.0, -4.5)
    # his rolls −0.24… and −1.32… are failures
    assert not thrust.succeeds(dphi.phi((-0.24 + 5) / 8))
    assert not riposte.succeeds(dphi.phi((-1.32 + 4.5) / 8))


def test_larietta_one_roll_against_many_guards() -> None:
    roll = dphi.pc_vs_npc(8, 0).roll  # she rolls 8dφ + 8 and compares with each insight
    each, all_of_them = dphi.against_each(roll, [5, 4, 11])
    assert each[0] == pytest.approx(dphi.phi(3 / 8))
    assert each[2] == pytest.approx(dphi.phi(-3 / 8))
    assert all_of_them == each[2]
    # her 10.13 beats insight 5, not 11
    assert 10.13 > 5 and 10.13 < 11


def test_secret_opponent_might_gives_the_same_chance() -> None:
    secret = Roll(8.0, 6.5).p_above(6.0)
    assert secret == pytest.approx(dphi.pc_vs_npc(6.5, 6.0).p_success)


def test_the_normal_curves_landmarks() -> None:
    unit = Roll(1.0, 0.0)
    assert round(unit.p_between(-1, 1), 3) == 0.683
    assert round(unit.p_between(-3, 3), 3) == 0.997
    assert 1 - unit.p_between(-4, 4) < 1 / 10_000
    assert Roll(8.0, -4 * 8.0).p_success() < 1 / 10_000


def test_minor_swing_claims() -> None:
    # "+1 increases the chances by at most 5%" at Σ = 8, "from +8 to +9 only 2.8%"
    assert dphi.phi(1 / 8) - dphi.phi(0) == pytest.approx(0.0497, abs=1e-4)
    assert round(100 * (dphi.phi(9 / 8) - dphi.phi(8 / 8)), 1) == 2.8


def test_collaborators_add_and_opponents_subtract() -> None:
    c = dphi.check([5, 3], [4, 2])
    assert c.roll.might == 2.0
    assert c.roll.swing == pytest.approx(8.0 * math.sqrt(2))  # four characters: +10ℏ


# --- how many characters a roll stands for (docs/mechanics/dphi.md) --------------------------
def test_each_character_rolls_at_minus_ten_hops_and_the_rolls_merge() -> None:
    """Two allies against two opponents kept the swing at 8: the number of characters never
    changed it.  The seed: "a check functions as if each character were rolling for his own
    capability, but the various individual rolls are merged into a single one"."""
    each = Roll(8.0).with_hops(dphi.SPLIT_HOPS)  # the split roll of the PC-vs-NPC base case
    for allies, opponents in [([5], [4]), ([5, 3], [4]), ([5, 3], [4, 2]), ([5, 3, 4], [10, 2])]:
        merged = Roll(0.0)
        for might in allies:
            merged = merged.merge(Roll(each.swing, might))
        for might in opponents:
            merged = merged.merge(Roll(each.swing, -might))
        roll = dphi.check(allies, opponents).roll
        assert roll.swing == pytest.approx(merged.swing, rel=1e-12)
        assert roll.might == pytest.approx(merged.might)
    assert dphi.characters_hops(2) == 0 and dphi.characters_hops(1) == -10
    assert dphi.characters_hops(4) == pytest.approx(10)
    assert dphi.characters_hops(3) == pytest.approx(5.8496, abs=1e-4)
    with pytest.raises(ValueError, match="at least one character"):
        dphi.characters_hops(0)


def test_the_seeds_checks_keep_their_swings() -> None:
    assert dphi.pc_vs_npc(5, 4).roll.swing == 8.0  # one against one: the base swing
    assert dphi.check([1.0]).roll.swing == 8.0  # the net might of one against one
    assert dphi.static_challenge(5, 6).roll.swing == pytest.approx(8 / math.sqrt(2))
    assert dphi.check([-1.0], static=True).roll.swing == pytest.approx(8 / math.sqrt(2))
    # two PCs against a trap: the trap does not roll, the two PCs do (σ/√2 each)
    assert dphi.check([5, 3], [6], static=True).roll.swing == pytest.approx(8.0)
    assert dphi.rolling_characters(1, 0) == 2 and dphi.rolling_characters(1, 0, True) == 1
    with pytest.raises(ValueError, match="at least one acting"):
        dphi.check([], [3])


# --- critical boost -------------------------------------------------------------------------
def test_critical_boost_clamps_the_chance() -> None:
    hopeless = Check(Roll(8.0, -40.0), critical=0.05)
    assert hopeless.p_success == 0.05
    certain = Check(Roll(8.0, 40.0), critical=0.05)
    assert certain.p_success == 0.95
    ordinary = Check(Roll(8.0, 0.5), critical=0.05)
    assert ordinary.p_success == Roll(8.0, 0.5).p_success()
    with pytest.raises(ValueError, match="critical"):
        Check(Roll(), critical=0.5)


@given(mights, swings, st.floats(min_value=0.0, max_value=0.49))
def test_critical_strips_give_exactly_the_clamped_chance(
    might: float, swing: float, c: float
) -> None:
    chk = Check(Roll(swing, might), critical=c)
    p = Roll(swing, might).p_success()
    # success happens for u above a threshold: measure that threshold's complement
    threshold = max(c, 1 - p) if 1 - p <= 1 - c else 1 - c
    assert chk.p_success == pytest.approx(1 - threshold, abs=1e-12)
    for u in (c / 2, (c + 1) / 2 if c else 0.5, 1 - c / 2):
        if 0 < u < 1:
            assert chk.succeeds(u) == (u > 1 - c or (u >= c and Roll(swing, might).value_at(u) > 0))


# --- properties -----------------------------------------------------------------------------
@given(mights, swings)
def test_symmetry(might: float, swing: float) -> None:
    assert Roll(swing, might).p_success() + Roll(swing, -might).p_success() == pytest.approx(1.0)


@given(mights, mights, swings)
def test_more_might_never_hurts(a: float, b: float, swing: float) -> None:
    lo, hi = sorted((a, b))
    assert Roll(swing, lo).p_success() <= Roll(swing, hi).p_success()


@given(mights, mights, swings, swings)
def test_merging_and_splitting_keep_the_chance(a: float, b: float, s1: float, s2: float) -> None:
    merged = Roll(s1, a).merge(Roll(s2, b))
    assert merged.swing == pytest.approx(math.sqrt(s1 * s1 + s2 * s2))
    assert merged.might == pytest.approx(a + b)
    for n in (2, 3, 5):
        part = Roll(s1, a).split(n)
        assert part.swing == pytest.approx(s1 / math.sqrt(n))


@given(mights, mights, swings, hops)
def test_pc_vs_pc_equals_the_unsplit_roll(a: float, b: float, swing: float, h: float) -> None:
    split = dphi.pc_vs_pc(a, b, swing=swing, hops=h).p_first_wins
    whole = dphi.pc_vs_npc(a, b, swing=swing, hops=h).p_success
    assert split == pytest.approx(whole, abs=1e-12)


def test_tail_chances_keep_relative_accuracy() -> None:
    # 1 − Φ(x) in floats would give 0 here; erfc keeps it.
    assert Roll(1.0, -10.0).p_success() == pytest.approx(7.61985302416e-24, rel=1e-9)


def test_zero_swing_compares_mights() -> None:
    assert Roll(0.0, 1.0).p_success() == 1.0
    assert Roll(0.0, -1.0).p_success() == 0.0
    assert Roll(0.0, 0.0).p_success() == 0.5


def test_pc_vs_pc_at_a_zero_swing_ties_equal_mights() -> None:
    """No die is rolled: the higher might wins and equal mights tie (it said ½ and ½)."""
    even = dphi.pc_vs_pc(1, 1, swing=0)
    assert (even.p_first_wins, even.p_second_wins, even.p_tie) == (0.0, 0.0, 1.0)
    ahead = dphi.pc_vs_pc(2, 1, swing=0)
    assert (ahead.p_first_wins, ahead.p_second_wins, ahead.p_tie) == (1.0, 0.0, 0.0)
    behind = dphi.pc_vs_pc(1, 2, swing=0)
    assert (behind.p_first_wins, behind.p_second_wins, behind.p_tie) == (0.0, 1.0, 0.0)
    rolled = dphi.pc_vs_pc(6, 4)
    assert rolled.p_tie == 0 and rolled.p_first_wins + rolled.p_second_wins == pytest.approx(1)


def test_bad_rolls_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        Roll(-1.0, 0.0)
    with pytest.raises(ValueError, match="finite"):
        Roll(8.0, math.nan)
    with pytest.raises(ValueError, match="at least one"):
        dphi.against_each(Roll(), [])


def test_hops_past_any_float_factor_are_a_value_error_not_an_overflow() -> None:
    with pytest.raises(ValueError, match="beyond any swing"):
        Roll().with_hops(1e308)
    assert dphi.hops_to_factor(-1e308) == 0.0  # the other way the swing shrinks to 0


# --- sampling -------------------------------------------------------------------------------
def test_sampling_is_reproducible_and_normal() -> None:
    roll = Roll(8.0, 2.0)
    values = [roll.sample(random.Random(99)) for _ in range(1)]
    assert values == [roll.sample(random.Random(99))]
    rng = random.Random(2026)
    draws = [roll.sample(rng) for _ in range(20_000)]
    # mean 2 ± 8/√20000 ≈ 0.057, sd 8 ± about 0.04: five standard errors of slack
    assert statistics.fmean(draws) == pytest.approx(2.0, abs=0.29)
    assert statistics.stdev(draws) == pytest.approx(8.0, abs=0.2)


def test_checked_samples_follow_the_chance() -> None:
    chk = dphi.pc_vs_npc(14, 27, hops=16)
    rng = random.Random(7)
    wins = sum(chk.sample(rng)[1] for _ in range(20_000))
    assert wins / 20_000 == pytest.approx(chk.p_success, abs=5 * math.sqrt(0.175 * 0.825 / 20_000))
