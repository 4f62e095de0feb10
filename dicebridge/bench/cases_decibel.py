"""Benchmark cases for Decibel: the outcome distribution of every (N−X)dB check.

The question is the full pmf of ``Y − m`` (the highest kept die minus the lowest
die) over outcomes 0..19.  Peers, in their own idiom:

* icepool: ``d20.pool(N)[-1, ..., 1, 0 * X]`` counts the lowest die negatively and
  the R-th lowest positively, then sums, with a fresh ``SumEvaluator`` per call so
  its per-evaluator cache starts cold;
* dyce: ``(N @ P(20)).rolls_with_counts(0, R − 1)`` yields the two selected order
  statistics with their counts, folded into an ``H`` of the difference.
"""

from __future__ import annotations

from typing import Any

from dicebridge.bench.case import BenchCase, float_pmf
from mechanics.decibel import FACES, outcome_distribution
from mechanics.distribution import Distribution

QUICK = ((3, 0), (7, 3), (12, 0), (12, 6), (30, 10))
EXTRA = ((30, 10), (60, 0))
NOTES = (
    "icepool: a fresh SumEvaluator per call (its cache is per evaluator); icepool's "
    "module-level binomial-row cache (icepool.math.comb_row_cache) stays warm",
    "dyce: rolls_with_counts(0, R-1) enumerates the two order statistics",
)


def cases(quick: bool) -> list[BenchCase]:
    if quick:
        checks = list(QUICK)
    else:
        checks = [(n, x) for n in range(2, 13) for x in range(n - 1)] + list(EXTRA)
    return [_case(n, x) for n, x in checks]


def _name(pool: int, discard: int) -> str:
    return f"decibel {pool}dB" if discard == 0 else f"decibel ({pool}-{discard})dB"


def _case(pool: int, discard: int) -> BenchCase:
    def ours() -> Distribution:
        return outcome_distribution(pool, discard)

    def icepool_peer() -> Any:
        import icepool
        from icepool.evaluator import SumEvaluator

        spread = icepool.d20.pool(pool)[(-1, ..., 1) + (0,) * discard]
        return SumEvaluator().evaluate(spread)

    def dyce_peer() -> Any:
        from dyce import H, P

        rolls = (pool @ P(FACES)).rolls_with_counts(0, pool - discard - 1)
        return H.from_counts((roll[1] - roll[0], count) for roll, count in rolls)

    return BenchCase(
        case=_name(pool, discard),
        ours=ours,
        exact=True,
        icepool=icepool_peer,
        dyce=dyce_peer,
        answer=_pmf,
        tolerance=1e-12,
        notes=NOTES,
    )


def _pmf(result: Any) -> list[float]:
    """Float pmf over outcomes 0..19 from our Distribution, an icepool Die or a dyce H."""
    return float_pmf(result, range(FACES))
