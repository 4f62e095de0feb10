"""The d10 worked out from the solid (vision/render_d10.py): its faces are flat, it lies
squat across its top kite as burks' real d10 does, it fits the face's texture, and its
outline, measured as a taught face's is, is a d10's and no other type's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.die_shape import shape_gap
from vision.render_d10 import DRAWN, RING_ZIGZAG, _solid, d10
from vision.render_faces import MARGIN
from vision.untaught_shapes import KEPT


@pytest.mark.parametrize("zigzag", [0.05, RING_ZIGZAG, 0.19])
def test_every_kite_of_the_solid_is_flat(zigzag: float) -> None:
    points, faces = _solid(zigzag)
    assert len(faces) == 10
    for face in faces:
        a, b, c, d = points[face]
        normal = np.cross(b - a, d - a)
        assert abs(float(normal @ (c - a))) < 1e-9 * float(np.linalg.norm(normal))


def test_the_d10_lies_wider_across_its_kite_than_along_it_and_fits_the_texture() -> None:
    solid = d10()
    width, length = solid.outline.max(axis=0) - solid.outline.min(axis=0)
    assert 1.1 < width / length < 1.25  # burks' photo: about 1.24
    assert solid.outline.min() >= -MARGIN and solid.outline.max() <= 1 + MARGIN
    kite_length = solid.top[2, 1] - solid.top[0, 1]  # the kite's apex to its far corner
    assert kite_length > 0.7 * length  # the top face is most of the die
    assert len(solid.sides) == 4  # the kite's four neighbours are in view, none beneath
    assert solid.numeral_at == (0.5, 0.5)  # at the die's middle, as burks' d10 has it
    assert all(0.62 <= light <= 0.9 for _, light in solid.sides)


def test_the_drawing_by_eye_is_still_what_throws_draw() -> None:
    assert DRAWN.numeral_at == (0.5, 0.56) and DRAWN.numeral_height == 0.24
    width, length = DRAWN.outline.max(axis=0) - DRAWN.outline.min(axis=0)
    assert length / width == pytest.approx(1.14)


def test_the_solid_s_outline_is_a_d10_s_and_no_other_type_s() -> None:
    """As kept for the stand-ins: elongated as burks' real d10 (2nd harmonic 0.055-0.071,
    4th 0.016-0.029) and well apart from the rendered d5s', d6s' and d20s'."""
    kept = {die: np.array(rows) for die, rows in json.loads(KEPT.read_text("utf-8")).items()}
    second, fourth = kept["d10"][:, 0], kept["d10"][:, 2]
    assert second.min() > 0.05 and second.max() < 0.075, second
    assert fourth.max() < 0.03, fourth
    for other in ("d5", "d6", "d20"):
        assert min(shape_gap(row, kept[other]) for row in kept["d10"]) > 0.3, other
