"""Benchmark cases for Peupfudge: the full distribution of NdF.

Peers in their own idiom: icepool ``N @ Die([-1, 0, 1])`` and dyce
``N @ H((-1, 0, 1))`` (both repeated-sum operators).
"""

from __future__ import annotations

from typing import Any

from dicebridge.bench.case import BenchCase, float_pmf
from mechanics.distribution import Distribution
from mechanics.peupfudge import fudge


def cases(quick: bool) -> list[BenchCase]:
    return [_case(n) for n in ((4, 50) if quick else (4, 50, 200))]


def _case(n: int) -> BenchCase:
    def ours() -> Distribution:
        return fudge(n)

    def icepool_peer() -> Any:
        import icepool

        return n @ icepool.Die([-1, 0, 1])

    def dyce_peer() -> Any:
        from dyce import H

        return n @ H((-1, 0, 1))

    def answer(result: Any) -> list[float]:
        return float_pmf(result, range(-n, n + 1))

    return BenchCase(
        case=f"peupfudge {n}dF",
        ours=ours,
        exact=True,
        icepool=icepool_peer,
        dyce=dyce_peer,
        answer=answer,
        tolerance=1e-12,
    )
