"""Create a check from a system name and its parameters, named as in `dicebridge odds`.

The one entry point for the command line, the appliance service and the web
page: ``create_check("dphi", might=0.5)``, ``create_check("d6pool", level=5,
difficulty=6, fate="lucky")``.  Unknown parameters are refused by name.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from mechanics import d6pool
from mechanics.check import DiceCheck
from mechanics.check_d5 import D5Check
from mechanics.check_dphi import SPLIT_REFUSED, DphiCheck, DphiSplitCheck, refuse_for_split
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


def _annotations(system: str) -> dict[str, str]:
    """Each parameter's type, as its check's dataclass writes it ("int", "float", …)."""
    classes: dict[str, tuple[type, ...]] = {
        "dphi": (DphiCheck,), "peupfudge": (PeupfudgeCheck,),
        "d6pool": (D6PoolCheck, d6pool.Roller), "decibel": (DecibelCheck,), "d5": (D5Check,),
    }  # fmt: skip
    kinds = {f.name: str(f.type) for c in classes[system] for f in dataclasses.fields(c)}
    return {**kinds, "versus": "float" if system == "dphi" else kinds.get("versus", ""),
            "opposed": "tuple[int, ...]"}  # fmt: skip


def _fits(kind: str, value: object) -> bool:
    """Whether ``value`` is of the parameter type ``kind``: a whole number for "int" (not
    True, not 2.0), a finite number for "float", and so on.  A kind not named here (an
    enumeration's) is left to the check itself."""
    whole = isinstance(value, int) and not isinstance(value, bool)
    if kind == "int":
        return whole
    if kind == "int | None":
        return value is None or whole
    if kind == "float":
        return (
            isinstance(value, int | float | Fraction)
            and not isinstance(value, bool)
            and (math.isfinite(value))
        )
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "tuple[int, ...]":
        return isinstance(value, list | tuple) and all(_fits("int", v) for v in value)
    if kind == "Fate":  # a fate's name (any case), or the Fate itself from Python
        return isinstance(value, d6pool.Fate) or (
            isinstance(value, str) and value.upper() in d6pool.Fate.__members__
        )
    return True


_SAID = MappingProxyType(
    {
        "int": "a whole number",
        "int | None": "a whole number",
        "float": "a finite real number",
        "bool": "true or false",
        "str": "text",
        "tuple[int, ...]": "a list of whole numbers",
        "Fate": "one of " + ", ".join(f.name.lower() for f in d6pool.Fate),
    }
)


def create_check(system: str, **params: Any) -> DiceCheck:
    """A fresh check (no readings yet); ValueError names any bad parameter."""
    params = {k: v for k, v in params.items() if v is not None}
    unknown = sorted(set(params) - parameter_names(system))
    if unknown:
        known = ", ".join(sorted(parameter_names(system)))
        raise ValueError(f"{system}: unknown parameter {unknown[0]!r}; parameters are {known}")
    kinds = _annotations(system)
    for name, value in params.items():  # NaN, 2.5 dice or a level of True: refused here,
        # before a check that cannot be worked out is made at all
        if not _fits(kinds.get(name, ""), value):
            raise ValueError(f"{system}: {name} must be {_SAID[kinds[name]]}, not {value!r}")
    try:
        if system == "dphi":
            if "versus" in params:  # PC against PC: what only a one-roll check takes is
                # refused unless it changes nothing (as `odds dphi --versus`)
                versus = params.pop("versus")
                refuse_for_split(params)
                split = {k: v for k, v in params.items() if k not in SPLIT_REFUSED}
                return DphiSplitCheck(first=split.pop("might"), second=versus, **split)
            return DphiCheck(**params)
        if system == "peupfudge":
            if "opposed" in params:  # each side's L + A given whole: a level, bonus or
                # difficulty beside them is no part of it (as `odds peupfudge --opposed`)
                kept = {k: v for k, v in params.items() if k in ("dice", "die", "min_confidence")}
                return PeupfudgeOpposedCheck(scores=tuple(params["opposed"]), **kept)
            return PeupfudgeCheck(**params)
        if system == "d6pool":
            roller_args = {k: params.pop(k) for k in ROLLER_FIELDS if k in params}
            if "fate" in roller_args:  # a name, as checked above (3, ["lucky"] were a 500)
                roller_args["fate"] = d6pool.Fate.named(roller_args["fate"])
            return D6PoolCheck(roller=d6pool.Roller(**roller_args), **params)
        if system == "decibel":
            return DecibelCheck(**params)
        if system == "d5":
            return D5Check(**params)
    except TypeError as err:  # an unknown or missing parameter, said in the check's words
        missing = re.search(r"missing \d+ required \S+ arguments?: (.*)", str(err))
        if missing:
            raise ValueError(f"{system}: missing parameter {missing.group(1)}") from None
        unexpected = re.search(r"unexpected keyword argument (.*)", str(err))
        if unexpected:
            raise ValueError(f"{system}: no parameter {unexpected.group(1)} here") from None
        raise ValueError(f"{system}: {err}".replace("__init__() ", "")) from None
    except KeyError as err:
        raise ValueError(f"{system}: missing parameter {err}") from None
    raise ValueError(f"unknown system {system!r}; systems are {', '.join(SYSTEMS)}")
