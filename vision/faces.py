"""Reading pip dice (d6) and Fudge dice (dF) from their crops: a small trained network.

The network (``vision/models/faces.onnx``, run by OpenCV's dnn module) sorts a
48 × 48 crop into: not a die, a d6 showing 1–6 pips, a Fudge die showing −,
blank or +, a cocked die (leaning, no face up), a d6 whose pips make no real
face, (networks from round 7) a numbered die: a d5, d10 or d20, whose
numeral is no pip, and (round 8) a 1 of one large pip, as Chinese dice have it,
counted as a 1.  It learnt the top face from oblique photos, so pips on the side
faces do not count.  A crop the first look is unsure of is read at four quarter
turns and the answers averaged.  Only the classes a die of the expected type
can show compete.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.crops import CROP_SIZE, to_blob

MODELS = Path(__file__).resolve().parent / "models"
CLASSES = (
    "none", "1", "2", "3", "4", "5", "6", "dF-", "dF0", "dF+", "cocked", "bad pips", "numbered"
)  # fmt: skip
NONE = 0
COCKED = 10
IMPOSSIBLE = 11
NUMBERED = 12  # a d5, d10 or d20 (read by a taught die set, not by its marks as pips)
# classes a network may have past CLASSES that are another class's face drawn otherwise:
# their share is added to that class's (round 8: a 1 of one large pip, as Chinese dice have)
FOLDED = {13: 1}
ALLOWED = {
    "d6": (0, 1, 2, 3, 4, 5, 6, COCKED, IMPOSSIBLE, NUMBERED),
    "dF": (0, 7, 8, 9, COCKED, NUMBERED),
    "any": tuple(range(len(CLASSES))),
}
VALUE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: -1, 8: 0, 9: 1}
PROBLEM = {COCKED: "cocked", IMPOSSIBLE: "impossible pips", NUMBERED: "numbered die"}
PROBLEM_AT = 0.5  # a problem is named when the network gives it this much or more
RUNNER_UP_AT = 0.15  # the next likeliest face is offered (to confirm) from this share


class ModelError(RuntimeError):
    """A model file that is missing or cannot be loaded."""


@dataclass(frozen=True)
class FaceGuess:
    die: str  # "d6" or "dF", or "" when it is not a die
    value: int | None  # None when no face can be read (see ``problem``)
    confidence: float  # the chance the network gives its answer
    not_a_die: float  # the chance it gives "not a die"
    problem: str = ""  # "cocked", "impossible pips" or "numbered die": no face to read
    best_face: int | None = None  # with a problem: the likeliest face all the same
    runner_up: int | None = None  # the next likeliest face of the same die, if it has a
    # share of RUNNER_UP_AT or more (a person asked to confirm is offered both)


class FaceClassifier:
    def __init__(self, path: Path | None = None, recheck: float = 0.9) -> None:
        self.recheck = recheck
        path = path or MODELS / "faces.onnx"
        meta = (
            json.loads(path.with_suffix(".json").read_text())
            if path.with_suffix(".json").is_file()
            else {}
        )
        self.size = int(meta.get("size", CROP_SIZE))
        # an older model: no cocked, no bad pips; a newer one's FOLDED classes are faces
        self.classes = min(int(meta.get("classes", 10)), len(CLASSES))
        try:
            self._net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as err:
            raise ModelError(f"cannot load the face model {path}: {err}") from None
        self._net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self._lock = threading.Lock()  # a reader may be shared between threads
        try:  # a network for another crop side fails here, not on the first throw
            self._forward([np.zeros((self.size, self.size, 3), np.uint8)])
        except cv2.error:
            raise ModelError(
                f"the face model {path} does not take {self.size} x {self.size} crops: "
                f"its {path.with_suffix('.json').name} must give its crop side as 'size'"
            ) from None

    def _forward(self, crops: list[np.ndarray]) -> np.ndarray:
        blob = to_blob(crops)
        with self._lock:  # a network's input and output are its own: one caller at a time
            self._net.setInput(blob)
            logits = self._net.forward().astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        for extra, into in FOLDED.items():
            if extra < p.shape[1]:
                p[:, into] += p[:, extra]
        return p[:, : len(CLASSES)]

    def probabilities(self, crops: list[np.ndarray], turns: bool = True) -> np.ndarray:
        """N × len(CLASSES) class probabilities, FOLDED classes counted in theirs (fewer
        columns for an older network).  A crop the first look is not sure of is read
        again at three more quarter turns and the four answers averaged (most crops
        need one look, which keeps a frame of many dice fast), unless not ``turns``."""
        if not crops:
            return np.zeros((0, len(CLASSES)))
        p = self._forward(crops)
        unsure = np.flatnonzero(p.max(axis=1) < self.recheck)
        if turns and len(unsure):
            turned = [
                np.ascontiguousarray(np.rot90(crops[i], k)) for i in unsure for k in (1, 2, 3)
            ]
            more = self._forward(turned).reshape(len(unsure), 3, -1)
            p[unsure] = (p[unsure] + more.sum(axis=1)) / 4
        return p

    def read(
        self, crops: list[np.ndarray], die: str = "any", *, cocked: bool = True, turns: bool = True
    ) -> list[FaceGuess]:
        """The face of each crop.  A problem (cocked, impossible pips) is named when the
        network gives it PROBLEM_AT or more; otherwise the face's confidence is its share
        among "not a die" and the faces alone, so a die seen at an angle (some weight
        on "cocked") is not made less sure of its face, but at most 1 minus the problems'
        weight together: real d10s and d20s thrown among d6s were read a sure pip face
        with cocked and numbered at 0.31-0.49 together, where 1 of 1,477 sure real d6s
        (byler) has 0.3 or more (docs/vision.md).  ``cocked=False`` for a close-up a
        person took: its own angle makes every die look tilted.  ``turns=False``: one
        look only, never the quarter turns (a second look that only checks a reading)."""
        if die not in ALLOWED:
            raise ValueError(f"pip reading knows d6 and dF, not {die!r}")
        allowed = [c for c in ALLOWED[die] if c < self.classes and (cocked or c != COCKED)]
        plain = [k for k, c in enumerate(allowed) if c not in PROBLEM]
        odd = [k for k, c in enumerate(allowed) if c in PROBLEM]
        faces = [k for k in plain if allowed[k] in VALUE]
        guesses = []
        for p in self.probabilities(crops, turns):
            q = p[allowed]
            q = q / q.sum()
            face = allowed[faces[int(np.argmax(q[faces]))]]
            kind = "dF" if _is_fudge(face) else "d6"
            worst = max(odd, key=lambda k: q[k]) if odd else None
            if worst is not None and q[worst] >= PROBLEM_AT:
                problem = PROBLEM[allowed[worst]]
                guesses.append(FaceGuess(kind, None, float(q[worst]), float(q[0]), problem,
                                         VALUE[face]))  # fmt: skip
                continue
            r = q[plain] / q[plain].sum()
            ranked = [(float(r[j]), allowed[plain[j]]) for j in np.argsort(-r)]
            conf, best = ranked[0]
            if best == NONE:
                guesses.append(FaceGuess("", None, conf, conf))
                continue
            # never surer than that it is a flat pip face at all: the problems together
            # (cocked, numbered, bad pips), none of them PROBLEM_AT alone, still doubt it
            conf = min(conf, 1.0 - float(q[odd].sum())) if odd else conf
            runner = next(
                (VALUE[c] for share, c in ranked[1:]
                 if c in VALUE and _is_fudge(c) == _is_fudge(best) and share >= RUNNER_UP_AT),
                None,
            )  # fmt: skip
            guesses.append(FaceGuess(kind, VALUE[best], conf, float(r[0]), runner_up=runner))
        return guesses


def _is_fudge(klass: int) -> bool:
    return 7 <= klass <= 9
