"""Physical dice as digits of u: the conversion is a standard normal, adaptive checks are exact."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from scipy import stats

from mechanics import digits
from mechanics.check_dphi import DphiCheck, DphiSplitCheck
from mechanics.dphi import Roll, phi, phi_inverse
from mechanics.reading import Reading, ReadingRefused


def test_uniform_digits_give_a_standard_normal() -> None:
    rng = random.Random(20261122)
    values = [
        digits.value_of_digits([rng.randrange(10) for _ in range(8)], 10) for _ in range(100_000)
    ]
    result = stats.kstest(values, "norm")
    # with the fixed seed this is a fixed number; a broken conversion gives p ≈ 0
    assert result.pvalue > 0.01
    assert abs(sum(values) / len(values)) < 0.02


def test_other_bases_are_digits_too() -> None:
    assert digits.interval_of([digits.face_to_digit("d20", 20)], 20).lo == Fraction(19, 20)
    assert digits.interval_of([digits.face_to_digit("d6", 1)], 6).hi == Fraction(1, 6)
    pct = digits.interval_of([digits.face_to_digit("d100", 48)], 100)
    two_d10 = digits.interval_of([4, 7], 10)
    assert pct == two_d10  # a percentile result is two decimal digits


def decided_success_mass(
    threshold: Fraction, base: int, floor: Fraction
) -> tuple[Fraction, Fraction]:
    """Walk every digit interval until decided: (success mass, undecided mass left)."""
    success = Fraction(0)
    open_cells = [digits.UniformInterval()]
    undecided = Fraction(1)
    while open_cells and undecided > floor:
        nxt = []
        for cell in open_cells:
            for d in range(base):
                child = cell.push(d, base)
                side = child.side_of(threshold)
                if side is None:
                    nxt.append(child)
                elif side:
                    success += child.width
        open_cells = nxt
        undecided = sum((c.width for c in open_cells), Fraction(0))
    return success, undecided


@pytest.mark.parametrize(
    ("might", "swing", "critical"),
    [(0.5, 8.0, 0.0), (-13.0, 13.93, 0.0), (4.0, 5.657, 0.0), (-40.0, 8.0, 0.05), (2.5, 1.0, 0.0)],
)
@pytest.mark.parametrize("base", [10, 20, 6])
def test_adaptive_mode_has_exactly_the_dphi_chance(
    might: float, swing: float, critical: float, base: int
) -> None:
    t = digits.success_threshold(might, swing, critical)
    success, undecided = decided_success_mass(t, base, Fraction(1, 10**16))
    expected = min(max(phi(might / swing), critical), 1 - critical)
    assert abs(float(success) - expected) < 1e-12
    assert undecided < Fraction(1, 10**14)


def test_threshold_keeps_tiny_chances() -> None:
    t = digits.success_threshold(-10.0, 1.0)
    assert float(1 - t) == pytest.approx(Roll(1.0, -10.0).p_success(), rel=1e-12)
    t = digits.success_threshold(10.0, 1.0)
    assert float(t) == pytest.approx(phi(-10.0), rel=1e-12)


def test_expected_digits_is_one_point_one_one() -> None:
    t = digits.success_threshold(0.5, 8.0)
    assert digits.expected_digits(t) == pytest.approx(10 / 9, abs=1e-12)
    # a threshold on a cell edge stops sooner: u = 0.5 exactly needs one digit
    assert digits.expected_digits(Fraction(1, 2)) == 1


def test_checks_need_one_point_one_one_d10s_on_average() -> None:
    rng = random.Random(7)
    base_check = DphiCheck(might=0.5)
    counts = []
    for _ in range(20_000):
        check = base_check
        while check.need() is not None:
            check = check.accept(Reading("d10", rng.randrange(10)))
        counts.append(len(check.readings))
    mean = sum(counts) / len(counts)
    sd = math.sqrt(sum((c - mean) ** 2 for c in counts) / (len(counts) - 1))
    assert abs(mean - 10 / 9) < 4 * sd / math.sqrt(len(counts))


def test_value_mode_reaches_the_precision_even_in_the_tails() -> None:
    check = DphiCheck(might=0.0, swing=1.0, mode="value", precision=0.01)
    for face in (0, 0, 0, 0, 1):  # u in [0.00001, 0.00002): deep in the left tail
        check = check.accept(Reading("d10", face))
    while check.need() is not None:
        check = check.accept(Reading("d10", 5))
    res = check.resolve()
    assert res.success is False
    low, high = dict(res.details)["roll_low"], dict(res.details)["roll_high"]
    assert high - low < 0.01
    assert low < -4.1


def test_table_mode_matches_the_printed_conversion() -> None:
    assert digits.table_z(1) == pytest.approx(-2.5758, abs=1e-4)
    assert digits.table_z(50) == pytest.approx(-0.0125, abs=1e-4)
    assert digits.table_z(100) == pytest.approx(2.5758, abs=1e-4)
    check = DphiCheck(might=0.5, mode="table", die="d100")
    p, exact = check.chance()
    assert exact is not None and p == float(exact)
    assert exact == Fraction(sum(0.5 + 8 * digits.table_z(k) > 0 for k in range(1, 101)), 100)
    two = DphiCheck(might=0.5, mode="table", die="d10").accept(Reading("d10", 0), Reading("d10", 0))
    assert dict(two.resolve().details)["d100"] == 100  # 00 reads as 100


def test_split_rolls_compared_keep_the_unsplit_chance() -> None:
    rng = random.Random(11)
    n, wins, used = 5_000, 0, 0
    for _ in range(n):
        check = DphiSplitCheck(first=6, second=4)
        while check.need() is not None:
            check = check.accept(Reading("d10", rng.randrange(10)))
        wins += bool(check.resolve().success)
        used += len(check.readings)
    p = check.chance()[0]
    assert p == pytest.approx(phi(2 / 8))
    assert abs(wins / n - p) < 4 * math.sqrt(p * (1 - p) / n)
    assert 2 <= used / n < 3  # about 2.3 d10s for the two rolls together


def test_a_split_check_reads_its_dice_as_before() -> None:
    """Pinned from before the 10⁻¹⁶ limit: the order of whose digit is whose, the values."""
    check = DphiSplitCheck(first=6, second=4)
    whose = ""
    for face in (5, 6, 4, 0, 6, 8, 5, 6):
        need = check.need()
        assert need is not None
        whose += need.why.split()[2][0]  # "for the first PC's roll"
        check = check.accept(Reading("d10", face))
    assert check.need() is None and whose == "fssfsfsf"  # bounded: the wider roll reads next
    res = check.resolve()
    assert res.success is False and res.value == pytest.approx(6.122663418473155, rel=1e-12)
    assert dict(res.details)["second_value"] == pytest.approx(6.127105762165482, rel=1e-12)
    assert res.explanation == (
        "5.657dφ + 6 rolled about +6.12 against 5.657dφ + 4 about +6.13: "
        "the second PC wins (first's chance 59.9%)"
    )
    two = DphiSplitCheck(first=6, second=4).accept(Reading("d10", 3), Reading("d10", 7))
    assert two.need() is None and two.resolve().success is False
    assert DphiSplitCheck(first=6, second=4).accept(*check.readings) == check  # replayed


@pytest.mark.parametrize(
    ("die", "bottom", "top", "run"),
    [("d10", 0, 9, 16), ("d20", 1, 20, 13), ("d6", 1, 6, 21), ("d100", 1, 100, 8)],
)
def test_a_split_check_reads_each_u_to_sixteen_decimal_digits(
    die: str, bottom: int, top: int, run: int
) -> None:
    """Both PCs throwing 9s (or 0s) overlapped forever; each u is read to 10⁻¹⁶, as in
    value mode, and then the values read decide (docs/mechanics/dphi.md)."""
    for face in (top, bottom):
        for first, second, outcome in ((6.0, 4.0, "success"), (4.0, 6.0, "failure"), (1, 1, "tie")):
            fresh = check = DphiSplitCheck(first=first, second=second, die=die)
            for _ in range(2 * run):  # alternately, `run` dice for each PC
                assert check.need() is not None
                check = check.accept(Reading(die, face))
            assert check.need() is None
            with pytest.raises(ReadingRefused, match="not needed"):
                check.accept(Reading(die, face))
            res = check.resolve()
            assert res.outcome == outcome and dict(res.details)["read_to_limit"] is True
            assert f"both u read to 10⁻¹⁶ ({run} {die}s each)" in res.explanation
            assert 8.2 < abs(res.value - first) / (8 / math.sqrt(2)) < 8.6
            assert res.probability == phi((first - second) / 8)  # the chance is unchanged
            assert fresh.accept(*check.readings) == check  # replayed, the same check
    nines = DphiSplitCheck(first=6, second=4).accept(*[Reading("d10", 9)] * 32).resolve()
    assert nines.value == pytest.approx(6 + 8 / math.sqrt(2) * 8.304785425194112, rel=1e-12)
    assert "the higher value wins: the first PC wins" in nines.explanation
    tie = DphiSplitCheck(first=1, second=1).accept(*[Reading("d10", 0)] * 32).resolve()
    assert tie.success is None and "and the values are equal: a tie" in tie.explanation


def test_a_split_check_at_a_zero_swing_compares_the_mights() -> None:
    """0·Φ⁻¹(u) was 0·∞ (NaN) at the ends of u, so no die ever decided it."""
    assert DphiSplitCheck(first=6, second=4, swing=0).resolve().success is True
    assert DphiSplitCheck(first=4, second=6, swing=0).resolve().success is False
    even = DphiSplitCheck(first=5, second=5, swing=0)
    # equal mights tie for certain: the first PC's chance is 0 (it was ½, beside a tie)
    assert even.need() is None and even.chance() == (0.0, Fraction(0))
    res = even.resolve()
    assert res.outcome == "tie" and res.degree is None and "zero swing" in res.explanation
    assert (res.probability, res.exact) == (0.0, Fraction(0))
    assert dict(res.details)["read_to_limit"] is False  # no die was read


def test_a_split_check_refuses_what_a_check_refuses() -> None:
    for hops in (1000.0, -1000.0):  # the bound itself is a check's
        assert DphiSplitCheck(first=6, second=4, hops=hops).need() is not None
    for hops in (1001.0, -1001.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="hops must be within ±1000"):
            DphiSplitCheck(first=6, second=4, hops=hops)
    for first, second in ((math.nan, 4.0), (6.0, math.inf)):
        with pytest.raises(ValueError, match="mights must be finite"):
            DphiSplitCheck(first=first, second=second)
    for swing in (math.inf, -1.0):
        with pytest.raises(ValueError, match="swing"):
            DphiSplitCheck(first=6, second=4, swing=swing)
    with pytest.raises(ValueError, match="not 'd8'"):
        DphiSplitCheck(first=6, second=4, die="d8")


def test_values_are_exact_in_both_tails_and_never_an_error() -> None:
    # a leading run of 9s: u ≥ 1 − 10⁻¹⁷ rounds to 1.0 as a float, and Φ⁻¹(1.0) was an error
    nines = digits.interval_of([9] * 17, 10)
    low, high = nines.z_bounds()
    assert low == pytest.approx(-digits.z_of(Fraction(1, 10**17)), rel=1e-14)
    # (reference values from scipy: norm.isf(1e-17), norm.isf(5e-18), and log_ndtr solved)
    assert low == pytest.approx(8.493793224109599, rel=1e-12) and high == math.inf
    assert digits.value_of_digits([9] * 17, 10) == pytest.approx(8.573944076720883, rel=1e-12)
    zeros = digits.interval_of([0] * 17, 10)
    assert zeros.z_bounds() == (-math.inf, pytest.approx(-8.493793224109599, rel=1e-12))
    # past the floats (10⁻³⁰⁸) the asymptotic tail takes over, continuous with Φ⁻¹
    deep = digits.interval_of([9] * 400, 10)
    assert deep.z_bounds()[0] == pytest.approx(42.810227206611344, rel=1e-12)
    assert deep.z_midpoint == pytest.approx(42.82640649117118, rel=1e-12)
    for k in (299, 300, 301):  # the two sides of the switch agree
        q = Fraction(1, 10**k)
        assert digits._lower_z(q) == pytest.approx(phi_inverse(float(q)), rel=1e-12)
    assert (digits.z_of(Fraction(0)), digits.z_of(Fraction(1))) == (-math.inf, math.inf)


@pytest.mark.parametrize(("base", "run"), [(10, 16), (20, 13), (6, 21), (100, 8)])
def test_value_mode_reads_u_to_sixteen_decimal_digits(base: int, run: int) -> None:
    """The seed's "16 or so decimal digits … are more than enough": a leading run of the
    top or bottom digit, whose values reach ±∞, is read to 10⁻¹⁶ and no further."""
    for digit in (0, base - 1):
        assert not digits.interval_of([digit] * (run - 1), base).value_known(0.01)
        cell = digits.interval_of([digit] * run, base)
        assert cell.value_known(0.01) and cell.width <= digits.VALUE_RESOLUTION
        assert 8.2 < abs(cell.z_midpoint) < 8.6
    middle = digits.interval_of([5, 0, 0], 10)  # near the middle three digits are enough
    assert middle.value_known(0.01) and not middle.value_known(0.001)


def test_a_critical_boost_is_the_decimal_written() -> None:
    """0.05 is a d20's 1/20 exactly, not the float 0.05000000000000000277…"""
    assert digits.critical_strip(0.05) == Fraction(1, 20)
    assert digits.success_threshold(20.0, 8.0, 0.05) == Fraction(1, 20)
    assert digits.success_threshold(-20.0, 8.0, 0.1) == Fraction(9, 10)
    for die, faces in (("d20", [2]), ("d10", [0, 5])):  # u in [1/20, …): decided at once
        check = DphiCheck(might=20.0, critical=0.05, die=die)
        check = check.accept(*(Reading(die, f) for f in faces))
        assert check.need() is None and check.resolve().success is True
    crit = DphiCheck(might=20.0, critical=0.05, die="d20").accept(Reading("d20", 1))
    assert crit.resolve().success is False  # a d20's 1 is the failing strip, exactly


@pytest.mark.parametrize(
    ("die", "bottom", "top", "run"),
    [("d10", 0, 9, 16), ("d20", 1, 20, 13), ("d6", 1, 6, 21), ("d100", 1, 100, 8)],
)
def test_value_mode_ends_a_leading_run_of_the_top_or_bottom_face(
    die: str, bottom: int, top: int, run: int
) -> None:
    """Every throw resolves: a leading run is read to 10⁻¹⁶ (docs/mechanics/dphi.md)."""
    for face, wins in ((top, True), (bottom, False)):
        check = DphiCheck(might=0.5, mode="value", die=die)
        for _ in range(run):
            assert check.need() is not None
            check = check.accept(Reading(die, face))
        assert check.need() is None  # one more is refused as not needed
        res = check.resolve()
        assert res.success is wins and 8.2 < abs(res.value - 0.5) / 8 < 8.6
    sixteen = DphiCheck(might=0.5, mode="value").accept(*[Reading("d10", 9)] * 16)
    assert sixteen.resolve().value == pytest.approx(0.5 + 8 * 8.304785425194112, rel=1e-12)
    # the side first: a long shot reads on until u passes its threshold, then stops
    long_shot = DphiCheck(might=-70.0, mode="value").accept(*[Reading("d10", 9)] * 17)
    assert long_shot.need() is not None
    long_shot = long_shot.accept(Reading("d10", 9))
    assert long_shot.need() is None and long_shot.resolve().success is True
    adaptive = DphiCheck(might=-70.0).accept(*[Reading("d10", 9)] * 18)
    assert adaptive.resolve().success is True  # its value was Φ⁻¹(1.0): an error


def test_the_interval_written_tells_its_ends_apart() -> None:
    """Six significant digits wrote sixteen 9s' interval as [1, 1)."""
    nines = DphiCheck(might=0.5, mode="value").accept(*[Reading("d10", 9)] * 16).resolve()
    assert "put u in [0.9999999999999999, 1);" in nines.explanation
    two = DphiCheck(might=0.5).accept(Reading("d10", 4), Reading("d10", 8)).resolve()
    assert "put u in [0.48, 0.49);" in two.explanation  # as before where six digits do
