"""The die finder's training set (vision/training/detector_set.py): throws on a felt the
colour of their dice, marked so that training can tell them from the rest."""

from __future__ import annotations

import numpy as np

from vision.render import PALETTE
from vision.training.detector_set import _felt_throw, build


def test_a_felt_throw_lies_on_a_felt_near_its_first_looks_body_with_debris() -> None:
    rng = np.random.default_rng(3)
    solid = tuple(look for look in PALETTE if not look.translucent)
    seen_debris = set()
    for _ in range(200):
        tray, looks, debris = _felt_throw(rng, solid)
        body = np.array(looks[0].body, np.float64)
        felt = np.array(tray, np.float64)
        # a sixth of the body's brightness, the noise (6 per channel) and the clip at 8
        assert np.all(np.abs(felt - body) <= body * 0.18 + 3 * 6 + 8), (body, felt)
        assert 0 <= debris <= 15
        seen_debris.add(debris)
    assert len(seen_debris) > 10  # drawn, not fixed


def test_the_set_marks_its_felt_throws_and_only_them() -> None:
    frames, lengths, boxes, felt = build(np.random.default_rng(5), 10, photos_too=False, felt=0.5)
    assert len(frames) == len(lengths) == len(felt) == 10 and lengths.sum() == len(boxes)
    assert 0 < felt.sum() < 10
    assert build(np.random.default_rng(5), 4, photos_too=False)[3].tolist() == [False] * 4
