"""The fairness audit: its statistics against known answers and simulation."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from audit import fairness, sequential
from audit.logs import LogError, from_counts, from_faces, read_log
from audit.verdict import audit
from dicebridge.cli import main


def test_wilson_and_holm_known_values() -> None:
    low, high = fairness.wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = fairness.wilson_interval(50, 100)
    assert (low, high) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert fairness.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def exact_multinomial_p(counts: list[int]) -> float:
    """P(χ² ≥ observed) by listing every way n throws can fall on the faces."""
    n, k = sum(counts), len(counts)
    exp = n / k

    def chi(c: tuple[int, ...]) -> float:
        return sum((x - exp) ** 2 / exp for x in c)

    observed = chi(tuple(counts))
    total = 0.0
    for cut in itertools.combinations(range(n + k - 1), k - 1):
        c = tuple(b - a - 1 for a, b in itertools.pairwise((-1, *cut, n + k - 1)))
        if chi(c) >= observed - 1e-9:
            total += math.exp(
                math.lgamma(n + 1) - sum(math.lgamma(x + 1) for x in c) - n * math.log(k)
            )
    return total


def test_monte_carlo_p_value_matches_exact_enumeration() -> None:
    counts = [5, 0, 1, 0, 2, 0]
    fit = fairness.goodness_of_fit(counts, rng=np.random.default_rng(1))
    assert fit.mc_p_value is not None  # expected counts are 1.33 < 5
    assert fit.mc_p_value == pytest.approx(exact_multinomial_p(counts), abs=0.01)


def test_g_test_and_chi2_agree_with_scipy() -> None:
    counts = [30, 40, 50, 60, 70, 50]
    fit = fairness.goodness_of_fit(counts)
    assert fit.chi2 == pytest.approx(stats.chisquare(counts).statistic)
    g = 2 * sum(c * math.log(c / 50) for c in counts)
    assert fit.g == pytest.approx(g)
    assert fit.mc_p_value is None


def test_posterior_intervals_cover_the_shares() -> None:
    shares = fairness.face_shares([10, 20, 30, 40])
    for f in shares:
        assert f.credible_low < f.share < f.credible_high
        assert f.ci_low < f.share < f.ci_high


def test_e_value_is_anytime_valid_on_fair_dice() -> None:
    rng = np.random.default_rng(5)
    runs, throws, alarms = 200, 200, 0
    for _ in range(runs):
        seq = (rng.integers(1, 7, size=throws)).tolist()
        path = sequential.e_value_path(seq, 6)
        alarms += bool((path >= math.log(20)).any())
    # checking after every throw, the false alarm rate stays below α = 0.05
    assert alarms / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


def test_e_value_grows_against_a_loaded_die() -> None:
    rng = np.random.default_rng(6)
    loaded = rng.choice(6, size=3000, p=[0.25, 0.15, 0.15, 0.15, 0.15, 0.15]) + 1
    counts = np.bincount(loaded, minlength=7)[1:]
    assert sequential.log_e_value(counts.tolist()) > math.log(1e6)


def test_power_calculation_matches_simulation() -> None:
    n = sequential.throws_for_power(6, 0.2)
    p = sequential.bias_alternative(6, 0.2)
    assert p[0] == pytest.approx(0.2) and p.sum() == pytest.approx(1.0)
    rng = np.random.default_rng(7)
    sims = rng.multinomial(n, p, size=2000)
    exp = n / 6
    chi = ((sims - exp) ** 2 / exp).sum(axis=1)
    power = float((chi > stats.chi2.ppf(0.95, 5)).mean())
    assert power == pytest.approx(0.8, abs=3 * math.sqrt(0.8 * 0.2 / 2000))
    assert sequential.throws_for_power(20, 0.2) > sequential.throws_for_power(6, 0.2)


def test_serial_dependence_catches_a_sliding_machine() -> None:
    rng = random.Random(3)
    fair = [rng.randint(1, 6) for _ in range(3000)]
    assert sequential.serial_dependence(fair, 6).flag is False
    sliding = [1]
    for _ in range(2999):  # a third of the time the die slides and keeps its face
        sliding.append(sliding[-1] if rng.random() < 0.33 else rng.randint(1, 6))
    result = sequential.serial_dependence(sliding, 6)
    assert result.flag is True and result.repeat_rate is not None and result.repeat_rate > 0.3


def test_duplicated_stretches_in_a_pasted_log() -> None:
    rng = random.Random(4)
    log = [rng.randint(1, 6) for _ in range(500)]
    pasted = log[:200] + log[100:160] + log[200:]
    ((first, again, length),) = sequential.duplicated_stretches(pasted)
    assert (first, again) == (100, 200)
    assert 60 <= length < 66  # the copy, plus any throws that match it by chance
    assert sequential.duplicated_stretches(log) == []


def test_homogeneity_between_two_dice() -> None:
    chi, p = fairness.homogeneity([100, 100, 100], [100, 100, 100])
    assert chi == 0 and p == 1
    assert fairness.homogeneity([150, 100, 50], [50, 100, 150])[1] < 1e-10


def test_verdicts() -> None:
    rng = np.random.default_rng(8)
    few = from_faces((rng.integers(1, 21, size=300)).tolist(), 20)
    assert audit(few).verdict == "insufficient"
    assert "more" in audit(few).words()
    many = from_counts(enumerate(rng.multinomial(20_000, [1 / 6] * 6).tolist(), start=1), 6)
    fair = audit(many)
    assert fair.verdict == "consistent_with_fair"
    assert 0 < fair.ruled_out_bias() < 0.2
    loaded = from_counts(enumerate([400, 300, 300, 300, 300, 200], start=1), 6)
    result = audit(loaded)
    assert result.verdict == "biased" and "face 1" in result.words()


def test_bad_logs_say_where(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("3\n4\nseven\n")
    with pytest.raises(LogError, match="line 3"):
        read_log(log, 6)
    log.write_text("3\n9\n")
    with pytest.raises(LogError, match="face 9 is not a face of a d6"):
        read_log(log, 6)
    log.write_text("face,count\n1,10\n2,x\n")
    with pytest.raises(LogError, match="line 3"):
        read_log(log, 6)
    with pytest.raises(LogError, match="cannot read"):
        read_log(tmp_path / "missing.txt", 6)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["audit", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_cli_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "throws.txt"
    rng = random.Random(9)
    log.write_text("\n".join(str(rng.randint(1, 6)) for _ in range(600)) + "\n")
    out = run_cli(capsys, str(log), "--sides", "6")
    keys = {"n", "sides", "chi2", "p_value", "g_p_value", "e_value", "verdict", "faces"}
    assert keys | {"serial", "throws_needed"} <= set(out)
    assert out["n"] == 600 and out["sides"] == 6 and len(out["faces"]) == 6
    assert set(out["faces"][0]) >= {"face", "count", "share", "ci_low", "ci_high"}
    assert set(out["serial"]) >= {"p_value", "flag"}
    assert out["verdict"] in ("biased", "consistent_with_fair", "insufficient")
    table = tmp_path / "counts.csv"
    table.write_text("face,count\n1,10\n2,12\n3,9\n4,11\n5,8\n6,10\n")
    small = run_cli(capsys, str(table), "--sides", "6")
    assert small["n"] == 60 and small["serial"]["p_value"] is None
    assert main(["audit", str(table), "--sides", "4"]) == 2  # faces 5 and 6 on a d4


def test_sequential_stopping_time_matches_its_own_simulation() -> None:
    # an independent, throw-by-throw walk of the e-value on loaded d6s
    rng = np.random.default_rng(12)
    p = sequential.bias_alternative(6, 0.2)
    times = []
    for _ in range(40):
        counts = [0] * 6
        n = 0
        while True:
            counts[int(rng.choice(6, p=p))] += 1
            n += 1
            if n % 25 == 0 and sequential.log_e_value(counts) >= math.log(20):
                break
        times.append(n)
    estimate = sequential.sequential_stopping_time(6, 0.2)
    spread = float(np.std(times)) / math.sqrt(len(times))
    # checking every 25 throws stops up to 24 later; allow that and 4 standard errors
    assert abs(float(np.mean(times)) - 12 - estimate) < 4 * spread + 12


def test_uncertain_readings_are_excluded_and_confirmed_ones_measure_the_camera() -> None:
    from audit.recognizer import AuditReading, audit_log

    readings = [
        AuditReading(3, 0.95, "camera:0"),
        AuditReading(5, 0.20, "camera:0"),  # uncertain, nobody confirmed: left out
        AuditReading(6, 0.30, "camera:0", confirmed=5),  # uncertain but corrected: kept as 5
        AuditReading(2, 0.90, "camera:0", confirmed=2),  # confirmed right
        AuditReading(4, 1.0, "manual"),
    ]
    log, report = audit_log(readings, 6)
    assert log.sequence == (3, 5, 2, 4)
    assert report.uncertain_excluded == 1 and report.camera_readings == 4
    assert (report.confirmed, report.misread, report.error_rate) == (2, 1, 0.5)
    assert report.error_ci is not None and report.error_ci[0] < 0.5 < report.error_ci[1]


def test_printable_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "throws.txt"
    rng = random.Random(10)
    log.write_text("\n".join(str(rng.choice([1, 1, 2, 3, 4, 5, 6])) for _ in range(2000)))
    report = tmp_path / "report.html"
    out = run_cli(capsys, str(log), "--sides", "6", "--report", str(report))
    page = report.read_text()
    assert out["verdict"] == "biased" and "Biased" in page
    assert page.count("<svg") == 2 and "size: A4" in page  # bars and the e-value path
    assert "src=" not in page and "href=" not in page  # nothing to fetch from outside
    assert page.count("<rect") == 6


def test_compare_two_dice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    red, white = tmp_path / "red.csv", tmp_path / "white.csv"
    red.write_text("face,count\n1,300\n2,300\n3,300\n4,300\n5,300\n6,300\n")
    white.write_text("face,count\n1,200\n2,300\n3,300\n4,300\n5,300\n6,400\n")
    out = run_cli(capsys, str(red), "--sides", "6", "--compare", str(white))
    assert out["homogeneity"]["p_value"] < 1e-5
    same = run_cli(capsys, str(red), "--sides", "6", "--compare", str(red))
    assert same["homogeneity"]["p_value"] == pytest.approx(1.0)
