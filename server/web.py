"""The local web page: static pages and their two helper endpoints.

Every asset is served by the appliance itself (no CDN, no outside fonts): the
pages are plain HTML with a small script of our own that talks to the HTTP
API and listens on /ws.  Two endpoints exist for the pages: the parameters of
each system (taken from the `dicebridge odds` options, so a form and the
command line can never disagree) and the exact odds of a set of parameters.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from dicebridge import odds
from mechanics.check_factory import parameter_names

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {
    "/": "table.html",
    "/kiosk": "kiosk.html",
    "/history": "history.html",
    "/tables": "tables.html",
    "/audit": "audit.html",
    "/devices": "devices.html",
}


class OddsQuery(BaseModel):
    system: str = Field(description="dphi, peupfudge, d6pool, decibel or d5")
    params: dict[str, Any] = Field(default_factory=dict, description="named as in odds")


class _Refusing(argparse.ArgumentParser):
    """An options parser that raises what is wrong instead of printing usage and exiting
    (Python 3.11's ``exit_on_error=False`` still exits on a missing required option, and
    the page then showed "dphi: 2")."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def _parser(system: str) -> argparse.ArgumentParser:
    parser = _Refusing(prog=f"odds {system}", add_help=False, exit_on_error=False)
    odds.load(system).add_arguments(parser)
    return parser


def system_parameters(system: str, for_checks: bool = False) -> list[dict[str, Any]]:
    """A system's parameters as a form needs them: name, kind, default, choices, help
    (``for_checks``: only those a check also takes, so one form serves both)."""
    takes = parameter_names(system) if for_checks else None
    out = []
    for action in _parser(system)._actions:
        if not action.option_strings or (takes is not None and action.dest not in takes):
            continue
        name = action.dest
        if isinstance(action, argparse._StoreTrueAction):
            kind = "flag"
        elif action.choices:
            kind = "choice"
        elif action.type is int and action.nargs in ("+", "*"):
            kind = "ints"  # several whole numbers (an opposed action's scores)
        elif action.type is int:
            kind = "int"
        else:
            kind = "number" if action.type is float else "text"
        out.append({
            "name": name, "kind": kind, "required": bool(action.required),
            "default": action.default if action.default is not argparse.SUPPRESS else None,
            "choices": list(action.choices) if action.choices else None,
            "help": (action.help or "").replace("%%", "%"),
        })  # fmt: skip
    return out


def odds_for(system: str, params: dict[str, Any]) -> dict[str, Any]:
    """`dicebridge odds SYSTEM --json` for a dict of parameters; ValueError says what is wrong."""
    if system not in odds.SYSTEMS:
        raise ValueError(f"unknown system {system!r}; systems are {', '.join(odds.SYSTEMS)}")
    parser = _parser(system)  # built once: it both names the options and parses them
    options = {a.dest: a for a in parser._actions if a.option_strings}
    argv: list[str] = []
    for name, value in params.items():
        if name not in options:
            raise ValueError(f"{system} has no parameter {name!r}")
        flag = options[name].option_strings[0]
        if isinstance(options[name], argparse._StoreTrueAction):
            argv += [flag] if value is True else []
        elif isinstance(value, list | tuple):
            argv += [flag, *map(str, value)] if value else []
        elif value is not None and value != "":
            argv += [flag, str(value)]
    try:
        args = parser.parse_args(argv)
    except (argparse.ArgumentError, ValueError) as err:
        raise ValueError(f"{system}: {err}") from None
    report = odds.load(system).compute(args)
    return {**odds.to_json(report), "success_from": report.success_from}


def mount_web(app: FastAPI) -> None:
    @app.get("/api/systems")
    def systems() -> dict[str, list[dict[str, Any]]]:
        return {system: system_parameters(system, for_checks=True) for system in odds.SYSTEMS}

    @app.post("/api/odds")
    def exact_odds(body: OddsQuery) -> dict[str, Any]:
        try:
            return odds_for(body.system, body.params)
        except (ValueError, TypeError, ArithmeticError) as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/tables/{system}", response_class=HTMLResponse, include_in_schema=False)
    def printable_tables(system: str) -> str:
        if system not in ("dphi", "d5"):
            raise HTTPException(status_code=404, detail="tables exist for dphi and d5")
        from dicebridge.tables import printable

        return printable(system)  # made for A4, and for a phone's screen (its PAGE_CSS)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:  # what a browser asks for where a page names no icon
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    for route, page in PAGES.items():
        app.add_api_route(route, _page(page), include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _page(name: str) -> Any:
    def page() -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    return page
