"""Teach mode for numbered dice (d5, d10, d20, numeral d6): a die set learnt from its owner.

The owner shows each face once (or hands over labelled photos); each face is
kept as its crop.  Reading a die takes the square around the finder's box,
twice the box's side, and first finds the die's body in it (the pixels whose
colour stands apart from the tray at the square's border): its centroid is the
die's centre and the root of its area the die's size, so a box that is off by
a fifth, a camera that zooms or a die that lies turned all give the same
normalised view of the die.  That view is then compared with every taught face
whatever its turn: both are unrolled around their centre (a polar image, so
turning the die only shifts the angle axis), and the circular cross-correlation
along that axis, computed with the FFT, gives the best match over all turns at
once.  Each taught face is kept at a few scales, shifts and blurs (the
view's uncertainty), and the best face's score, with its lead over the next
face, says how sure the answer is.  A find with no die body in it (a tray
edge, a shadow, wood grain) matches nothing.

A die set lives in a folder: ``dieset.json`` (name, die type, faces, and the
margin its crops were cut with) and one PNG crop per taught face, so it can be
copied, inspected and re-taught.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from mechanics.reading import faces_of
from vision.crops import crop_die

SIDE = 64  # the normalised view of a die is SIDE × SIDE
REGION = 128  # the square searched for the die's body, in pixels
MARGIN = 2.0  # that square's side over the finder's box side
SPAN = 1.0  # the view's side over the die's size (the root of its body's area)
ANGLES = 120  # 3° steps
RADII = 24
SHADE = 0.7  # log brightness: a shadow darkens the tray by up to half
ERODE = 5  # view pixels: the outline's own contrast is left out
REACH = 0.45  # the polar image's radius over the view's side
SCALE_SHIFT = 1  # radius bins: a die a little larger or smaller than taught
MIN_SCORE = 0.35  # below: not this die set's face at all
MIN_LEAD = 0.06  # the best face must beat the next by this much to be sure
DIE_TYPES = ("d5", "d6_numeral", "d10", "d20")
# teach-time variants of each face: (scale, shift x, shift y, blur sigma in view pixels)
VARIANTS = ((1.0, 0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 1.2))


class DieSetError(ValueError):
    """A die set that cannot be taught or loaded; the message says why."""


@dataclass(frozen=True)
class Body:
    """Where a die's body lies in a region: centre and size (pixels of the region)."""

    x: float
    y: float
    size: float
    mask: np.ndarray | None = field(default=None, repr=False, compare=False)  # 255 on the body


def locate(region: np.ndarray, margin: float = MARGIN) -> Body | None:
    """The die's body in ``region`` (a square cut around a box ``margin`` times the box's side),
    or None when nothing there looks like one solid die."""
    h, w = region.shape[:2]
    colour = np.log(region.astype(np.float32) + 10.0)  # a gain multiplies, a log shifts
    bright = colour.mean(axis=2, keepdims=True)
    colour = np.concatenate([colour - bright, bright], axis=2)  # chromaticity, brightness
    rim = max(2, w // 20)
    ring = np.concatenate(
        [colour[:rim].reshape(-1, 4), colour[-rim:].reshape(-1, 4),
         colour[:, :rim].reshape(-1, 4), colour[:, -rim:].reshape(-1, 4)]
    )  # fmt: skip
    diff = colour - np.median(ring, axis=0)
    # a shadow is the tray a little darker, not a die: darkening up to SHADE is let pass
    diff[..., 3] = np.where(diff[..., 3] < 0, np.minimum(diff[..., 3] + SHADE, 0), diff[..., 3])
    dist = cv2.GaussianBlur(np.sqrt((diff**2).sum(axis=2)), (0, 0), w / 96)
    scaled = np.clip(dist * (255.0 / max(float(dist.max()), 1e-3)), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, (w // 24) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    centre = (w / 2, h / 2)
    inside = [c for c in contours if cv2.pointPolygonTest(c, centre, True) > -w / (4 * margin)]
    if not inside:
        return None
    body = max(inside, key=cv2.contourArea)
    area = cv2.contourArea(body)
    x, y, bw, bh = cv2.boundingRect(body)
    box = w / margin
    hull = cv2.contourArea(cv2.convexHull(body))
    if (
        area < (0.4 * box) ** 2
        or area > (1.6 * box) ** 2
        or min(x, y) <= 0
        or x + bw >= w
        or y + bh >= h
        or hull <= 0
        or area / hull < 0.8
    ):
        return None
    m = cv2.moments(body)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [body], -1, 255, cv2.FILLED)
    return Body(m["m10"] / m["m00"], m["m01"] / m["m00"], float(np.sqrt(area)), filled)


def view(
    region: np.ndarray, body: Body, variant: tuple[float, ...] = VARIANTS[0]
) -> tuple[np.ndarray, np.ndarray]:
    """The die cut out at its own size: SIDE × SIDE grey, and its body's weight (1 well
    inside the outline, 0 outside), both float32."""
    scale, sx, sy, blur = variant
    side = body.size * SPAN * scale
    box = (
        body.x + sx * body.size - side / 2,
        body.y + sy * body.size - side / 2,
        body.x + sx * body.size + side / 2,
        body.y + sy * body.size + side / 2,
    )
    crop = crop_die(region, box, SIDE, margin=1.0)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if blur > 0:
        grey = np.asarray(cv2.GaussianBlur(grey, (0, 0), blur), np.float32)
    if body.mask is None:
        return grey, np.ones_like(grey)
    inner = crop_die(body.mask, box, SIDE, margin=1.0)
    inner = cv2.erode(inner, np.ones((ERODE, ERODE), np.uint8))
    return grey, cv2.GaussianBlur(inner.astype(np.float32) / 255, (0, 0), 1.5)


def descriptor(grey: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The marks on the die (not its outline) unrolled around its centre: ANGLES × RADII,
    zero mean, unit norm."""
    detail = grey - cv2.GaussianBlur(grey, (0, 0), 6)  # ink against body, whatever the light
    detail = cv2.GaussianBlur(detail, (0, 0), 1.0) * weight
    polar = cv2.warpPolar(
        detail, (RADII, ANGLES), (SIDE / 2, SIDE / 2), SIDE * REACH, cv2.WARP_POLAR_LINEAR
    )
    # signed: a die set's ink is lighter or darker than its body, always the same way
    polar -= polar.mean()
    norm = float(np.linalg.norm(polar))
    return polar / norm if norm > 0 else polar


def _spectrum(polar: np.ndarray) -> np.ndarray:
    """Zero-padded along the radius (so correlation there is not circular), transformed."""
    return np.fft.rfft2(np.pad(polar, ((0, 0), (0, RADII))))


_SHIFTS = np.r_[0 : SCALE_SHIFT + 1, 2 * RADII - SCALE_SHIFT : 2 * RADII]


@dataclass(frozen=True)
class FaceMatch:
    value: int
    score: float  # the best correlation, −1..1 (0 when no die body was seen)
    lead: float  # over the best other face
    confidence: float
    seen: bool = True  # False: no die body in the crop (a tray edge, a shadow): not a die


@dataclass
class DieSet:
    name: str
    die: str  # d5, d6_numeral, d10 or d20
    crops: dict[int, list[np.ndarray]] = field(default_factory=dict)
    margin: float = MARGIN  # the taught crops' side over their finder box's side

    def __post_init__(self) -> None:
        if self.die not in DIE_TYPES:
            raise DieSetError(f"teach mode is for {', '.join(DIE_TYPES)}, not {self.die!r}")
        self._values: list[int] = []
        self._spectra: list[np.ndarray] = []
        self._bank: np.ndarray | None = None
        for value, crops in self.crops.items():
            for crop in crops:
                self._add(value, crop)

    @property
    def reading_die(self) -> str:
        """The die type its readings carry (a numeral d6 is a d6)."""
        return "d6" if self.die == "d6_numeral" else self.die

    def _add(self, value: int, crop: np.ndarray) -> None:
        region = cv2.resize(crop, (REGION, REGION), interpolation=cv2.INTER_AREA)
        body = locate(region, self.margin) if self.margin > 1.2 else None
        if body is None:  # an old die set's crop (the box alone) or no body seen: the whole crop
            body = Body(REGION / 2, REGION / 2, REGION / self.margin)
        for variant in VARIANTS:
            self._values.append(value)
            self._spectra.append(np.conj(_spectrum(descriptor(*view(region, body, variant)))))
        self._bank = None

    def teach(self, value: int, crop: np.ndarray) -> None:
        """Teach face ``value`` from ``crop``: the square around the die's finder box,
        ``self.margin`` times its side (as :meth:`region` cuts it)."""
        if value not in faces_of(self.reading_die):
            raise DieSetError(f"a {self.die} has no face {value}")
        if crop.ndim != 3 or min(crop.shape[:2]) < 8:
            raise DieSetError("a taught face is a colour crop of at least 8×8 pixels")
        self.crops.setdefault(value, []).append(crop)
        self._add(value, crop)

    def missing(self) -> list[int]:
        return [v for v in faces_of(self.reading_die) if v not in self.crops]

    @staticmethod
    def region(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
        """The square searched for a die found at ``box``: MARGIN times its side, REGION px."""
        return crop_die(image, box, REGION, margin=MARGIN)

    def read(self, image: np.ndarray, box: tuple[float, float, float, float]) -> FaceMatch:
        """The face of the die the finder placed at ``box`` in ``image``."""
        return self.match(self.region(image, box))

    def match(self, crop: np.ndarray, margin: float = MARGIN) -> FaceMatch:
        """The face of the die in ``crop``, a square around its box ``margin`` times its side."""
        if not self._spectra:
            raise DieSetError(f"die set {self.name!r} has no taught faces yet")
        region = cv2.resize(crop, (REGION, REGION), interpolation=cv2.INTER_AREA)
        body = (
            locate(region, margin)
            if margin > 1.2
            else Body(REGION / 2, REGION / 2, REGION / margin)
        )
        if body is None:
            return FaceMatch(self._values[0], 0.0, 0.0, 0.0, seen=False)
        if self._bank is None:
            self._bank = np.stack(self._spectra)
        query = _spectrum(descriptor(*view(region, body)))
        corr = np.fft.irfft2(self._bank * query, s=(ANGLES, 2 * RADII))
        scores = corr[:, :, _SHIFTS].max(axis=(1, 2))
        best: dict[int, float] = {}
        for value, score in zip(self._values, scores.tolist(), strict=True):
            best[value] = max(best.get(value, -1.0), score)
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
        meta = {"name": self.name, "die": self.die, "faces": faces, "margin": self.margin}
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
            margin = float(meta.get("margin", 1.0))  # older sets kept the box alone
            return cls(meta["name"], meta["die"], crops, margin)
        except (OSError, ValueError, KeyError) as err:
            if isinstance(err, DieSetError):
                raise
            raise DieSetError(f"cannot load the die set in {folder}: {err}") from None
