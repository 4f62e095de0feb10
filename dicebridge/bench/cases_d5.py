"""Benchmark cases for the d5 stop-die system: distributions to a 1e-15 tail.

Ours are the closed forms, exact for every outcome they list, with the exact
mass left outside.  The peers cannot roll "until a 1" without a limit: each
explodes the continue outcome to a depth chosen so the mass it cuts off is
below the same 1e-15, and compares on the same outcomes.

* icepool: ``Die({0: 1, 1: 4}).explode([1], depth=D)`` is one roll's count;
  the net result is the difference of two such dice.
* dyce: ``expand`` with a callback that adds 1 and recurses on a continue,
  to the same depth, ``min_path_probability=0``.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from dicebridge.bench.case import BenchCase, float_pmf
from mechanics.d5 import NetResult, StopCount
from mechanics.distribution import Distribution

TAIL = 1e-15


def cases(quick: bool) -> list[BenchCase]:
    return [_case(net=True), _case(net=False)]


def _case(net: bool) -> BenchCase:
    roll = NetResult() if net else StopCount()
    top = roll.support_for(TAIL)
    depth = StopCount().support_for(TAIL / 4)  # each side's cut mass below a quarter
    low = -top if net else 0

    def ours() -> Distribution:
        return roll.truncated(TAIL)[0]

    def icepool_peer() -> Any:
        import icepool

        count = icepool.Die({0: 1, 1: 4}).explode([1], depth=depth)
        return count - count if net else count

    def dyce_peer() -> Any:
        from dyce import H
        from dyce.evaluation import expand
        from dyce.lifecycle import ExperimentalWarning

        def go_on(result: Any, *, left: int) -> Any:
            if result.outcome == 1 and left:
                return expand(go_on, result.h, left=left - 1, min_path_probability=Fraction(0)) + 1
            return result.outcome

        with warnings.catch_warnings():  # dyce marks expand as experimental
            warnings.simplefilter("ignore", ExperimentalWarning)
            count = expand(go_on, H({0: 1, 1: 4}), left=depth, min_path_probability=Fraction(0))
        return count - count if net else count

    def answer(result: Any) -> list[float]:
        return float_pmf(result, range(low, top + 1))

    return BenchCase(
        case=f"d5 {'net result' if net else 'single count'} to 1e-15",
        ours=ours,
        exact=True,
        icepool=icepool_peer,
        dyce=dyce_peer,
        answer=answer,
        tolerance=1e-13,
        notes=(
            f"peers explode to depth {depth} (cut-off mass below 1e-15); we list "
            f"{'±' if net else '0..'}{top} exactly",
            "peers build their dice fresh in every call (no icepool/dyce cache is touched)",
        ),
    )
