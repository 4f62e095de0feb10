"""Teach mode for numbered dice (d5, d10, d20, numeral d6): a die set learnt from its owner.

The owner shows each face once (or hands over labelled photos); each face is
kept as its crop.  Reading compares a die's crop with every taught face
whatever its turn: both are unrolled around their centre (a polar image, so
turning the die only shifts the angle axis), and the circular
cross-correlation along that axis, computed with the FFT, gives the best
match over all turns at once.  The best face's score, and its lead over the
next face, say how sure the answer is.

A die set lives in a folder: ``dieset.json`` (name, die type, faces) and one
PNG crop per taught face, so it can be copied, inspected and re-taught.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from mechanics.reading import faces_of

SIDE = 64  # taught and read crops are resampled to SIDE × SIDE
ANGLES = 120  # 3° steps
RADII = 26
SCALE_SHIFT = 2  # radius bins: a box a little larger or smaller than the taught one
MIN_SCORE = 0.35  # below: not this die set's face at all
MIN_LEAD = 0.06  # the best face must beat the next by this much to be sure
DIE_TYPES = ("d5", "d6_numeral", "d10", "d20")


class DieSetError(ValueError):
    """A die set that cannot be taught or loaded; the message says why."""


def descriptor(crop: np.ndarray) -> np.ndarray:
    """The crop's strokes unrolled around its centre: ANGLES × RADII, zero mean, unit norm."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    grey = cv2.resize(grey, (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
    detail = grey - cv2.GaussianBlur(grey, (0, 0), 6)  # ink against body, whatever the light
    detail = cv2.GaussianBlur(detail, (0, 0), 1.0)
    polar = cv2.warpPolar(
        detail, (RADII, ANGLES), (SIDE / 2, SIDE / 2), SIDE * 0.45, cv2.WARP_POLAR_LINEAR
    )
    polar = np.abs(polar)  # light ink on dark and dark on light alike
    polar -= polar.mean()
    norm = float(np.linalg.norm(polar))
    return polar / norm if norm > 0 else polar


def _padded(polar: np.ndarray) -> np.ndarray:
    """Zero-padded along the radius so correlation there is not circular."""
    return np.pad(polar, ((0, 0), (0, RADII)))


@dataclass(frozen=True)
class FaceMatch:
    value: int
    score: float  # the best correlation, −1..1
    lead: float  # over the best other face
    confidence: float


@dataclass
class DieSet:
    name: str
    die: str  # d5, d6_numeral, d10 or d20
    crops: dict[int, list[np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {self.die!r}")
        self._spectra: dict[int, list[np.ndarray]] = {}
        for value, crops in self.crops.items():
            for crop in crops:
                self._add_spectrum(value, crop)

    @property
    def reading_die(self) -> str:
        """The die type its readings carry (a numeral d6 is a d6)."""
        return "d6" if self.die == "d6_numeral" else self.die

    def _add_spectrum(self, value: int, crop: np.ndarray) -> None:
        spectrum = np.conj(np.fft.rfft2(_padded(descriptor(crop))))
        self._spectra.setdefault(value, []).append(spectrum)

    def teach(self, value: int, crop: np.ndarray) -> None:
        if value not in faces_of(self.reading_die):
            raise DieSetError(f"a {self.die} has no face {value}")
        if crop.ndim != 3 or min(crop.shape[:2]) < 8:
            raise DieSetError("a taught face is a colour crop of at least 8×8 pixels")
        self.crops.setdefault(value, []).append(crop)
        self._add_spectrum(value, crop)

    def missing(self) -> list[int]:
        return [v for v in faces_of(self.reading_die) if v not in self.crops]

    def match(self, crop: np.ndarray) -> FaceMatch:
        if not self._spectra:
            raise DieSetError(f"die set {self.name!r} has no taught faces yet")
        query = np.fft.rfft2(_padded(descriptor(crop)))
        best: dict[int, float] = {}
        for value, spectra in self._spectra.items():
            for spectrum in spectra:
                corr = np.fft.irfft2(query * spectrum, s=(ANGLES, 2 * RADII))
                # turns are circular; scale shifts of up to ±SCALE_SHIFT radius bins
                shifts = np.r_[0 : SCALE_SHIFT + 1, 2 * RADII - SCALE_SHIFT : 2 * RADII]
                best[value] = max(best.get(value, -1.0), float(corr[:, shifts].max()))
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        value, score = ranked[0]
        lead = score - ranked[1][1] if len(ranked) > 1 else score
        sure = score >= MIN_SCORE and lead >= MIN_LEAD
        confidence = float(np.clip(0.5 + lead * 4, 0.0, 1.0)) if score >= MIN_SCORE else 0.0
        return FaceMatch(value, score, lead, confidence if sure else min(confidence, 0.69))

    # --- on disk ------------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        faces: dict[str, list[str]] = {}
        for value, crops in sorted(self.crops.items()):
            for k, crop in enumerate(crops):
                name = f"face{value}-{k}.png"
                cv2.imwrite(str(folder / name), crop)
                faces.setdefault(str(value), []).append(name)
        meta = {"name": self.name, "die": self.die, "faces": faces}
        tmp = folder / "dieset.json.tmp"
        tmp.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        tmp.replace(folder / "dieset.json")

    @classmethod
    def load(cls, folder: Path) -> DieSet:
        folder = Path(folder)
        try:
            meta = json.loads((folder / "dieset.json").read_text(encoding="utf-8"))
            crops: dict[int, list[np.ndarray]] = {}
            for value, names in meta["faces"].items():
                for name in names:
                    crop = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
                    if crop is None:
                        raise DieSetError(f"{folder / name} is missing or not an image")
                    crops.setdefault(int(value), []).append(crop)
            return cls(meta["name"], meta["die"], crops)
        except (OSError, ValueError, KeyError) as err:
            if isinstance(err, DieSetError):
                raise
            raise DieSetError(f"cannot load the die set in {folder}: {err}") from None
