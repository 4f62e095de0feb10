"""What a person is told about a die the camera is unsure of, and why it is unsure.

The problem names a reading carries ("cocked", "not of the set", "may be
cocked", …) and the advice made from them: "confirm: 5?" where one answer is
likely, "confirm: 18 or 10?" with the next likeliest face, "take the blue die
out of the tray", "re-throw the red d6".
"""

from __future__ import annotations

LIKELY = 0.45  # at or above (but below the reader's SURE): "confirm: V?"; below: re-throw
BLUR = "blurred"
FOREIGN = "not of the set"  # a numbered die whose colour no taught face has
TRAY_COLOURED = "the tray's colour"  # a numbered die not told from the tray: asked to confirm
LEANING = "may be cocked"  # a numbered die whose numeral is not where a flat die has it, as
# on a cocked die (some flat dice too: asked to confirm, not to re-throw)
NUMBERED_DIE = "numbered die"  # a d5, d10 or d20 among pip dice (the face network's class)
NUMBERED_UNTAUGHT = "numbered die, no set"  # ... where no pip die was expected ("any")
NUMERAL_BLURRED = "numeral blurred"  # a numbered die read surely, but blurred (NUMERAL_SHARP)
OUTLINE_UNSEEN = "no outline"  # a pip die whose outline does not stand out from the tray
# (vision.debris): a die of the tray's colour, or a speck on the tray: asked to confirm
SPECK_SIZED = "speck-sized"  # a one-pip d6 or blank Fudge die far smaller than the frame's
# other dice (vision.debris.LONE_MARK): perhaps a speck on the tray: asked to confirm
JOINED_PIPS = "one die or two"  # a 1 and a die close beside it read again as one die (a dark
# 2 on dark felt, vision.split_pips): asked, for two dice touching may look so too
ON_ANOTHER = "a pip of another die"  # a 1 that may be a pip of the die read beside it
ON_A_DIE = "on another die"  # a reading lying on a larger die (a glare spot or a pip found
# apart, vision.split_pips.nested): asked, unless a sure 1 on a die read surely (left out)
DIM_PICTURE = "the picture is dim"  # read only once the dim frame was brightened: asked
WIDER_READ = "read otherwise wider"  # a sure d6 that a box 1.3 times as large reads surely as
# another face: the finder's box may hold its pips alone (a die the felt's colour), and pips
# at a crop's edge are taken for a side face's (vision/reader.py, _looked_wider): asked
TAUGHT_ASKEW = "set taught askew"  # a numbered die read by a set taught at a slant or on a
# tray that cut its outlines (teach.DieSet.aside_note), held below the bar: asked to confirm
OTHER_SHAPE = "not the set's shape"  # a numbered die whose outline no taught face has: of
# another type (a d5 among d20s of its colour: their numerals read alike), asked to confirm


_WHY_CONFIRM = {  # why a die is asked to be confirmed, where its problem says ({die}: its type)
    TAUGHT_ASKEW: "its set was taught through a camera at a slant, or on a tray that cut "
    "the dice's outlines, so only a clear numeral is read for sure; teach the set again with "
    "the camera straight over a tray of another colour",
    TRAY_COLOURED: "it is the tray's colour, so only a clear numeral is read for sure; on a "
    "tray of another colour it can be",
    LEANING: "its numeral is not where a flat die has it, as on a cocked die; if it is cocked, "
    "re-throw it",
    OTHER_SHAPE: "its outline is not a taught {die}'s; if it is a die of another kind, take it "
    "out of the tray",
    OUTLINE_UNSEEN: "no die's outline stands out around its pips: a die of the tray's colour, "
    "or a speck on the tray?",
    SPECK_SIZED: "it is half the size of the other dice or less: a speck on the tray?",
    NUMERAL_BLURRED: "it is blurred, and a blurred numeral may be another; focus the camera",
    JOINED_PIPS: "it was first taken for two dice; if there are two, re-throw them",
    ON_ANOTHER: "it may be a pip of the die beside it, read already",
    ON_A_DIE: "it lies on another die, perhaps a reflection or a pip of it",
    DIM_PICTURE: "the picture is dim; light over the tray reads it for sure",
    WIDER_READ: "a wider look at it reads another face",
}


def advice_for(
    die: str,
    value: int | None,
    confidence: float,
    colour: str,
    cut: bool,
    problem: str = "",
    runner_up: int | None = None,
) -> str:
    name = f"{colour} {die}".strip()
    if cut:
        return f"move the {name} fully into the tray, or re-throw it"
    if problem == "cocked":
        return f"re-throw the {name}: it is cocked (no face lies flat)"
    if problem == FOREIGN:  # a numbered die of another colour than the taught set's
        other = f"{colour} die" if colour else "other die"
        return f"take the {other} out of the tray: it is not one of the taught {die}s"
    if problem == BLUR:
        return f"the {name} is blurred: focus the camera, then re-throw it"
    if problem == NUMBERED_DIE:  # a d5, d10 or d20 among pip dice, read by its own set
        other = f"{colour} die" if colour else "die"
        return (f"take the {other} out of the tray: it is a numbered die (d5, d10 or d20), "
                f"not a {die}")  # fmt: skip
    if problem == NUMBERED_UNTAUGHT:
        other = f"{colour} die" if colour else "die"
        return (f"enter the {other} by hand: it is a numbered die (d5, d10 or d20), read by "
                "the camera once its set is taught (Devices page)")  # fmt: skip
    if problem == "impossible pips":
        return f"look at the {name}: its pips make no real face (a misprint, or something on it?)"
    if problem == OTHER_SHAPE and not confirming(value, confidence, cut, problem):
        other = f"{colour} die" if colour else "die"
        return (f"take the {other} out of the tray if it is not a {die} (its outline is not a "
                f"taught {die}'s); if it is one, re-throw it")  # fmt: skip
    if confirming(value, confidence, cut, problem):
        shown = " or ".join(
            f"{v:+d}" if die == "dF" else str(v) for v in (value, runner_up) if v is not None
        )
        why = _WHY_CONFIRM.get(problem, "").format(die=die)
        if why:
            return f"confirm: {shown}? (the {name}: {why})"
        return f"confirm: {shown}? (the {name})"
    return f"re-throw the {name}"


def confirming(value: int | None, confidence: float, cut: bool, problem: str) -> bool:
    """Whether an uncertain die's advice is to confirm its guess (else: move, re-throw…)."""
    return (
        value is not None and confidence >= LIKELY and not cut
        and problem in (
            "", TRAY_COLOURED, TAUGHT_ASKEW, LEANING, NUMERAL_BLURRED, OTHER_SHAPE, OUTLINE_UNSEEN,
            SPECK_SIZED, JOINED_PIPS, ON_ANOTHER, ON_A_DIE, DIM_PICTURE, WIDER_READ,
        )
    )  # fmt: skip


def offered_runner_up(
    runner_up: int | None,
    uncertain: bool,
    value: int | None,
    confidence: float,
    cut: bool,
    problem: str,
) -> int | None:
    """The runner-up face, kept only where the die is asked to be confirmed."""
    return runner_up if uncertain and confirming(value, confidence, cut, problem) else None
