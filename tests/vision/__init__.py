"""Tests of the camera reader.  ``needs_photos`` marks a test that reads the photo sets in
../shared/data/photos, which a user's fresh clone does not have: it skips, saying so."""

import pytest

from vision.datasets import shared_photos

needs_photos = pytest.mark.skipif(
    shared_photos() is None,
    reason="../shared/data/photos is absent (a user's clone has no ../shared)",
)
