"""Anytime-valid evidence, order effects, and how many throws a question needs.

The e-value is a Dirichlet-multinomial mixture against the fair die: for each
concentration c in (1, 10, 100, 1000) the Bayes factor of a symmetric
Dirichlet(c, …, c) prior over the face probabilities, averaged over the four.
Its expectation under a fair die is 1 at every stopping time, so an audit may
stop whenever it likes and reject at E ≥ 1/α without inflating false alarms.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from scipy import optimize, stats
from scipy.special import gammaln, logsumexp

CONCENTRATIONS = (1.0, 10.0, 100.0, 1000.0)


def log_e_value(counts: Sequence[float], concentrations: Sequence[float] = CONCENTRATIONS) -> float:
    """Natural log of the mixture e-value for these face counts (order does not matter)."""
    c = np.asarray(counts, dtype=float)
    k, n = len(c), c.sum()
    logs = []
    for conc in concentrations:
        a = np.full(k, conc)
        logs.append(
            gammaln(a.sum()) - gammaln(a.sum() + n) + np.sum(gammaln(a + c) - gammaln(a))
            + n * np.log(k)
        )  # fmt: skip
    return float(logsumexp(logs) - np.log(len(logs)))


def e_value_path(sequence: Sequence[int], sides: int) -> np.ndarray:
    """log E after each throw of an ordered log (for the live plot and stopping)."""
    counts = np.zeros(sides)
    out = np.empty(len(sequence))
    for i, face in enumerate(sequence):
        counts[face - 1] += 1
        out[i] = log_e_value(counts.tolist())
    return out


@dataclass(frozen=True)
class Serial:
    """Lag-1 dependence: the transition table's χ² test, and the repeat rate."""

    p_value: float | None
    repeat_rate: float | None
    repeat_p_value: float | None
    flag: bool


def serial_dependence(sequence: Sequence[int] | None, sides: int, alpha: float = 0.01) -> Serial:
    """Does a throw depend on the one before?  Dice slid rather than thrown repeat faces."""
    if sequence is None or len(sequence) < 10 * sides:
        return Serial(None, None, None, False)
    pairs = Counter(pairwise(sequence))
    table = np.array([[pairs[(a, b)] for b in range(1, sides + 1)] for a in range(1, sides + 1)])
    keep_rows, keep_cols = table.sum(axis=1) > 0, table.sum(axis=0) > 0
    table = table[keep_rows][:, keep_cols]
    p_table = float(stats.chi2_contingency(table, correction=False).pvalue)
    repeats = sum(a == b for a, b in pairwise(sequence))
    trials = len(sequence) - 1
    shares = np.bincount(np.asarray(sequence) - 1, minlength=sides) / len(sequence)
    expected_repeat = float(np.sum(shares**2))  # what independence gives with these shares
    p_repeat = float(stats.binomtest(repeats, trials, expected_repeat).pvalue)
    flag = min(p_table, p_repeat) < alpha
    return Serial(p_table, repeats / trials, p_repeat, flag)


def duplicated_stretches(sequence: Sequence[int], length: int = 30) -> list[tuple[int, int, int]]:
    """(first start, repeat start, length) of every stretch of ``length`` or more throws
    that appears twice.

    A run of 30 d6 throws recurring by chance has odds about 6^−30 per pair of
    places: a hit means the log was copied or pasted, not thrown.
    """
    seen: dict[tuple[int, ...], int] = {}
    hits = []
    i = 0
    while i + length <= len(sequence):
        key = tuple(sequence[i : i + length])
        j = seen.get(key)
        if j is not None and i - j >= length:
            run = length
            while i + run < len(sequence) and sequence[j + run] == sequence[i + run]:
                run += 1
            hits.append((j, i, run))
            i += run  # report each copied stretch once, at its full length
            continue
        seen.setdefault(key, i)
        i += 1
    return hits


def bias_alternative(sides: int, bias: float) -> np.ndarray:
    """One face ``bias`` off its fair share (0.2: a d20 face at 6%), the rest evenly."""
    p = np.full(sides, 1 / sides)
    p[0] *= 1 + bias
    p[1:] -= (p[0] - 1 / sides) / (sides - 1)
    return p


def throws_for_power(
    sides: int,
    bias: float = 0.2,
    power: float = 0.8,
    alpha: float = 0.05,
    *,
    simulations: int = 20_000,
    seed: int = 20261122,
) -> int:
    """Throws for Pearson's χ² at level α to detect the bias with this power.

    The noncentral χ² approximation gives the neighbourhood (it is a few
    percent optimistic at these sizes); the answer is then found by simulating
    the biased die (a fixed seed, so a report is reproducible).
    """
    p = bias_alternative(sides, bias)
    effect = float(np.sum((p - 1 / sides) ** 2 * sides))  # noncentrality per throw
    df = sides - 1
    critical = stats.chi2.ppf(1 - alpha, df)

    def approx_shortfall(n: float) -> float:
        return float(stats.ncx2.sf(critical, df, n * effect)) - power

    high = 10.0
    while approx_shortfall(high) < 0:
        high *= 2
    guess = int(np.ceil(optimize.brentq(approx_shortfall, 1.0, high)))

    def simulated_power(n: int) -> float:
        rng = np.random.default_rng(seed)  # common random numbers: a monotone search
        sims = rng.multinomial(n, p, size=simulations)
        expected = n / sides
        chi = ((sims - expected) ** 2 / expected).sum(axis=1)
        return float((chi > critical).mean())

    low, high_n = max(1, guess // 2), guess
    while simulated_power(high_n) < power:
        low, high_n = high_n, high_n * 2
    while high_n - low > max(1, guess // 200):  # to half a percent of the answer
        mid = (low + high_n) // 2
        if simulated_power(mid) >= power:
            high_n = mid
        else:
            low = mid
    return high_n


def sequential_stopping_time(
    sides: int,
    bias: float = 0.2,
    alpha: float = 0.05,
    *,
    runs: int = 100,
    seed: int = 20261122,
    chunk: int = 4_000,
) -> int:
    """The e-value's expected stopping time against this bias: the mean number of
    throws until E ≥ 1/α, from simulated loaded dice (a fixed seed).

    Runs that have not stopped by 50 times the fixed-sample size count at that
    cap, so the figure is a lower bound only in that (unseen here) case.
    """
    p = bias_alternative(sides, bias)
    rng = np.random.default_rng(seed)
    cap = 50 * throws_for_power(sides, bias, alpha=alpha)
    target = np.log(1 / alpha)
    conc = np.asarray(CONCENTRATIONS)[:, None]
    times = []
    for _ in range(runs):
        counts = np.zeros(sides)
        done = 0
        stopped = cap
        while done < cap:
            faces = rng.choice(sides, size=chunk, p=p)
            steps = np.zeros((chunk, sides))
            steps[np.arange(chunk), faces] = 1
            prefix = counts + steps.cumsum(axis=0)  # counts after each throw of the chunk
            n = done + np.arange(1, chunk + 1)
            a = conc[:, :, None]  # one Dirichlet(c, ..., c) per concentration
            per_face = gammaln(a + prefix[None]) - gammaln(a)
            logs = (
                gammaln(sides * conc) - gammaln(sides * conc + n)
                + per_face.sum(axis=2)
                + n * np.log(sides)
            )  # fmt: skip
            log_e = logsumexp(logs, axis=0) - np.log(len(CONCENTRATIONS))
            hits = np.nonzero(log_e >= target)[0]
            if len(hits):
                stopped = done + int(hits[0]) + 1
                break
            counts = prefix[-1]
            done += chunk
        times.append(min(stopped, cap))
    return int(np.ceil(np.mean(times)))
