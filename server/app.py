"""The appliance's HTTP API and WebSocket (FastAPI), over a Table it is given.

Bad input gets a 4xx that says what is wrong; nothing a client sends produces
a 500.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import (
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Path,
    Query,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from audit.ledger_audit import DieAudit, audit_die
from audit.logs import LogError
from mechanics.reading import Reading, ReadingRefused
from server.admin import AdminError, AdminPin
from server.camera import CameraSource
from server.collect import FaceCollector
from server.diesets import DieSetStore
from server.empty_tray import EmptyTrayError, EmptyTrayStore
from server.ledger import LedgerError
from server.registry import AlreadyRegistered, NotFound, RegistryError
from server.table import Table, UnknownCheck
from server.unsure import AlreadyConfirmed, UnknownReading, confirm_unsure
from vision.reader import DiceReader
from vision.teach import DieSetError


class NewCheck(BaseModel):
    system: str = Field(description="dphi, peupfudge, d6pool, decibel or d5")
    params: dict[str, Any] = Field(default_factory=dict, description="named as in odds")


class Die(BaseModel):
    die: str
    value: int
    confidence: float = 1.0
    source: str = "manual"
    identity: str | None = Field(None, description="a registered die's id (for its audit)")


class Dice(BaseModel):
    dice: list[Die] = Field(min_length=1, max_length=200)


class NewDie(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    type: str = Field(description="d5, d6, d10, d20 or dF")
    colour: str = Field("", max_length=40)
    set: str = Field("", max_length=80)


class TeachFace(BaseModel):
    die: str = Field(description="d5, d6_numeral, d10 or d20")
    value: int = Field(ge=-1, le=100, description="the face the one die in view shows")
    source: str = Field("camera", max_length=40)


class TakeEmptyTray(BaseModel):
    source: str = Field("camera", max_length=40, description="whose last settled frame")


class UnsureConfirmation(BaseModel):
    face: int | None = Field(None, description="the face the die shows; left out: the guess")


class Collect(BaseModel):
    die: str = Field(description="d5, d6_numeral, d10 or d20")


class GroupValues(BaseModel):
    values: dict[int, int] = Field(description="group number -> the face its pictures show")


class Confirmation(BaseModel):
    index: int = Field(ge=0, le=199, description="which die of the throw, from 0")
    face: int = Field(description="the face the die really shows")


def create_app(
    table: Table,
    admin: AdminPin | None = None,
    diesets: DieSetStore | None = None,
    settings: dict[str, Any] | None = None,
    trays: EmptyTrayStore | None = None,
    camera: CameraSource | None = None,
    collector: FaceCollector | None = None,
) -> FastAPI:
    """The API over ``table``; with ``admin``, registering dice, correcting readings and
    exporting the ledger need its PIN (the service always passes one)."""
    app = FastAPI(title="dicebridge", version="1", docs_url="/api/docs")

    def require_admin(x_admin_pin: str | None = Header(None)) -> None:
        if admin is None:
            return
        try:
            admin.check(x_admin_pin)
        except AdminError as err:
            message = str(err)
            code = 429 if "locked" in message else 401 if "needs" in message else 403
            raise HTTPException(status_code=code, detail=message) from None

    admin_only = [Depends(require_admin)]

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "camera": camera is not None,  # the page offers "read the tray again"
            "sources": table.sources(),
            "source_details": table.source_details(),
        }

    @app.post("/api/checks", status_code=201)
    def new_check(body: NewCheck) -> dict[str, Any]:
        try:
            return table.create(body.system, body.params)
        except (ValueError, TypeError, ArithmeticError) as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/api/checks/{check_id}")
    def get_check(check_id: str) -> dict[str, Any]:
        try:
            return table.get(check_id)
        except UnknownCheck:
            raise HTTPException(status_code=404, detail=f"no check {check_id}") from None

    @app.post("/api/checks/{check_id}/dice")
    def add_dice(check_id: str, body: Dice) -> dict[str, Any]:
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

    @app.post("/api/readings/{row}/confirm", status_code=201)
    def confirm_unsure_reading(
        body: UnsureConfirmation,
        row: int = Path(ge=1, le=2**62, description="the unsure reading's ledger row"),
    ) -> dict[str, Any]:
        """A die the camera was unsure of, confirmed by a person: fed like a sure reading."""
        try:
            return {"row": row, "check": confirm_unsure(table, row, body.face)}
        except UnknownReading as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        except AlreadyConfirmed as err:
            raise HTTPException(status_code=409, detail=str(err)) from None
        except ReadingRefused as err:
            raise HTTPException(status_code=400, detail=str(err)) from None

    @app.get("/api/throws")
    def throws(limit: int = Query(50, ge=1, le=1000)) -> list[dict[str, Any]]:
        return table.throws(limit)

    @app.get("/api/crops/{digest}", response_class=Response)
    def crop(
        digest: str = Path(pattern="^[0-9a-f]{64}$", description="the crop's SHA-256"),
    ) -> Response:
        """A die's crop as the camera saw it (named by its SHA-256 in the throw's row),
        for disputes: refused if the file no longer matches its hash."""
        try:
            image = table.ledger.crop(digest)
        except LookupError as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        except LedgerError as err:
            raise HTTPException(status_code=409, detail=str(err)) from None
        return Response(image, media_type="image/png", headers={"cache-control": "max-age=86400"})

    @app.get("/api/dice")
    def dice() -> list[dict[str, Any]]:
        return [d.to_dict() for d in table.registry.all()]

    @app.post("/api/camera/read-again", status_code=202)
    def read_again() -> dict[str, Any]:
        """Read the tray once more when it is still (dice thrown before their check)."""
        if camera is None:
            raise HTTPException(status_code=404, detail="this service has no camera")
        camera.read_again()
        return {"detail": "the camera reads the tray again once it is still"}

    @app.get("/api/sources/{source}/preview.jpg", response_class=Response)
    def preview(source: str) -> Response:
        """A camera's latest settled frame, its dice outlined and labelled."""
        jpeg = table.preview(source)
        if jpeg is None:
            raise HTTPException(status_code=404, detail=f"no picture from {source} yet")
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    readers: list[DiceReader] = []  # made on the first teaching: the networks take a moment

    @app.get("/api/diesets")
    def list_diesets() -> list[dict[str, Any]]:
        return diesets.describe() if diesets is not None else []

    @app.post("/api/diesets/{name}/teach", status_code=201, dependencies=admin_only)
    def teach(name: str, body: TeachFace) -> dict[str, Any]:
        """Teach one face of a numbered die from the camera's last settled throw (admin)."""
        if diesets is None:
            raise HTTPException(status_code=404, detail="this service keeps no die sets")
        frame = table.last_frame(body.source)
        if frame is None:
            raise HTTPException(status_code=409, detail=f"no settled throw from {body.source} yet")
        if not readers:
            readers.append(DiceReader())
        try:
            taught = diesets.teach(name, body.die, body.value, frame, readers[0])
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        return {"name": name, "die": taught.die, "taught": sorted(taught.crops),
                "missing": taught.missing()}  # fmt: skip

    def _trays() -> EmptyTrayStore:
        if trays is None:
            raise HTTPException(status_code=404, detail="this service has no camera tray")
        return trays

    @app.get("/api/empty-tray")
    def empty_tray() -> dict[str, Any]:
        """Which empty-tray picture the camera compares with: taken, settings' or none."""
        return _trays().describe()

    @app.get("/api/empty-tray.jpg", response_class=Response)
    def empty_tray_picture() -> Response:
        jpeg = _trays().jpeg()
        if jpeg is None:
            raise HTTPException(status_code=404, detail="no empty-tray picture is in use")
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    @app.post("/api/empty-tray", status_code=201, dependencies=admin_only)
    def take_empty_tray(body: TakeEmptyTray) -> dict[str, Any]:
        """Take the camera's last settled frame as the empty tray (admin; clear it first)."""
        store = _trays()
        frame = table.last_frame(body.source)
        if frame is None:
            raise HTTPException(status_code=409, detail=f"no settled frame from {body.source} yet")
        if not readers:
            readers.append(DiceReader())
        try:
            taken = store.take(frame, readers[0])
        except EmptyTrayError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        table.source_event(body.source, "empty-tray", {"detail": "empty-tray picture taken"})
        return taken

    @app.delete("/api/empty-tray", dependencies=admin_only)
    def forget_empty_tray() -> dict[str, Any]:
        """Stop using the picture taken here (back to the settings' picture, or none)."""
        return _trays().forget()

    def _collector() -> FaceCollector:
        if collector is None:
            raise HTTPException(status_code=404, detail="this service has no camera to teach with")
        return collector

    @app.get("/api/diesets/{name}/collect")
    def collected(name: str) -> dict[str, Any]:
        """Pictures collected for ``name`` and the groups they were sorted into."""
        try:
            return _collector().describe(name)
        except DieSetError as err:
            raise HTTPException(status_code=404, detail=str(err)) from None

    @app.post("/api/diesets/{name}/collect", status_code=201, dependencies=admin_only)
    def start_collecting(name: str, body: Collect) -> dict[str, Any]:
        """From now on every settled throw of one die keeps its picture (admin)."""
        try:
            return _collector().start(name, body.die)
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.delete("/api/diesets/{name}/collect", dependencies=admin_only)
    def stop_collecting(name: str) -> dict[str, Any]:
        _collector().stop()
        return collected(name)

    @app.post("/api/diesets/{name}/groups", dependencies=admin_only)
    def group_faces(name: str) -> dict[str, Any]:
        """Sort the collected pictures by the face they show (admin)."""
        try:
            return _collector().group(name)
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/api/diesets/{name}/groups/{group}.png", response_class=Response)
    def group_picture(name: str, group: int = Path(ge=1, le=99)) -> Response:
        try:
            return Response(_collector().picture(name, group), media_type="image/png")
        except (LookupError, DieSetError) as err:
            raise HTTPException(status_code=404, detail=str(err)) from None

    @app.post("/api/diesets/{name}/groups/teach", status_code=201, dependencies=admin_only)
    def teach_groups(name: str, body: GroupValues) -> dict[str, Any]:
        """Teach every named group into the die set ``name`` (admin; replaces the set)."""
        try:
            taught = _collector().teach(name, body.values)
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        return {"name": name, "die": taught.die, "taught": sorted(taught.crops),
                "missing": taught.missing()}  # fmt: skip

    @app.get("/api/settings", dependencies=admin_only)
    def current_settings() -> dict[str, Any]:
        """The settings the service runs with (admin; they are changed in the TOML file)."""
        return settings or {}

    @app.get("/api/export", dependencies=admin_only)
    def export(format: str = Query("json", pattern="^(csv|json)$")) -> Response:
        """Every ledger row, as CSV or JSON (admin)."""
        media = "text/csv" if format == "csv" else "application/json"
        return Response(table.ledger.export(format), media_type=media)

    @app.post("/api/dice", status_code=201, dependencies=admin_only)
    def register_die(body: NewDie) -> dict[str, Any]:
        try:
            return table.registry.register(body.name, body.type, body.colour, body.set).to_dict()
        except AlreadyRegistered as err:
            raise HTTPException(status_code=409, detail=str(err)) from None
        except RegistryError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @app.get("/api/dice/{die_id}/audit")
    def die_audit(die_id: str, bias: float = Query(0.2, gt=0, le=1)) -> dict[str, Any]:
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
            while True:
                await socket.send_json(await queue.get())
        except WebSocketDisconnect:
            pass
        finally:
            unsubscribe()

    from server.web import mount_web

    mount_web(app)
    return app


def _offer(queue: asyncio.Queue[dict[str, Any]], event: dict[str, Any]) -> None:
    if queue.full():  # a stalled client loses its oldest events, never the service
        queue.get_nowait()
    queue.put_nowait(event)
