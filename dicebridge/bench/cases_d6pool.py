"""Benchmark cases for the exploding d6 pool: the score of N = 1..20 dice.

One case per (fate, cap) computes the capped score distribution for every pool
size from 1 to 20.  The peers cannot explode without limit, but a die that
explodes ``cap`` times has already reached the cap, so an explosion depth of
``cap`` makes their capped answer exact too: the comparison is like for like.

* icepool: one die as outcomes 0 (lose), 1 (win), 2 (win and explode) with
  ``.explode([2], depth=cap)``; the exploded total t holds ceil(t / 2) wins.
* dyce: ``expand`` with a callback that adds one win and recurses on an
  explosion, ``min_path_probability=0`` and the same depth.
"""

from __future__ import annotations

import warnings
from typing import Any

from dicebridge.bench.case import BenchCase, float_pmf
from mechanics.d6pool import MORTAL_CAP, SUPERNATURAL_CAP, Fate, wins
from mechanics.distribution import Distribution

POOLS = range(1, 21)


def cases(quick: bool) -> list[BenchCase]:
    combos = [(f, cap) for f in Fate for cap in (MORTAL_CAP, SUPERNATURAL_CAP)]
    if quick:
        combos = [(Fate.NEUTRAL, MORTAL_CAP), (Fate.UNLUCKY, SUPERNATURAL_CAP)]
    return [_case(f, cap) for f, cap in combos]


def _case(fate: Fate, cap: int) -> BenchCase:
    lose, win, explode = fate.value

    def ours() -> list[Distribution]:
        return [wins(n, cap, fate) for n in POOLS]

    def icepool_peer() -> list[Any]:
        import icepool

        die = (
            icepool.Die({0: lose, 1: win, 2: explode})
            if explode
            else icepool.Die({0: lose, 1: win})
        )
        one = die.explode([2], depth=cap).map(lambda t: (t + 1) // 2) if explode else die
        return [(n @ one).map(lambda s: min(s, cap)) for n in POOLS]

    def dyce_peer() -> list[Any]:
        from fractions import Fraction

        from dyce import H
        from dyce.evaluation import expand
        from dyce.lifecycle import ExperimentalWarning

        faces = H({0: lose, 1: win, 2: explode}) if explode else H({0: lose, 1: win})

        def chain(result: Any, *, depth: int) -> Any:
            if result.outcome == 2:
                if depth == 0:
                    return 1
                return (
                    expand(chain, result.h, depth=depth - 1, min_path_probability=Fraction(0)) + 1
                )
            return result.outcome

        with warnings.catch_warnings():  # dyce marks expand as experimental
            warnings.simplefilter("ignore", ExperimentalWarning)
            one = expand(chain, faces, depth=cap, min_path_probability=Fraction(0))
        return [(n @ one).apply(lambda s: min(s, cap)) for n in POOLS]

    def answer(results: list[Any]) -> list[float]:
        return [p for r in results for p in float_pmf(r, range(cap + 1))]

    return BenchCase(
        case=f"d6pool {fate.name.lower()} cap {cap} N=1..20",
        ours=ours,
        exact=True,
        icepool=icepool_peer,
        dyce=dyce_peer,
        answer=answer,
        tolerance=1e-12,
        notes=(f"peers explode to depth {cap}, which is exact for a score capped at {cap}",),
    )
