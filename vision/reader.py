"""From a settled frame to dice readings: find each die, cut it out, read its face.

Every reading carries the die type, value, confidence and box, and its crop
(kept by the ledger for audits and disputes).  A die the reader is not sure
of is a reading too, marked uncertain, with what to do about it: "confirm: 5?"
when one answer is likely, "re-throw the red d6" when none is, or when the die
is cut by the edge of the picture.  An uncertain reading is never raised as
an error and never turned into a made-up value.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.advice import (
    BLUR,
    FOREIGN,
    JOINED_PIPS,
    LEANING,
    LIKELY,
    NUMBERED_DIE,
    NUMBERED_UNTAUGHT,
    NUMERAL_BLURRED,
    ON_ANOTHER,
    OTHER_SHAPE,
    OUTLINE_UNSEEN,
    SPECK_SIZED,
    TAUGHT_ASKEW,
    TRAY_COLOURED,
    WIDER_READ,
    advice_for,
    offered_runner_up,
)
from vision.colour import colour_name
from vision.crops import crop_die
from vision.debris import OUTLINE_SEEN, face_against_tray, outline_contrast, speck_sized
from vision.die_shape import nearer_elsewhere
from vision.faces import ALLOWED, FaceClassifier, FaceGuess
from vision.felt import dark_felt
from vision.finder import (
    LIGHT_MOVED,
    MARKED,
    DieFinder,
    Found,
    change_of,
    changed_finds,
    find_by_difference,
    light_change,
    log_ratio,
    most_changed,
)
from vision.frame_rules import asked, parts_left_out, plain_sure, with_dim_guesses
from vision.numbered_finds import lean_in, one_per_body, taught_way, telling_lean
from vision.pixels import as_bgr8, brightened, dim_gain
from vision.plain_faces import unfound_blobs
from vision.readings import (
    Box,
    DieReading,
    ThrowReading,
    box_cut,
    by_edge,
    centre,
    holds,
    int_box,
    near,
    square,
    within,
)
from vision.sharpness import relative_blur, sharpness
from vision.split_pips import pip_pairs, pips_in_line, unread_partners
from vision.teach import SIDE, UNTOLD, DieSet, FaceMatch, may_be_cocked
from vision.teach_sets import DieSets, joined
from vision.untaught_shapes import untaught_shapes

SURE = 0.7  # at or above: a reading; below: uncertain (see docs/vision.md)
BLURRED = 0.15  # a die's outline less steep than this (sharpness()) is blurred: a blank
# Fudge face read from it may be pips or a sign blurred away (rendered d6s at σ 6 px:
# 0.08–0.14; byler's phone photos: 0.19 and up)
LOOKS_AGAIN = 2  # earlier still frames a numbered die left to confirm is read in again (with
# 4, one more of 40 rendered d20s left to confirm was made sure)
PIP_KINDS = ("d6", "dF")  # dice the face network reads (the rest are taught sets')
PIPS_SEEN = 0.9  # a numbered die the set is unsure of, whose face the face network reads
# this surely as pips, is a pip die among them ("not of the set")
NUMBERED_KIND = "numbered"  # the die type such a die's reading carries: a d5, d10 or d20 (the
# network does not tell which), never the d6 or dF it was read among, so that a face a person
# types for it is not taken as a pip die's (server/unsure.py refuses it)
NUMERAL_SHARP = 0.18  # a numbered die read surely whose outline is less steep than this
# (sharpness()) is asked to confirm (NUMERAL_BLURRED).  Real burks dice shrunk
# to 38-76 px and blurred (sigma 0.5-2 px): 25 of 28 sure wrong answers had less, and 67 of 463
# right ones; in focus (sigma up to 1 px) 10 of 621 right ones, none at 76 px; sharp renders
# 0.29 and up (docs/vision.md, "Numbered dice small and out of focus")
NUMERAL_BLUR = {"d20": 2.4}  # ... as is one whose edges are blurred over this many px per 64
# px of its size (relative_blur; NUMERAL_BLUR_ELSE for the other types): a d20's two digits are
# finer than one.  Renders read sure and wrong measure 1.2-5.1: d20s 16 of 22 from 2.4 (right
# ones 11 of 242), d10s 6 of 24 from 3.3 (right ones 6 of 287).  burks shrunk to 38-76 px and
# perturbed: d20s 6 of 16 wrong from 2.4 (right ones 32 of 1,126, none at 76 px); d10s and
# numeral d6s none wrong, right ones 5 of 898 from 3.3 (docs/vision.md)
NUMERAL_BLUR_ELSE = 3.3
UNCHANGED_SCORE = 0.6  # a numbered die the picture dropped is read where the finder is this
# sure (rendered felts: finds on dice the picture dropped 0.35-0.95, all but 2 of 42 over
# 0.6; off dice 0.35-0.38)
UNCHANGED_FELT = 0.4  # ... where the felt finder found them (a set of black dice on a dark
# felt): it is less sure of a small black die (0.42 where the first finder gave 0.63)
UNTOLD_FOUND = 0.6  # a numbered die read from the finder's box alone (no body told from the
# tray: teach.UNTOLD_SURE) is sure only where the finder is this sure of it: parts of burks'
# tower, read "1" from their boxes at 0.91-1.0 without the empty-tray picture, score 0.42-0.48
ON_ONE_DIE = 0.3  # a find the empty-tray picture dropped, this share of whose box (or of
# the other's, the smaller) lies in a find kept, is on the same die
CROP_INSET = 0.08  # a die's crop photo shows a little tray around the die on every side
FACE_LIKE_TRAY = 30  # a sure d6 whose face lies under this from the colour round its box
# (face_against_tray: boxes on a black 6's pips alone 3.7-25.6, byler's dice 9.2 at the 1st
# percentile, 194 at the median) is read again in a box WIDER_LOOK times as large ...
WIDER_LOOK = 1.3  # ... and asked where that reads another face surely (docs/vision.md,
# "One die's pips found as two dice")
JOINED_GROWN = 1.3  # a 1 and what lies beside it read as one die: again this much larger
# where not sure (black 3s on black felt, seed 21: 6 wrong -> 4; docs/vision.md, "One
# die's pips found as two dice")


class DiceReader:
    """Reads pip dice (d6, dF) with the face network; numbered dice with a taught die set."""

    def __init__(
        self,
        finder: DieFinder | None = None,
        faces: FaceClassifier | None = None,
        sure: float = SURE,
    ) -> None:
        self.finder = finder or DieFinder()
        self.faces = faces or FaceClassifier()
        self.sure = sure
        # taught numbered dice, by die type (several sets of one type are read as one)
        self.diesets: dict[str, DieSet | DieSets] = {}

    def add_dieset(self, dieset: DieSet) -> None:
        """Read ``dieset``'s dice with it too (beside any set of its die type added before:
        a red d20 set and a blue one each read their own dice)."""
        self.diesets[dieset.die] = joined(self.diesets.get(dieset.die), dieset)

    @classmethod
    def with_diesets(cls, folders: Iterable[Path]) -> DiceReader:
        """A reader that also reads the die sets taught in ``folders`` (DieSetError if one
        cannot be loaded)."""
        reader = cls()
        for folder in folders:
            reader.add_dieset(DieSet.load(folder))
        return reader

    def find(
        self, image: np.ndarray, empty_tray: np.ndarray | None = None, pips: bool = False
    ) -> list[Found]:
        """The dice in ``image``; ``pips``: pip dice are expected (DieFinder.find)."""
        tray = None if empty_tray is None else as_bgr8(empty_tray, "the empty-tray picture")
        return self._finds(as_bgr8(image), tray, pips)[0]

    def _finds(
        self,
        image: np.ndarray,
        empty_tray: np.ndarray | None = None,
        pips: bool = False,
        dark: bool = False,
    ) -> tuple[list[Found], list[Found], bool]:
        """:meth:`find`'s dice; (numbered dice only, not ``pips``) the finder's sure finds
        an up-to-date empty-tray picture dropped (their middles changed too little from it:
        a die the tray's own colour, or one that lay there already; under a stale picture,
        taken under other light or from another spot, a find that did not change may be
        anything: none are given); and whether the dice are the picture's change blobs (the
        picture dropped every find).  With ``pips``, such finds of any score whose box
        changed somewhere (``most_changed`` at least MARKED) are among the dice instead:
        the picture drops only what did not change at all.  ``dark``: numbered dice as dark
        as a dark felt are expected (DieFinder.find)."""
        if empty_tray is None or empty_tray.shape != image.shape:
            return self.finder.find(image, empty_tray, pips=pips, dark=dark), [], False
        ratio = log_ratio(image, empty_tray)  # computed once for the uses below
        every = self.finder.find(image, None, pips=pips, dark=dark)
        found = changed_finds(every, image, empty_tray, ratio)
        # whether the picture is stale (under other light): worked out once, when first asked
        stale = functools.cache(lambda: light_change(image, empty_tray, ratio) > LIGHT_MOVED)
        least = UNCHANGED_FELT if dark and dark_felt(image) else UNCHANGED_SCORE
        unchanged = [f for f in every if f not in found and (pips or f.score >= least)]
        if unchanged and stale():
            unchanged = []
        if unchanged:  # a die thrown since changes some of its box, if only its numeral
            change = change_of(ratio)
            unchanged = [f for f in unchanged if most_changed(change, f.box) >= MARKED]
        if pips and unchanged:
            # a pip die the felt's colour changes its box only where its pips are, which the
            # middle test may miss (a black 2's pips lie at its corners; a black die showing
            # 1 may be boxed beside its pip): kept as the finder found it, to be read like
            # any find (docs/vision.md, "Tray colours, measured")
            found = [f for f in every if f in found or f in unchanged]
            unchanged = []
        changed = find_by_difference(image, empty_tray, ratio=ratio)
        if not found:
            return changed, unchanged, True
        # a die mostly out of the frame is too little of a die for the networks: the finder
        # is unsure of it or misses it, the face network sees no die.  Where the reference
        # shows something new by the frame's edge, it is kept, to be read "cut by the edge";
        # not with a stale reference (other light, or taken from another spot: burks'
        # background made 131 such readings in 36 photos), where whole stretches differ
        h, w = image.shape[:2]
        edge = [
            f for f in changed
            if by_edge(f.box, w, h) and not any(near(f.box, g.box) for g in found)
        ]  # fmt: skip
        if not edge and not any(box_cut(f.box, w, h) for f in found):
            return found, unchanged, False
        if stale():
            return found, unchanged, False
        marked = [Found(f.box, f.score, box_cut(f.box, w, h)) for f in found]
        return marked + [Found(f.box, f.score, True) for f in edge], unchanged, False

    def read(
        self,
        image: np.ndarray,
        die: str = "d6",
        empty_tray: np.ndarray | None = None,
        earlier: Sequence[np.ndarray] = (),
        leans: Sequence[tuple[float, float]] = (),
        also: Sequence[str] = (),
    ) -> ThrowReading:
        """Read every die in ``image``; ``die`` is the type expected ("d6", "dF" or "any").
        ``earlier``: frames of the same still tray just before it (the camera's), in which a
        numbered die left to confirm is looked at again (:meth:`_looked_again`).  ``leans``:
        the ``lean`` of numbered dice this camera read before; with this frame's dice they
        tell a camera at a slant from a cocked die (:func:`camera_slant`).  ``also``: other
        die types a die may be (other checks wait for them): a die that is not of the
        expected kind (a numbered set's colour or outline not its, or a numbered die among
        pip dice) is read as one of those where that is sure: a d20 thrown for the d20 check
        while a d5 check (or a d6 pool) waits too, Fudge dice while a d20 check waits."""
        start = time.perf_counter()
        if die not in ALLOWED and die not in self.diesets:  # ALLOWED: what pips can be read as
            raise ValueError(f"no taught die set reads {die}s: add one first (add_dieset)")
        image = as_bgr8(image)
        if empty_tray is not None:
            empty_tray = as_bgr8(empty_tray, "the empty-tray picture")
        pips = die in PIP_KINDS or (die == "any" and not self.diesets)
        gain = dim_gain(image) if pips else 1.0  # numbered dice: not (rendered d20s read worse)
        result = self._read_once(image, die, empty_tray, earlier, leans, also, start)
        if gain == 1.0:
            return result
        # a dim frame: its pips a few grey levels from their dice.  Read brightened too, and
        # what only that reads is asked, not taken (byler's held-out photos at a quarter of
        # the light: 519 of 760 dice read, 7 wrong; brightened, 730 and 16 wrong)
        tray = None if empty_tray is None else brightened(empty_tray, gain)
        lit = self._read_once(brightened(image, gain), die, tray, earlier, leans, also, start)
        dice = with_dim_guesses(result.dice, lit.dice)
        ms = (time.perf_counter() - start) * 1000
        return ThrowReading(dice, ms, "" if dice else "no dice seen")

    def _read_once(
        self,
        image: np.ndarray,
        die: str,
        empty_tray: np.ndarray | None,
        earlier: Sequence[np.ndarray],
        leans: Sequence[tuple[float, float]],
        also: Sequence[str],
        start: float,
    ) -> ThrowReading:
        """:meth:`read`'s work on one frame as it is (``start``: when the reading began)."""
        dark = die in self.diesets and self.diesets[die].dark
        found, unchanged, blobs = self._finds(image, empty_tray, die not in self.diesets, dark)
        if die in self.diesets:
            stills = [as_bgr8(f) for f in earlier[max(0, len(earlier) - LOOKS_AGAIN) :]]
            stills = [f for f in stills if f.shape == image.shape]
            dieset = self.diesets[die]
            others = [d for d in also if d != die and (d in self.diesets or d in PIP_KINDS)]
            return self._read_numbered(
                image, found, dieset, start, unchanged, stills, blobs, leans, others
            )  # fmt: skip
        numbered_also = [d for d in also if d in self.diesets]
        # a blank Fudge face on a felt near its colour has no marks for the finder: where
        # Fudge dice may lie, the blobs standing apart from the tray outside every find,
        # kept where read surely
        offered = (
            [Found(b, 0.0) for b in unfound_blobs(image, [f.box for f in found])]
            if die in ("dF", "any") or "dF" in also else []
        )  # fmt: skip
        if offered and empty_tray is not None and empty_tray.shape == image.shape:
            # what lay on the tray when its picture was taken is no die, as for the finds
            offered = changed_finds(offered, image, empty_tray)
        found = found + offered
        offered_ids = {id(f) for f in offered}
        crops = [crop_die(image, f.box, self.faces.size) for f in found]
        # the other pip die too, where a check waits for it (a d6 pool and a Fudge check)
        either = die in PIP_KINDS and any(k in PIP_KINDS and k != die for k in also)
        guesses = self.faces.read(crops, "any" if either else die)
        dice = []
        for f, crop, guess in zip(found, crops, guesses, strict=True):
            if id(f) in offered_ids and not plain_sure(guess, self.sure):
                continue  # a shadow, a speck or a fold of the felt, not a die
            if (
                not f.new_at_edge and not plain_sure(guess, self.sure)
                and not box_cut(f.box, *image.shape[1::-1])
                and outline_contrast(image, f.box) < OUTLINE_SEEN
            ):  # fmt: skip
                continue  # no die's outline around it, and no face read for sure: debris
            if not guess.die:
                if f.score < 0.6 and not f.new_at_edge:
                    continue  # the finder was unsure and the reader sees no die: not a die
                kind, value, conf = (die if die != "any" else "d6"), None, 0.0
            else:
                kind, value, conf = guess.die, guess.value, guess.confidence
            problem = guess.problem
            if (kind, value) == ("dF", 0) and sharpness(image, f.box) < BLURRED:
                problem = BLUR  # a blank face, or pips blurred away: not told apart
            if problem == NUMBERED_DIE and sharpness(image, f.box) < BLURRED:
                problem, conf = "", 0.0  # pips blurred into a blob are no numeral: unread
            elif (problem in ("", "cocked") and conf < self.sure) or (
                problem == NUMBERED_DIE and (die == "any" or numbered_also)
            ):
                # perhaps one of the owner's taught numbered dice: read by its set where no
                # pip die was expected or a check waits for it, else named, to be taken out
                # (not "re-throw the d6")
                taught = self._taught_die(image, f.box)
                if taught is not None and (die == "any" or taught[0].die in numbered_also):
                    dice.append(self._numbered_reading(image, f.box, *taught, cut=False))
                    continue
                problem = NUMBERED_DIE if taught is not None else problem
            if problem == NUMBERED_DIE and die == "any":
                problem = NUMBERED_UNTAUGHT  # not a stray: a die no taught set reads yet
            reading = self._die_reading(
                image, f.box, kind, value, conf, crop, problem, f.new_at_edge or None,
                runner_up=guess.runner_up,
            )  # fmt: skip
            if reading.problem in (NUMBERED_DIE, NUMBERED_UNTAUGHT):
                reading = replace(reading, die=NUMBERED_KIND)  # the advice named the d6 it is not
            dice.append(reading)
        dice = parts_left_out(dice)
        dice = self._joined(image, dice)
        small = speck_sized(dice, PIP_KINDS)  # see vision/debris.py
        dice = [asked(d, SPECK_SIZED) if lone else d for d, lone in zip(dice, small, strict=True)]
        dice = self._looked_wider(image, dice)
        problem = "" if dice else "no dice seen"
        return ThrowReading(tuple(dice), (time.perf_counter() - start) * 1000, problem)

    def _joined(self, image: np.ndarray, dice: list[DieReading]) -> list[DieReading]:
        """``dice`` with each sure 1 that may be a pip of a die beside it (a dark 2 on dark
        felt, its pips found apart: vision/split_pips.py) asked to be confirmed, where the
        face network reads the two as one die surely: the 1 alone where the other reads that
        die already, else the two as that one die.  So too a sure 1 beside a spot like its
        pip that no reading holds (the other pip of a 2, never boxed), and a sure 1 in line
        with two spots like its pip (a 3's pips boxed apart: the 3 read once, its other
        sure 1s asked as pips of it)."""
        done: set[int] = set()
        gone: set[int] = set()
        for i, j, box in pip_pairs(image, dice):
            if i in done or j in done:
                continue
            one = self._read_joined(image, box)
            if one is None:
                continue
            # asked, not taken: two dice touching with no seam between them look so too
            if not dice[j].uncertain and dice[j].value == one.value:
                dice[i] = asked(dice[i], ON_ANOTHER)
                done.add(i)
            else:
                dice[i] = one
                done |= {i, j}
                gone.add(j)
        kept = [d for k, d in enumerate(dice) if k not in gone]
        for i, box in unread_partners(image, kept):
            kept[i] = self._read_joined(image, box) or kept[i]
        threes: list[Box] = []  # a 3's pips boxed apart: the die read once, its other 1s asked
        for i, box in pips_in_line(image, kept):  # each a sure 1, once
            if any(holds(three, box) for three in threes):
                kept[i] = asked(kept[i], ON_ANOTHER)
            elif (joined := self._read_joined(image, box)) is not None:
                kept[i] = joined
                threes.append(joined.box)
        return kept

    def _looked_wider(self, image: np.ndarray, dice: list[DieReading]) -> list[DieReading]:
        """``dice`` with each sure d6 whose face is near the colour round its box (under
        FACE_LIKE_TRAY) and which a box WIDER_LOOK times as large about its middle reads
        surely as another face asked, both faces offered: the finder's box may hold a die's
        pips alone (its body the felt's colour), and the face network takes pips at a
        crop's edge for a side face's (black 6s on black felt read "3", one row)."""
        sure = [
            k for k, d in enumerate(dice) if d.die == "d6" and not d.uncertain
            and face_against_tray(image, d.box) < FACE_LIKE_TRAY
        ]  # fmt: skip
        if not sure:
            return dice
        crops = []
        for k in sure:
            box = dice[k].box
            wider = square(centre(box), max(box[2] - box[0], box[3] - box[1]) * WIDER_LOOK)
            crops.append(crop_die(image, wider, self.faces.size))
        out = list(dice)
        # one look each (no quarter turns): it only checks, and a frame of many dice stays fast
        for k, guess in zip(sure, self.faces.read(crops, "d6", turns=False), strict=True):
            if plain_sure(guess, self.sure) and guess.value != dice[k].value:
                out[k] = asked(dice[k], WIDER_READ, guess.value)
        return out

    def _read_joined(self, image: np.ndarray, box: Box) -> DieReading | None:
        """The die at ``box`` (a 1's pip and what lies beside it, read as one die) asked
        ("one die or two"), where the face network reads it surely as a face other than 1;
        else None.  Read again JOINED_GROWN times as large where it is not sure: the
        frame's die size comes from its sure dice, which may be boxes on pips too."""
        for grown in (1.0, JOINED_GROWN):
            around = square(centre(box), (box[2] - box[0]) * grown)
            crop = crop_die(image, around, self.faces.size)
            guess = self.faces.read([crop], "d6")[0]
            if plain_sure(guess, self.sure) and guess.value != 1:
                one = self._die_reading(image, around, "d6", guess.value, guess.confidence, crop)
                return one if one.uncertain else asked(one, JOINED_PIPS)
        return None

    def _die_reading(
        self,
        image: np.ndarray,
        found_box: tuple[float, float, float, float],
        kind: str,
        value: int | None,
        confidence: float,
        crop: np.ndarray,
        problem: str = "",
        cut: bool | None = None,
        runner_up: int | None = None,
        boxed: bool = False,
    ) -> DieReading:
        """One found die as a reading: sure, or uncertain with what to do about it.  ``cut``:
        whether the die runs out of the frame, when its outline is known (else the box says).
        ``boxed``: a numbered die read from its box alone, the tray's colour: no outline is
        looked for around it."""
        h, w = image.shape[:2]
        box = int_box(found_box, w, h)
        if cut is None:
            cut = box_cut(found_box, w, h)
        problem = "cut by the edge" if cut else problem
        if (
            not problem and not boxed and value is not None and confidence >= self.sure
            and outline_contrast(image, found_box) < OUTLINE_SEEN
        ):  # fmt: skip
            problem = OUTLINE_UNSEEN  # pips with no die around them: perhaps debris
        uncertain = bool(problem) or value is None or confidence < self.sure
        colour = colour_name(crop) if uncertain else ""  # named only when advice needs it
        offered = offered_runner_up(runner_up, uncertain, value, confidence, cut, problem)
        advice = (
            advice_for(kind, value, confidence, colour, cut, problem, offered) if uncertain else ""
        )
        full = image[box[1] : box[3], box[0] : box[2]].copy()
        return DieReading(
            kind, value, confidence, box, full, uncertain, advice, colour, problem, offered
        )

    def _read_numbered(
        self,
        image: np.ndarray,
        found: list[Found],
        dieset: DieSet | DieSets,
        start: float,
        unchanged: list[Found] | None = None,
        earlier: Sequence[np.ndarray] = (),
        blobs: bool = False,
        leans: Sequence[tuple[float, float]] = (),
        others: Sequence[str] = (),
    ) -> ThrowReading:
        """The numbered dice found; ``unchanged``: finds the empty-tray picture dropped, each
        read too and kept where its marks match a taught face at least as a guess to confirm
        (a die the tray's own colour hardly changes the picture: 29 of 576 rendered numbered
        dice on black and white felt were lost to it; see docs/vision.md).  ``blobs``: the
        dice found are the picture's change blobs, and one lying on such a find kept is a
        part of its die (a black die's numeral on black felt), so it gives way.  ``leans``:
        as in :meth:`read`; ``others``: the die types of ``read``'s ``also`` that have sets."""
        extra = []
        for f in unchanged or []:
            if not blobs and any(within(f.box, g.box) > ON_ONE_DIE for g in found):
                continue  # on a die found already (with it, or a part of it)
            match = dieset.read(image, f.box)
            if match.seen and not match.cut and match.confidence >= LIKELY:
                extra.append((f, match))
        if blobs:
            found = [
                g for g in found if not any(within(g.box, f.box) > ON_ONE_DIE for f, _ in extra)
            ]
        read = one_per_body(image, [(f, dieset.read(image, f.box)) for f in found] + extra, dieset)
        way, slant = taught_way([m for _, m in read], leans)
        dice = []
        pips = [d for d in others if d in PIP_KINDS]
        for f, match in read:
            if self._of_another_type(match, dieset):
                match = replace(match, misshapen=True)
            if others and not match.cut and (match.foreign or match.misshapen):
                # not the expected set's die: perhaps the one another waiting check needs
                taken = self._taught_die(image, f.box, others)
                if taken is not None:
                    dice.append(self._numbered_reading(image, f.box, *taken, cut=False))
                    continue
                if pips and (pip := self._pip_die(image, f.box, pips)) is not None:
                    dice.append(pip)
                    continue
            lean = lean_in(match, way)
            match = replace(match, lean=lean, leaning=may_be_cocked(lean, slant))
            if match.untold and match.confidence > UNTOLD and f.score < UNTOLD_FOUND:
                match = replace(match, confidence=UNTOLD)  # no body, and the finder unsure
            if f.new_at_edge and not match.seen:
                cut = True  # too little of the die inside to find its body
            elif match.confidence == 0.0 and (f.score < 0.6 or not match.seen):
                continue  # matches no taught face and the finder was unsure, or no die body
            else:  # the body's own outline says better than the box whether the die is whole
                cut = match.cut
                if cut and match.confidence == 0.0 and not f.new_at_edge:
                    continue  # something cut off by the frame's edge that matches no face
            if earlier and not cut:
                match = self._looked_again(match, f.box, dieset, earlier, slant, way)
            reading = self._numbered_reading(image, f.box, dieset, match, cut)
            if reading.problem == FOREIGN and pips and not (match.foreign or match.misshapen):
                # a pip die (the face network says), perhaps one a check waits for (a die of
                # another colour or shape was tried as one above)
                reading = self._pip_die(image, f.box, pips) or reading
            dice.append(reading)
        problem = "" if dice else "no dice seen"
        return ThrowReading(tuple(dice), (time.perf_counter() - start) * 1000, problem)

    def _of_another_type(self, match: FaceMatch, dieset: DieSet | DieSets) -> bool:
        """Whether the die ``match`` read has its body's outline close to a set of another
        numbered type taught here, or to the renderer's dice of a type not taught, and well
        outside ``dieset``'s (vision.die_shape.nearer_elsewhere): a d10 thrown where numeral
        d6s are expected, which the d6 set reads as surely as its own (burks' real dice,
        each read as the two other types with all
        three sets taught: 23 of 144 sure before this, 1 after; docs/vision.md)."""
        if match.misshapen or match.shape is None:
            return False
        others = [s.shapes for k, s in self.diesets.items() if k != dieset.die]
        # the types no set is taught for: the renderer's outlines stand in (a d20 or a
        # numeral d6 thrown where only the d10 set is taught: vision/untaught_shapes.py)
        others += untaught_shapes(self.diesets, dieset.die)
        return nearer_elsewhere(np.array(match.shape), dieset.shapes, others)

    def _looked_again(
        self,
        match: FaceMatch,
        box: tuple[float, float, float, float],
        dieset: DieSet | DieSets,
        earlier: Sequence[np.ndarray],
        slant: tuple[float, float] = (0.0, 0.0),
        way: int = 0,
    ) -> FaceMatch:
        """A die left to confirm for its confidence alone, read again at ``box`` in the
        ``earlier`` frames: read the same in every one, its confidence is their mean (a
        frame's noise moves a small numeral's scores: of 72 rendered d20s read in three
        still frames, 11 were sure in some and not in others).  Any other answer in any
        frame, and it stays as it was.  ``slant`` and ``way``: see :func:`taught_way`."""
        plain = not (match.foreign or match.untold or match.leaning or match.misshapen)
        if not plain or not LIKELY <= match.confidence < self.sure:
            return match
        confidences = [match.confidence]
        for frame in earlier:
            again = dieset.read(frame, box)
            if (
                again.value != match.value
                or again.confidence == 0.0
                or may_be_cocked(lean_in(again, way), slant)
            ):
                return match
            confidences.append(again.confidence)
        return replace(match, confidence=float(np.mean(confidences)))

    def _numbered_reading(
        self,
        image: np.ndarray,
        box: tuple[float, float, float, float],
        dieset: DieSet | DieSets,
        match: FaceMatch,
        cut: bool,
    ) -> DieReading:
        value = match.value if match.confidence > 0 else None
        crop = crop_die(image, box, SIDE, margin=1.0)
        capped = match.untold and match.confidence <= UNTOLD  # read from its box, not sure
        problem = (
            FOREIGN if match.foreign else TRAY_COLOURED if capped
            else LEANING if match.leaning and value is not None
            else OTHER_SHAPE if match.misshapen and value is not None
            else TAUGHT_ASKEW if match.askew else ""
        )  # fmt: skip
        if (
            not problem and not cut and value is not None and match.confidence >= self.sure
            and (sharpness(image, box) < NUMERAL_SHARP
                 or (relative_blur(image, box) or 0.0)
                 >= NUMERAL_BLUR.get(dieset.die, NUMERAL_BLUR_ELSE))
        ):  # fmt: skip
            problem = NUMERAL_BLURRED  # blurred past its strokes, a numeral reads as another
        if (
            problem in ("", LEANING, OTHER_SHAPE) and not cut and dieset.die != "d6_numeral"
            and (match.confidence < LIKELY or problem in (LEANING, OTHER_SHAPE))
            and self._pips(image, box)
        ):  # fmt: skip
            # a pip die among numbered ones, which the set would leave to re-throw or ask
            # "may be cocked, confirm: 14?": take it out (a numbered die the set asks
            # "confirm: 14?" is left so, for the network reads a few numerals as pips)
            problem = FOREIGN
        reading = self._die_reading(
            image, box, dieset.reading_die, value, match.confidence, crop, problem, cut,
            runner_up=match.runner_up, boxed=match.untold,
        )  # fmt: skip
        return replace(reading, lean=telling_lean(match, cut))

    def _taught_die(
        self,
        image: np.ndarray,
        box: tuple[float, float, float, float],
        kinds: Sequence[str] | None = None,
    ) -> tuple[DieSet | DieSets, FaceMatch] | None:
        """The taught set that reads the die at ``box`` surely (its own colour and outline,
        its numeral where a flat die has it, whole in the frame), and what it reads: a d20
        among pip dice that the face network calls cocked or is unsure of is then a numbered
        die, not "re-throw the red d6" (it called 14 of burks' 20 real d20s cocked).
        ``kinds``: only the sets of these die types (else every set)."""
        for kind, dieset in self.diesets.items():
            if kinds is not None and kind not in kinds:
                continue
            if dieset.die == "d6_numeral":
                continue  # a numeral d6 is a d6 (the face network reads its numerals)
            match = dieset.read(image, box)
            if (
                match.seen and match.confidence >= self.sure and not match.cut
                and not (match.foreign or match.untold or match.leaning or match.misshapen)
            ):  # fmt: skip
                return dieset, match
        return None

    def _pip_die(
        self, image: np.ndarray, box: tuple[float, float, float, float], kinds: Sequence[str]
    ) -> DieReading | None:
        """The die at ``box`` read as a pip die of one of ``kinds`` (d6, dF), where the face
        network is sure of it (:meth:`_pip_guess`); else None."""
        crop = crop_die(image, box, self.faces.size)
        guess = self._pip_guess(crop)
        if guess is None or guess.die not in kinds:
            return None
        return self._die_reading(image, box, guess.die, guess.value, guess.confidence, crop)

    def _pip_guess(self, crop: np.ndarray) -> FaceGuess | None:
        """The face network's reading of ``crop`` as a pip die (d6 or dF), where it is sure of
        it (PIPS_SEEN) and sees no problem; else None."""
        guess = self.faces.read([crop], "any")[0]
        return guess if plain_sure(guess, PIPS_SEEN) else None

    def _pips(self, image: np.ndarray, box: tuple[float, float, float, float]) -> bool:
        """Whether the face network surely sees a pip die's face (d6 or dF) at ``box``: a
        die the taught set is unsure of is then no numbered die at all (a numeral d6's set
        is not asked: the network reads numerals on d6s)."""
        return self._pip_guess(crop_die(image, box, self.faces.size)) is not None

    def read_crop(self, image: np.ndarray, die: str = "d6") -> ThrowReading:
        """Read a photo of one die (a crop, as the ledger keeps them and people send them);
        a numbered ``die`` (d5, d10, d20) with the taught set of its type (ValueError where
        none is added)."""
        start = time.perf_counter()
        if die not in ALLOWED and die not in self.diesets:
            raise ValueError(f"no taught die set reads {die}s: add one first (add_dieset)")
        image = as_bgr8(image, "a die's photo")
        h, w = image.shape[:2]
        box = (CROP_INSET * w, CROP_INSET * h, (1 - CROP_INSET) * w, (1 - CROP_INSET) * h)
        if die in self.diesets:  # the face network reads pips only: the set reads numerals
            dieset = self.diesets[die]
            # the crop is the die: its body running to the photo's edge is no cut die (a
            # ledger's crop is the die's box, no tray around it)
            reading = self._numbered_reading(image, box, dieset, dieset.read(image, box), False)
            reading = replace(reading, box=(0, 0, w, h), crop=image)
            return ThrowReading((reading,), (time.perf_counter() - start) * 1000)
        guess = self.faces.read([crop_die(image, box, self.faces.size)], die, cocked=False)[0]
        value = guess.value if guess.die else None
        kind = guess.die or (die if die != "any" else "d6")
        uncertain = value is None or guess.confidence < self.sure
        colour = colour_name(image)
        conf, problem = guess.confidence, guess.problem
        if problem == NUMBERED_DIE and die == "any":
            problem = NUMBERED_UNTAUGHT  # as in read(): no pip die was expected
        offered = offered_runner_up(guess.runner_up, uncertain, value, conf, False, problem)
        advice = advice_for(kind, value, conf, colour, False, problem, offered) if uncertain else ""
        if problem in (NUMBERED_DIE, NUMBERED_UNTAUGHT):
            kind = NUMBERED_KIND
        reading = DieReading(
            kind, value, conf, (0, 0, w, h), image, uncertain, advice, colour, problem, offered
        )
        return ThrowReading((reading,), (time.perf_counter() - start) * 1000)
