"""The camera's part of the HTTP API: its pictures, unsure dice, the empty tray, the tray's
area in the picture, teaching.

Mounted by server/app.py on the same app; every store and the camera come as
arguments (None where this service has none: those endpoints answer 404).
"""

from __future__ import annotations

import contextlib
import errno
from typing import Any

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field, StrictFloat, StrictInt, field_validator

from mechanics.reading import ReadingRefused
from server.camera import CameraSource
from server.collect import FaceCollector, Regrouped
from server.diesets import DieSetStore, summary
from server.empty_tray import EmptyTrayError, EmptyTrayStore
from server.ledger import LedgerError
from server.table import Table
from server.tray_areas import TrayAreaStore
from server.unsure import AlreadyConfirmed, UnknownReading, confirm_unsure, unsure_readings
from vision.pixels import FrameError, as_bgr8
from vision.reader import DiceReader
from vision.teach import DieSetError
from vision.tray_area import TrayArea, TrayAreaError, suggest


class TeachFace(BaseModel):
    die: str = Field(description="d5, d6_numeral, d10 or d20")
    value: StrictInt = Field(ge=-1, le=100, description="the face the one die in view shows")
    source: str = Field("camera", max_length=40)


class TakeEmptyTray(BaseModel):
    source: str = Field("camera", max_length=40, description="whose last settled frame")


class UnsureConfirmation(BaseModel):
    face: StrictInt | None = Field(None, description="the face the die shows; left out: the guess")


class MarkTrayArea(BaseModel):
    points: list[list[StrictInt | StrictFloat]] = Field(  # true is no corner, nor "0.5"
        description="the tray's corners in order round it, each [x, y]: a share (0 to 1) of "
        "the picture's width and height"
    )


class Collect(BaseModel):
    die: str = Field(description="d5, d6_numeral, d10 or d20")


class GroupValues(BaseModel):
    values: dict[int, StrictInt] = Field(description="group number -> the face its pictures show")
    grouping: str = Field(
        max_length=64,
        description="the groups' `grouping` as answered where they were shown: groups made "
        "again since are refused (409), their numbers name other faces",
    )

    @field_validator("values", mode="before")
    @classmethod
    def _each_group_once(cls, values: Any) -> Any:
        """Each group named once: "1" and "01" are both group 1, and the last had won."""
        if isinstance(values, dict):
            seen: dict[int, str] = {}
            for key in values:
                try:
                    number = int(str(key))
                except ValueError:
                    continue  # not a number: said as such by the field's own check
                if number in seen:
                    raise ValueError(f"group {number} is named twice ({seen[number]!r} and "
                                     f"{key!r}): name each group once")  # fmt: skip
                seen[number] = str(key)
        return values


def camera_routes(
    table: Table,
    admin_only: list[Any],
    diesets: DieSetStore | None = None,
    trays: EmptyTrayStore | None = None,
    camera: CameraSource | None = None,
    collector: FaceCollector | None = None,
    areas: TrayAreaStore | None = None,
) -> APIRouter:
    router = APIRouter()

    @router.get("/api/readings/unsure")
    def unsure(limit: int = Query(50, ge=1, le=1000)) -> list[dict[str, Any]]:
        """The latest dice the camera was unsure of, newest first, and who settled them."""
        return unsure_readings(table, limit)

    @router.post("/api/readings/{row}/confirm", status_code=201)
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

    @router.get("/api/crops/{digest}", response_class=Response)
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

    @router.get("/api/camera/live.jpg", response_class=Response)
    def live() -> Response:
        """The camera's newest frame, for placing it (the page asks about once a second);
        its size and frames a second in the X-Frame-Size and X-Frames-Per-Second headers."""
        seen = camera.live() if camera is not None else None
        if seen is None:
            raise HTTPException(status_code=404, detail="no frame from the camera yet")
        jpeg, info = seen
        fps = "" if info["fps"] is None else str(info["fps"])
        size = f"{info['width']}x{info['height']}"
        headers = {"cache-control": "no-store", "x-frame-size": size, "x-frames-per-second": fps}
        return Response(jpeg, media_type="image/jpeg", headers=headers)

    @router.post("/api/camera/read-again", status_code=202)
    def read_again() -> dict[str, Any]:
        """Read the tray once more when it is still (dice thrown before their check)."""
        if camera is None:
            raise HTTPException(status_code=404, detail="this service has no camera")
        camera.read_again()
        return {"detail": "the camera reads the tray again once it is still"}

    @router.get("/api/sources/{source}/preview.jpg", response_class=Response)
    def preview(source: str) -> Response:
        """A camera's latest settled frame, its dice outlined and labelled."""
        jpeg = table.preview(source)
        if jpeg is None:
            raise HTTPException(status_code=404, detail=f"no picture from {source} yet")
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    readers: list[DiceReader] = []  # made on the first teaching: the networks take a moment

    def _settled(source: str) -> tuple[Any, DiceReader]:
        """The source's last settled frame (409 before there is one) and a reader."""
        frame = table.last_frame(source)
        if frame is None:
            raise HTTPException(status_code=409, detail=f"no settled throw from {source} yet")
        if not readers:
            readers.append(DiceReader())
        return frame, readers[0]

    @router.get("/api/diesets")
    def list_diesets() -> list[dict[str, Any]]:
        return diesets.describe() if diesets is not None else []

    @router.post("/api/diesets/{name}/teach", status_code=201, dependencies=admin_only)
    def teach(name: str, body: TeachFace) -> dict[str, Any]:
        """Teach one face of a numbered die from the camera's last settled throw (admin);
        ``note``: what to check ("" where nothing), such as a die whose outline is not the
        faces' taught before (another die shown by mistake)."""
        store = _store()
        frame, reader = _settled(body.source)
        try:
            taught, note = store.teach(name, body.die, body.value, frame, reader, _area_in(frame))
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        except OSError as err:
            raise _unwritten(err, "the face is not taught") from None
        return summary(taught) | {"note": note}

    def _unwritten(
        err: OSError, what: str, kept: str = "the set is as it was", whose: str = "the die set"
    ) -> HTTPException:
        """Files that could not be written (each written whole, the old kept till then: a
        set, the tray's area, the empty-tray picture): 507 where the disk is full, else 500,
        each saying why, what was not done and what is kept."""
        full = err.errno in (errno.ENOSPC, errno.EDQUOT)
        why = err.strerror or str(err)
        if full:
            said = f"the disk is full ({why}): {what}, and {kept}; free some space"
        else:
            said = f"{whose} cannot be written ({why}): {what}, and {kept}"
        return HTTPException(status_code=507 if full else 500, detail=said)

    def _store() -> DieSetStore:
        if diesets is None:
            raise HTTPException(status_code=404, detail="this service keeps no die sets")
        return diesets

    @router.get("/api/diesets/{name}/faces/{value}.png", response_class=Response)
    def face_picture(name: str, value: int = Path(ge=-1, le=100)) -> Response:
        """The photos one face of a die set was taught from, side by side (to check them)."""
        try:
            png = _store().face_picture(name, value)
        except DieSetError as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        return Response(png, media_type="image/png", headers={"cache-control": "no-store"})

    @router.delete("/api/diesets/{name}/faces/{value}", dependencies=admin_only)
    def forget_face(name: str, value: int = Path(ge=-1, le=100)) -> dict[str, Any]:
        """Forget every photo of one face of a die set (admin): one shown as another face by
        mistake; the face is then still to show."""
        store = _store()
        try:
            if name not in store.names():
                raise HTTPException(status_code=404, detail=f"no die set {name!r}")
            return summary(store.forget(name, value))
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        except OSError as err:
            raise _unwritten(err, f"face {value} is not forgotten") from None

    @router.delete("/api/diesets/{name}", dependencies=admin_only)
    def remove_dieset(name: str) -> dict[str, Any]:
        """Remove a die set and its pictures (admin); the camera no longer reads with it."""
        store = _store()
        try:
            store.remove(name)
        except DieSetError as err:
            raise HTTPException(status_code=404, detail=str(err)) from None
        except OSError as err:  # a folder it may not change: part of the set may be gone
            said = f"the die set cannot be removed ({err.strerror or err}): remove it again"
            raise HTTPException(status_code=500, detail=said) from None
        return {"removed": name}

    def _trays() -> EmptyTrayStore:
        if trays is None:
            raise HTTPException(status_code=404, detail="this service has no camera tray")
        return trays

    @router.get("/api/empty-tray")
    def empty_tray() -> dict[str, Any]:
        """Which empty-tray picture the camera compares with: taken, settings' or none."""
        return _trays().describe()

    @router.get("/api/empty-tray.jpg", response_class=Response)
    def empty_tray_picture() -> Response:
        jpeg = _trays().jpeg()
        if jpeg is None:
            raise HTTPException(status_code=404, detail="no empty-tray picture is in use")
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    @router.post("/api/empty-tray", status_code=201, dependencies=admin_only)
    def take_empty_tray(body: TakeEmptyTray) -> dict[str, Any]:
        """Take the camera's last settled frame as the empty tray (admin; clear it first)."""
        store = _trays()
        frame, reader = _settled(body.source)
        try:
            taken = store.take(frame, reader, _area_in(frame))
        except EmptyTrayError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        except OSError as err:
            kept = "the picture in use is kept"
            said = "the empty-tray picture"
            raise _unwritten(err, "the empty tray is not taken", kept, said) from None
        table.source_event(body.source, "empty-tray", {"detail": "empty-tray picture taken"})
        return taken

    @router.delete("/api/empty-tray", dependencies=admin_only)
    def forget_empty_tray() -> dict[str, Any]:
        """Stop using the picture taken here (back to the settings' picture, or none)."""
        return _trays().forget()

    def _area_in(frame: Any) -> TrayArea | None:
        """The tray's area as the camera reads ``frame`` with it (moved with a camera knocked
        since it was marked; a marked one spoilt on disk: none)."""
        try:
            return areas.in_picture(as_bgr8(frame))[0] if areas is not None else None
        except (TrayAreaError, FrameError):
            return None

    def _areas() -> TrayAreaStore:
        if areas is None:
            raise HTTPException(status_code=404, detail="this service has no camera tray")
        return areas

    @router.get("/api/tray-area")
    def tray_area() -> dict[str, Any]:
        """The tray's area in the camera's picture: marked here, the settings' or the whole
        picture; dice outside it are no part of a throw."""
        return _areas().describe()

    def _shape(picture: Any) -> tuple[int, ...] | None:
        """A picture's height and width (None: no picture an array gives)."""
        shape = getattr(picture, "shape", None)
        return tuple(shape[:2]) if shape is not None and len(shape) >= 2 else None

    @router.get("/api/tray-area/suggested")
    def suggested_tray_area() -> dict[str, Any]:
        """The tray's area as found in the empty-tray picture in use, else in the camera's
        last settled frame: corners for the owner to check and save (nothing is saved)."""
        _areas()
        picture, source = None, ""
        frame = table.last_frame(camera.name) if camera is not None else None
        if trays is not None:
            with contextlib.suppress(EmptyTrayError):  # spoilt on disk: the frame instead
                picture, source = trays.current(), "the empty-tray picture"
        # one of another size than the camera's frames is not used by the camera either
        # (its area would be marked on another view): the frame instead
        if picture is not None and frame is not None and _shape(picture) != _shape(frame):
            picture = None
        if picture is None and frame is not None:
            picture, source = frame, "the camera's last settled throw"
        if picture is None:
            said = (
                "no picture of the tray yet: wait for the camera to settle once, or take "
                "the empty-tray picture"
            )
            raise HTTPException(status_code=409, detail=said)
        try:
            found = suggest(as_bgr8(picture, source))
        except FrameError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        if found is None:
            said = (
                f"no tray stands apart in {source}: the tray fills the picture (no area "
                "is needed), or its colour is the table's; click its corners instead"
            )
            return {"points": None, "from": source, "detail": said}
        said = f"found in {source}: check its corners on the picture, then save"
        return {"points": found.to_list(), "share": round(found.share(), 3), "from": source,
                "detail": said}  # fmt: skip

    @router.put("/api/tray-area", dependencies=admin_only)
    def mark_tray_area(body: MarkTrayArea) -> dict[str, Any]:
        """Mark the tray's area (admin): its corners in order, shares of the picture."""
        store = _areas()
        frame = table.last_frame(camera.name) if camera is not None else None
        try:
            corners = [[float(v) for v in point] for point in body.points]
        except OverflowError:  # an integer of hundreds of digits: no float holds it
            said = "a corner is a share of the picture, 0 to 1: a number that large is none"
            raise HTTPException(status_code=422, detail=said) from None
        try:
            marked = store.mark(corners, frame)  # the picture it was marked on, kept
        except TrayAreaError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        except OSError as err:
            kept = "the area in use is kept"
            raise _unwritten(err, "the tray area is not marked", kept, "the tray area") from None
        if camera is not None:
            table.source_event(camera.name, "tray-area", {"detail": "tray area marked"})
        return marked

    @router.delete("/api/tray-area", dependencies=admin_only)
    def forget_tray_area() -> dict[str, Any]:
        """Stop using the area marked here (back to the settings' area, or the whole
        picture)."""
        return _areas().forget()

    def _collector() -> FaceCollector:
        if collector is None:
            raise HTTPException(status_code=404, detail="this service has no camera to teach with")
        return collector

    @router.get("/api/diesets/{name}/collect")
    def collected(name: str) -> dict[str, Any]:
        """Pictures collected for ``name`` and the groups they were sorted into."""
        try:
            return _collector().describe(name)
        except DieSetError as err:
            raise HTTPException(status_code=404, detail=str(err)) from None

    @router.post("/api/diesets/{name}/collect", status_code=201, dependencies=admin_only)
    def start_collecting(name: str, body: Collect) -> dict[str, Any]:
        """From now on every settled throw of one die keeps its picture (admin)."""
        try:
            return _collector().start(name, body.die)
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @router.delete("/api/diesets/{name}/collect", dependencies=admin_only)
    def stop_collecting(name: str) -> dict[str, Any]:
        """Stop collecting for ``name`` (admin); a collection running for another set runs
        on (it was stopped by any name, even one never collected for, answered 404)."""
        _collector().stop(name)
        return collected(name)  # 404 for a set nothing was collected for

    @router.post("/api/diesets/{name}/groups", dependencies=admin_only)
    def group_faces(name: str) -> dict[str, Any]:
        """Sort the collected pictures by the face they show (admin)."""
        try:
            return _collector().group(name)
        except Regrouped as err:  # started again meanwhile: grouping the new pictures is right
            raise HTTPException(status_code=409, detail=str(err)) from None
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None

    @router.get("/api/diesets/{name}/groups/{group}.png", response_class=Response)
    def group_picture(name: str, group: int = Path(ge=1, le=99)) -> Response:
        try:
            return Response(_collector().picture(name, group), media_type="image/png")
        except (LookupError, DieSetError) as err:
            raise HTTPException(status_code=404, detail=str(err)) from None

    @router.post("/api/diesets/{name}/groups/teach", status_code=201, dependencies=admin_only)
    def teach_groups(name: str, body: GroupValues) -> dict[str, Any]:
        """Teach every named group into the die set ``name`` (admin; replaces the set), the
        groups as they were when named (``grouping``; 409 where they were made again since).
        ``warnings``: what to check, such as a group holding pictures of another die."""
        try:
            taught = _collector().teach(name, body.values, body.grouping)
        except Regrouped as err:
            raise HTTPException(status_code=409, detail=str(err)) from None
        except DieSetError as err:
            raise HTTPException(status_code=422, detail=str(err)) from None
        except OSError as err:
            raise _unwritten(err, "the groups are not taught") from None
        return summary(taught.dieset) | {"warnings": taught.notes}

    return router
