"""One benchmark case: our engine and its peers on the same question."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BenchCase:
    """``ours`` and each peer compute the same thing; ``answer`` turns any of the
    results into a comparable list of floats so the runner can check that the
    peers really answered the same question (to ``tolerance``).

    ``exact`` says whether our result is exact (integer/Fraction weights, no
    truncation).  A peer is None where it cannot express the case at all.
    """

    case: str
    ours: Callable[[], Any]
    exact: bool
    icepool: Callable[[], Any] | None = None
    dyce: Callable[[], Any] | None = None
    answer: Callable[[Any], list[float]] | None = None
    tolerance: float = 1e-9
    notes: tuple[str, ...] = field(default_factory=tuple)


def float_pmf(result: Any, outcomes: Iterable[int]) -> list[float]:
    """Float probabilities of ``outcomes`` from our Distribution, an icepool Die or a dyce H."""
    from mechanics.distribution import Distribution

    if isinstance(result, Distribution):
        total = result.total
        return [result.weight(k) / total for k in outcomes]
    if hasattr(result, "quantity"):  # icepool Die
        denominator = result.denominator()
        return [result.quantity(k) / denominator for k in outcomes]
    total = result.total  # dyce H
    return [result.get(k, 0) / total for k in outcomes]
