"""Is this die fair?  The fixed-sample tests, per-face intervals and the posterior.

All tests take the null hypothesis "every face equally likely" unless given
other expected probabilities (a Binomial(12, 1/3) for Weldon's dice, say).
Randomness (the Monte Carlo exact test) comes from a generator the caller
passes in, seeded by default so a report can be reproduced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import xlogy

MC_SIMULATIONS = 20_000


def _expected(counts: np.ndarray, probs: Sequence[float] | None) -> np.ndarray:
    n = counts.sum()
    p = np.full(len(counts), 1 / len(counts)) if probs is None else np.asarray(probs, float)
    if len(p) != len(counts) or not np.isclose(p.sum(), 1.0):
        raise ValueError("expected probabilities must match the faces and sum to 1")
    return n * p


@dataclass(frozen=True)
class GoodnessOfFit:
    chi2: float
    p_value: float
    g: float
    g_p_value: float
    df: int
    min_expected: float
    mc_p_value: float | None  # when expected counts are small


def goodness_of_fit(
    counts: Sequence[int],
    probs: Sequence[float] | None = None,
    *,
    ddof: int = 0,
    rng: np.random.Generator | None = None,
    simulations: int = MC_SIMULATIONS,
) -> GoodnessOfFit:
    """Pearson's χ² and the G-test; a Monte Carlo exact p-value when any expected count < 5."""
    obs = np.asarray(counts, dtype=np.int64)
    if obs.sum() == 0:
        raise ValueError("no throws to test")
    exp = _expected(obs, probs)
    df = len(obs) - 1 - ddof
    # what scipy's chisquare and power_divergence give, without their per-call
    # overhead (a live audit is computed on every look)
    chi = float(np.sum((obs - exp) ** 2 / exp))
    g = float(2 * np.sum(xlogy(obs, obs / exp)))  # G: 2 Σ O ln(O/E); empty faces add 0
    mc = None
    if exp.min() < 5:
        mc = monte_carlo_p_value(obs, exp / exp.sum(), rng=rng, simulations=simulations)
    return GoodnessOfFit(
        chi2=chi,
        p_value=float(stats.chi2.sf(chi, df)),
        g=g,
        g_p_value=float(stats.chi2.sf(g, df)),
        df=df,
        min_expected=float(exp.min()),
        mc_p_value=mc,
    )


def monte_carlo_p_value(
    counts: np.ndarray,
    probs: np.ndarray,
    *,
    rng: np.random.Generator | None = None,
    simulations: int = MC_SIMULATIONS,
) -> float:
    """P(χ² at least as large as observed) under the null, by simulating multinomials.

    (1 + hits) / (1 + simulations): never 0, valid at any sample size.
    """
    rng = rng if rng is not None else np.random.default_rng(20261122)
    n = int(counts.sum())
    exp = n * probs
    observed = float(((counts - exp) ** 2 / exp).sum())
    sims = rng.multinomial(n, probs, size=simulations)
    sim_stats = ((sims - exp) ** 2 / exp).sum(axis=1)
    hits = int((sim_stats >= observed - 1e-9).sum())
    return (1 + hits) / (1 + simulations)


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


@dataclass(frozen=True)
class FaceShare:
    face: int
    count: int
    share: float
    ci_low: float
    ci_high: float
    p_value: float  # two-sided exact binomial test against the fair share
    p_holm: float  # Holm-adjusted across faces
    credible_low: float  # Dirichlet(1 + counts) posterior, 95%
    credible_high: float


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (family-wise error control across the faces)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def face_shares(counts: Sequence[int], confidence: float = 0.95) -> list[FaceShare]:
    n = int(sum(counts))
    k = len(counts)
    raw = [float(stats.binomtest(c, n, 1 / k).pvalue) if n else 1.0 for c in counts]
    adjusted = holm(raw)
    alpha = np.ones(k) + np.asarray(counts, dtype=float)
    tail = (1 - confidence) / 2
    # the Dirichlet's Beta marginals, all faces at once (a frozen distribution per face
    # costs a millisecond each)
    low_beta = stats.beta.ppf(tail, alpha, alpha.sum() - alpha)
    high_beta = stats.beta.ppf(1 - tail, alpha, alpha.sum() - alpha)
    out = []
    for i, c in enumerate(counts):
        low, high = wilson_interval(c, n, confidence)
        out.append(
            FaceShare(
                face=i + 1,
                count=int(c),
                share=c / n if n else 0.0,
                ci_low=low,
                ci_high=high,
                p_value=raw[i],
                p_holm=adjusted[i],
                credible_low=float(low_beta[i]),
                credible_high=float(high_beta[i]),
            )
        )
    return out


def homogeneity(first: Sequence[int], second: Sequence[int]) -> tuple[float, float]:
    """Do two dice (or two runs of one die) share one distribution? (χ², p).

    ValueError when either has no throws (there is nothing to compare)."""
    if len(first) != len(second):
        raise ValueError(f"a d{len(first)} and a d{len(second)} cannot be compared")
    table = np.array([first, second])
    if table[0].sum() == 0 or table[1].sum() == 0:
        which = "first" if table[0].sum() == 0 else "second"
        raise ValueError(f"the {which} log holds no throws: nothing to compare")
    keep = table.sum(axis=0) > 0
    result = stats.chi2_contingency(table[:, keep], correction=False)
    return float(result.statistic), float(result.pvalue)


@dataclass(frozen=True)
class ShareTest:
    """Is a group of faces (5 or 6, say) thrown at its fair share?"""

    successes: int
    trials: int
    share: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float  # two-sided, normal approximation
    exact_p_value: float  # two-sided exact binomial


def share_test(successes: int, trials: int, fair_share: float) -> ShareTest:
    share = successes / trials
    low, high = wilson_interval(successes, trials)
    z = (share - fair_share) / np.sqrt(fair_share * (1 - fair_share) / trials)
    return ShareTest(
        successes=successes,
        trials=trials,
        share=share,
        ci_low=low,
        ci_high=high,
        z=float(z),
        p_value=float(2 * stats.norm.sf(abs(z))),
        exact_p_value=float(stats.binomtest(successes, trials, fair_share).pvalue),
    )
