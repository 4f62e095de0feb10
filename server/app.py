"""The appliance's HTTP API and WebSocket (FastAPI), over a Table it is given.

Bad input gets a 4xx that says what is wrong; nothing a client sends produces
a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from typing import Any

import anyio
from fastapi import (
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Path,
    Query,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, Field, StrictFloat, StrictInt

from audit.ledger_audit import DieAudit, audit_die
from audit.logs import LogError
from audit.verdict import MAX_BIAS, MIN_BIAS
from mechanics.reading import Reading, ReadingRefused
from server.admin import AdminError, AdminPin, AdminUnavailable
from server.camera import CameraSource
from server.camera_api import camera_routes
from server.collect import FaceCollector
from server.diesets import DieSetStore
from server.empty_tray import EmptyTrayStore
from server.registry import AlreadyRegistered, NotFound, RegistryError
from server.table import AlreadyResolved, Table, UnknownCheck
from server.tray_areas import TrayAreaStore


class NewCheck(BaseModel):
    system: str = Field(description="dphi, peupfudge, d6pool, decibel or d5")
    params: dict[str, Any] = Field(default_factory=dict, description="named as in odds")


OWN_SOURCES = ("camera", "virtual", "tower")  # the appliance's own: not to be typed in


class Die(BaseModel):
    die: str
    value: StrictInt  # true is no face, nor "3" (a form's text) nor 3.0
    confidence: StrictInt | StrictFloat = 1.0
    source: str = Field(
        "manual", pattern=r"^[a-z][a-z0-9_.:-]{0,39}$",
        description="manual, or a script's own name (not the appliance's camera, tower or virtual)",
    )  # fmt: skip
    identity: str | None = Field(None, description="a registered die's id (for its audit)")


class Dice(BaseModel):
    dice: list[Die] = Field(min_length=1, max_length=200)


class NewDie(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    type: str = Field(description="d5, d6, d10, d20 or dF")
    colour: str = Field("", max_length=40)
    set: str = Field("", max_length=80)


class Withdrawal(BaseModel):
    reason: str = Field("", max_length=200, description="why, in words (kept in the ledger)")


class Confirmation(BaseModel):
    index: StrictInt = Field(ge=0, le=199, description="which die of the throw, from 0")
    face: StrictInt = Field(description="the face the die really shows")


def create_app(
    table: Table,
    admin: AdminPin | None = None,
    diesets: DieSetStore | None = None,
    settings: dict[str, Any] | None = None,
    trays: EmptyTrayStore | None = None,
    camera: CameraSource | None = None,
    collector: FaceCollector | None = None,
    areas: TrayAreaStore | None = None,
) -> FastAPI:
    """The API over ``table``; with ``admin``, registering dice, correcting readings and
    exporting the ledger need its PIN (the service always passes one)."""
    # the API's page (Swagger UI) with its script and style served from here, as the
    # pages' are: FastAPI's own loads them from a CDN, a blank page without internet
    app = FastAPIOffline(
        docs_url="/api/docs",
        redoc_url=None,
        static_url="/api/docs/static",
        favicon_url="/static/favicon.svg",
        title="dicebridge",
        version="1",
    )

    @app.exception_handler(RequestValidationError)
    async def refused(_request: Any, err: RequestValidationError) -> JSONResponse:
        """FastAPI's own answer, with what was sent made JSON: a NaN, an Infinity or a
        1e400 in a body it refuses was echoed back as it is, which no JSON can carry (a 500)."""
        return JSONResponse(
            status_code=422, content={"detail": _json_safe(jsonable_encoder(err.errors()))}
        )

    def require_admin(x_admin_pin: str | None = Header(None)) -> None:
        if admin is None:
            return
        try:
            admin.check(x_admin_pin)
        except AdminError as err:
            message = str(err)
            code = 429 if "locked" in message else 401 if "needs" in message else 403
            if isinstance(err, AdminUnavailable):  # no PIN can be checked: the service's fault
                code = 503
            raise HTTPException(status_code=code, detail=message) from None

    admin_only = [Depends(require_admin)]
    app.include_router(camera_routes(table, admin_only, diesets, trays, camera, collector, areas))

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        """Each source's state; a tower's also counts what it sent that could not be read
        (``unreadable``, ``unreadable_last_minute``, ``refused``) and, where it sends
        nothing but garbage, says so (``garbage_only``, ``problem``)."""
        return {
            "status": "ok",
            "camera": camera is not None,  # the page offers "read the tray again"
            "sources": table.sources(),
            "source_details": table.source_details(),
            # waiting checks in the ledger that a restart could not restore (withdraw them)
            "unrestored_checks": table.unrestored,
        }

    @app.post("/api/checks", status_code=201)
    def new_check(body: NewCheck) -> dict[str, Any]:
        try:
            return table.create(body.system, body.params)
        except (ValueError, TypeError, ArithmeticError) as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/api/checks")
    def waiting_checks() -> list[dict[str, Any]]:
        """The checks still waiting for dice, oldest first."""
        return table.waiting()

    @app.get("/api/checks/recent")
    def recent_checks(limit: int = Query(50, ge=1, le=500)) -> list[dict[str, Any]]:
        """The checks the service keeps (waiting, and the newest 500 resolved), the last
        ``limit`` to change (set up, or given dice), in the order they last changed: a page
        back after a dropped Wi-Fi shows what it missed, such as a check set up and
        resolved meanwhile."""
        return table.recent(limit)

    @app.get("/api/checks/{check_id}")
    def get_check(check_id: str) -> dict[str, Any]:
        """A check; the service keeps the newest 500 resolved ones (all are in the ledger)."""
        try:
            return table.get(check_id)
        except UnknownCheck:
            raise HTTPException(status_code=404, detail=(
                f"no check {check_id} (one resolved long ago is in the ledger only: /history, "
                "GET /api/export)")) from None  # fmt: skip

    @app.post("/api/checks/{check_id}/dice")
    def add_dice(check_id: str, body: Dice) -> dict[str, Any]:
        taken = [d.source for d in body.dice if d.source.split(":")[0] in OWN_SOURCES]
        if taken:
            raise HTTPException(status_code=422, detail=(
                f"the source {taken[0]!r} is the appliance's own: dice entered here are "
                "'manual' (or a script's own name)"))  # fmt: skip
        try:
            readings = [
                Reading(d.die, d.value, d.confidence, d.source, d.identity) for d in body.dice
            ]
            return table.add_dice(check_id, readings)
        except UnknownCheck:
            raise HTTPException(status_code=404, detail=f"no check {check_id}") from None
        except ReadingRefused as err:
            raise HTTPException(status_code=400, detail=str(err)) from None

    @app.post("/api/checks/{check_id}/roll")
    def roll(check_id: str) -> dict[str, Any]:
        """The virtual source: the appliance throws the dice the check needs next."""
        try:
            return table.roll_virtual(check_id)
        except UnknownCheck:
            raise HTTPException(status_code=404, detail=f"no check {check_id}") from None
        except ReadingRefused as err:
            raise HTTPException(status_code=409, detail=str(err)) from None

    @app.post("/api/checks/{check_id}/withdraw")
    def withdraw(check_id: str, body: Withdrawal | None = None) -> dict[str, Any]:
        """Take a waiting check off the table (set up by mistake): a ledger row says so, it
        takes no more dice; its throws stay.  No PIN, as for dice entered by hand.  404 for
        an unknown (or already withdrawn) check, 409 for a resolved one."""
        try:
            return table.withdraw(check_id, body.reason if body is not None else "")
        except UnknownCheck:
            raise HTTPException(status_code=404, detail=f"no waiting check {check_id}") from None
        except AlreadyResolved as err:
            raise HTTPException(status_code=409, detail=str(err)) from None

    @app.get("/api/throws")
    def throws(limit: int = Query(50, ge=1, le=1000)) -> list[dict[str, Any]]:
        return table.throws(limit)

    @app.get("/api/dice")
    def dice() -> list[dict[str, Any]]:
        return [d.to_dict() for d in table.registry.all()]

    @app.get("/api/settings", dependencies=admin_only)
    def current_settings() -> dict[str, Any]:
        """The settings the service runs with (admin; they are changed in the TOML file)."""
        return settings or {}

    @app.get("/api/export", dependencies=admin_only)
    def export(format: str = Query("json", pattern="^(csv|json)$")) -> StreamingResponse:
        """Every ledger row, as CSV or JSON (admin), streamed as it is read (a whole ledger
        held in memory had taken 2 GB for 200,000 throws)."""
        media = "text/csv" if format == "csv" else "application/json"
        return StreamingResponse(table.ledger.export_chunks(format), media_type=media)

    @app.post("/api/dice", status_code=201, dependencies=admin_only)
    def register_die(body: NewDie) -> dict[str, Any]:
        try:
            return table.registry.register(body.name, body.type, body.colour, body.set).to_dict()
        except AlreadyRegistered as err:
            raise HTTPException(status_code=409, detail=str(err)) from None
        except RegistryError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/api/dice/{die_id}/audit")
    def die_audit(
        die_id: str, bias: float = Query(0.2, ge=MIN_BIAS, le=MAX_BIAS)
    ) -> dict[str, Any]:
        return _audited(die_id, bias).to_json()

    @app.get("/audit/{die_id}", response_class=HTMLResponse, include_in_schema=False)
    def die_report(die_id: str) -> str:
        """The printable audit report of a registered die (the audit page links here)."""
        from audit.report import render

        done = _audited(die_id)
        return render(done.result, done.title, done.recognizer)

    def _audited(die_id: str, bias: float = 0.2) -> DieAudit:
        """A registered die's audit; 404 for an unknown die, 409 before its first reading."""
        try:
            return audit_die(table.ledger, table.registry, die_id, bias=bias)
        except NotFound as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        except LogError as err:
            raise HTTPException(status_code=409, detail=str(err)) from None

    @app.post("/api/throws/{throw_id}/confirm", status_code=201, dependencies=admin_only)
    def confirm(
        body: Confirmation, throw_id: int = Path(ge=1, le=2**62, description="the throw's row")
    ) -> dict[str, Any]:
        try:
            return table.registry.confirm(throw_id, body.index, body.face)
        except NotFound as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        except RegistryError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.websocket("/ws")
    async def events(socket: WebSocket) -> None:
        await socket.accept()
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1000)

        def listener(event: dict[str, Any]) -> None:
            # called from whatever thread produced the event: hand over to this loop
            loop.call_soon_threadsafe(_offer, queue, event)

        unsubscribe = table.subscribe(listener)
        try:
            await socket.send_json({"type": "hello", "version": 1})
            async with anyio.create_task_group() as group:  # the first to end ends both

                async def hear() -> None:
                    await _until_closed(socket)
                    group.cancel_scope.cancel()

                async def tell() -> None:
                    with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # it left
                        await _send_events(socket, queue)
                    group.cancel_scope.cancel()

                group.start_soon(hear)
                group.start_soon(tell)
        except WebSocketDisconnect:
            pass
        finally:
            unsubscribe()

    from server.web import mount_web

    mount_web(app)
    return app


async def _send_events(socket: WebSocket, queue: asyncio.Queue[dict[str, Any]]) -> None:
    while True:
        await socket.send_json(await queue.get())


async def _until_closed(socket: WebSocket) -> None:
    """Read what the client sends, and drop it, until it closes: the pages send nothing,
    but a message left unread stopped the socket being read at all, so its pongs and its
    close went unseen (a client that had sent one message was dropped after 40 s, and a
    stopping service waited out its grace for every open page, then logged tracebacks)."""
    while (await socket.receive())["type"] != "websocket.disconnect":
        pass


def _json_safe(value: Any) -> Any:
    """``value`` (plain data) as JSON can carry it: a float that is no number (NaN,
    Infinity; a 1e400 read as Infinity) as the text JavaScript writes it, "NaN", "Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # NaN, Infinity, -Infinity
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def _offer(queue: asyncio.Queue[dict[str, Any]], event: dict[str, Any]) -> None:
    if queue.full():  # a stalled client loses its oldest events, never the service
        queue.get_nowait()
    queue.put_nowait(event)
