"""A registered die's audit, fed by every reading of it in the ledger.

The ledger holds throws (each die with its face, confidence, source and, for
a registered die, its ``identity``), imported logs (``import`` rows) and
people's confirmations of readings (``confirmation`` rows).  This module
collects one die's readings in ledger order, applies the confirmations, and
hands them to the recognizer-aware audit: uncertain camera readings are
excluded and counted; confirmed ones measure the camera's error rate.

Faces are audited as 1..K: a d10's 0 is its tenth face, a Fudge die's
−, blank, + are faces 1, 2, 3 (each a third of a fair dF).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.logs import LogError, die_faces
from audit.recognizer import AuditReading, RecognizerReport, audit_log
from audit.sequential import copy_window, duplicated_stretches
from audit.verdict import Audit, audit
from mechanics.reading import faces_of, normalise_face
from server.ledger import Ledger
from server.registry import DiceRegistry, DieIdentity, slug

MAX_IMPORT = 10_000_000


def audit_face(die_type: str, value: int) -> int:
    """The 1..K face number an audit counts for a die's value (``audit.logs.die_faces``,
    which ``dicebridge audit FILE --type`` reads logs with too)."""
    return die_faces(die_type).values.get(value, value)


def sides_of(die_type: str) -> int:
    return die_faces(die_type).sides


def import_log(
    ledger: Ledger, registry: DiceRegistry, die_id: str, values: Sequence[int], name: str = ""
) -> dict[str, Any]:
    """Append a throw log of one registered die to the ledger, as one ``import`` row.

    ``values`` are the die's own values (a d10's 0–9, a 10 being kept as its 0, as
    readings and confirmations keep it; a dF's −1/0/+1); one bad
    value refuses the whole log, naming it, and nothing is written.  The answer's
    ``repeats`` lists the stretches of imported throws that repeat throws already
    recorded for the die, or earlier throws of this log, as (throw of the die,
    repeated from throw, length), counted from 1 over every reading of the die: a
    log imported twice shows up here, and the audit's verdict will say it holds
    copies.  A stretch counts when at least the copy window of its throws are new
    (``sequential.copy_window`` of all the die's throws: 30 for a d6, more for a
    die of few faces or a long log, so chance repeats are not reported).
    """
    die = registry.get(die_id)
    faces = set(faces_of(die.type))
    if not values:
        raise LogError("the log holds no throws")
    if len(values) > MAX_IMPORT:
        raise LogError(f"a log of at most {MAX_IMPORT:,} throws, not {len(values):,}")
    values = [normalise_face(die.type, v) for v in values]  # a d10's 10 is its 0
    for i, value in enumerate(values, start=1):
        if value not in faces:
            raise LogError(f"throw {i}: {value} is not a face of a {die.type}")
    recorded = [r.final_face for r in readings_of(ledger, die)]
    every = recorded + [audit_face(die.type, v) for v in values]
    window = copy_window(every)
    repeats = [
        (again + 1, first + 1, length)
        for first, again, length in duplicated_stretches(every, window)
        if again + length - max(again, len(recorded)) >= window  # a window of them new
    ]
    digest = hashlib.sha256(",".join(map(str, values)).encode()).hexdigest()
    body = {"die": die.id, "file": name, "faces": list(values), "sha256": digest}
    entry = ledger.append("import", body)
    return {
        "entry": entry.id,
        "die": die.id,
        "throws": len(values),
        "sha256": digest,
        "recorded_before": len(recorded),
        "repeats": repeats,
    }


def readings_of(ledger: Ledger, die: DieIdentity) -> list[AuditReading]:
    """Every reading of ``die`` in ledger order, with people's confirmations applied."""
    confirmed: dict[tuple[int, int], int] = {}
    for entry in ledger.entries(kind="confirmation"):
        confirmed[(entry.body["throw"], entry.body["index"])] = entry.body["face"]
    out: list[AuditReading] = []
    # a die named as it was spelt ("Red d6"): rows written before readings were named by
    # the die's id are that die's too
    ids: dict[str, str] = {die.id: die.id}
    for entry in ledger.entries():
        if entry.kind == "throw":
            for index, d in enumerate(entry.body.get("dice", [])):
                named = d.get("identity")
                if not isinstance(named, str):
                    continue
                if named not in ids:
                    ids[named] = slug(named)
                if ids[named] != die.id:
                    continue
                fixed = confirmed.get((entry.id, index))
                out.append(
                    AuditReading(
                        audit_face(die.type, d["face"]),
                        d.get("confidence", 1.0),
                        d.get("source", "manual"),
                        None if fixed is None else audit_face(die.type, fixed),
                    )
                )
        elif entry.kind == "import" and entry.body.get("die") == die.id:
            out += [
                AuditReading(audit_face(die.type, v), 1.0, "import") for v in entry.body["faces"]
            ]
    return out


@dataclass(frozen=True)
class DieAudit:
    die: DieIdentity
    result: Audit
    recognizer: RecognizerReport

    @property
    def title(self) -> str:
        """The report's title: "Audit of Red d6 (d6, red, Chessex)"."""
        d = self.die
        return f"Audit of {d.name} ({', '.join(x for x in (d.type, d.colour, d.set) if x)})"

    def to_json(self) -> dict[str, Any]:
        r = self.recognizer
        return {
            **self.result.to_json(),
            "die": self.die.to_dict(),
            "recognizer": {
                "uncertain_excluded": r.uncertain_excluded,
                "camera_readings": r.camera_readings,
                "confirmed": r.confirmed,
                "misread": r.misread,
                "error_rate": r.error_rate,
                "error_ci": list(r.error_ci) if r.error_ci else None,
            },
        }


def audit_die(
    ledger: Ledger,
    registry: DiceRegistry,
    die_id: str,
    bias: float = 0.2,
    min_confidence: float = 0.5,
    rng: np.random.Generator | None = None,
) -> DieAudit:
    """The audit of a registered die; LogError when it has no usable readings yet.

    Its verdict follows the anytime-valid e-value (``Audit.live``): the audit is
    run again every time its page is opened, so the fixed-sample test's α would not
    hold, and the χ² is reported as information."""
    die = registry.get(die_id)
    readings = readings_of(ledger, die)
    log, recognizer = audit_log(readings, sides_of(die.type), min_confidence)
    if log.n == 0:
        raise LogError(f"{die.name!r} has no readings yet: throw it, or import a log")
    # a live audit: computed afresh whenever anyone looks, so the e-value decides
    return DieAudit(die, audit(log, bias=bias, rng=rng, live=True), recognizer)
