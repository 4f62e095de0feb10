"""Tests of the camera reader.  ``needs_photos`` marks a test that reads the photo sets in
../shared/data/photos, which a user's fresh clone does not have: it skips, saying so."""

from collections.abc import Iterator

import cv2
import numpy as np
import pytest

from vision.datasets import LabelledImage, read_dataset, shared_photos

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
