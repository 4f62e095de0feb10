"""The camera as a throw source: frames on their own thread, read once settled, fed to the table.

Blocking camera I/O and the networks stay on this thread, never on the web
server's event loop.  What the camera reads with confidence goes to the table
(the oldest check waiting for that die, or recorded unassigned); a die it is
unsure of is recorded as an uncertain reading with its crop and announced
with what to do ("re-throw the red d6"), never guessed into a check.  Every
die's crop is kept by the ledger under its SHA-256.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from mechanics.reading import Reading
from server.camera_dice import crowded_note, identities
from server.camera_notices import LEANS_KEPT, SetupNotices
from server.collect import FaceCollector
from server.diesets import DieSetStore
from server.empty_tray import EmptyTrayError, EmptyTrayStore
from server.table import Table
from server.tray_areas import TrayAreaStore
from vision.advice import NUMBERED_UNTAUGHT
from vision.finder import LIGHT_MOVED, light_change
from vision.frames import LONGEST_READ_S, CameraError, Frame, FrameSource
from vision.pixels import FrameError, as_bgr8
from vision.reader import LOOKS_AGAIN, NUMBERED_KIND, PIP_KINDS, DiceReader
from vision.readings import DieReading, ThrowReading, encode_crop
from vision.settle import WIDTH, SettleDetector, unmoved_dice
from vision.tray_area import TrayArea, TrayAreaError, drawn, within
from vision.view_change import aligned_tray

PIP_DICE = PIP_KINDS  # the dice the face network reads; numbered dice need a taught set
UNSTEADY_SECONDS = 30.0  # no still run long enough to settle for this long: said once
OFF_TRAY = (230, 130, 20)  # BGR: the outline of a die beyond the tray's area, on the preview
# a camera opened again that delivers frames this long (by their own stamps) is back for good:
# the wait before the next reopening starts again at the first backoff.  A webcam that opens
# and fails on its first reads had been opened again at once, for ever (70,000 times in 2 s)
STEADY_SECONDS = 10.0
# how long stop() waits for the camera thread: longer than a stalled camera's read can block
STOP_WAIT = LONGEST_READ_S + 2.0


class CameraSource:
    def __init__(
        self,
        name: str,
        frames: FrameSource | None,
        reader: DiceReader,
        table: Table,
        settle: SettleDetector | None = None,
        trays: EmptyTrayStore | None = None,
        diesets: DieSetStore | None = None,
        reopen: Callable[[], FrameSource] | None = None,
        backoff: tuple[float, float] = (1.0, 30.0),
        collector: FaceCollector | None = None,
        areas: TrayAreaStore | None = None,
        dice: Mapping[str, str] | None = None,
    ) -> None:
        """``frames`` None: not open yet, ``reopen`` opens it.  With ``reopen`` a camera
        that is lost (CameraError: unplugged, a stream gone) is opened again, waiting
        ``backoff`` (first, longest) seconds before each try, doubling (back to the first
        once it has delivered frames for STEADY_SECONDS).  ``areas``: the
        tray's area in the picture (dice outside it are no part of a throw).  ``dice``: the
        registered die the camera reads for a die type (server/camera_dice.py)."""
        self._dice: Mapping[str, str] = dice or {}
        self._told_crowded = ""
        if frames is None and reopen is None:
            raise ValueError("a camera source needs frames, or a way to open them")
        self._reopen = reopen
        self._collector = collector  # while it collects, settled throws are pictures to teach
        self._backoff = backoff
        self._delay = backoff[0]  # the wait before the next try to open the camera
        self._diesets = diesets
        self.name = name
        self._frames: FrameSource | None = frames
        self._reader = reader
        self._table = table
        self._settle = settle or SettleDetector()
        self._trays = trays
        self._areas = areas
        self._area_unread = ""  # why the marked tray area is not used (announced once)
        # the marking (its picture's mtime) and what of it was told: a camera's move (False),
        # a view lost (True); each said once per marking, however often the two alternate
        self._area_told: tuple[int, set[bool]] | None = None
        self._tray_unfit = ""  # why the empty-tray picture is not used (announced once)
        self._tray_moved_told: np.ndarray | None = None  # the picture a camera's move was told of
        self._light_told: np.ndarray | None = None  # the picture (as stored, not carried
        # onto a moved camera's frames) whose light was found stale
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.throws_read = 0
        self._last_motion = float("-inf")  # time.monotonic() of the last moving frame
        self._moving_since: float | None = None  # the first moving frame since the picture
        # last held still long enough to settle (not since the last still frame: a light
        # flickering every few frames had restarted the count for ever, unannounced)
        # the tray's area settling watches: as marked, and where it lies in the picture (as
        # read_throw reads it); found again when the marking changes, checked when it settles
        self._watching: tuple[TrayArea | None, TrayArea | None] | None = None
        self._rewatched = False  # the watched area was found moved since the tray last moved
        # the area as marked, a settled frame, and where it lies there: found for settling,
        # handed to read_throw's _followed (11-14 ms) with that frame, and to no other call
        self._placed: tuple[TrayArea | None, np.ndarray, TrayArea | None] | None = None
        self._told_unsteady = False
        self._told_disk = False
        self._again = False  # the next throw read is the tray read again on request
        # the last settled throw read: a die lying as it lay there is not read again (a hand
        # passed over the tray, a die was taken out: the tray settles again, the rest unmoved)
        self._last_read: np.ndarray | None = None
        self._latest: Frame | None = None  # the newest frame, for a live view while setting up
        self._stamps: deque[float] = deque(maxlen=30)  # when the last frames came
        # the frames since the tray last moved (the last few): a numbered die left to confirm
        # in the settled frame is looked at again in the ones before it (DiceReader.read)
        self._stills: deque[np.ndarray] = deque(maxlen=LOOKS_AGAIN + 1)
        # how far the last numbered dice's numerals lay from where flat dice have them, by
        # die type: a camera at a slant moves them all one way, a cocked die its own way
        self._leans: dict[str, deque[tuple[float, float]]] = {}
        self._notices = SetupNotices()  # a slant, a focus, a felt, no colour: once a run
        self._told_sets: set[str] = set()  # die sets left out (spoilt on disk) or to check,
        # announced
        self._told_untaught: set[str] = set()  # numbered dice checks wait for, no set taught

    # --- the thread -----------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = STOP_WAIT) -> None:
        """Stop the camera thread, waiting up to ``timeout`` for it to end.  The frames are
        closed by the camera thread itself as it ends: closed from here while it was still
        inside a read (a stalled webcam or stream), OpenCV's capture was released under that
        read and the process crashed.  Nothing the thread reads after this is used."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():  # still in a read: it closes the frames when that returns
                return
        self._close()  # never started, or ended (and closed them already)

    def _close(self) -> None:
        frames, self._frames = self._frames, None
        with contextlib.suppress(CameraError):  # a camera that already failed: nothing to lose
            if frames is not None:
                frames.close()

    def _run(self) -> None:
        try:
            self._watch_and_reopen()
        finally:  # on this thread, once no read is under way (see stop)
            self._close()

    def _watch_and_reopen(self) -> None:
        if self._frames is not None:
            self._table.source_event(self.name, "connected", {"detail": "camera started"})
        while not self._stop.is_set():
            if self._frames is None and not self._open_again():
                return  # stopped while waiting
            why = self._watch()
            if why is None or self._stop.is_set():  # lost while stopping: not news
                return
            self._table.source_event(self.name, "disconnected", {"detail": why})
            self._close()
            if self._reopen is None:
                return
            # lost: opened again after the backoff, not at once (a camera that opens and
            # fails on reading had been reopened in a tight loop)
            self._back_off(why)

    def _open_again(self) -> bool:
        """Open the camera, trying again with backoff until it opens or the source stops."""
        assert self._reopen is not None
        while not self._stop.is_set():
            try:
                frames = self._reopen()
            except Exception as err:  # CameraError, or a driver's own: try again later
                if self._stop.is_set():
                    return False
                self._back_off(str(err))
                continue
            if self._stop.is_set():  # stopped while it opened: not left open
                with contextlib.suppress(Exception):
                    frames.close()
                return False
            self._frames = frames
            self._table.source_event(self.name, "connected", {"detail": "camera opened"})
            return True
        return False

    def _back_off(self, why: str) -> None:
        """Say why the camera is tried again and when, and wait that long (or till the source
        stops); the next wait is twice as long, up to the longest."""
        delay = self._delay
        self._table.source_event(
            self.name, "retrying", {"detail": f"{why}; next try in {delay:.1f} s"}
        )
        self._delay = min(delay * 2, self._backoff[1])
        self._stop.wait(delay)

    def _watch(self) -> str | None:
        """Read frames until the source ends or stops (None) or is lost (why)."""
        bad = ""  # why the last frame could not be used (a run of such frames is announced once)
        first: float | None = None  # the first frame's stamp since the camera was opened
        while not self._stop.is_set():
            assert self._frames is not None
            try:
                frame = self._frames.read()
            except CameraError as err:
                return str(err)
            except Exception as err:  # a driver's own error (OSError from V4L2, …): lost too,
                # and opened again, rather than ending the camera thread unannounced
                return f"the camera failed: {type(err).__name__}: {err}"
            if self._stop.is_set():  # read after stop(): not a throw (the ledger may be closed)
                return None
            if frame is None:
                self._table.source_event(self.name, "disconnected", {"detail": "no more frames"})
                return None
            first = frame.at if first is None else first
            if frame.at - first >= STEADY_SECONDS:  # back for good: the next loss waits
                self._delay = self._backoff[0]  # the first backoff again
            try:
                self._use(frame)
            except FrameError as err:  # bad frames: say so once, keep watching the tray
                bad = self._once(bad, str(err))
                continue
            except Exception as err:  # a fault must not end the camera,
                # e.g. a die set or empty-tray file spoilt on disk, a full disk: the
                # throw is not read, the camera says why and watches for the next one
                # (no die of it is kept: the table keeps a throw whole or not at all)
                why = f"the throw was not read ({err}): throw again or enter it by hand"
                bad = self._once(bad, why)
                continue
            bad = ""
        return None

    def _use(self, frame: Frame) -> None:
        frame = Frame(as_bgr8(frame.image), frame.at, frame.name, frame.still)
        self._latest = frame
        self._stamps.append(frame.at)
        if frame.still:  # a photograph of a throw (a folder's): settled already
            self._stills.clear()
            self.read_throw(frame.image)  # each photograph is a throw of its own
            return
        # what moves off the tray is no throw; on it, what moves is watched where read_throw
        # reads (a camera knocked: a die rolling in the strip between the two was "settled")
        state = self._settle.feed(frame, self._watched(frame.image))
        if state.moving:
            self._stills.clear()
            self._last_motion = time.monotonic()
            self._rewatched = False
            if self._moving_since is None or frame.at < self._moving_since:
                self._moving_since = frame.at
            elif frame.at - self._moving_since >= UNSTEADY_SECONDS and not self._told_unsteady:
                self._told_unsteady = True
                self._table.source_event(self.name, "notice", {"detail": (
                    f"the picture has not held still for {UNSTEADY_SECONDS:.0f} s: if nothing "
                    "moves on the tray, the light flickers or the exposure hunts, and no throw "
                    "is read (`dicebridge vision check` measures it)")})  # fmt: skip
        else:
            if state.still >= self._settle.still_seconds:  # held still long enough to read
                self._moving_since = None
                self._told_unsteady = False
            self._stills.append(frame.image)
        if state.settled and self._moved_in_picture(frame.image):
            return  # the area now watched where the tray lies: still that long there first
        if state.settled:  # dice lying as they lay in the last throw read are not read twice
            before = None if self._again else self._last_read
            # a throw that failed is read whole next time: none of its rows was kept
            self.read_throw(frame.image, list(self._stills)[:-1], before)
            self._last_read = frame.image

    def _watched(self, image: np.ndarray) -> TrayArea | None:
        """The tray's area settling watches: where it lies in the picture (:meth:`_followed`:
        11-14 ms here, too dear for every frame), found on the first frame and again when
        the marking changes; each settled frame checks it (:meth:`_moved_in_picture`)."""
        area = self._area()
        if self._watching is None or self._watching[0] != area:
            self._watching = (area, self._followed(area, image))
        return self._watching[1]

    def _moved_in_picture(self, image: np.ndarray) -> bool:
        """Whether the tray's area lies elsewhere in the settled ``image`` than where settling
        watched it (the camera knocked since): then it is watched there, the throw is not
        read, and the tray must hold still that long where it lies now.  Once a stillness:
        an area found a little apart each time (a borderline shift) never holds a throw back
        for good."""
        if self._watching is None or self._watching[0] is None or self._rewatched:
            return False
        marked, watched = self._watching
        placed = self._followed(marked, image)
        self._placed = (marked, image, placed)  # for read_throw, next: measured once
        if not _apart(placed, watched):
            return False
        self._watching, self._rewatched = (marked, placed), True
        self._settle.restart()
        return True

    def _once(self, last: str, why: str) -> str:
        """Announce ``why`` unless it is what the last frame was already announced for."""
        if why != last:
            self._table.source_event(self.name, "attention", {"detail": why})
        return why

    def live(self) -> tuple[bytes, dict[str, Any]] | None:
        """The newest frame as JPEG (every frame, not only settled throws: for placing the
        camera), with its size and the frames a second of late; None before the first."""
        frame = self._latest
        if frame is None:
            return None
        stamps = list(self._stamps)
        span = stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0
        fps = (len(stamps) - 1) / span if span > 0 else None
        shown = drawn(frame.image, self._area())  # where the tray's area lies, for placing
        ok, data = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, 70])
        h, w = frame.image.shape[:2]
        info = {"width": w, "height": h, "fps": None if fps is None else round(fps, 1)}
        return (bytes(data) if ok else b""), info

    def read_again(self) -> None:
        """Read the tray once more when it is still, though nothing moved (dice thrown
        before their check was set up, a die set just taught): the next still frame is
        read like a new throw, and its readings say ``again``."""
        self._again = True
        self._settle.rearm()

    def moved_since(self, moment: float) -> bool:
        """Whether the camera saw the dice move after ``moment`` (time.monotonic()):
        a tumbler that ran while nothing moved is jammed."""
        return self._last_motion > moment

    # --- one settled throw ----------------------------------------------------------------
    def expected_die(self) -> str:
        """What to read: the die the waiting checks need, when the camera can read it; "any"
        where they need d6s and dFs both (a d6 pool and a Fudge check at one table: read as
        d6s, the Fudge dice thrown for the second were all left to confirm) or none it reads.
        Where they need a numbered die and another kind, the oldest check's: read as "any",
        a red d5 was read a sure d20 by a red d20 set (13 of 24 rendered d5s, before the
        outline's shape was compared), and fed to no check; a d10 still is by a d20 set of
        its colour (docs/vision.md, Known gaps).  The other kinds are read too, where a die
        is not the expected one (:meth:`_also`)."""
        readable = self._readable()
        if not readable:
            return "any"
        return "any" if set(readable) == set(PIP_DICE) else readable[0]

    def _also(self, die: str) -> list[str]:
        """The other die types waiting checks need that the camera reads (pip dice, and
        numbered dice a taught set reads): a die not of the expected kind is read as one of
        those where that is sure (a d20 thrown for the d20 check while an older d5 check
        waits: 60 of 72 rendered d20s so read, none wrong, where all were left to confirm;
        Fudge dice thrown while an older d20 check waits, which were "not of the set")."""
        return [] if die == "any" else [d for d in self._readable() if d != die]

    def _readable(self) -> list[str]:
        """The die types waiting checks need that the camera reads (pip dice, and numbered
        dice a taught set reads), each once, the oldest check's first."""
        needed = dict.fromkeys(self._table.needs())
        return [d for d in needed if d in PIP_DICE or d in self._reader.diesets]

    def read_throw(
        self,
        image: np.ndarray,
        earlier: Sequence[np.ndarray] = (),
        before: np.ndarray | None = None,
    ) -> ThrowReading:
        """Read one settled throw and hand its readings to the table; ``earlier``: frames of
        the still tray just before ``image``, to look again at dice left to confirm;
        ``before``: the last throw read, whose dice lying as they lay there are not read
        again (a hand passed over the tray, or a die was taken out and the rest stayed)."""
        image = as_bgr8(image)  # a grey camera's frame, handed over without _use's conversion
        if self._diesets is not None:  # sets taught on the Devices page count at once
            for said in self._diesets.use_in(self._reader):  # sets left out, sets to check
                if said not in self._told_sets:  # said once a run (and again if it changes)
                    self._told_sets.add(said)
                    self._table.source_event(self.name, "notice", {"detail": said})
        if self._collector is not None and self._collector.collecting:
            said = self._collector.offer(image, self._reader, self._followed(self._area(), image))
            self._table.set_preview(self.name, outlined(image, ThrowReading((), 0.0)), image)
            self._table.source_event(self.name, "collected", {"detail": said})
            return ThrowReading((), 0.0, "collecting faces to teach")
        again = self._again  # a read asked for: spent once the throw is kept (below)
        die = self.expected_die()
        stored, tray = self._empty_tray(image)
        leans = self._leans.setdefault(die, deque(maxlen=LEANS_KEPT))
        # the dice read before tell a throw of one or two dice whether the camera is slanted
        result = self._reader.read(image, die, tray, earlier, list(leans), also=self._also(die))
        if die == "any":  # a numbered die no taught set reads: the person types its face
            result = self._as_untaught(result)
        area = self._followed(self._area(), image)
        result = within(result, area, image.shape[1], image.shape[0])  # the tray's dice only
        result, unmoved = _moved_only(before, image, result)
        if die == "any":
            self._check_untaught(result)
        # kept with the throw (below): a throw the ledger refused is read again, and its
        # dice's leans had been counted twice
        read_leans = [d.lean for d in result.dice if d.lean is not None]
        taught = die in self._reader.diesets
        for said in self._notices.after_throw(
            image, result, [*leans, *read_leans][-LEANS_KEPT:], taught
        ):
            self._table.source_event(self.name, "notice", {"detail": said})
        self.throws_read += 1  # read (kept or not: a fault is said for it)
        if stored is not None and tray is not None:
            self._check_light(image, stored, tray, area)
        self._table.set_preview(self.name, outlined(drawn(image, area), result, unmoved), image)
        if result.problem:
            self._again = False
            self._table.source_event(self.name, "attention", {"detail": result.problem})
            return result
        readings: list[Reading] = []
        extras: list[dict[str, Any]] = []
        unsure: Counter[str] = Counter()  # by kind: thrown together with the readings too
        asked: list[dict[str, Any]] = []  # the unsure dice's rows, kept after the sure dice
        names, crowded = identities([d.die for d in result.dice], self._dice)
        if crowded and (said := crowded_note(crowded, self._dice)) != self._told_crowded:
            self._told_crowded = said  # once a run, and again when it changes
            self._table.source_event(self.name, "notice", {"detail": said})
        for d, identity in zip(result.dice, names, strict=True):
            crop_hash, kept = self._table.ledger.store_crop(encode_crop(d.crop))
            if kept is None and not self._told_disk:
                self._told_disk = True  # said once a run of the service: the fix is a person's
                self._table.source_event(self.name, "notice", {"detail": (
                    "the disk is nearly full: dice pictures are no longer kept (throws still "
                    "are); lower keep_crops_days in the settings or free some space")})  # fmt: skip
            reading = d.to_reading(self.name, identity)
            if reading is None:
                named = {"identity": identity} if identity is not None else {}
                asked.append({**d.to_dict(), "crop": crop_hash, **named})
                unsure[d.die] += 1
                continue
            readings.append(reading)
            extras.append(
                {"crop": crop_hash, "box": list(d.box), **({"again": True} if again else {})}
            )
        # one record: every row of the throw is kept, or none is (then it is read again
        # whole, and a read asked for is still asked for)
        self._table.from_source(self.name, readings, extras, dict(unsure), asked)
        self._again = False
        leans.extend(read_leans)
        return result

    def _area(self) -> TrayArea | None:
        """The tray's area in use; a marked one that cannot be read is not used (the whole
        picture is the tray): said once, with what to do."""
        unread = ""
        try:
            area = self._areas.current() if self._areas is not None else None
        except TrayAreaError as err:
            area, unread = None, f"{err}: the whole picture is read; mark the area again"
        if unread and unread != self._area_unread:
            self._table.source_event(self.name, "notice", {"detail": unread})
        self._area_unread = unread
        return area

    def _followed(self, area: TrayArea | None, image: np.ndarray) -> TrayArea | None:
        """The tray's area where the tray lies in ``image`` (TrayAreaStore.in_picture: moved
        with a camera knocked since it was marked), the move said once for each marking."""
        if self._areas is None or area is None:
            return area
        kept, self._placed = self._placed, None  # found on the settled frame just now
        if kept is not None and kept[1] is image and kept[0] == area:
            return kept[2]
        placed = None
        with contextlib.suppress(TrayAreaError):  # spoilt meanwhile: _area says so next time
            placed = self._areas.in_picture(image)
        if placed is None or not (placed.moved or placed.lost):
            return area if placed is None else placed.area
        with contextlib.suppress(FileNotFoundError):  # forgotten meanwhile: told next time
            marking = self._areas.picture_path.stat().st_mtime_ns
            if self._area_told is None or self._area_told[0] != marking:
                self._area_told = (marking, set())
            told = self._area_told[1]  # moved and lost alternating: each said once a marking
            if placed.lost not in told:
                told.add(placed.lost)
                said = (
                    "the camera's view of the tray is not the one the tray's area was marked on "
                    "(the camera turned, tilted or moved, or the tray moved): the area is used "
                    "where it was marked; mark it again on the Devices page"
                    if placed.lost
                    else f"the camera has moved about {placed.moved:.0f} px since the tray's "
                    "area was marked: the area is moved with it; if dice are left out or asked "
                    "as half out of the tray wrongly, mark it again on the Devices page"
                )
                self._table.source_event(self.name, "notice", {"detail": said})
        return placed.area

    def _empty_tray(self, image: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The empty-tray picture as stored and as used (carried onto ``image`` where the
        camera moved since it was taken), when there is one and it fits the camera's frames
        (a picture of another size, or one that cannot be read, is not used: said once,
        with what to do)."""
        unfit = ""
        try:
            tray = self._trays.current() if self._trays is not None else None
        except EmptyTrayError as err:  # spoilt on disk: read with the finder alone till mended
            tray = None
            unfit = (f"{err}: it is not used; take it again (or stop using it) on the "
                     "Devices page")  # fmt: skip
        if tray is not None and tray.shape[:2] != image.shape[:2]:
            unfit = (f"the empty-tray picture is {tray.shape[1]} x {tray.shape[0]} px, the "
                     f"camera's frames {image.shape[1]} x {image.shape[0]}: it is not used; "
                     "take it again on the Devices page")  # fmt: skip
        if unfit and unfit != self._tray_unfit:
            self._table.source_event(self.name, "notice", {"detail": unfit})
        self._tray_unfit = unfit
        if unfit or tray is None:
            return None, None
        carried = aligned_tray(tray, image)
        if carried is None:
            return tray, tray
        if self._tray_moved_told is not tray:  # said once for each picture taken
            self._tray_moved_told = tray
            said = (f"the camera has moved about {carried[1]:.0f} px since the empty-tray "
                    "picture was taken: it is moved with it; if dice are asked for that are "
                    "not there, take it again on the Devices page")  # fmt: skip
            self._table.source_event(self.name, "notice", {"detail": said})
        return tray, carried[0]

    def _as_untaught(self, result: ThrowReading) -> ThrowReading:
        """The dice the face network named numbered, as the numbered die the oldest waiting
        check needs that no taught set reads (when one does): their face, typed on the
        Table page, then feeds that check (server/unsure.py)."""
        untaught = self._untaught()
        if not untaught:
            return result
        need = untaught[0]

        def relabelled(d: DieReading) -> DieReading:
            if d.problem != NUMBERED_UNTAUGHT:
                return d
            name = f"{d.colour} {need}".strip()
            return replace(d, die=need, value=None, advice=(
                f"type the face the {name} shows (the camera reads {need}s once a {need} set "
                "is taught on the Devices page)"))  # fmt: skip

        return replace(result, dice=tuple(relabelled(d) for d in result.dice))

    def _untaught(self) -> list[str]:
        """The numbered dice waiting checks need (oldest check first) that no set reads."""
        return [
            d for d in self._table.needs() if d not in PIP_DICE and d not in self._reader.diesets
        ]

    def _check_untaught(self, result: ThrowReading) -> None:
        """Say once a run for each numbered die a check waits for that no taught set reads,
        when the camera sees one: it leaves such dice to be typed by hand.  Not before one
        is seen: the check may be fed by a tower that throws that die (the demo's d10s)."""
        for need in dict.fromkeys(d.die for d in result.dice if d.problem == NUMBERED_UNTAUGHT):
            if need in self._told_untaught or need == NUMBERED_KIND:
                continue
            self._told_untaught.add(need)
            self._table.source_event(self.name, "notice", {"detail": (
                f"a check waits for {need}s: the camera reads {need}s once a {need} set is "
                "taught on the Devices page; till then type their faces on the Table page"
            )})  # fmt: skip

    def _check_light(
        self, image: np.ndarray, stored: np.ndarray, tray: np.ndarray, area: TrayArea | None
    ) -> None:
        """Say once per picture (``stored``, as taken; ``tray``, as used for ``image``) when
        the light on the tray (its ``area``) has moved since it was taken: such a picture
        drops real dice (a fifth of them under a lamp's pool and an arm's shadow).  Known by
        the picture stored: the one carried onto a moved camera's frames is new each throw
        (the notice had been said again on every throw)."""
        if self._light_told is stored:
            return
        moved = light_change(image, tray, area=area)
        if moved > LIGHT_MOVED:
            self._light_told = stored
            detail = (f"the light on the tray has changed since the empty-tray picture was "
                      f"taken (parts of it {math.exp(moved):.2f} times as bright or as dark): "
                      "dice may be missed; clear the tray and take the picture again on the "
                      "Devices page")  # fmt: skip
            self._table.source_event(self.name, "notice", {"detail": detail})


def _apart(one: TrayArea | None, other: TrayArea | None) -> bool:
    """Whether two placings of the tray's area differ by a pixel of the settle detector's
    copy or more (a corner 1/WIDTH of the picture): less, the same pixels are watched."""
    if one is None or other is None or len(one.points) != len(other.points):
        return one != other
    return any(
        max(abs(a - c), abs(b - d)) >= 1 / WIDTH
        for (a, b), (c, d) in zip(one.points, other.points, strict=True)
    )


def _moved_only(
    before: np.ndarray | None, image: np.ndarray, result: ThrowReading
) -> tuple[ThrowReading, tuple[DieReading, ...]]:
    """The dice of ``result`` that moved since ``before`` (the last throw read), and those
    that lie as they lay there (vision.settle.unmoved_dice: a nudged camera taken out)."""
    if before is None or not result.dice:
        return result, ()
    still = unmoved_dice(before, image, [d.box for d in result.dice])
    if not any(still):
        return result, ()
    moved = tuple(d for d, lay in zip(result.dice, still, strict=True) if not lay)
    unmoved = tuple(d for d, lay in zip(result.dice, still, strict=True) if lay)
    return replace(result, dice=moved), unmoved


def outlined(image: np.ndarray, result: ThrowReading, unmoved: Sequence[DieReading] = ()) -> bytes:
    """The frame as JPEG with every die outlined and labelled (green read, amber unsure,
    grey lying as it lay in the throw read before: not read again; dice beyond the tray's
    area blue, "off the tray")."""
    shown = image.copy()
    for x0, y0, x1, y1 in result.beyond:
        cv2.rectangle(shown, (x0, y0), (x1, y1), OFF_TRAY, 2)
        cv2.putText(shown, "off the tray", (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, OFF_TRAY, 1, cv2.LINE_AA)  # fmt: skip
    for d, old in [(d, False) for d in result.dice] + [(d, True) for d in unmoved]:
        x0, y0, x1, y1 = d.box
        colour = (160, 160, 160) if old else (0, 190, 255) if d.uncertain else (80, 200, 60)
        cv2.rectangle(shown, (x0, y0), (x1, y1), colour, 2)
        label = "?" if d.value is None else (f"{d.value:+d}" if d.die == "dF" else str(d.value))
        cv2.putText(shown, f"{d.die}:{label}", (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, colour, 1, cv2.LINE_AA)  # fmt: skip
    ok, data = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return bytes(data) if ok else b""
