"""dφ, the normal die: every check is one roll of σdφ + μ, success when positive.

dφ's chances are values of the normal CDF Φ, irrational in general, so this
module works in floats — the one place in ``mechanics`` that does.  Φ is taken
from ``erfc`` so that tail chances (a might of −6σ) keep their relative
accuracy instead of rounding to 0 the way ``1 − Φ(x)`` would.

Swing modifiers are measured in hops: 1ℏ multiplies the swing by 2^(1/20), so
10ℏ = √2 and 20ℏ = 2, and hops add where factors multiply.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Protocol

BASE_SWING = 8.0
HOPS_PER_DOUBLING = 20
# Splitting a roll between two rollers, or rolling against a static challenge.
SPLIT_HOPS = -10.0

_STANDARD = NormalDist()


class UniformSource(Protocol):
    """What sampling needs from a random generator: ``random.Random`` fits."""

    def random(self) -> float: ...


def phi(x: float) -> float:
    """Φ(x), the standard normal CDF, accurate in both tails."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def phi_inverse(p: float) -> float:
    """Φ⁻¹(p) for 0 < p < 1."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"Φ⁻¹ needs 0 < p < 1, not {p}")
    return float(_STANDARD.inv_cdf(p))


def hops_to_factor(hops: float) -> float:
    """The swing multiplier of a modifier of ``hops``ℏ (10ℏ → √2, −20ℏ → 1/2).

    A modifier past about ±20,000ℏ has no float factor: that is a ValueError (with
    the hops), never an OverflowError.
    """
    try:
        return math.pow(2.0, hops / HOPS_PER_DOUBLING)
    except OverflowError:
        raise ValueError(f"a swing modifier of {hops}ℏ is beyond any swing") from None


def factor_to_hops(factor: float) -> float:
    """The hops of a swing multiplier (×1.5 → about 11.7ℏ)."""
    if factor <= 0:
        raise ValueError(f"a swing factor must be positive, not {factor}")
    return HOPS_PER_DOUBLING * math.log2(factor)


def split_hops(rollers: int) -> float:
    """The modifier each of ``rollers`` takes when one roll is split between them.

    Independent normals add in quadrature, so n rolls of σ/√n sum to one roll of
    σ: each roller takes −10·log2(n)ℏ (two rollers: −10ℏ, the seed's rule).
    """
    if rollers < 1:
        raise ValueError(f"a roll needs at least one roller, not {rollers}")
    return -10.0 * math.log2(rollers)


def characters_hops(characters: int) -> float:
    """The swing modifier of a check whose one roll stands for ``characters`` characters.

    The seed: "a check functions as if each character were rolling for his own
    capability, but the various individual rolls are merged into a single one", and the
    PC-vs-NPC roll of σ "is implicitly understood to be the combination of a split roll
    of the PC against the NPC" — each character rolls σ/√2 (−10ℏ).  k such rolls merge
    into one of σ·√(k/2): +10·log₂(k/2)ℏ.  Two characters (the base case): 0ℏ; one,
    against a static challenge: −10ℏ, the seed's rule; three: +5.85ℏ; four: +10ℏ.
    """
    if characters < 1:
        raise ValueError(f"a check needs at least one character who rolls, not {characters}")
    return 10.0 * math.log2(characters / 2)


def rolling_characters(allies: int, opponents: int, static: bool = False) -> int:
    """How many characters a check's roll stands for, from the mights it was given.

    ``allies`` counts the acting side's mights (the acting character's among them),
    ``opponents`` the opposing side's.  No opponent listed: the opposition is already
    in the acting might (the net might of a PC-vs-NPC roll), one character, or with
    ``static`` a challenge, none.  With ``static`` one opponent listed is the challenge's
    score: objects do not roll.
    """
    if allies < 1:
        raise ValueError("a check needs the might of at least one acting character")
    if static:
        return allies + max(opponents - 1, 0)
    return allies + max(opponents, 1)


def clamp_chance(p: float, critical: float) -> float:
    """The critical boost: every roll keeps at least ``critical`` chance either way."""
    _check_critical(critical)
    return min(max(p, critical), 1.0 - critical)


def _check_critical(critical: float) -> None:
    if not 0.0 <= critical < 0.5:
        raise ValueError(f"a critical boost must be in [0, 0.5), not {critical}")


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll of ``swing``·dφ + ``might``.

    A swing of 0 is allowed (the seed: "a zero swing makes checks a simple matter
    of comparing mights"); its chance is 1 or 0, and 1/2 for a might of exactly 0,
    the limit as the swing shrinks.
    """

    swing: float = BASE_SWING
    might: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.swing) and math.isfinite(self.might)):
            raise ValueError("swing and might must be finite numbers")
        if self.swing < 0:
            raise ValueError(f"a swing cannot be negative ({self.swing})")

    def with_hops(self, hops: float) -> Roll:
        return Roll(self.swing * hops_to_factor(hops), self.might)

    def plus(self, might: float) -> Roll:
        return Roll(self.swing, self.might + might)

    def merge(self, other: Roll) -> Roll:
        """The sum of two independent rolls is one roll: swings add in quadrature."""
        return Roll(math.hypot(self.swing, other.swing), self.might + other.might)

    def split(self, rollers: int) -> Roll:
        """The swing each of ``rollers`` rolls so that their rolls add up to this one."""
        return Roll(self.swing * hops_to_factor(split_hops(rollers)), self.might)

    @property
    def z(self) -> float:
        """μ/σ: the might in units of swing (±inf for a zero swing)."""
        if self.swing == 0:
            return math.copysign(math.inf, self.might) if self.might else 0.0
        return self.might / self.swing

    def p_above(self, threshold: float) -> float:
        """P(σdφ + μ > threshold)."""
        if self.swing == 0:
            return 1.0 if self.might > threshold else 0.5 if self.might == threshold else 0.0
        return phi((self.might - threshold) / self.swing)

    def p_success(self, critical: float = 0.0) -> float:
        """P(σdφ + μ > 0), clamped to [c, 1 − c] by a critical boost c."""
        return clamp_chance(self.p_above(0.0), critical)

    def p_between(self, low: float, high: float) -> float:
        """P(low ≤ σdφ + μ < high)."""
        if high < low:
            raise ValueError(f"empty interval [{low}, {high})")
        return (
            self.p_above(low) - self.p_above(high)
            if self.swing
            else float(low <= self.might < high)
        )

    def quantile(self, p: float) -> float:
        """The value the roll stays below with probability ``p``."""
        return self.might + self.swing * phi_inverse(p)

    def value_at(self, u: float) -> float:
        """The roll's value for a uniform number u in (0, 1) (inverse-CDF sampling)."""
        return self.quantile(u)

    def degree(self, value: float) -> float:
        """How far a rolled value landed from 0, in swings (a roll's quality)."""
        return value / self.swing if self.swing else math.copysign(math.inf, value)

    def sample(self, rng: UniformSource) -> float:
        """One roll, from the injected generator (never the global one)."""
        return self.value_at(_open_uniform(rng))


def _open_uniform(rng: UniformSource) -> float:
    # random() is in [0, 1); 0 would be −∞, so draw again (probability 2**-53).
    u = rng.random()
    while u <= 0.0:
        u = rng.random()
    return u


@dataclass(frozen=True, slots=True)
class Check:
    """A check: one roll, success when positive, with an optional critical boost.

    ``critical`` = c splits off strips of width c at both ends of the uniform
    number behind the roll: the left strip always fails and the right strip
    always succeeds, so the chance is Φ(μ/σ) clamped to [c, 1 − c].
    """

    roll: Roll
    critical: float = 0.0

    def __post_init__(self) -> None:
        _check_critical(self.critical)

    @property
    def p_success(self) -> float:
        return self.roll.p_success(self.critical)

    def succeeds(self, u: float) -> bool:
        """Whether the roll made from uniform ``u`` (in (0, 1)) succeeds."""
        if not 0.0 < u < 1.0:
            raise ValueError(f"u must be in (0, 1), not {u}")
        if u < self.critical:
            return False
        if u > 1.0 - self.critical:
            return True
        return self.roll.value_at(u) > 0.0

    def sample(self, rng: UniformSource) -> tuple[float, bool]:
        u = _open_uniform(rng)
        return self.roll.value_at(u), self.succeeds(u)


def check(
    allies: Iterable[float],
    opponents: Iterable[float] = (),
    *,
    swing: float = BASE_SWING,
    hops: float = 0.0,
    static: bool = False,
    critical: float = 0.0,
) -> Check:
    """The general check: collaborators' mights add, opponents' mights subtract.

    The roll stands for every character in it (:func:`rolling_characters`), so its
    swing takes :func:`characters_hops` on top of ``hops``: 0ℏ for one against one,
    +10ℏ for two against two.  ``static``: a challenge that does not roll (a trap, a
    wall) opposes, its score passed as an opponent (or already in the acting might):
    one PC against it rolls at the seed's −10ℏ.
    """
    allies, opponents = list(allies), list(opponents)
    might = sum(allies) - sum(opponents)
    characters = rolling_characters(len(allies), len(opponents), static)
    total_hops = hops + characters_hops(characters)
    return Check(Roll(swing, might).with_hops(total_hops), critical)


def pc_vs_npc(pc: float, npc: float, *, swing: float = BASE_SWING, hops: float = 0.0) -> Check:
    """PC against NPC: the PC rolls σdφ + (μ_PC − μ_NPC)."""
    return check([pc], [npc], swing=swing, hops=hops)


def static_challenge(
    pc: float, challenge: float, *, swing: float = BASE_SWING, hops: float = 0.0
) -> Check:
    """PC against a challenge score: −10ℏ, because objects do not roll."""
    return check([pc], [challenge], swing=swing, hops=hops, static=True)


@dataclass(frozen=True, slots=True)
class SplitContest:
    """PC against PC, both rolling: each at −10ℏ, the higher roll wins.

    The difference of the two rolls is exactly the unsplit roll, so the first
    PC's chance is Φ((μ₁ − μ₂)/σ) whoever rolls.  Equal rolls tie: with a swing,
    never (probability 0); at a zero swing, whenever the mights are equal — no die
    is rolled, the higher might wins, equal mights tie (not ½ each).
    """

    first: Roll
    second: Roll

    @property
    def _difference(self) -> Roll:
        return self.first.merge(Roll(self.second.swing, -self.second.might))

    @property
    def p_first_wins(self) -> float:
        d = self._difference
        return (1.0 if d.might > 0 else 0.0) if d.swing == 0 else d.p_success()

    @property
    def p_second_wins(self) -> float:
        d = self._difference
        return (1.0 if d.might < 0 else 0.0) if d.swing == 0 else phi(-d.might / d.swing)

    @property
    def p_tie(self) -> float:
        d = self._difference
        return float(d.swing == 0 and d.might == 0)


def pc_vs_pc(
    first: float, second: float, *, swing: float = BASE_SWING, hops: float = 0.0
) -> SplitContest:
    each = Roll(swing).with_hops(hops + SPLIT_HOPS)
    return SplitContest(Roll(each.swing, first), Roll(each.swing, second))


def against_each(roll: Roll, mights: Sequence[float]) -> tuple[list[float], float]:
    """One roll σdφ + μ_you compared with several opponents' mights.

    Returns each opponent's chance of being beaten and the chance of beating
    them all — one roll, so that is the chance of beating the highest might.
    """
    if not mights:
        raise ValueError("against_each needs at least one opponent's might")
    each = [roll.p_above(m) for m in mights]
    return each, roll.p_above(max(mights))
