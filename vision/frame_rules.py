"""Rules over one frame's readings once each die is read, and the reading asked for one.

A reading lying on a larger die is a part of it (vision.split_pips.nested):
left out, or asked.  A dim frame is read twice, as it is and brightened, and
what only the brightened one reads is added, asked.  A reading asked for a
problem gets the problem's advice and the die's colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from vision.advice import DIM_PICTURE, ON_A_DIE, advice_for
from vision.colour import colour_name
from vision.faces import FaceGuess
from vision.readings import DieReading, holds
from vision.split_pips import ONE_NESTED, nested


def asked(reading: DieReading, problem: str, runner_up: int | None = None) -> DieReading:
    """``reading`` asked to be confirmed, for ``problem`` (``runner_up``: another face to
    offer beside its own)."""
    colour = colour_name(reading.crop)
    advice = advice_for(
        reading.die, reading.value, reading.confidence, colour, False, problem, runner_up
    )
    reading = replace(reading, uncertain=True, problem=problem, colour=colour, advice=advice)
    return reading if runner_up is None else replace(reading, runner_up=runner_up)


def parts_left_out(dice: list[DieReading]) -> list[DieReading]:
    """``dice`` less the glare spots and pips found apart from the die they lie on
    (vision.split_pips.nested): a sure "1" on a die read surely is left out; any other
    reading on a die is asked ("on another die"), for the die it lies on may be a box
    round two dice, and a reading asked for a reason of its own keeps that reason.  A
    sure 1 a little larger (up to ONE_NESTED of the box its middle lies in) is asked."""
    on = nested(dice)
    near = nested(dice, ONE_NESTED)
    kept = []
    for k, d in enumerate(dice):
        spot = d.die == "d6" and d.value == 1 and not d.uncertain
        if k in on:
            if spot and not dice[on[k]].uncertain:
                continue
            if not d.uncertain or not d.problem:
                d = asked(d, ON_A_DIE)
        elif spot and k in near:
            d = asked(d, ON_A_DIE)  # a pip of it, or a die at its box's edge: not left out
        kept.append(d)
    return kept


def with_dim_guesses(
    dice: Sequence[DieReading], lit: Sequence[DieReading]
) -> tuple[DieReading, ...]:
    """A dim frame's readings ``dice``, with those of the frame brightened (``lit``) where
    they read a die the frame as it is did not (none there, or no face), asked to be
    confirmed ("the picture is dim"); a sure die the two read as different faces is
    asked too."""
    out = list(dice)
    for reading in lit:
        here = [k for k, d in enumerate(out) if holds(d.box, reading.box)]
        guess = reading if reading.uncertain else asked(reading, DIM_PICTURE)
        if not here:
            out.append(guess)
        elif len(here) == 1 and reading.value is not None:
            seen = out[here[0]]
            if seen.value is None:
                out[here[0]] = guess
            elif not seen.uncertain and seen.value != reading.value:
                out[here[0]] = asked(seen, DIM_PICTURE)  # read two ways: not sure
    return tuple(out)


def plain_sure(guess: FaceGuess, sure: float) -> bool:
    """Whether the face network reads a die surely, with no problem."""
    return bool(guess.die) and not guess.problem and guess.confidence >= sure
