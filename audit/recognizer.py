"""The recognizer is part of the audit.

A die read by the camera is only as fair as its reading: uncertain readings
are excluded from the audit (and counted, so a die the camera struggles with
is visible), and readings a person confirmed or corrected measure the
camera's error rate, which is reported beside the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit.fairness import wilson_interval
from audit.logs import ThrowLog, from_faces


@dataclass(frozen=True)
class AuditReading:
    """One throw of the audited die as the ledger holds it.

    ``face`` is what the source read; ``confirmed`` is the face a person
    confirmed or corrected it to (None when nobody looked); ``source`` says
    whether a camera read it ("camera:…") or a person typed it ("manual").
    """

    face: int
    confidence: float = 1.0
    source: str = "manual"
    confirmed: int | None = None

    @property
    def from_camera(self) -> bool:
        return self.source.startswith("camera")

    @property
    def final_face(self) -> int:
        return self.confirmed if self.confirmed is not None else self.face


@dataclass(frozen=True)
class RecognizerReport:
    """How the camera did on this die."""

    uncertain_excluded: int
    camera_readings: int
    confirmed: int
    misread: int
    error_rate: float | None
    error_ci: tuple[float, float] | None


def audit_log(
    readings: Sequence[AuditReading], sides: int, min_confidence: float = 0.5
) -> tuple[ThrowLog, RecognizerReport]:
    """The throw log to audit (uncertain, unconfirmed readings left out) and the
    camera's measured error rate from the confirmed ones."""
    kept: list[int] = []
    uncertain = 0
    for r in readings:
        if r.confirmed is None and r.confidence < min_confidence:
            uncertain += 1
            continue
        kept.append(r.final_face)
    camera = [r for r in readings if r.from_camera]
    checked = [r for r in camera if r.confirmed is not None]
    misread = sum(r.confirmed != r.face for r in checked)
    rate = misread / len(checked) if checked else None
    ci = wilson_interval(misread, len(checked)) if checked else None
    report = RecognizerReport(uncertain, len(camera), len(checked), misread, rate, ci)
    return from_faces(kept, sides), report
