"""The audit of one die, and its verdict in words a player understands."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit import fairness, sequential
from audit.logs import MAX_THROWS, LogError, ThrowLog, check_sides

ALPHA = 0.05
# The smallest bias one asks about: one face 5% to 100% off its fair share (a d6 face
# at 17.5% to 33.3%).  Below 5% a d6 needs more than 26,000 throws, a d100 more than
# 1.6 million; the work of the power search and the stopping-time simulation grows
# as 1 / bias².  A d2 at 1 is a coin that always lands on face 1.
MIN_BIAS, MAX_BIAS = 0.05, 1.0


def check_bias(bias: float) -> None:
    """LogError unless the audit answers for this bias (NaN and infinities included)."""
    if not MIN_BIAS <= bias <= MAX_BIAS:
        raise LogError(
            f"the bias is a share of the fair share from {MIN_BIAS} to {MAX_BIAS:g} (one face "
            f"5% to 100% off), not {bias:g}"
        )


@dataclass(frozen=True)
class Audit:
    log: ThrowLog
    fit: fairness.GoodnessOfFit
    faces: list[fairness.FaceShare]
    log_e: float
    serial: sequential.Serial
    throws_needed: int
    sequential_throws: int
    bias: float
    duplicates: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def p_value(self) -> float:
        """The fixed-sample p-value: Monte Carlo when expected counts are small."""
        return self.fit.mc_p_value if self.fit.mc_p_value is not None else self.fit.p_value

    @property
    def e_value(self) -> float:
        """E itself; infinity past the largest float (about 10^308), where ``log_e``
        still holds it (the JSON then has null)."""
        return math.exp(self.log_e) if self.log_e < math.log(sys.float_info.max) else math.inf

    @property
    def verdict(self) -> str:
        if self.p_value < ALPHA:
            return "biased"
        if self.log.n >= self.throws_needed:
            return "consistent_with_fair"
        return "insufficient"

    @property
    def more_throws(self) -> int:
        return max(0, self.throws_needed - self.log.n)

    def ruled_out_bias(self) -> float:
        """The largest relative bias of one face the data rules out (95% intervals)."""
        fair = 1 / self.log.sides
        return max(max(f.ci_high / fair - 1, 1 - f.ci_low / fair) for f in self.faces)

    def words(self) -> str:
        """The verdict in words; a log with copied stretches says so first."""
        verdict = self._verdict_words()
        if not self.duplicates:
            return verdict
        copies = "; ".join(
            f"throws {again + 1:,}–{again + length:,} repeat throws {first + 1:,}–"
            f"{first + length:,}"
            for first, again, length in self.duplicates[:3]
        )
        more = f" and {len(self.duplicates) - 3:,} more" if len(self.duplicates) > 3 else ""
        return (
            f"Copied throws found: {copies}{more} (a log imported twice, or pasted), so this "
            f"verdict counts throws more than once and cannot be trusted. {verdict}"
        )

    def _verdict_words(self) -> str:
        n, k = self.log.n, self.log.sides
        if self.verdict == "biased":
            off = [f for f in self.faces if f.p_holm < ALPHA] or sorted(
                self.faces, key=lambda f: f.p_value
            )[:1]
            parts = [
                f"face {f.face} comes up {100 * f.share:.2f}% of the time "
                f"(95% interval {100 * f.ci_low:.2f}–{100 * f.ci_high:.2f}%, fair is "
                f"{100 / k:.2f}%)"
                for f in off
            ]
            return f"Biased: after {n:,} throws, " + "; ".join(parts) + "."
        if self.verdict == "consistent_with_fair":
            return (
                f"Consistent with fair after {n:,} throws: no face is more than "
                f"{100 * self.ruled_out_bias():.0f}% off its fair share (95% intervals)."
            )
        return (
            f"Not enough throws yet: {n:,} so far. To tell a face {100 * self.bias:.0f}% off "
            f"its fair share from a fair die takes about {self.throws_needed:,} throws "
            f"({self.more_throws:,} more)."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.log.n,
            "sides": self.log.sides,
            "chi2": self.fit.chi2,
            "p_value": self.p_value,
            "chi2_p_value": self.fit.p_value,
            "monte_carlo": self.fit.mc_p_value is not None,
            "g": self.fit.g,
            "g_p_value": self.fit.g_p_value,
            "e_value": self.e_value if math.isfinite(self.e_value) else None,
            "log10_e_value": self.log_e / math.log(10),
            "verdict": self.verdict,
            "words": self.words(),
            "faces": [
                {
                    "face": f.face,
                    "count": f.count,
                    "share": f.share,
                    "ci_low": f.ci_low,
                    "ci_high": f.ci_high,
                    "p_holm": f.p_holm,
                    "credible_low": f.credible_low,
                    "credible_high": f.credible_high,
                }
                for f in self.faces
            ],
            "serial": {
                "p_value": self.serial.p_value,
                "repeat_rate": self.serial.repeat_rate,
                "repeat_p_value": self.serial.repeat_p_value,
                "flag": self.serial.flag,
            },
            "throws_needed": self.throws_needed,
            "more_throws": self.more_throws,
            "sequential_throws": self.sequential_throws,
            "duplicated_stretches": [list(d) for d in self.duplicates],
        }


def audit(log: ThrowLog, bias: float = 0.2, rng: np.random.Generator | None = None) -> Audit:
    """Every test on one die's log; LogError (a ValueError) for a die of too few or
    too many sides, a bias out of range, no throws, or more than MAX_THROWS."""
    check_sides(log.sides)
    check_bias(bias)
    if log.n == 0:
        raise LogError("no throws to audit")
    if log.n > MAX_THROWS:
        raise LogError(f"at most {MAX_THROWS:,} throws in one audit, not {log.n:,}")
    fit = fairness.goodness_of_fit(log.counts, rng=rng)
    throws_needed = sequential.throws_for_power(log.sides, bias)
    return Audit(
        log=log,
        fit=fit,
        faces=fairness.face_shares(log.counts),
        log_e=sequential.log_e_value(log.counts),
        serial=sequential.serial_dependence(log.sequence, log.sides),
        throws_needed=throws_needed,
        sequential_throws=sequential.sequential_stopping_time(
            log.sides, bias, fixed_sample=throws_needed
        ),
        bias=bias,
        duplicates=sequential.duplicated_stretches(log.sequence) if log.sequence else [],
    )
