"""The camera names the registered die it reads for a die type (``[camera_dice]`` in the
settings), so its throws feed that die's audit: rendered throws through the real vision
pipeline, a real ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from audit.ledger_audit import readings_of
from server.camera import CameraSource
from server.camera_dice import identities
from server.config import ConfigError, load_config
from server.ledger import Ledger
from server.table import Table
from server.unsure import confirm_unsure
from vision.frames import Replay
from vision.reader import DiceReader
from vision.render import ThrowSpec, render_throw


def _camera(table: Table) -> CameraSource:
    return CameraSource("camera", Replay([]), DiceReader(), table, dice={"d6": "lucky-d6"})


def test_one_die_of_a_named_type_is_named_and_two_are_not_told_apart(tmp_path: Path) -> None:
    """Until the camera named its dice, no camera throw reached any die's audit."""
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.registry.register("Lucky d6", "d6")
        events: list[dict[str, Any]] = []
        table.subscribe(events.append)
        camera = _camera(table)
        one = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(3))
        two = render_throw(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(4))
        for throw in (one, two, two):
            read = camera.read_throw(throw.image)
            assert sorted(d.value or 0 for d in read.dice if not d.uncertain) == sorted(
                d.value for d in throw.dice
            )
        rows = [[d.get("identity") for d in e.body["dice"]] for e in ledger.entries("throw")]
        assert rows == [["lucky-d6"], [None, None], [None, None]]
        said = [e["detail"] for e in events if e.get("event") == "notice"]
        assert said == [  # once a run
            "2 d6s in one throw: the camera cannot tell which is lucky-d6 (camera_dice in the "
            "settings), so those readings are kept without its name and feed no die's audit; "
            "throw it alone to audit it"
        ]
        audited = readings_of(ledger, table.registry.get("lucky-d6"))
        assert [(r.face, r.source) for r in audited] == [(one.dice[0].value, "camera")]


def test_an_unsure_die_confirmed_by_a_person_keeps_its_name(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        table.registry.register("Lucky d6", "d6")
        table.create("d6pool", {"level": 1, "difficulty": 6})  # the camera expects a d6
        camera = _camera(table)
        image = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(5)).image
        read = camera.read_throw(cv2.GaussianBlur(image, (0, 0), 6))  # its pips blurred away
        assert [d.uncertain for d in read.dice] == [True]
        unsure = list(ledger.entries("reading"))
        assert unsure[0].body["identity"] == "lucky-d6"
        confirm_unsure(table, unsure[0].id, 4)
        throws = [e.body["dice"] for e in ledger.entries("throw")]
        assert throws[0][0]["identity"] == "lucky-d6" and throws[0][0]["face"] == 4


def test_identities_by_type() -> None:
    named = {"d20": "lucky-d20", "d6": "red-d6"}
    assert identities(["d20", "d6", "d6", "d10"], named) == (
        ["lucky-d20", None, None, None],
        {"d6": 2},
    )


def test_camera_dice_in_the_settings(tmp_path: Path) -> None:
    settings = tmp_path / "dicebridge.toml"
    settings.write_text('[camera_dice]\nd20 = "Lucky d20"\n')
    assert load_config(settings, {}).camera_dice == {"d20": "Lucky d20"}
    for wrong, says in (
        ('[camera_dice]\nd7 = "x"\n', "camera_dice.d7: not a die type the camera reads"),
        ("[camera_dice]\nd20 = 3\n", "camera_dice.d20 must be the name of a registered die"),
        ("camera_dice = 3\n", "[camera_dice] must be a table"),
    ):
        settings.write_text(wrong)
        try:
            load_config(settings, {})
        except ConfigError as err:
            assert says in str(err)
        else:
            raise AssertionError(f"{wrong!r} was taken")
