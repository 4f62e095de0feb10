"""The audit of one die, and its verdict in words a player understands."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field, replace
from functools import cached_property
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
    """Every test on one die's log, and its verdict.

    ``live`` says which test gives the verdict.  A live audit (a registered die,
    fed by the ledger, whose audit is computed afresh each time someone opens its
    page or asks the command line) is looked at again and again as throws come
    in, so its verdict follows the anytime-valid e-value: biased at E ≥ 1/α = 20,
    which a fair die reaches with probability under α however often it is looked
    at.  Ville's inequality bounds the path's supremum, so the live verdict goes by
    the highest E so far (``peak``), not E now: once crossed, "biased" stands.  Its
    per-face intervals are confidence sequences, valid at every look.  A one-off
    audit of a finished log (``dicebridge audit FILE``) follows the
    fixed-sample test at α, which is more powerful but holds its α only when the
    log is judged once.  Either way the other test is reported, as information.
    """

    log: ThrowLog
    fit: fairness.GoodnessOfFit
    log_e: float
    serial: sequential.Serial
    fixed_sample_throws: int  # the fixed-sample test's throws for 80% power
    sequential_power_throws: int  # the e-value's throws for 80% power
    sequential_throws: int  # the e-value's mean stopping time
    bias: float
    duplicates: list[tuple[int, int, int]] = field(default_factory=list)
    live: bool = False
    peak: sequential.Peak | None = None  # of the e-value path; None without throw order

    @cached_property
    def faces(self) -> list[fairness.FaceShare]:
        """Per-face shares, intervals and Holm-adjusted tests (computed when asked for).

        A live audit's intervals are confidence sequences: a Wilson interval looked at
        again and again covers less than its 95%."""
        faces = fairness.face_shares(self.log.counts)
        if not self.live:
            return faces
        low, high = sequential.confidence_sequence(self.log.array(), ALPHA)
        return [
            replace(f, ci_low=float(lo), ci_high=float(hi))
            for f, lo, hi in zip(faces, low, high, strict=True)
        ]

    @property
    def face_intervals(self) -> str:
        """What the faces' intervals are: "confidence_sequence" (live) or "wilson"."""
        return "confidence_sequence" if self.live else "wilson"

    @property
    def interval_words(self) -> str:
        return "95% anytime interval" if self.live else "95% interval"

    def off_fair(self, face: fairness.FaceShare) -> bool:
        """Is this face flagged: its anytime interval misses the fair share (live), or its
        Holm-adjusted p is below α (a fixed-sample test, for one look)?"""
        if self.live:
            return not face.ci_low <= 1 / self.log.sides <= face.ci_high
        return face.p_holm < ALPHA

    @property
    def p_value(self) -> float:
        """The fixed-sample p-value: Monte Carlo when expected counts are small."""
        return self.fit.mc_p_value if self.fit.mc_p_value is not None else self.fit.p_value

    @property
    def e_value(self) -> float:
        """E now; infinity past the largest float (about 10^308), where ``log_e``
        still holds it (the JSON then has null)."""
        return _exp(self.log_e)

    @property
    def log_e_max(self) -> float:
        """ln of the highest E so far; without throw order only E now is known."""
        return self.peak.log_e if self.peak is not None else self.log_e

    @property
    def e_value_max(self) -> float:
        return _exp(self.log_e_max)

    @property
    def verdict_test(self) -> str:
        """The test the verdict follows: "e_value" (live) or "fixed_sample"."""
        return "e_value" if self.live else "fixed_sample"

    @property
    def throws_needed(self) -> int:
        """Throws for 80% power against ``bias`` with the test the verdict follows."""
        return self.sequential_power_throws if self.live else self.fixed_sample_throws

    @property
    def rejects(self) -> bool:
        """Does the verdict's test reject the fair die?"""
        if self.live:  # the running maximum: Ville bounds the supremum, not E now
            return self.log_e_max >= math.log(1 / ALPHA)
        return self.p_value < ALPHA

    @property
    def verdict(self) -> str:
        if self.rejects:
            return "biased"
        if self.log.n >= self.throws_needed:
            return "consistent_with_fair"
        return "insufficient"

    @property
    def more_throws(self) -> int:
        return max(0, self.throws_needed - self.log.n)

    def ruled_out_bias(self) -> float:
        """The largest relative bias of one face the data rules out (the faces' intervals)."""
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
            off = [f for f in self.faces if self.off_fair(f)] or sorted(
                self.faces, key=lambda f: f.p_value
            )[:1]
            parts = [
                f"face {f.face} comes up {100 * f.share:.2f}% of the time "
                f"({self.interval_words} {100 * f.ci_low:.2f}–{100 * f.ci_high:.2f}%, fair is "
                f"{100 / k:.2f}%)"
                for f in off
            ]
            words = f"Biased: after {n:,} throws, " + "; ".join(parts) + "."
            if self.live:
                words += self._crossing_words()
            return words
        if self.verdict == "consistent_with_fair":
            words = (
                f"Consistent with fair after {n:,} throws: no face is more than "
                f"{100 * self.ruled_out_bias():.0f}% off its fair share ({self.interval_words}s)."
            )
        else:
            test = " with the e-value" if self.live else ""
            words = (
                f"Not enough throws yet: {n:,} so far. To tell a face {100 * self.bias:.0f}% "
                f"off its fair share from a fair die takes about {self.throws_needed:,} throws"
                f"{test} ({self.more_throws:,} more)."
            )
        if self.live and self.p_value < ALPHA:
            words += (
                f" The fixed-sample χ² test alone gives p = {self.p_value:.2g}, but a live audit, "
                f"looked at after any throw, goes by the e-value: {self._so_far_words()}, "
                "20 needed."
            )
        return words

    def _crossing_words(self) -> str:
        if self.peak is None or self.peak.crossed_at is None:  # no order: E now is all we have
            return (
                f" The e-value is {_e_words(self.log_e)}, past 20: a fair die gets there less "
                "than 5% of the time, however often its audit is looked at."
            )
        return (
            f" The e-value first reached 20 at throw {self.peak.crossed_at:,} (highest "
            f"{_e_words(self.peak.log_e)}, at throw {self.peak.at:,}; "
            f"{_e_words(self.log_e)} now): a fair die's e-value reaches 20 at any throw less "
            "than 5% of the time, however often its audit is looked at, so the verdict "
            "stands if E falls later."
        )

    def _so_far_words(self) -> str:
        if self.peak is None:
            return f"{_e_words(self.log_e)} so far"
        return (
            f"highest {_e_words(self.peak.log_e)} so far, at throw {self.peak.at:,} "
            f"({_e_words(self.log_e)} now)"
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
            "e_value_max": self.e_value_max if math.isfinite(self.e_value_max) else None,
            "log10_e_value_max": self.log_e_max / math.log(10),
            "e_value_max_at": self.peak.at if self.peak is not None else None,
            "e_value_crossed_at": self.peak.crossed_at if self.peak is not None else None,
            "verdict": self.verdict,
            "verdict_test": self.verdict_test,
            "face_intervals": self.face_intervals,
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
            "fixed_sample_throws": self.fixed_sample_throws,
            "sequential_power_throws": self.sequential_power_throws,
            "sequential_throws": self.sequential_throws,
            "duplicated_stretches": [list(d) for d in self.duplicates],
        }


def audit(
    log: ThrowLog,
    bias: float = 0.2,
    rng: np.random.Generator | None = None,
    *,
    live: bool = False,
) -> Audit:
    """Every test on one die's log; LogError (a ValueError) for a die of too few or
    too many sides, a bias out of range, no throws, or more than MAX_THROWS.

    ``live``: the audit is of a die whose throws keep coming and whose audit is
    looked at again and again (a registered die): its verdict follows the e-value's
    running maximum over the throws in order (E now when the log has no order).
    """
    check_sides(log.sides)
    check_bias(bias)
    if log.n == 0:
        raise LogError("no throws to audit")
    if log.n > MAX_THROWS:
        raise LogError(f"at most {MAX_THROWS:,} throws in one audit, not {log.n:,}")
    fit = fairness.goodness_of_fit(log.counts, rng=rng)
    fixed = sequential.throws_for_power(log.sides, bias)
    return Audit(
        log=log,
        fit=fit,
        log_e=sequential.log_e_value(log.counts),
        serial=sequential.serial_dependence(log.sequence, log.sides),
        fixed_sample_throws=fixed,
        sequential_power_throws=sequential.sequential_throws_for_power(
            log.sides, bias, fixed_sample=fixed
        ),
        sequential_throws=sequential.sequential_stopping_time(log.sides, bias, fixed_sample=fixed),
        bias=bias,
        duplicates=sequential.duplicated_stretches(log.sequence) if log.sequence else [],
        live=live,
        peak=sequential.e_value_peak(log.sequence, log.sides, ALPHA) if log.sequence else None,
    )


def _exp(log_e: float) -> float:
    return math.exp(log_e) if log_e < math.log(sys.float_info.max) else math.inf


def _e_words(log_e: float) -> str:
    if log_e < math.log(1e6):
        return f"{math.exp(log_e):,.1f}"
    return f"10^{log_e / math.log(10):.1f}"
