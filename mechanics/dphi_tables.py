"""The printed d10-digit tables for playing dφ without the appliance.

* the d100 table: a d100 result k (00 = 100) reads z = Φ⁻¹((k − 0.5)/100);
* the third-digit table: in the tail rows, where z moves fast, a third d10 d
  refines k to z = Φ⁻¹((10(k − 1) + d + 0.5)/1000);
* the check table: for a roll with might/swing = r, which d100 results succeed,
  which fail, and the one row that needs a third d10 (and what it needs).
  Read as digits of u, this is exactly the adaptive check: its chance is Φ(r).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mechanics import digits
from mechanics.dphi import phi_inverse

TAIL_ROWS = (1, 2, 3, 98, 99, 100)
# Beyond ±40 swings Φ is exactly 0 or 1 in double precision (it underflows near 38.5):
# every row fails or every row succeeds, so no wider ratio prints another table.
MAX_RATIO = 40.0


def d100_rows() -> list[tuple[int, float]]:
    """(k, z) for k = 1..100."""
    return [(k, digits.table_z(k)) for k in range(1, 101)]


def third_digit_rows(rows: tuple[int, ...] = TAIL_ROWS) -> list[tuple[int, int, float]]:
    """(k, third digit 0–9, z) for the tail rows."""
    out = []
    for k in rows:
        if not 1 <= k <= 100:
            raise ValueError(f"a d100 reads 1–100, not {k}")
        for d in range(10):
            out.append((k, d, phi_inverse((10 * (k - 1) + d + 0.5) / 1000)))
    return out


@dataclass(frozen=True, slots=True)
class CheckTable:
    """Which d100 results decide a check whose might is ``ratio`` swings.

    d100 result k stands for u in [(k − 1)/100, k/100).  Results up to
    ``last_fail`` fail and from ``first_success`` succeed; a ``split_row`` between
    them asks for a third d10, which succeeds from ``third_from`` up.  If the
    threshold also splits a third-digit cell, that digit (``third_exact``) asks
    for a fourth d10, succeeding from ``fourth_from`` up; the table stops there,
    which moves at most 1/10,000 of the chance (one fourth-digit cell).
    """

    ratio: float
    critical: float
    chance: float
    last_fail: int
    first_success: int
    split_row: int | None = None
    third_from: int | None = None
    third_exact: int | None = None
    fourth_from: int | None = None


def check_table(ratio: float, critical: float = 0.0) -> CheckTable:
    """The check table for a roll whose might is ``ratio`` swings (μ/σ)."""
    if not abs(ratio) <= MAX_RATIO:  # NaN too
        raise ValueError(f"a check table's μ/σ must be within ±{MAX_RATIO:g}, not {ratio}")
    t = digits.success_threshold(ratio, 1.0, critical)
    chance = float(1 - t)
    hundredths = t * 100
    if hundredths.denominator == 1:  # the threshold is a row edge: no row is split
        edge = int(hundredths)
        return CheckTable(ratio, critical, chance, edge, edge + 1)
    row = int(hundredths) + 1  # the d100 result whose cell holds t
    rest = (t - Fraction(row - 1, 100)) * 1000  # where t sits inside that row, in thousandths
    if rest.denominator == 1:
        return CheckTable(ratio, critical, chance, row - 1, row + 1, row, int(rest))
    third = int(rest)
    fourth_position = (rest - third) * 10
    fourth = -((-fourth_position.numerator) // fourth_position.denominator)  # ceiling
    return CheckTable(ratio, critical, chance, row - 1, row + 1, row, third + 1, third, fourth)
