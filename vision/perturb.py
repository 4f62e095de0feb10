"""Photos as another camera would take them: turned, rescaled, re-lit and blurred.

Used to measure how a reader trained or taught on one set of photos copes when
the camera moves, zooms, re-exposes or loses focus.  :func:`perturb` warps a
photo and its empty tray alike (the camera moved between the two sessions, the
tray with it) and changes the light and focus of the photo alone.
:func:`write_perturbed` writes a whole labelled set that way, each photo with
its own moved tray (``trays/<file>``), in the labels.csv format of
:mod:`vision.datasets` plus a ``tray`` column.
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from vision.datasets import read_dataset
from vision.pixels import decode_file, write_image

ZOOM = (0.75, 1.25)
GAMMA = (0.75, 1.35)
GAIN = (0.65, 1.3)
BLUR = (0.5, 2.0)  # Gaussian sigma, pixels


def perturb(
    image: np.ndarray, tray: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``image`` turned about its centre by any angle and rescaled (``tray`` the same way),
    then with a new gamma and gain and a Gaussian blur (``image`` only)."""
    h, w = image.shape[:2]
    angle = float(rng.uniform(0.0, 360.0))
    zoom = float(rng.uniform(*ZOOM))
    gamma = float(rng.uniform(*GAMMA))
    gain = float(rng.uniform(*GAIN))
    sigma = float(rng.uniform(*BLUR))
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, zoom)

    def warp(img: np.ndarray) -> np.ndarray:
        flags = cv2.INTER_AREA if zoom < 1 else cv2.INTER_LINEAR
        return cv2.warpAffine(img, matrix, (w, h), flags=flags, borderMode=cv2.BORDER_REFLECT)

    moved, moved_tray = warp(image), warp(tray)
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma * gain, 0, 255)
    lit = cv2.LUT(moved, np.round(lut).astype(np.uint8))
    return cv2.GaussianBlur(lit, (0, 0), sigma), moved_tray


def write_perturbed(src_dir: Path, out_dir: Path, rng: np.random.Generator) -> Path:
    """Every photo of the labelled set ``src_dir`` (one with an empty-tray row, die_type
    ``none``) perturbed into ``out_dir``: images/<file>, trays/<file> and labels.csv
    (file, die_type, values, tray).  Returns the labels.csv path."""
    src_dir, out_dir = Path(src_dir), Path(out_dir)
    items = read_dataset(src_dir)
    empty = [item for item in items if item.die_type == "none"]
    if not empty:
        raise ValueError(f"{src_dir} has no empty-tray photo (a row with die_type none)")
    tray = decode_file(empty[0].path)
    if tray is None:
        raise ValueError(f"cannot read {empty[0].path} as an image")
    rows = []
    for item in items:
        if item.die_type == "none":
            continue
        image = decode_file(item.path)
        if image is None:
            raise ValueError(f"cannot read {item.path} as an image")
        name = item.path.name
        moved, moved_tray = perturb(image, tray, rng)
        for folder, picture in (("images", moved), ("trays", moved_tray)):
            (out_dir / folder).mkdir(parents=True, exist_ok=True)
            write_image(out_dir / folder / name, picture, (cv2.IMWRITE_JPEG_QUALITY, 92))
        values = ";".join(str(v) for v in item.values)
        rows.append([f"images/{name}", item.die_type, values, f"trays/{name}"])
    path = out_dir / "labels.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["file", "die_type", "values", "tray"])
        out.writerows(rows)
    return path
