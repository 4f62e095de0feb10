"""Anytime-valid evidence, order effects, and how many throws a question needs.

The e-value is a Dirichlet-multinomial mixture against the fair die: for each
concentration c in (1, 10, 100, 1000) the Bayes factor of a symmetric
Dirichlet(c, …, c) prior over the face probabilities, averaged over the four.
Its expectation under a fair die is 1 at every stopping time, so an audit may
stop whenever it likes and reject at E ≥ 1/α without inflating false alarms.

Along a log the Bayes factor is a running product: the throw that lands on
face j, after i throws of which n_j were j, multiplies it by K (c + n_j) / (Kc + i)
(the Pólya urn's prediction against the fair 1/K).  The e-value path and the
stopping-time simulation use that product, a few numpy operations per throw
whatever the number of faces, and give the values ``log_e_value`` gives for the
counts so far.

Ville's inequality is about the path's supremum, so a live audit goes by the
running maximum (``e_value_peak``): once E has reached 1/α the rejection stands.
``confidence_sequence`` gives each face's share an interval valid at every look,
from the same mixture seen from one face.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np
from scipy import optimize, stats
from scipy.special import betaln, gammaln, logsumexp, xlog1py, xlogy

CONCENTRATIONS = (1.0, 10.0, 100.0, 1000.0)
# The stopping-time simulation ends after this many simulated throws in all (about a
# second on the development machine): see sequential_stopping_time.
SIMULATION_BUDGET = 20_000_000
_CACHED_CHUNKS = 250  # of the fair die's part of the e-value path: 32 MB at most


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


def _earlier_same(faces: np.ndarray, per_face: np.ndarray) -> np.ndarray:
    """For each throw (faces 0..K−1), how many earlier throws of ``faces`` show its face.

    ``per_face`` is ``np.bincount(faces, minlength=K)``.
    """
    small = faces.astype(np.int16) if len(per_face) < 2**15 else faces  # a radix sort
    order = np.argsort(small, kind="stable")
    out = np.empty(len(faces), dtype=np.int64)
    out[order] = np.arange(len(faces)) - np.repeat(np.cumsum(per_face) - per_face, per_face)
    return out


def _faces(sequence: Sequence[int], sides: int) -> np.ndarray:
    faces = np.asarray(sequence, dtype=np.int64) - 1
    if len(faces) and (faces.min() < 0 or faces.max() >= sides):
        raise ValueError(f"faces of a d{sides} are 1 to {sides}")
    return faces


def _log_mean_exp(logs: np.ndarray) -> np.ndarray:
    """ln mean exp over axis 0; scipy's logsumexp costs ten times as much here."""
    top = logs.max(axis=0)
    return np.asarray(top + np.log(np.exp(logs - top).mean(axis=0)))


def _e_value_chunks(faces: np.ndarray, sides: int, chunk: int = 1 << 20) -> Iterator[np.ndarray]:
    """log E after each throw, a chunk at a time (memory stays bounded on a long log)."""
    conc = np.asarray(CONCENTRATIONS)[:, None]
    counts = np.zeros(sides, dtype=np.int64)
    face_part = np.zeros((len(CONCENTRATIONS), 1))  # Σ_j ln Γ(c + n_j)/Γ(c) so far
    for start in range(0, len(faces), chunk):
        part = faces[start : start + chunk]
        per_face = np.bincount(part, minlength=sides)
        face_now = face_part + np.cumsum(
            np.log(conc + counts[part] + _earlier_same(part, per_face)), axis=1
        )
        n = np.arange(start + 1, start + len(part) + 1)
        fair = gammaln(sides * conc + n) - gammaln(sides * conc) - n * np.log(sides)
        yield _log_mean_exp(face_now - fair)
        counts += per_face
        face_part = face_now[:, -1:]


def e_value_path(sequence: Sequence[int], sides: int) -> np.ndarray:
    """log E after each throw of an ordered log (for the live plot and stopping)."""
    chunks = list(_e_value_chunks(_faces(sequence, sides), sides))
    return np.concatenate(chunks) if chunks else np.empty(0)


@dataclass(frozen=True)
class Peak:
    """The running maximum of an ordered log's e-value path.

    Ville's inequality bounds the supremum, P(E_t ≥ 1/α at some t) ≤ α for a fair
    die, so a path that has reached 1/α has rejected for good, whatever E is now.
    """

    log_e: float  # the highest ln E
    at: int  # the throw (from 1) where it was first that high
    crossed_at: int | None  # the first throw with E ≥ 1/α; None if never


def e_value_peak(sequence: Sequence[int], sides: int, alpha: float = 0.05) -> Peak:
    """The path's maximum, where it was reached, and its first crossing of 1/α."""
    best, at, crossed, start = -math.inf, 0, None, 0
    target = math.log(1 / alpha)
    for logs in _e_value_chunks(_faces(sequence, sides), sides):
        i = int(np.argmax(logs))
        if logs[i] > best:
            best, at = float(logs[i]), start + i + 1
        if crossed is None and logs[i] >= target:
            crossed = start + int(np.argmax(logs >= target)) + 1
        start += len(logs)
    if start == 0:
        raise ValueError("no throws: an e-value path needs at least one")
    return Peak(best, at, crossed)


def confidence_sequence(counts: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid 1 − α intervals for each face's share (last axis: the faces).

    For a share p of face j, M_t(p) = (the e-value's mixture seen from face j: a
    Beta(c, (K − 1)c) over its share, averaged over the concentrations) / p^S (1 − p)^(t − S)
    is a nonnegative martingale with mean 1 when p is the true share, so by Ville
    {p : M_t(p) < 1/α} holds it at every t at once with probability ≥ 1 − α,
    however often it is looked at.  It is an interval (ln M_t is convex in p), its
    ends are found by bisection and rounded outwards.
    """
    s = np.asarray(counts, dtype=float)
    k = s.shape[-1]
    t = np.broadcast_to(s.sum(axis=-1, keepdims=True), s.shape)
    conc = np.asarray(CONCENTRATIONS)
    each = [betaln(c + s, (k - 1) * c + t - s) - betaln(c, (k - 1) * c) for c in conc]
    mix = _log_mean_exp(np.stack(each))  # the mixture's ln likelihood of face j's throws
    target = math.log(1 / alpha)

    def outside(p: np.ndarray) -> np.ndarray:
        return np.asarray(mix - xlogy(s, p) - xlog1py(t - s, -p) >= target)

    share = np.divide(s, t, out=np.full(s.shape, 1 / k), where=t > 0)  # always inside
    ends = []
    for edge in (0.0, 1.0):
        far, near = np.full(s.shape, edge), share.copy()
        for _ in range(40):  # to 2^-40 of the way to the edge: far below what is shown
            mid = (far + near) / 2
            out = outside(mid)
            far, near = np.where(out, mid, far), np.where(out, near, mid)
        ends.append(np.where(outside(np.full(s.shape, edge)), far, edge))
    return ends[0], ends[1]


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


# A copy must be long enough that chance alone would almost never give one: the
# expected number of pairs of places whose next L throws agree by chance is about
# n² (Σ p_i²)^L, held under CHANCE_COPIES; never shorter than MIN_COPY throws.
CHANCE_COPIES = 1e-6
MIN_COPY = 30


def copy_window(sequence: Sequence[int]) -> int:
    """The shortest stretch ``duplicated_stretches`` calls a copy in this log.

    With n throws whose faces come up with shares p_i, two given places agree for
    L throws by chance with probability about (Σ p_i²)^L, and there are fewer than
    n² pairs of places, so L = ⌈ln(n² / 10⁻⁶) / ln(1 / Σ p_i²)⌉ keeps the expected
    number of chance copies under one in a million; at least 30 (a d6 stays at 30
    up to about 470 million throws, a coin of 200,000 flips needs 56, a log of
    one face has no window that tells, and gets one longer than itself).
    """
    n = len(sequence)
    if n < 2:
        return MIN_COPY
    _, counts = np.unique(np.asarray(sequence), return_counts=True)
    repeat = float(np.sum((counts / n) ** 2))  # the chance two throws agree
    if repeat >= 1.0 - 1e-12:  # one face only: every stretch repeats
        return max(MIN_COPY, n)
    window = np.log(float(n) ** 2 / CHANCE_COPIES) / -np.log(repeat)
    return max(MIN_COPY, int(np.ceil(window)))


def duplicated_stretches(
    sequence: Sequence[int], length: int | None = None
) -> list[tuple[int, int, int]]:
    """(first start, repeat start, length) of every stretch of ``length`` or more throws
    that appears twice; ``length`` defaults to ``copy_window(sequence)``.

    The window grows with the log and shrinks with the number of faces, so that a
    hit means the log was copied or pasted, not thrown: a run of 30 d6 throws
    recurring by chance has odds about 6^−30 per pair of places, but a coin of
    200,000 random flips repeats stretches of 30 flips (2^−30 a pair) about a
    dozen times, so its window is 56.

    Reading left to right, a stretch is a copy when the same ``length`` throws
    began at least ``length`` throws earlier (at the first such place outside the
    copies already found); it is reported once, at its full length, and reading
    goes on after it.  Every window of ``length`` throws is hashed with numpy
    (8 bytes a throw); only windows whose hash was seen ``length`` or more throws
    earlier are looked at one by one, and compared throw by throw.
    """
    if length is None:
        length = copy_window(sequence)
    s = np.asarray(sequence, dtype=np.int64)
    n = len(s)
    windows = n - length + 1
    if length < 1 or windows <= length:  # a copy needs 2 × length throws
        return []
    h = np.zeros(windows, dtype=np.uint64)
    multiplier = np.uint64(0x9E3779B97F4A7C15)
    as_unsigned = s.view(np.uint64)
    for t in range(length):  # a polynomial hash, wrapping at 2^64
        np.multiply(h, multiplier, out=h)
        np.add(h, as_unsigned[t : t + windows], out=h)
    _, first_index, group = np.unique(h, return_index=True, return_inverse=True)
    group = group.reshape(-1)
    positions = np.arange(windows)
    candidates = np.flatnonzero(positions - first_index[group] >= length)
    if len(candidates) == 0:  # the common case: nothing repeats
        return []
    order = np.argsort(group, kind="stable")  # each group's places, in order
    group_start = np.concatenate(([0], np.cumsum(np.bincount(group))))
    hits: list[tuple[int, int, int]] = []
    skip_starts: list[int] = []  # places inside a copy found are never read
    skip_ends: list[int] = []

    def read(q: int) -> bool:
        k = bisect_right(skip_starts, q) - 1
        return k < 0 or q >= skip_ends[k]

    def first_read_copy(i: int) -> int | None:
        g = int(group[i])
        for q in order[group_start[g] : group_start[g + 1]].tolist():
            if q >= i:
                return None
            if read(q) and np.array_equal(s[q : q + length], s[i : i + length]):
                return int(q)
        return None

    k = 0
    while k < len(candidates):
        i = int(candidates[k])
        j = first_read_copy(i)
        if j is None or i - j < length:
            k += 1
            continue
        run = length
        block = 1024
        while i + run < n:  # extend the copy while the throws keep matching
            end = min(n, i + run + block)
            same = s[j + run : j + run + end - i - run] == s[i + run : end]
            if not same.all():
                run += int(np.argmin(same))
                break
            run = end - i
            block *= 2
        hits.append((j, i, run))
        skip_starts.append(i)
        skip_ends.append(i + run)
        k = int(np.searchsorted(candidates, i + run))  # reading goes on after the copy
    return hits


def bias_alternative(sides: int, bias: float) -> np.ndarray:
    """One face ``bias`` off its fair share (0.2: a d20 face at 6%), the rest evenly."""
    p = np.full(sides, 1 / sides)
    p[0] *= 1 + bias
    p[1:] -= (p[0] - 1 / sides) / (sides - 1)
    return p


# The fixed-sample test the verdict uses: Pearson's χ² against its asymptotic
# critical value, or, when an expected count is below this (fewer than 5 throws a
# face), the Monte Carlo exact test (fairness.goodness_of_fit).
SMALL_EXPECTED = 5.0


@lru_cache(maxsize=64)
def throws_for_power(
    sides: int,
    bias: float = 0.2,
    power: float = 0.8,
    alpha: float = 0.05,
    *,
    simulations: int = 20_000,
    seed: int = 20261122,
) -> int:
    """Throws for the verdict's fixed-sample test at level α to detect the bias with
    this power.

    The noncentral χ² approximation gives the neighbourhood (it is a few
    percent optimistic at these sizes); the answer is then found by simulating
    the biased die (a fixed seed, so a report is reproducible, and so the answer
    is kept for the next audit asking the same).  Where fewer than 5 throws a
    face are expected the verdict takes the Monte Carlo exact p-value, not the
    asymptotic χ², so the power there is that test's: a simulated throw log is
    rejected when (1 + simulated fair logs at least as far off) / (1 + their
    number) is below α.  A coin thrown 5 times can never get there (5 heads of 5
    have p = 2/32), so a coin needs at least 6 throws whatever its bias.
    """
    if not 0 < bias <= sides - 1:
        raise ValueError(f"a bias of one face is above 0 and at most {sides - 1}, not {bias}")
    p = bias_alternative(sides, bias)
    effect = float(np.sum((p - 1 / sides) ** 2 * sides))  # noncentrality per throw
    df = sides - 1
    critical = stats.chi2.ppf(1 - alpha, df)

    def approx_shortfall(n: float) -> float:
        return float(stats.ncx2.sf(critical, df, n * effect)) - power

    high = 10.0
    while approx_shortfall(high) < 0:
        high *= 2
        if high > 1e12:
            raise ValueError(f"a bias of {bias} is too small to find in any number of throws")
    guess = int(np.ceil(optimize.brentq(approx_shortfall, 1.0, high)))

    def simulated_power(n: int) -> float:
        rng = np.random.default_rng(seed)  # common random numbers: a monotone search
        sims = rng.multinomial(n, p, size=simulations)
        expected = n / sides
        chi = ((sims - expected) ** 2 / expected).sum(axis=1)
        if expected >= SMALL_EXPECTED:
            return float((chi > critical).mean())
        return float(np.mean(_monte_carlo_p(chi, n, sides, simulations, seed + 1) < alpha))

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


def _monte_carlo_p(chi: np.ndarray, n: int, sides: int, simulations: int, seed: int) -> np.ndarray:
    """The Monte Carlo exact p-value of each χ² in ``chi`` for n throws of a fair die,
    as ``fairness.monte_carlo_p_value`` computes it: (1 + fair logs at least as far
    off) / (1 + simulations)."""
    fair = np.random.default_rng(seed).multinomial(n, np.full(sides, 1 / sides), simulations)
    expected = n / sides
    null = np.sort(((fair - expected) ** 2 / expected).sum(axis=1))
    at_least = simulations - np.searchsorted(null, chi - 1e-9, side="left")
    return np.asarray((1 + at_least) / (1 + simulations))


@lru_cache(maxsize=64)
def sequential_stopping_time(
    sides: int,
    bias: float = 0.2,
    alpha: float = 0.05,
    *,
    runs: int = 100,
    seed: int = 20261122,
    chunk: int = 4_000,
    fixed_sample: int | None = None,
    budget: int = SIMULATION_BUDGET,
) -> int:
    """The e-value's expected stopping time against this bias: the mean number of
    throws until E ≥ 1/α, from simulated loaded dice (a fixed seed).

    Runs that have not stopped by 50 times the fixed-sample size count at that
    cap, so the figure is a lower bound only in that (unseen here) case.
    ``fixed_sample`` is that size when the caller has it already
    (``throws_for_power`` with the same arguments).

    The work is bounded: no run goes on once ``budget`` throws have been
    simulated in all.  Where ``runs`` runs would need more (a d100 at biases
    under about 0.18, a d20 under about 0.06) the mean is over the runs that finished
    within it; a run the budget cut short is left out, unless it is the only
    one, and then the figure is a lower bound.  Each run walks the e-value
    throw by throw, exactly as ``log_e_value`` of the counts so far gives it.
    """
    n_fixed = (
        fixed_sample if fixed_sample is not None else throws_for_power(sides, bias, alpha=alpha)
    )
    times = _stopping_times(sides, bias, alpha, runs, seed, chunk, n_fixed, budget)
    return int(np.ceil(np.mean(times)))


@lru_cache(maxsize=64)
def sequential_throws_for_power(
    sides: int,
    bias: float = 0.2,
    power: float = 0.8,
    alpha: float = 0.05,
    *,
    runs: int = 100,
    seed: int = 20261122,
    chunk: int = 4_000,
    fixed_sample: int | None = None,
    budget: int = SIMULATION_BUDGET,
) -> int:
    """Throws for the e-value to detect the bias with this power: the number by which
    that share of the simulated loaded dice of ``sequential_stopping_time`` (the same
    runs, so asking both costs one simulation) have reached E ≥ 1/α.

    This is what a live audit, whose verdict the e-value gives, needs before it may
    call a die consistent with fair.  Where the work budget cut the simulation short
    the figure is over the runs that finished, as the mean is.
    """
    n_fixed = (
        fixed_sample if fixed_sample is not None else throws_for_power(sides, bias, alpha=alpha)
    )
    times = sorted(_stopping_times(sides, bias, alpha, runs, seed, chunk, n_fixed, budget))
    return int(times[max(0, int(np.ceil(power * len(times))) - 1)])


@lru_cache(maxsize=64)
def _stopping_times(
    sides: int,
    bias: float,
    alpha: float,
    runs: int,
    seed: int,
    chunk: int,
    n_fixed: int,
    budget: int,
) -> tuple[int, ...]:
    """The simulated runs' stopping times (see ``sequential_stopping_time``)."""
    p = bias_alternative(sides, bias)
    rng = np.random.default_rng(seed)
    cap = 50 * n_fixed
    target = np.log(1 / alpha)
    conc = np.asarray(CONCENTRATIONS)[:, None]
    draw = _face_sampler(p)
    # ln Γ(Kc + n)/Γ(Kc) − n ln K after n throws: the same on every run, so the first
    # chunks are kept; a run past them adds ln((Kc + n − 1)/K) throw by throw
    fair_part: dict[int, np.ndarray] = {}

    def fair(block: int, before: np.ndarray | None) -> np.ndarray:
        if block in fair_part:
            return fair_part[block]
        n = np.arange(block * chunk + 1, (block + 1) * chunk + 1)
        if block < _CACHED_CHUNKS or before is None:
            part = gammaln(sides * conc + n) - gammaln(sides * conc) - n * np.log(sides)
        else:
            part = before[:, -1:] + np.cumsum(np.log((sides * conc + n - 1) / sides), axis=1)
        if block < _CACHED_CHUNKS:
            fair_part[block] = part
        return part

    times: list[int] = []
    simulated = 0
    for _ in range(runs):
        if simulated >= budget:
            break
        limit = min(cap, budget - simulated)
        counts = np.zeros(sides, dtype=np.int64)
        face_part = np.zeros((len(CONCENTRATIONS), 1))  # Σ_j ln Γ(c + n_j)/Γ(c) so far
        stopped = None
        block = 0
        fair_now = None
        while block * chunk < limit:
            faces = draw(rng.random(chunk))
            per_face = np.bincount(faces, minlength=sides)
            before = counts[faces] + _earlier_same(faces, per_face)
            face_now = face_part + np.cumsum(np.log(conc + before), axis=1)
            fair_now = fair(block, fair_now)
            logs = face_now - fair_now  # ln BF_c after each throw of the chunk
            block += 1
            near = np.flatnonzero(logs.max(axis=0) >= target)  # the mean is below the max
            if len(near):
                log_e = logsumexp(logs[:, near], axis=0) - np.log(len(CONCENTRATIONS))
                hits = near[log_e >= target]
                if len(hits):
                    stopped = (block - 1) * chunk + int(hits[0]) + 1
                    break
            counts += per_face
            face_part = face_now[:, -1:]
        simulated += block * chunk
        if stopped is not None:
            times.append(min(stopped, cap))
        elif limit == cap:
            times.append(cap)
        elif not times:  # cut short by the budget, and the only run: a lower bound
            times.append(block * chunk)
    return tuple(times)


def _face_sampler(p: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Uniforms to faces exactly as ``Generator.choice(len(p), p=p)`` maps them (the
    first face whose cumulative share exceeds u), without its binary search: under
    ``bias_alternative`` faces 2..K share one probability, so arithmetic finds the
    face, and comparisons with the cumulative shares correct its rounding."""
    k = len(p)
    cdf = p.cumsum()
    cdf /= cdf[-1]
    step = (1 - cdf[0]) / (k - 1) if k > 1 else 0.0

    def draw(u: np.ndarray) -> np.ndarray:
        guess = np.floor((u - cdf[0]) / step) + 1 if step > 0 else np.zeros_like(u)
        i = np.clip(np.where(u < cdf[0], 0, guess), 0, k - 1).astype(np.int64)
        while (up := (u >= cdf[i]) & (i < k - 1)).any():
            i += up
        while (down := (i > 0) & (u < cdf[np.maximum(i - 1, 0)])).any():
            i -= down
        return i

    return draw
