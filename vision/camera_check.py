"""Is the camera set up well?  A look at a few seconds of frames of a still tray with dice.

What makes a camera read badly is mostly where it is and what light it has:
dice too small in the picture (their pips a pixel or two), a dim picture, a
picture that never holds still (flickering light, exposure hunting: the
settle detector then never hands a throw over), too few frames a second, a
picture out of focus (blurred numerals and pips are read as other faces),
specks on the tray read as dice, dark dice on a dark felt.
This measures each from the frames themselves and the reader's own reading
of the last one, and says what to change.  `dicebridge vision check CAMERA`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.advice import OUTLINE_UNSEEN, SPECK_SIZED
from vision.colour import colourless
from vision.debris import LONE_MARK
from vision.felt import dark_dice_on_dark_felt
from vision.finder import Found
from vision.frames import Frame
from vision.numbered_finds import camera_slant
from vision.pixels import as_bgr8
from vision.reader import DiceReader
from vision.readings import DieReading
from vision.settle import MOVED_SHARE, SettleDetector
from vision.sharpness import edge_blur
from vision.teach_sets import DieSets
from vision.tray_area import dice_on_empty_tray, suggest

SMALL_SHARE = 0.04  # a die narrower than this share of the frame: read well only with a
LARGE_SHARE = 0.15  # second, closer look (rendered d6s: 3.7%, 88 of 96); wider: few fit
CLOSER_SHARE = 1.7 * SMALL_SHARE  # dice read narrower than this may be small ones drawn big
SMALL_PX = 24  # narrower than this: pips of a pixel or two (renders read to 18 px; real
# photos are blurrier: the byler dice, 30-45 px, read 97%)
NUMERAL_PX = {"d20": 80}  # a taught die set's dice narrower than this (reading boxes): their
# numerals a few pixels tall.  Rendered d20s, 567 read: under 80 px 21 of 261 left to
# confirm (8%), at 80 px or more 9 of 281 (3%); d10s 2-3% at any size from 30 px, so
# no such advice for them (docs/vision.md, "Is the camera set up well?")
SLANT_SAID = 0.05  # die sizes: numerals moved this far one way by the camera's slant are
# said (rendered frames of four: straight down 0.018 at most; through the tilted camera
# 0.072 and up in 30 of 36, 0.02 in 2, none found in 4)
DIM = 80  # the picture's brightest parts (99th percentile of grey) under this: too dim
BLURRED_PX = 1.6  # the dice's edges blurred over this many pixels (edge_blur) or more: out of
# focus.  Sharp frames measure 0.9-1.4 (renders, burks shrunk to 50-76 px, 200 byler phone
# photos: at most 1.40); a Gaussian blur of sigma 1.0 px 1.3-1.8, of 1.5 px 1.6-2.2, of 2 px
# 2.0-2.7.  Real numbered dice of 38-76 px blurred by sigma 1.35-1.9 were read wrong for sure
# (docs/vision.md, "Is the camera set up well?")
SLOW_FPS = 5.0  # fewer frames a second: settling is slow to see


@dataclass(frozen=True)
class CameraCheck:
    width: int
    height: int
    frames: int
    fps: float | None  # None: fewer than two frames, no time between them, or pictures
    brightest: float  # the 99th percentile of grey, 0-255
    unsteady: float | None  # median share of the picture that changed between frames (still
    # tray); None: pictures (a folder's photos, each its own throw), not a live camera's frames
    dice: int  # dice found in the last frame
    unsure: int  # of them, read unsure
    die_px: float | None  # median die width in pixels
    advice: tuple[str, ...] = field(default=())
    slant: float | None = None  # die sizes the camera's slant moves numerals off the dice's
    # middles (vision/reader.py, camera_slant); None: not measured (no three numbered dice agree)
    edge_blur: float | None = None  # pixels over which the dice's edges are blurred (see
    # edge_blur); None: no die with an edge to measure

    def to_dict(self) -> dict[str, object]:
        return {
            "width": self.width, "height": self.height, "frames": self.frames,
            "fps": None if self.fps is None else round(self.fps, 1),
            "brightest": round(self.brightest),
            "unsteady": None if self.unsteady is None else round(self.unsteady, 4),
            "dice": self.dice, "unsure": self.unsure,
            "die_px": None if self.die_px is None else round(self.die_px, 1),
            "advice": list(self.advice),
            "slant": None if self.slant is None else round(self.slant, 3),
            "edge_blur": None if self.edge_blur is None else round(self.edge_blur, 2),
        }  # fmt: skip


def focus_advice(blur: float | None) -> str:
    """What to say of dice whose edges are blurred over ``blur`` pixels ("" where sharp)."""
    if blur is None or blur < BLURRED_PX:
        return ""
    return (f"the picture is out of focus (the dice's edges are blurred over {blur:.1f} px; "
            "sharp, about 1): focus the camera on the tray (if it is in focus, ask no more than "
            "its sensor's own resolution, camera_size in the settings: a picture scaled up is "
            "blurred the same way). Blurred numerals and pips can be read as other "
            "faces")  # fmt: skip


NUMBERED_DICE = frozenset({"d5", "d10", "d20"})  # read by their numerals (felt_advice)


def colour_advice(image: np.ndarray, taught: bool) -> str:
    """What to say of a camera whose ``image`` has no colour, where a die set is ``taught``
    (pip dice are read alike in grey): "" where there is nothing to say."""
    if not taught or not colourless(image[::4, ::4]):  # every 4th pixel: plenty, 1/16 the work
        return ""
    return ("the camera's pictures have no colour: die sets are read by their numerals and "
            "outlines alone, so a die of another colour (someone else's, or another set of "
            "the same type) is not told from the set's; a colour camera, or the camera's "
            "colour mode, tells them apart")  # fmt: skip


def felt_advice(alike: int, dice: Sequence[DieReading]) -> str:
    """What to say where ``alike`` of the ``dice`` found are as dark as their dark felt.
    Rendered throws read right: black pip dice on black and dark blue felt 1,467 of 1,680,
    on the renderer's own trays 351 of 360 (docs/vision.md, "The felt finder, measured");
    numbered ones among them (d5, d10, d20): black ones there 150 of 240 sure, on the
    renderer's own trays about 9 in 10 ("Tray colours, measured")."""
    numbered = any(d.die in NUMBERED_DICE for d in dice)
    which = "the die is" if len(dice) == 1 else f"{alike} of the {len(dice)} dice are"
    how = ("such dice show little but their numerals, and about 1 in 3 is left to confirm "
           "(1 in 10 on a lighter felt)" if numbered else
           "such dice show little but their pips, and about 1 in 8 is left to confirm or "
           "missed (1 in 40 on a lighter felt)")  # fmt: skip
    return (f"{which} as dark as the felt: {how}. Use a felt that stands apart from the "
            "dice: light dice on a dark felt, dark dice on a light one")  # fmt: skip


def closer_widths(
    dice: Sequence[tuple[float, float, float, float]], closer: Sequence[Found]
) -> list[float]:
    """Each read die's width as the closer look boxes it: the widest of its finds whose
    middle lies in the die's box.  Only those: it also boxes specks on the tray and a die's
    own pips (11-19 px in a 640-px frame)."""
    widths = []
    for x0, y0, x1, y1 in dice:
        inside = [f.box[2] - f.box[0] for f in closer
                  if x0 <= (f.box[0] + f.box[2]) / 2 <= x1
                  and y0 <= (f.box[1] + f.box[3]) / 2 <= y1]  # fmt: skip
        if inside:
            widths.append(max(inside))
    return widths


def check_camera(
    frames: Sequence[Frame],
    reader: DiceReader,
    die: str = "any",
    empty_tray: np.ndarray | None = None,
) -> CameraCheck:
    """Measure ``frames`` (of a still tray, dice on it) and read the last one.  Pictures
    (``Frame.still``: a folder's photos, each its own throw) have no frames a second or
    steadiness to measure: the changes between two throws are no flicker."""
    if not frames:
        raise ValueError("the camera gave no frames to check")
    last = as_bgr8(frames[-1].image)  # a grey camera's frame too
    h, w = last.shape[:2]
    live = not all(f.still for f in frames)
    span = frames[-1].at - frames[0].at
    fps = (len(frames) - 1) / span if live and len(frames) > 1 and span > 0 else None
    grey = cv2.cvtColor(last, cv2.COLOR_BGR2GRAY)
    brightest = float(np.percentile(grey, 99))
    settle = SettleDetector()
    # the first frame has nothing to compare with
    motions = [settle.feed(f).motion for f in frames][1:] if live else []
    unsteady = float(np.median(motions)) if motions else (0.0 if live else None)
    advice: list[str] = []
    if empty_tray is not None and empty_tray.shape[:2] != last.shape[:2]:
        tray_h, tray_w = empty_tray.shape[:2]  # the camera does not use it either
        advice.append(f"the empty-tray picture is {tray_w} x {tray_h} px, the camera's "
                      f"frames {w} x {h}: it is not used; take it again")  # fmt: skip
        empty_tray = None
    result = reader.read(last, die, empty_tray)
    if empty_tray is not None and (on_it := dice_on_empty_tray(reader.finder, empty_tray)):
        # dice on it hide the dice lying there now (the server refuses such a picture); its
        # specks, under LONE_MARK of a die's size, are what it is for
        plain = result if result.dice else reader.read(last, die)
        sizes = [d.box[2] - d.box[0] for d in plain.dice]
        dice = [f for f in on_it if sizes and f.box[2] - f.box[0] >= LONE_MARK * np.median(sizes)]
        if dice:
            many = "a die" if len(dice) == 1 else f"{len(dice)} dice"
            advice.append(f"the empty-tray picture shows {many}: it is not used; take it "
                          "again with the tray clear")  # fmt: skip
            empty_tray = None
            result = plain if plain is not result else reader.read(last, die)
    widths = [d.box[2] - d.box[0] for d in result.dice]
    # the usual view draws dice under ~4% of the frame up to 1.7 times too big: the closer
    # look measures them (it is not used for reading such frames unless clearly needed).
    # Only for dice read that small: larger ones it splits (rendered d6s of 50-80 px in a
    # 640-px frame boxed 22-48 px), and its specks and pips said they were small
    closer: list[float] = []
    if widths and np.median(widths) < CLOSER_SHARE * w:
        closer = closer_widths([d.box for d in result.dice], reader.finder.find_closer(last))
    die_px = None
    if widths:
        die_px = float(min(np.median(widths), np.median(closer) if closer else np.inf))
    if brightest < DIM:
        advice.append(f"the picture is dim (its brightest parts {brightest:.0f} of 255): "
                      "add light over the tray or raise the camera's exposure")  # fmt: skip
    if unsteady is not None and motions and unsteady > MOVED_SHARE:
        advice.append(f"the picture never holds still ({unsteady:.1%} of it changes between "
                      "frames of a still tray): flickering light or exposure hunting; throws "
                      "will not be seen to settle. Steady light, fixed exposure")  # fmt: skip
    if fps is not None and fps < SLOW_FPS:
        advice.append(f"only {fps:.1f} frames a second: a throw is seen to settle late; "
                      "lower the camera's resolution (camera_size in the settings)")  # fmt: skip
    if die_px is None:
        advice.append("no dice seen: put a few dice on the tray and check again")
    elif die_px < SMALL_SHARE * w:
        advice.append(f"the dice are small in the picture ({die_px / w:.1%} of its width; "
                      f"they read best at {SMALL_SHARE:.0%}-{LARGE_SHARE:.0%}): move the camera "
                      "closer to the tray")  # fmt: skip
    elif die_px < SMALL_PX:
        advice.append(f"the dice are {die_px:.0f} px across: their pips are a pixel or two; "
                      "raise the camera's resolution (camera_size in the settings; dice "
                      f"{SMALL_PX} px or more)")  # fmt: skip
    elif die_px < NUMERAL_PX.get(kind := _taught(reader, die), 0):
        advice.append(f"the {kind}s are {die_px:.0f} px across: their numerals are a few pixels "
                      "tall, and about 1 in 12 is left to confirm; raise the camera's "
                      f"resolution (camera_size in the settings; {kind}s {NUMERAL_PX[kind]} px "
                      "or more: about 1 in 30)")  # fmt: skip
    elif die_px > LARGE_SHARE * w:
        advice.append(f"the dice are large in the picture ({die_px / w:.0%} of its width): "
                      "move the camera away, so that a whole throw fits the view")  # fmt: skip
    blur = edge_blur(grey, [d.box for d in result.dice])
    if said := focus_advice(blur):
        advice.append(said)
    slant, said = slant_advice([d.lean for d in result.dice if d.lean is not None])
    if said:
        advice.append(said)
    advice += _set_notes(reader, die)
    if said := colour_advice(last, bool(_taught(reader, die))):
        advice.append(said)
    if like_felt := dark_dice_on_dark_felt(last, [d.box for d in result.dice]):
        advice.append(felt_advice(like_felt, result.dice))
    if empty_tray is None and any(d.problem in (OUTLINE_UNSEEN, SPECK_SIZED) for d in result.dice):
        advice.append("specks, crumbs or lint on the tray look like dice showing a pip or "
                      "two (no die's outline stands out around them): clean the tray, or take "
                      "the empty-tray picture (the Devices page; --empty-tray here), which "
                      "keeps them from being read")  # fmt: skip
    if (tray := suggest(empty_tray if empty_tray is not None else last)) is not None:
        advice.append(f"the camera sees more than the tray (it covers {tray.share():.0%} of "
                      "the picture): mark the tray's area on the Devices page (\"Find the tray "
                      "in the picture\"), so that dice off it are left out of throws, or move "
                      "the camera closer")  # fmt: skip
    unsure = [d for d in result.dice if d.uncertain]
    alike = Counter(d.advice for d in unsure)  # four untaught d20s: one line, not four
    advice += [f"unsure: {said}" if n == 1 else f"unsure ({n} dice): {said}"
               for said, n in alike.items()]  # fmt: skip
    return CameraCheck(w, h, len(frames), fps, brightest, unsteady, len(result.dice),
                       len(unsure), die_px, tuple(advice), slant, blur)  # fmt: skip


def slant_advice(leans: Sequence[tuple[float, float]]) -> tuple[float | None, str]:
    """How far the camera's slant moves numbered dice's numerals off their middles, from
    their ``leans`` (die sizes; None where they do not agree on one way: vision/reader.py,
    camera_slant), and where it is SLANT_SAID or more, what to do about it ("" otherwise)."""
    x, y = camera_slant(leans)
    if (x, y) == (0.0, 0.0):
        return None, ""
    slant = float(np.hypot(x, y))
    if slant < SLANT_SAID:
        return slant, ""
    return slant, (
        f"the camera looks at the tray at a slant: each die shows its side faces on one side, "
        f"which moves its numeral {slant:.2f} of a die off its middle, as a cocked die's is; "
        'flat dice are then asked "may be cocked" more often. Mount the camera straight over '
        "the tray"
    )


def _set_notes(reader: DiceReader, die: str) -> list[str]:
    """What to check in the die sets ``die`` is read with (DieSet.aside_note): a set taught
    through this camera reads its slant as its own, so the dice's leans do not show it."""
    dieset = reader.diesets.get(die)
    sets = () if dieset is None else dieset.sets if isinstance(dieset, DieSets) else (dieset,)
    return [f"the die set {s.name!r}: {note}" for s in sets if (note := s.aside_note())]


def _taught(reader: DiceReader, die: str) -> str:
    """The die type of the taught die set read as ``die`` ("" where none is)."""
    dieset = reader.diesets.get(die)
    return dieset.die if dieset is not None else ""
