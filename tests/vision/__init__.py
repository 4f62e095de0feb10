"""Tests of the camera reader.  ``needs_photos`` marks a test that reads the photo sets in
../shared/data/photos, which a user's fresh clone does not have: it skips, saying so."""

from collections.abc import Iterator

import cv2
import numpy as np
import pytest

from vision.advice import LEANING
from vision.datasets import LabelledImage, read_dataset, shared_photos
from vision.readings import DieReading, ThrowReading, holds
from vision.render import RenderedDie

needs_photos = pytest.mark.skipif(
    shared_photos() is None,
    reason="../shared/data/photos is absent (a user's clone has no ../shared)",
)


def photos_of(name: str) -> Iterator[tuple[LabelledImage, np.ndarray]]:
    """Each labelled photo of the set ``name`` in ../shared/data/photos, read (for tests
    marked ``needs_photos``)."""
    photos = shared_photos()
    assert photos is not None
    for item in read_dataset(photos / name):
        image = cv2.imread(str(item.path))
        assert image is not None, item.path
        yield item, image


def how_read(die: RenderedDie, result: ThrowReading) -> tuple[str, DieReading | None]:
    """How the reader's ``result`` took a rendered ``die``: "not read", "leaning" (asked
    "may be cocked"), "uncertain" (asked otherwise), "right" or "wrong"; and its reading."""
    on = [r for r in result.dice if holds(r.box, die.box)]
    if not on:
        return "not read", None
    if on[0].problem == LEANING:
        return "leaning", on[0]
    if on[0].uncertain:
        return "uncertain", on[0]
    return ("right" if on[0].value == die.value else "wrong"), on[0]
