"""The audit on published records of real throws (../shared/data/rolls).

The figures are the ones SOURCE.md gives (computed with scipy and statsmodels,
and the published ones); the audit must reproduce them.  A fresh clone without
../shared skips these tests with a message.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from audit import fairness
from audit.logs import from_counts
from audit.verdict import audit
from dicebridge.cli import main

ROLLS = Path(__file__).resolve().parents[3] / "shared" / "data" / "rolls"
pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(
        not ROLLS.is_dir(), reason=f"published throw records not found at {ROLLS} (../shared)"
    ),
]


def rows(name: str) -> list[dict[str, str]]:
    with (ROLLS / name).open(newline="") as f:
        return list(csv.DictReader(f))


def wolf(die: str) -> list[int]:
    return [
        int(r["count"]) for r in rows("wolf_20000_red_white_face_counts.csv") if r["die"] == die
    ]


def test_wolf_red_die() -> None:
    result = audit(from_counts(enumerate(wolf("red"), start=1), 6))
    assert result.fit.chi2 == pytest.approx(94.19, abs=0.005)
    assert result.fit.g == pytest.approx(95.80, abs=0.005)
    assert result.fit.p_value < 1e-17 and result.verdict == "biased"


def test_wolf_white_die_and_jaynes_pattern() -> None:
    result = audit(from_counts(enumerate(wolf("white"), start=1), 6))
    assert result.fit.chi2 == pytest.approx(270.96, abs=0.005)
    assert result.fit.p_value < 1e-55
    shares = {f.face: f.share for f in result.faces}
    assert shares[3] < 1 / 6 and shares[4] < 1 / 6 and max(shares, key=shares.__getitem__) == 6


def test_labby_significant_but_not_anytime_detectable() -> None:
    counts = [int(r["approx_count_derived"]) for r in rows("labby_2009_face_proportions.csv")]
    result = audit(from_counts(enumerate(counts, start=1), 6))
    assert result.fit.chi2 == pytest.approx(24.75, abs=0.005)
    assert result.fit.p_value == pytest.approx(1.6e-4, rel=0.05)
    assert result.log_e / math.log(10) == pytest.approx(0.34, abs=0.005)
    assert result.verdict == "biased" and result.e_value < 20


def weldon() -> tuple[np.ndarray, np.ndarray]:
    data = rows("weldon_1894_12dice_5or6.csv")
    k = np.array([int(r["k_fives_or_sixes"]) for r in data])
    throws = np.array([int(r["throws"]) for r in data])
    return k, throws


def test_weldon_five_or_six_share() -> None:
    k, throws = weldon()
    assert throws.sum() == 26_306
    successes, trials = int((k * throws).sum()), int(12 * throws.sum())
    assert (successes, trials) == (106_602, 315_672)
    share = fairness.share_test(successes, trials, 1 / 3)
    assert share.share == pytest.approx(0.337699, abs=5e-7)
    assert (share.ci_low, share.ci_high) == pytest.approx((0.33605, 0.33935), abs=5e-6)
    assert share.z == pytest.approx(5.20, abs=0.005)
    assert share.p_value == pytest.approx(2.0e-7, rel=0.05)
    assert share.exact_p_value == pytest.approx(share.p_value, rel=0.2)


def pooled(values: np.ndarray, probs: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.append(values[:top], values[top:].sum()),
        np.append(probs[:top], probs[top:].sum()),
    )


def test_weldon_against_binomial_twelve_thirds() -> None:
    _, throws = weldon()
    probs = stats.binom.pmf(np.arange(13), 12, 1 / 3)
    full = fairness.goodness_of_fit(throws.tolist(), probs.tolist())
    assert full.chi2 == pytest.approx(41.31, abs=0.005) and full.df == 12
    assert full.p_value == pytest.approx(4.3e-5, rel=0.05)
    obs, exp = pooled(throws, probs, 10)
    vcd = fairness.goodness_of_fit(obs.tolist(), exp.tolist())
    assert vcd.chi2 == pytest.approx(35.49, abs=0.005) and vcd.df == 10
    assert vcd.p_value == pytest.approx(1.0e-4, rel=0.05)
    assert vcd.g == pytest.approx(35.10, abs=0.005)


def test_weldon_fits_a_binomial_with_the_observed_share() -> None:
    k, throws = weldon()
    p_hat = (k * throws).sum() / (12 * throws.sum())
    obs, exp = pooled(throws, stats.binom.pmf(np.arange(13), 12, p_hat), 10)
    fit = fairness.goodness_of_fit(obs.tolist(), exp.tolist(), ddof=1)
    assert fit.chi2 == pytest.approx(8.18, abs=0.005) and fit.df == 9
    assert fit.p_value == pytest.approx(0.52, abs=0.005)


@pytest.mark.parametrize(
    ("series", "fair", "share", "z", "p"),
    [
        ("II_clerk_subset", 1 / 3, 0.33670, 2.07, 0.038),
        ("III_sixes_only", 1 / 6, 0.16663, -0.02, 0.98),
        ("IV_four_five_six", 1 / 2, 0.51158, 5.13, 2.9e-7),
    ],
)
def test_weldons_other_series(series: str, fair: float, share: float, z: float, p: float) -> None:
    data = [r for r in rows("weldon_1894_other_series.csv") if r["series"] == series]
    assert data, f"series {series} is not in the file"
    throws = np.array([int(r["throws"]) for r in data])
    k = np.array([int(r["k_successes"]) for r in data])
    result = fairness.share_test(int((k * throws).sum()), int(12 * throws.sum()), fair)
    assert result.share == pytest.approx(share, abs=5e-6)
    assert result.z == pytest.approx(z, abs=0.005)
    assert result.p_value == pytest.approx(p, rel=0.05, abs=0.005)


def test_the_published_face_counts_load_from_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    wolf = str(ROLLS / "wolf_20000_red_white_face_counts.csv")  # die,face,count
    for die, chi2 in (("red", 94.19), ("white", 270.96)):
        assert main(["audit", wolf, "--type", "d6", "--die", die, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["n"] == 20_000 and out["chi2"] == pytest.approx(chi2, abs=0.005)
        assert out["verdict"] == "biased"
    assert main(["audit", wolf, "--sides", "6", "--die", "white", "--compare", wolf,
                 "--compare-die", "red", "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["homogeneity"]["p_value"] < 1e-10
    assert main(["audit", wolf, "--sides", "6"]) == 2
    assert "2 dice (red, white): pick one with --die" in capsys.readouterr().err
    labby = str(ROLLS / "labby_2009_face_proportions.csv")  # face,…,approx_count_derived
    assert main(["audit", labby, "--sides", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 315_671 and out["chi2"] == pytest.approx(24.75, abs=0.005)
    weldon = str(ROLLS / "weldon_1894_12dice_5or6.csv")  # throws of 12 dice, not faces
    assert main(["audit", weldon, "--sides", "6"]) == 2
    assert "neither face,count numbers nor a header naming a face column" in " ".join(
        capsys.readouterr().err.split()
    )
