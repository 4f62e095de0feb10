"""What a frame must be before it is read, and the few kinds of frame that are made so.

The networks and the matcher work on 8-bit BGR.  A monochrome camera's grey
frames, a BGRA screenshot and a 16-bit PNG or camera frame carry the same
picture and are converted; anything else (floats, whose scale is anyone's
guess, a frame a few pixels wide, something that is not an image at all) is a
:class:`FrameError` that says what was given and what is wanted.  A picture
named on the command line is read by :func:`read_image`, which says whether the
file is missing or not a picture (OpenCV alone returns nothing and prints a
warning of its own).
"""

from __future__ import annotations

import io
import stat
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from dicebridge.files import write_whole

MIN_SIDE = 8  # pixels: smaller than any die the finder can see
MAX_PIXELS = 100_000_000  # a 100-megapixel phone photo is read (300 MB as BGR); a header that
# claims more (a 32000 × 32000 PNG of a few bytes took 6 GB) is refused before decoding


class FrameError(ValueError):
    """A frame that cannot be read as a picture of the tray; the message says why."""


def as_bgr8(image: object, what: str = "a frame") -> np.ndarray:
    """``image`` as an H×W×3 BGR uint8 array: grey (H×W or H×W×1), BGRA and 16-bit
    pictures converted; anything else raised as a FrameError naming ``what``."""
    if not isinstance(image, np.ndarray):
        raise FrameError(f"{what} must be an image array (H×W×3 BGR), not {type(image).__name__}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        raise FrameError(
            f"{what} must be H×W grey, H×W×3 BGR or H×W×4 BGRA; its shape is {image.shape}"
        )
    if min(image.shape[:2]) < MIN_SIDE:
        raise FrameError(
            f"{what} is {image.shape[1]}×{image.shape[0]} pixels; "
            f"at least {MIN_SIDE}×{MIN_SIDE} are needed"
        )
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)  # the top 8 bits: the same picture, coarser
    elif image.dtype != np.uint8:
        raise FrameError(
            f"{what} has {image.dtype} pixels; 8-bit (uint8) or 16-bit (uint16) are read "
            "(scale floats to 0–255 and convert them to uint8 first)"
        )
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    if image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR))
    return np.ascontiguousarray(image)


def read_image(path: Path | str, what: str = "a picture") -> np.ndarray:
    """The picture in the file ``path`` as 8-bit BGR; a FrameError saying whether the file
    is missing, is not a picture OpenCV reads, or is too small."""
    path = Path(path)
    try:  # once, caught: is_dir() raises on a name too long or a folder not searchable
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FrameError(f"{path}: no such file") from None
    except OSError as err:
        raise FrameError(f"cannot read {path}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise FrameError(f"{path} is a folder, not a picture")
    if not stat.S_ISREG(mode):
        raise FrameError(f"{path} is not a regular file (a pipe or a device), not a picture")
    try:
        image = decode_file(path)
    except OSError as err:
        raise FrameError(f"cannot read {path}: {err.strerror or err}") from None
    if image is None:
        raise FrameError(f"{path} is not a picture OpenCV can read (PNG, JPEG, BMP, TIFF, …)")
    return as_bgr8(image, f"{what} ({path})")


def decode_file(path: Path) -> np.ndarray | None:
    """The picture in the regular file ``path`` as OpenCV decodes it (None where it is no
    picture); OSError where the file cannot be read, FrameError where its header claims
    more than MAX_PIXELS.  The bytes are read by Python and decoded from memory:
    ``cv2.imread`` crashes the process on a name that is not UTF-8 (a stick's files
    written by another system) and waits forever on a named pipe."""
    raw = Path(path).read_bytes()
    if not raw:
        return None
    size = claimed_size(raw)
    if size is None or size[0] * size[1] > MAX_PIXELS:
        said = "far more" if size is None else f"{size[0]}×{size[1]} pixels, more"
        raise FrameError(
            f"{path} says it is a picture of {said} than the "
            f"{MAX_PIXELS // 1_000_000} megapixels read here (shrink it first)"
        )
    try:
        return cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:  # a header that claims a picture larger than OpenCV will decode
        return None


def claimed_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) as the picture's header says, read without decoding it: (0, 0) where
    the header is none Pillow knows (OpenCV is left to try; its own limit is 2³⁰ pixels),
    None where it claims past what Pillow will even open (about 179 megapixels)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(raw)) as picture:
                width, height = picture.size
                return int(width), int(height)
    except Image.DecompressionBombError:
        return None
    except Exception:  # any header Pillow cannot make out: OpenCV decides
        return (0, 0)


def encode_image(image: np.ndarray, suffix: str = ".png", params: tuple[int, ...] = ()) -> bytes:
    """``image`` encoded in the format ``suffix`` names; FrameError where none is."""
    try:
        ok, data = cv2.imencode(suffix, image, list(params))
    except cv2.error:  # no encoder for that suffix
        ok = False
    if not ok:
        raise FrameError(f"cannot encode a picture as {suffix}")
    return bytes(data.tobytes())


def write_image(path: Path | str, image: np.ndarray, params: tuple[int, ...] = ()) -> None:
    """``image`` written to ``path`` in the format its suffix names, whole or not at all;
    OSError where it cannot be written.  Encoded in memory and written by Python, as
    :func:`decode_file` reads: ``cv2.imwrite`` crashes the process on a name that is not
    UTF-8, and says nothing but False where the folder is not writable."""
    path = Path(path)
    write_whole(path, encode_image(image, path.suffix or ".png", params))


DIM_TOP = 80  # grey levels: a frame whose brightest parts (the 99.9th percentile of grey,
# the pips of dark dice among them) are under this is dim ...
LIFT_TO = 200  # ... and is read brightened too, so that they reach this (by at most
MOST_LIFT = 8.0  # this many times): what only that reads is asked (the reader).  Frames with
# light in them are not touched (docs/vision.md, "Is the camera set up well?")


def dim_gain(image: np.ndarray) -> float:
    """How many times to brighten the BGR frame ``image`` so that its brightest parts reach
    LIFT_TO: 1.0 where they reach DIM_TOP already (a frame with light enough)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    counts = np.cumsum(cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel())
    top = int(np.searchsorted(counts, 0.999 * counts[-1]))  # the 99.9th percentile
    return 1.0 if top >= DIM_TOP else min(LIFT_TO / max(top, 1), MOST_LIFT)


def brightened(image: np.ndarray, gain: float) -> np.ndarray:
    """``image`` (8-bit) times ``gain``, saturated; itself where ``gain`` is 1."""
    return image if gain == 1.0 else np.asarray(cv2.convertScaleAbs(image, alpha=gain))
