"""What the camera says once a run about how it is set up, learnt from the throws it reads.

Each is said once a run of the camera, when enough throws agree (one throw's dice are too
few to tell a slant or a focus by): a camera at a slant (numbered dice's numerals lie off
their middles one way), out of focus (the dice's edges blurred), dark dice on a dark felt,
and pictures with no colour where a die set is taught.  The words are those of
``dicebridge vision check`` (vision/camera_check.py), so the two never disagree.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import cv2
import numpy as np

from vision.camera_check import colour_advice, felt_advice, focus_advice, slant_advice
from vision.felt import dark_dice_on_dark_felt
from vision.readings import ThrowReading
from vision.sharpness import edge_blur

LEANS_KEPT = 12  # numbered dice per die type whose lean the camera keeps (see read_throw)
BLURS_KEPT = 5  # throws whose dice's edge blur the camera keeps: a focus notice needs all 5
FELT_KEPT = 3  # throws in a row with dice as dark as their dark felt: a notice to change it


class SetupNotices:
    """The notices of one run of a camera: :meth:`after_throw` for every throw read."""

    def __init__(self) -> None:
        self._told: set[str] = set()  # which notices were said: "slant", "focus", ...
        self._blurs: deque[float] = deque(maxlen=BLURS_KEPT)  # the last throws' edge blur
        self._felt_throws = 0  # throws in a row with dice as dark as their dark felt

    def after_throw(
        self,
        image: np.ndarray,
        result: ThrowReading,
        leans: Sequence[tuple[float, float]],
        taught: bool,
    ) -> list[str]:
        """What to say now, once ``result`` is read from ``image``: ``leans``, the last
        LEANS_KEPT numbered dice's leans of the die type read, these dice's among them;
        ``taught``: the dice expected are read by a taught die set."""
        said = {
            "slant": self._slant(leans),
            "focus": self._focus(image, result),
            "felt": self._felt(image, result),
            "colour": colour_advice(image, taught) if "colour" not in self._told else "",
        }
        news = [(name, words) for name, words in said.items() if words and name not in self._told]
        self._told.update(name for name, _ in news)
        return [words for _, words in news]

    def _slant(self, leans: Sequence[tuple[float, float]]) -> str:
        # a few dice's numerals are too noisy to tell a slant by: LEANS_KEPT of them
        if "slant" in self._told or len(leans) < LEANS_KEPT:
            return ""
        return slant_advice(leans)[1]

    def _focus(self, image: np.ndarray, result: ThrowReading) -> str:
        # the median of BLURS_KEPT throws in a row: a camera out of focus reads small
        # numerals as other faces, for sure; one throw's dice may be blurred by a shake
        if "focus" in self._told or not result.dice:
            return ""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        blur = edge_blur(grey, [d.box for d in result.dice])
        if blur is None:
            return ""
        self._blurs.append(blur)
        said = focus_advice(float(np.median(self._blurs)))
        return said if len(self._blurs) == BLURS_KEPT else ""

    def _felt(self, image: np.ndarray, result: ThrowReading) -> str:
        # most are found (the felt finder), but more are left to confirm or missed than on a
        # felt that stands apart from them (vision/camera_check.py, felt_advice)
        if "felt" in self._told or not result.dice:
            return ""
        alike = dark_dice_on_dark_felt(image, [d.box for d in result.dice])
        self._felt_throws = self._felt_throws + 1 if alike else 0
        return felt_advice(alike, result.dice) if self._felt_throws >= FELT_KEPT else ""
