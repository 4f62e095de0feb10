"""Create a check from a system name and its parameters, named as in `dicebridge odds`.

The one entry point for the command line, the appliance service and the web
page: ``create_check("dphi", might=0.5)``, ``create_check("d6pool", level=5,
difficulty=6, fate="lucky")``.  Unknown parameters are refused by name.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mechanics import d6pool
from mechanics.check import DiceCheck
from mechanics.check_d5 import D5Check
from mechanics.check_dphi import DphiCheck, DphiSplitCheck
from mechanics.check_pools import (
    D6PoolCheck,
    DecibelCheck,
    PeupfudgeCheck,
    PeupfudgeOpposedCheck,
)

SYSTEMS = ("dphi", "peupfudge", "d6pool", "decibel", "d5")
ROLLER_FIELDS = ("level", "fate", "labor", "leverage", "supernatural", "leverage_before_cap")


def _names(*classes: type) -> set[str]:
    return {f.name for c in classes for f in dataclasses.fields(c) if f.init} - {"readings"}


def parameter_names(system: str) -> set[str]:
    """The parameters a system's check takes (the names of `dicebridge odds`)."""
    names = {
        "dphi": _names(DphiCheck) | {"versus"},
        "peupfudge": _names(PeupfudgeCheck) | {"opposed"},
        "d6pool": (_names(D6PoolCheck) - {"roller"}) | set(ROLLER_FIELDS),
        "decibel": _names(DecibelCheck),
        "d5": _names(D5Check),
    }
    if system not in names:
        raise ValueError(f"unknown system {system!r}; systems are {', '.join(SYSTEMS)}")
    return names[system]


def create_check(system: str, **params: Any) -> DiceCheck:
    """A fresh check (no readings yet); ValueError names any bad parameter."""
    params = {k: v for k, v in params.items() if v is not None}
    unknown = sorted(set(params) - parameter_names(system))
    if unknown:
        known = ", ".join(sorted(parameter_names(system)))
        raise ValueError(f"{system}: unknown parameter {unknown[0]!r}; parameters are {known}")
    try:
        if system == "dphi":
            if "versus" in params:
                versus = params.pop("versus")
                return DphiSplitCheck(first=params.pop("might"), second=versus, **params)
            return DphiCheck(**params)
        if system == "peupfudge":
            if "opposed" in params:
                return PeupfudgeOpposedCheck(scores=tuple(params.pop("opposed")), **params)
            return PeupfudgeCheck(**params)
        if system == "d6pool":
            roller_args = {k: params.pop(k) for k in ROLLER_FIELDS if k in params}
            if isinstance(roller_args.get("fate"), str):
                roller_args["fate"] = d6pool.Fate.named(roller_args["fate"])
            return D6PoolCheck(roller=d6pool.Roller(**roller_args), **params)
        if system == "decibel":
            return DecibelCheck(**params)
        if system == "d5":
            return D5Check(**params)
    except TypeError as err:  # an unknown or missing parameter, said in the check's words
        raise ValueError(f"{system}: {err}".replace("__init__() ", "")) from None
    except KeyError as err:
        raise ValueError(f"{system}: missing parameter {err}") from None
    raise ValueError(f"unknown system {system!r}; systems are {', '.join(SYSTEMS)}")
