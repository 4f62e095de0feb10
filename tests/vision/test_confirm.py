"""A die left to confirm names its guess and, where the reader sees one, the next likeliest
face ("confirm: 2 or 3?"), so that a person settles it with one press."""

from collections import Counter

import cv2

from tests.vision import needs_photos
from vision.advice import advice_for
from vision.datasets import iter_split, read_dataset, shared_photos
from vision.reader import DiceReader
from vision.readings import iou


def test_the_advice_names_the_second_face_only_when_it_asks_to_confirm() -> None:
    confirm = advice_for("d20", 18, 0.6, "white", False, "", 10)
    assert confirm == "confirm: 18 or 10? (the white d20)"
    assert advice_for("dF", 1, 0.6, "", False, "", 0) == "confirm: +1 or +0? (the dF)"
    assert advice_for("d6", 3, 0.6, "red", False) == "confirm: 3? (the red d6)"
    assert advice_for("d6", 3, 0.3, "red", False, "", 2) == "re-throw the red d6"  # too unsure
    cut = advice_for("d6", 3, 0.6, "red", True, "", 2)
    assert cut.startswith("move the red d6") and "2" not in cut


@needs_photos
def test_a_photographed_d6_to_confirm_shows_one_of_the_two_faces_offered() -> None:
    photos = shared_photos()
    assert photos is not None
    reader = DiceReader()
    asked = Counter[str]()
    for item in iter_split(read_dataset(photos / "byler_d6"), "held_out"):
        assert item.boxes is not None
        image = cv2.imread(str(item.path))
        assert image is not None
        for die in reader.read(image, "d6").dice:
            if not die.uncertain:
                assert die.runner_up is None  # a sure reading offers nothing else
                continue
            if not die.advice.startswith("confirm"):
                assert die.runner_up is None
                continue
            label = max(item.boxes, key=lambda b: iou((b.x0, b.y0, b.x1, b.y1), die.box))
            if iou((label.x0, label.y0, label.x1, label.y1), die.box) < 0.3:
                continue  # a find no label is for
            asked["confirm"] += 1
            asked["guess"] += label.value == die.value
            asked["second"] += label.value == die.runner_up
    # measured on the held-out half: 8 asked, the guess right 5 times, the second face 3
    assert asked["confirm"] >= 5, asked
    assert asked["guess"] + asked["second"] >= asked["confirm"] - 1, asked
    assert asked["second"] >= 1, asked
