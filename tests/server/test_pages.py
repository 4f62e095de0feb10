"""The web page as a person uses it: Playwright driving Debian's headless Chromium against a
real `dicebridge serve` process.  Screenshots of each page go to build/screenshots/."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.server.pages import CHROMIUM, NO_CHROMIUM, free_port, in_process

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
PIN = "4321"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def _start(port: int, data: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicebridge", "serve", "--port", str(port), "--data-dir", str(data)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2):
                return proc
        except OSError:
            assert time.monotonic() < deadline, "the service did not come up"
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


def _start_two_d6(page: Any) -> Any:
    """Start an exploding d6 pool check of two dice on the Table page; its card."""
    from playwright.sync_api import expect

    page.select_option("#system", "d6pool")
    page.fill("#p-level", "2")
    page.fill("#p-difficulty", "3")
    page.click("text=Start the check")
    card = page.locator("article.card").first
    expect(card.locator(".prompt")).to_have_text("throw 2 d6")
    return card


def _table_and_kiosk(browser: Any, url: str) -> tuple[Any, Any]:
    """The Table page and the kiosk of the service at ``url``, both live."""
    from playwright.sync_api import expect

    pages = []
    for path in ("/", "/kiosk"):
        page = browser.new_page()
        page.goto(f"{url}{path}")
        expect(page.locator("#live")).to_have_text("live")
        pages.append(page)
    return pages[0], pages[1]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    from server.admin import AdminPin

    AdminPin(data).set(PIN)  # set before the first start: the service then makes none
    proc = _start(port, data)
    yield f"http://127.0.0.1:{port}"
    _stop(proc)


def test_a_check_set_up_and_entered_by_hand_shows_live_on_the_kiosk(
    base: str, browser: object
) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    SHOTS.mkdir(parents=True, exist_ok=True)
    table = browser.new_page()
    kiosk = browser.new_page()
    kiosk.goto(f"{base}/kiosk")
    expect(kiosk.locator("#live")).to_have_text("live")
    table.goto(base)
    table.select_option("#system", "dphi")
    expect(table.locator("#odds")).to_have_text("Give the might to see the odds.")
    expect(table.locator("#form-error")).to_be_empty()  # an empty form is no error
    table.fill("#p-might", "0.5")
    expect(table.locator("#odds")).to_contain_text("52.49%")  # the exact odds before throwing
    expect(table.locator("#chart svg polygon.hit")).to_be_attached()  # dφ's curve, shaded
    table.screenshot(path=str(SHOTS / "table.png"), full_page=True)
    table.click("text=Start the check")
    card = table.locator("article.card").first
    expect(card.locator(".prompt")).to_have_text("throw 1 d10")
    card.get_by_label("d10 number 1").fill("4")
    card.get_by_role("button", name="Enter dice").click()
    # a 4 is a middle digit: one more.  Wait for that prompt, not the first one, or the
    # second die may be typed into a form that the first answer then draws again
    expect(card.locator(".prompt")).to_have_text("throw 1 d10 for the next digit")
    card.get_by_label("d10 number 1").fill("8")
    card.get_by_role("button", name="Enter dice").click()
    expect(card.locator(".outcome")).to_contain_text("success")
    expect(kiosk.locator("#detail")).to_contain_text("dphi: success")  # live, by itself
    kiosk.screenshot(path=str(SHOTS / "kiosk.png"))
    table.screenshot(path=str(SHOTS / "table-resolved.png"), full_page=True)


def test_the_kiosk_waits_under_a_drawn_die_not_an_emoji(base: str, browser: object) -> None:
    """Before its first result the kiosk shows the appliance's die drawing: it showed the 🎲
    emoji, a blank box on a Chromium with no colour-emoji font (this machine's; a Pi's)."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    kiosk = browser.new_page()
    kiosk.goto(f"{base}/kiosk")
    expect(kiosk.locator("#live")).to_have_text("live")
    kiosk.wait_for_function("document.querySelector('#headline img').naturalWidth > 0")
    assert kiosk.locator("#headline").inner_text().strip() == ""  # no character to draw
    size = kiosk.locator("#headline img").bounding_box()
    assert size is not None and size["height"] > 50  # large, as the result will be
    kiosk.close()


def test_a_check_set_up_elsewhere_shows_and_stays_after_a_reload(
    base: str, browser: object
) -> None:
    import json

    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    expect(page.locator("#p-might")).to_be_attached()  # the page is up

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:  # another screen at the table
        request = urllib.request.Request(
            f"{base}{path}", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps(body).encode(),
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as reply:
            return dict(json.loads(reply.read()))

    check = post("/api/checks", {"system": "d6pool", "params": {"level": 1, "difficulty": 1}})
    card = page.locator(f"article.card[data-check='{check['id']}']")
    expect(card.locator(".prompt")).to_have_text("throw 1 d6")
    kiosk = browser.new_page()  # a kiosk opened mid-game shows what the table waits for
    kiosk.goto(f"{base}/kiosk")
    expect(kiosk.locator("#prompt")).to_have_text("throw 1 d6")
    kiosk.close()
    page.reload()  # waiting checks are still there after a reload, dice can go in
    card.get_by_label("d6 number 1").fill("2")  # no explosion: resolved
    card.get_by_role("button", name="Enter dice").click()
    expect(card.locator(".outcome")).to_be_visible()
    for _ in range(13):  # a long game: the page keeps the latest 12 outcomes
        more = post("/api/checks", {"system": "d6pool", "params": {"level": 1, "difficulty": 1}})
        post(f"/api/checks/{more['id']}/dice", {"dice": [{"die": "d6", "value": 2}]})
        expect(page.locator(f"article.card[data-check='{more['id']}'] .outcome")).to_be_visible()
    expect(page.locator("article.card.resolved")).to_have_count(12)
    expect(card).to_have_count(0)  # the oldest outcome went


def test_bad_input_on_the_page_says_what_is_wrong(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    page.select_option("#system", "d6pool")
    page.fill("#p-level", "100000")
    expect(page.locator("#form-error")).not_to_be_empty()
    page.fill("#p-level", "3")
    page.fill("#p-difficulty", "4")
    expect(page.locator("#chart svg rect.hit").first).to_be_attached()  # the bars that succeed
    page.click("text=Start the check")
    card = page.locator("article.card").first
    card.get_by_label("d6 number 1").fill("9")
    card.get_by_label("d6 number 2").fill("2")
    card.get_by_label("d6 number 3").fill("2")
    card.get_by_role("button", name="Enter dice").click()
    expect(card.locator(".error")).to_contain_text("no face 9")
    expect(card.locator(".prompt")).to_have_text("throw 3 d6")  # nothing was recorded


def test_an_opposed_action_is_set_up_on_the_page_with_every_score(
    base: str, browser: object
) -> None:
    """The opposed scores were a number field: "3 5" was sent as 3, which no check takes."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    page.select_option("#system", "peupfudge")
    page.fill("#p-opposed", "3 5")
    expect(page.locator("#chart svg").first).to_be_attached()  # the odds of the scores given
    expect(page.locator("#form-error")).to_be_empty()
    page.click("text=Start the check")
    card = page.locator("article.card").first
    expect(card.locator(".prompt")).to_have_text("throw 3 dF for participant #1")
    page.close()


def test_history_lists_throws_and_every_page_is_served_locally(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    outside: list[str] = []
    failed: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(base) else None)
    # (the API's own 404s say things, such as "no picture from the camera yet")
    page.on(
        "response",
        lambda r: failed.append(r.url) if r.status >= 400 and "/api/" not in r.url else None,
    )
    page.goto(f"{base}/history")
    expect(page.locator("#rows tr").first).to_be_attached()
    page.screenshot(path=str(SHOTS / "history.png"), full_page=True)
    for path in ("/", "/kiosk", "/devices", "/tables", "/audit", "/tables/dphi"):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
    assert outside == []  # no CDN, no outside fonts
    assert failed == []  # no script, style or icon a page loads is missing (the icon was a 404)


def test_tables_and_audit_pages(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    request = urllib.request.Request(
        f"{base}/api/dice", data=b'{"name": "Blue d6", "type": "d6"}',
        headers={"content-type": "application/json", "X-Admin-PIN": PIN},
    )  # fmt: skip
    with urllib.request.urlopen(request) as reply:
        assert reply.status == 201
    page = browser.new_page()
    page.goto(f"{base}/tables")
    page.click("text=dφ with d10s")
    expect(page.locator("table").first).to_be_attached()
    page.screenshot(path=str(SHOTS / "tables-dphi.png"))
    page.goto(f"{base}/audit")
    expect(page.locator("#dice")).to_contain_text("Blue d6")
    expect(page.locator("#dice")).to_contain_text("no readings yet")
    page.screenshot(path=str(SHOTS / "audit.png"))


def test_devices_page_lists_the_sources(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(f"{base}/devices")
    expect(page.locator("#sources")).to_contain_text("manual")
    expect(page.locator("#preview")).to_be_hidden()  # no camera on this service
    page.screenshot(path=str(SHOTS / "devices.png"))


CONTRAST = """() => {
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const background = (node) => {
    for (; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const worst = [];
  for (const node of document.querySelectorAll("body *")) {
    const own = [...node.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    const text = own.length;
    if (!text || !node.offsetParent) continue;
    const fg = parse(getComputedStyle(node).color).slice(0, 3), bg = background(node);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const what = node.tagName + ":" + node.textContent.trim().slice(0, 30);
    worst.push([(a + 0.05) / (b + 0.05), what]);
  }
  worst.sort((x, y) => x[0] - y[0]);
  return worst.slice(0, 3);
}"""


@pytest.mark.parametrize("path", ["/", "/kiosk", "/history", "/tables", "/audit", "/devices"])
def test_every_text_has_readable_contrast(base: str, browser: object, path: str) -> None:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(f"{base}{path}")
    page.wait_for_load_state("networkidle")
    lowest = page.evaluate(CONTRAST)
    assert all(ratio >= 4.5 for ratio, _ in lowest), lowest  # WCAG AA for body text


def test_a_check_can_be_set_up_with_the_keyboard_alone(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    expect(page.locator("#p-might")).to_be_attached()  # the form is drawn (as a person sees)
    page.locator("#system").focus()
    page.keyboard.press("Tab")  # into the first field (might, for dφ)
    page.keyboard.type("1.5")
    expect(page.locator("#odds")).to_contain_text("%")
    page.keyboard.press("Enter")  # submits the form
    first = page.locator("article.card").first
    expect(first.locator(".prompt")).to_have_text("throw 1 d10")
    card = page.locator(f"article.card[data-check='{first.get_attribute('data-check')}']")
    expect(card.get_by_label("d10 number 1")).to_be_focused()  # the new check takes the focus
    before = card.inner_text()
    page.keyboard.type("9")
    page.keyboard.press("Enter")
    expect(card).not_to_have_text(before)  # the card changed: the die was taken
    deadline = time.monotonic() + 10  # and it is in the record (the page may redraw first)
    while True:
        latest = page.request.get(f"{base}/api/throws?limit=1").json()[0]
        if latest["check"] == card.get_attribute("data-check") or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [(d["die"], d["face"]) for d in latest["dice"]] == [("d10", 9)]
    assert page.locator("[aria-live]").count() >= 2  # results are announced


def test_teaching_on_the_devices_page_needs_the_pin_and_a_throw(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(f"{base}/devices")
    page.fill("#face", "7")
    page.fill("#pin", "0000")
    page.click("text=Teach this face")
    expect(page.locator("#teach-error")).to_contain_text("wrong admin PIN")
    page.fill("#pin", PIN)
    page.click("text=Teach this face")
    expect(page.locator("#teach-error")).to_contain_text("no settled throw")  # no camera here
    page.click("text=Show the settings")
    expect(page.locator("#settings")).to_contain_text("tumbler")
    expect(page.locator("#settings")).to_contain_text("127.0.0.1")


def _admin_and_die_sets(data: Path) -> tuple[Any, Any]:
    """The admin PIN (PIN) and the die sets' store of a service keeping its data in ``data``."""
    from server.admin import AdminPin
    from server.diesets import DieSetStore

    admin = AdminPin(data)
    admin.set(PIN)
    return admin, DieSetStore(data)


def test_a_face_taught_on_the_devices_page_shows_the_photo_it_was_taught_from(
    browser: object, tmp_path: Path
) -> None:
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import PALETTE, ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    admin, store = _admin_and_die_sets(tmp_path)
    spec = ThrowSpec(dice=("d5",), values=(3,), perspective=0.0, looks=(PALETTE[2],))
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store)
        with in_process(create_app(table, admin, store, camera=camera)) as url:
            camera.read_throw(render_throw(spec, np.random.default_rng(3)).image)  # settled
            page = browser.new_page()
            page.goto(f"{url}/devices")
            page.fill("#pin", PIN)
            page.fill("#set-name", "red-d5")
            page.select_option("#set-die", "d5")
            page.fill("#face", "3")
            page.click("text=Teach this face")
            expect(page.locator("#face-caption")).to_have_text(
                "red-d5, face 3: the photos it was taught from"
            )
            page.wait_for_function("document.getElementById('face-picture').naturalWidth === 128")
            row = page.locator("#diesets tr", has_text="red-d5")
            expect(row.locator("td").nth(3)).to_have_text("1 2 4 5")  # still to show
            expect(page.locator("#teach-error")).to_have_text("")  # nothing to check
            # the red d20 shown by mistake for face 4: taught, with a note to check it
            d20 = ThrowSpec(dice=("d20",), values=(4,), perspective=0.0, looks=(PALETTE[2],))
            camera.read_throw(render_throw(d20, np.random.default_rng(4)).image)
            page.fill("#face", "4")
            page.click("text=Teach this face")
            expect(page.locator("#teach-error")).to_contain_text(
                "face 4 is taught, but its outline is not the shape of the 1 face taught before"
            )
            expect(row.locator("td").nth(3)).to_have_text("1 2 5")
    assert store.get("red-d5").crops.keys() == {3, 4}


def test_a_face_taught_by_mistake_is_forgotten_and_a_set_removed_on_the_devices_page(
    browser: object, tmp_path: Path
) -> None:
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table
    from vision.teach_synthetic import taught_from_renders

    assert isinstance(browser, Browser)
    admin, store = _admin_and_die_sets(tmp_path)
    store.save(taught_from_renders("d10", 2, "red-d10"))
    spoilt = store.path("old-d20")
    spoilt.mkdir(parents=True)
    (spoilt / "dieset.json").write_text('{"name": "old-d20", "die": "d2', encoding="utf-8")
    with Ledger(tmp_path) as ledger, in_process(create_app(Table(ledger), admin, store)) as url:
        page = browser.new_page()
        page.on("dialog", lambda dialog: dialog.accept())  # "Remove the die set …?"
        page.goto(f"{url}/devices")
        red = page.locator("#diesets tr", has_text="red-d10")
        expect(red).to_contain_text("0 1 2 3 4 5 6 7 8 9")
        red.get_by_role("button", name="show face 3 of red-d10").click()  # what was shown
        expect(page.locator("#face-caption")).to_have_text(
            "red-d10, face 3: the photos it was taught from"
        )
        page.wait_for_function("document.getElementById('face-picture').naturalWidth === 256")
        page.locator("#face-figure").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "devices-face.png"), full_page=True)
        red.get_by_label("face of red-d10 to forget").fill("3")
        page.fill("#pin", "0000")
        red.get_by_role("button", name="Forget this face").click()
        expect(page.locator("#diesets-note")).to_contain_text("wrong admin PIN")
        page.fill("#pin", PIN)
        red.get_by_role("button", name="Forget this face").click()
        expect(page.locator("#diesets-note")).to_have_text(
            "red-d10: face 3 forgotten; show it again"
        )
        expect(red.locator("td").nth(2)).to_have_text("0 1 2 4 5 6 7 8 9")
        expect(red.locator("td").nth(3)).to_have_text("3")  # still to show
        old = page.locator("#diesets tr", has_text="old-d20")
        expect(old).to_contain_text("cannot load the die set")
        old.get_by_role("button", name="Remove the set").click()
        expect(page.locator("#diesets tr")).to_have_count(1)
        assert store.names() == ["red-d10"] and not spoilt.exists()
        assert store.get("red-d10").missing() == [3]


def test_the_empty_tray_picture_on_the_devices_page(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(f"{base}/devices")
    expect(page.locator("#tray-state")).to_contain_text("None in use")
    page.fill("#pin", "0000")
    page.click("text=Take it now")
    expect(page.locator("#tray-error")).to_contain_text("wrong admin PIN")
    page.fill("#pin", PIN)
    page.click("text=Take it now")
    expect(page.locator("#tray-error")).to_contain_text("no settled throw from camera")
    page.click("text=Stop using the one taken here")
    expect(page.locator("#tray-error")).to_be_empty()
    expect(page.locator("#tray-picture")).to_be_hidden()


def test_a_camera_die_on_the_history_page_shows_its_crop_and_can_be_corrected(
    browser: object, tmp_path: Path
) -> None:
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.admin import AdminPin
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    AdminPin(tmp_path).set(PIN)
    throw = render_throw(ThrowSpec(dice=("d6",) * 2), np.random.default_rng(92))
    with Ledger(tmp_path) as ledger:  # throws the camera read, before the service starts
        camera = CameraSource("camera", Replay([]), DiceReader(), Table(ledger))
        camera.read_throw(throw.image)
        cut = render_throw(ThrowSpec(dice=("d6",) * 2, outside=1.0), np.random.default_rng(94))
        unsure = camera.read_throw(cut.image).uncertain  # dice cut by the frame's edge
        assert unsure, "the throw of dice cut by the edge should leave dice unsure"
        row = next(iter(ledger.entries(kind="throw")))
    port = free_port()
    proc = _start(port, tmp_path)
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/history")
        expect(page.locator("#unsure-rows tr")).to_have_count(len(unsure))
        expect(page.locator("#unsure-rows img").first).to_be_visible()
        first = page.locator(f"button.die[aria-label^='row {row.id}, die 1:']")
        expect(first.locator("img")).to_be_visible()
        # the picture loads after the row is drawn (lazily): wait for it, up to 5 s
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0",
            arg=first.locator("img").element_handle(),
            timeout=5000,
        )
        face = row.body["dice"][0]["face"]
        other = face % 6 + 1
        first.click()
        expect(page.locator("#c-row")).to_have_value(str(row.id))
        expect(page.locator("#c-index")).to_have_value("1")
        expect(page.locator("#c-face")).to_be_focused()
        page.fill("#c-face", str(other))
        page.fill("#c-pin", PIN)
        page.click("text=Record it")
        expect(page.locator("#c-done")).to_contain_text(f"die 1 shows {other}")
        expect(first).to_contain_text(f"d6:{face} → {other}")
        page.fill("#c-face", "7")  # no such face on a d6
        page.click("text=Record it")
        expect(page.locator("#c-error")).to_contain_text("no face 7")
        page.screenshot(path=str(SHOTS / "history-correct.png"), full_page=True)
    finally:
        _stop(proc)


def test_dice_thrown_together_beyond_the_need_are_explained_on_the_card_and_kiosk(
    browser: object, tmp_path: Path
) -> None:
    from playwright.sync_api import Browser, expect

    from mechanics.reading import Reading
    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table

    assert isinstance(browser, Browser)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)  # the service in this process, so the test can be the camera
        with in_process(create_app(table)) as url:
            page, kiosk = _table_and_kiosk(browser, url)
            page.select_option("#system", "d5")
            page.fill("#p-at_least", "2")
            page.click("text=Start the check")
            card = page.locator("article.card").first
            expect(card.locator(".prompt")).to_have_text(
                "throw 1 d5 for the positive roll, until a 1 shows"
            )
            table.from_source("camera", [Reading("d5", f, 1.0, "camera") for f in (2, 5)])
            said = "2 d5s were thrown together, but the check needs 1 d5 at a time"
            expect(card.get_by_role("alert")).to_contain_text(said)
            expect(kiosk.locator("#prompt")).to_contain_text(said)
            table.from_source("camera", [Reading("d5", 2, 1.0, "camera")])  # one: taken
            expect(card.locator(".prompt")).to_have_text(
                "throw 1 d5 again for the positive roll, until a 1 shows"
            )
            expect(card.get_by_role("alert")).to_be_empty()  # the card moved on
            page.close()
            kiosk.close()


def test_a_check_set_up_by_mistake_is_withdrawn_on_the_table_page(
    browser: object, tmp_path: Path
) -> None:
    """It waited on, taking the camera's throws, with no way to take it off the table."""
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table

    assert isinstance(browser, Browser)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        older = table.create("dphi", {"might": 0.5})["id"]
        with in_process(create_app(table)) as url:
            page, kiosk = _table_and_kiosk(browser, url)
            other = browser.new_page()  # another screen at the table
            other.goto(url)
            expect(other.locator("#live")).to_have_text("live")
            card = _start_two_d6(page)
            mistaken = card.get_attribute("data-check")
            card = page.locator(f"article.card[data-check='{mistaken}']")
            elsewhere = other.locator(f"article.card[data-check='{mistaken}']")
            expect(elsewhere.locator(".prompt")).to_have_text("throw 2 d6")
            expect(kiosk.locator("#prompt")).to_have_text("throw 2 d6")
            page.once("dialog", lambda dialog: dialog.dismiss())  # asked first: no
            card.get_by_role("button", name="Withdraw").click()
            expect(card.locator(".prompt")).to_have_text("throw 2 d6")  # still there
            assert [c["id"] for c in table.waiting()] == [older, mistaken]
            page.once("dialog", lambda dialog: dialog.accept())
            card.get_by_role("button", name="Withdraw").click()
            expect(card).to_have_count(0)
            expect(elsewhere).to_have_count(0)  # the other screen hears it
            expect(kiosk.locator("#prompt")).to_have_text("throw 1 d10")  # the one still waiting
            expect(page.locator(f"article.card[data-check='{older}'] .prompt")).to_have_text(
                "throw 1 d10"
            )
            assert [c["id"] for c in table.waiting()] == [older]
            note = [e.body for e in ledger.entries(kind="note")]
            assert note == [{"note": "withdrawn", "check": mistaken,
                             "reason": "withdrawn on the Table page"}]  # fmt: skip
            for shown in (page, other, kiosk):
                shown.close()
        assert ledger.verify().ok


def test_a_die_the_camera_is_unsure_of_is_settled_on_the_table_page(
    browser: object, tmp_path: Path
) -> None:
    import cv2
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    image = render_throw(ThrowSpec(dice=("d6", "d6")), np.random.default_rng(4)).image
    soft = cv2.GaussianBlur(image, (0, 0), 6)  # pips blurred away: the camera only guesses
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)  # the service in this process, so the test can be the camera
        camera = CameraSource("camera", Replay([]), DiceReader(), table)
        with in_process(create_app(table, camera=camera)) as url:
            page, kiosk = _table_and_kiosk(browser, url)
            card = _start_two_d6(page)
            result = camera.read_throw(soft)
            assert result.uncertain
            shown = kiosk.locator("#unsure-picture")  # the kiosk shows which die it means
            expect(shown).to_be_visible()
            kiosk.wait_for_function("document.getElementById('unsure-picture').naturalWidth > 0")
            expect(kiosk.locator("#prompt")).to_contain_text("d6")
            item = page.locator("#unsure li").first
            expect(item.locator("img")).to_be_visible()
            expect(item).to_contain_text("d6")
            item.get_by_role("button", name="Enter").click()  # nothing typed yet
            expect(item.locator(".error")).to_have_text("type the face it shows first")
            item.get_by_label("face of the unsure d6").fill("4")
            item.get_by_role("button", name="Enter").click()
            expect(card.locator(".prompt")).to_have_text("throw 1 more d6")
            card.get_by_role("button", name="Read the tray again").click()  # a camera here
            expect(card.get_by_role("status")).to_have_text(
                "the camera reads the tray again once it is still"
            )
            page.screenshot(path=str(SHOTS / "table-unsure.png"), full_page=True)
            throw = next(iter(ledger.entries(kind="throw")))
            assert throw.body["dice"][0]["face"] == 4 and throw.body["dice"][0]["confirms"]
            page.reload()  # dice still to settle are listed again; the settled one is not
            expect(page.locator("#unsure li")).to_have_count(len(result.uncertain) - 1)


@contextmanager
def _table_page_with_camera(
    browser: Any, folder: Path, reader: Any = None
) -> Iterator[tuple[Any, Any]]:
    """The Table page, live, of a service in this process whose camera the test is (it
    hands the camera frames to read): (page, camera).  ``reader``: the camera's
    DiceReader (by default one with the shipped networks)."""
    from playwright.sync_api import expect

    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader

    with Ledger(folder) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), reader or DiceReader(), table)
        with in_process(create_app(table, camera=camera)) as url:
            page = browser.new_page()
            page.goto(f"{url}/")
            expect(page.locator("#live")).to_have_text("live")
            yield page, camera


def test_a_numbered_die_among_pip_dice_is_offered_no_face_to_type(
    browser: object, tmp_path: Path
) -> None:
    """A d20 thrown with a d6 pool: the page says to take it out, offers no face to type
    (the server refuses one: it is no d6), and the two d6s feed the pool."""
    import numpy as np
    from playwright.sync_api import Browser, expect

    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    throw = render_throw(ThrowSpec(dice=("d6", "d6", "d20")), np.random.default_rng(0))
    with _table_page_with_camera(browser, tmp_path) as (page, camera):
        card = _start_two_d6(page)
        result = camera.read_throw(throw.image)
        assert [d.die for d in result.uncertain] == ["numbered"], result.dice
        item = page.locator("#unsure li").first
        expect(item).to_contain_text("die out of the tray: it is a numbered die (d5, d10 or")
        expect(item.get_by_role("img", name="the unsure numbered die")).to_be_visible()
        expect(item.get_by_role("textbox")).to_have_count(0)
        expect(item.get_by_role("spinbutton")).to_have_count(0)
        expect(item.get_by_role("button", name="Enter")).to_have_count(0)
        # the two d6s (3 and 6) fed the pool: its 6 explodes
        expect(card.locator(".prompt")).to_have_text("throw 1 more d6 for the explosions")
        item.get_by_role("button", name="Dismiss (taken out)").click()
        expect(page.locator("#unsure li")).to_have_count(0)


def test_a_speck_read_as_a_die_can_be_dismissed_as_one(browser: object, tmp_path: Path) -> None:
    """Light specks on a black felt read as one-pip dice are asked "no outline": the page
    shows why, offers the guess, and dismisses one as a speck."""
    import numpy as np
    from playwright.sync_api import Browser, expect

    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    spec = ThrowSpec(dice=("d6",) * 2, values=(6, 6), tray=(25, 25, 28), debris=25, camera=3)
    throw = render_throw(spec, np.random.default_rng(3))
    with _table_page_with_camera(browser, tmp_path) as (page, camera):
        result = camera.read_throw(throw.image)  # no check waits: read as any pip die
        specks = [d for d in result.uncertain if d.problem == "no outline"]
        assert specks, result.dice  # measured: 4 specks read "1" or "−", each asked
        items = page.locator("#unsure li", has_text="a speck on the tray?")
        expect(items).to_have_count(len(specks))
        item = items.first
        expect(item).to_contain_text("confirm: ")
        expect(item.get_by_role("button", name=re.compile("^It shows "))).to_be_visible()
        others = page.locator("#unsure li").count() - len(specks)
        item.get_by_role("button", name="Dismiss (a speck, or re-thrown)").click()
        expect(items).to_have_count(len(specks) - 1)
        expect(page.locator("#unsure li")).to_have_count(others + len(specks) - 1)


def test_a_dark_two_found_as_two_dice_is_asked_as_one_and_its_stray_pips_dismissed(
    browser: object, tmp_path: Path
) -> None:
    """Black 2s on black felt, pips found apart (vision/split_pips.py): the page asks for
    the joined die with its guess one press away, and dismisses a stray pip as one."""
    import numpy as np
    from playwright.sync_api import Browser, expect

    from vision.finder import DieFinder
    from vision.reader import DiceReader
    from vision.render import PALETTE, ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    spec = ThrowSpec(
        dice=("d6",) * 4, values=(2,) * 4, looks=(PALETTE[1],), tray=(25, 25, 28), camera=6
    )
    throw = render_throw(spec, np.random.default_rng([32, 6]))
    # the first finder alone boxes these 2s' pips apart; the felt finder, which the shipped
    # reader finds pip dice on a dark felt with, reads three of the four surely
    first = DiceReader(finder=DieFinder(felt=None))
    with _table_page_with_camera(browser, tmp_path, first) as (page, camera):
        result = camera.read_throw(throw.image)  # no check waits: read as any pip die
        # measured: two 2s read surely, two asked as 2s joined from two 1s, and a 1 asked
        # as a pip of the 2 beside it
        assert sorted(d.value for d in result.certain) == [2, 2], result.dice
        joined = page.locator("#unsure li", has_text="it was first taken for two dice")
        expect(joined).to_have_count(2)
        expect(joined.first.get_by_role("button", name="It shows 2")).to_be_visible()
        pips = page.locator("#unsure li", has_text="it may be a pip of the die beside it")
        expect(pips).to_have_count(1)
        pips.first.get_by_role("button", name="Dismiss (a pip of the die beside it)").click()
        expect(pips).to_have_count(0)


def test_a_reflection_found_as_a_die_on_another_is_asked_and_dismissed_as_part_of_it(
    browser: object, tmp_path: Path
) -> None:
    """A lamp's glare on a black d6, boxed alone and read "1" (vision.split_pips.nested):
    the page asks about it as lying on another die and dismisses it as a part of that die."""
    import numpy as np
    from playwright.sync_api import Browser, expect

    from vision.render import PALETTE, ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    spec = ThrowSpec(dice=("d6",) * 4, looks=(PALETTE[1],), glare=0.9)
    throw = render_throw(spec, np.random.default_rng([97, 22]))
    with _table_page_with_camera(browser, tmp_path) as (page, camera):
        result = camera.read_throw(throw.image)  # no check waits: read as any pip die
        parts = [d for d in result.uncertain if d.problem == "on another die"]
        assert len(parts) == 1, result.dice  # measured: the spot on the 5 read "1" at 0.86
        items = page.locator("#unsure li", has_text="it lies on another die")
        expect(items).to_have_count(1)
        expect(items.get_by_role("button", name="It shows 1")).to_be_visible()
        items.get_by_role("button", name="Dismiss (part of the die it lies on)").click()
        expect(items).to_have_count(0)


def test_a_die_to_confirm_offers_its_guess_and_the_next_likeliest_face(
    browser: object, tmp_path: Path
) -> None:
    """'confirm: 3 or 4?': either face is one press; the second feeds the check too."""
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table

    assert isinstance(browser, Browser)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        with in_process(create_app(table)) as url:
            page = browser.new_page()
            page.goto(f"{url}/")
            expect(page.locator("#live")).to_have_text("live")
            card = _start_two_d6(page)
            advice = "confirm: 3 or 4? (the red d6)"  # as vision.reader words it
            unsure = {"die": "d6", "value": 3, "runner_up": 4, "advice": advice}
            table.uncertain("camera", unsure)
            item = page.locator("#unsure li").first
            expect(item).to_contain_text(advice)
            expect(item.get_by_role("button", name="It shows 3")).to_be_visible()
            item.get_by_role("button", name="It shows 4").click()  # 5s and 6s explode
            expect(card.locator(".prompt")).to_have_text("throw 1 more d6")
            expect(page.locator("#unsure li")).to_have_count(0)
            throw = next(iter(ledger.entries(kind="throw")))
            assert throw.body["dice"][0]["face"] == 4 and throw.body["dice"][0]["confirms"]
            # a guess to re-throw offers neither face
            table.uncertain("camera", {"die": "d6", "value": 2, "runner_up": 3,
                                       "advice": "re-throw the red d6"})  # fmt: skip
            expect(page.locator("#unsure li")).to_have_count(1)
            expect(page.locator("#unsure li").first.locator("button.primary")).to_have_count(0)
            expect(page.get_by_role("button", name="It shows 3")).to_have_count(0)
            page.screenshot(path=str(SHOTS / "table-confirm-two.png"), full_page=True)


def test_a_d5_is_taught_by_throwing_and_naming_the_groups_on_the_devices_page(
    browser: object, tmp_path: Path
) -> None:
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.admin import AdminPin
    from server.app import create_app
    from server.camera import CameraSource
    from server.collect import FaceCollector
    from server.diesets import DieSetStore
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import PALETTE, ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    AdminPin(tmp_path).set(PIN)
    store = DieSetStore(tmp_path)
    collector = FaceCollector(tmp_path, store)
    rng = np.random.default_rng(42)
    spoilt = tmp_path / "diesets" / "old-d10"  # a set whose face's picture is gone
    spoilt.mkdir(parents=True)
    (spoilt / "dieset.json").write_text('{"name": "old-d10", "die": "d10", '
                                        '"faces": {"1": ["face1-0.png"]}}')  # fmt: skip
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([]), DiceReader(), table, diesets=store,
                              collector=collector)  # fmt: skip
        app = create_app(table, AdminPin(tmp_path), store, camera=camera, collector=collector)
        with in_process(app) as url:
            page = browser.new_page()
            page.goto(f"{url}/devices")
            why = page.locator("#diesets tr").filter(has_text="old-d10").locator("td.error")
            expect(why).to_contain_text("face1-0.png: no such file")  # said, not a broken list
            expect(why).to_contain_text("teach it again")
            page.fill("#pin", PIN)
            page.fill("#set-name", "blue-d5")
            page.select_option("#set-die", "d5")
            page.get_by_role("button", name="Start collecting", exact=True).click()
            expect(page.locator("#collect-state")).to_contain_text("0 pictures, collecting")
            thrown = [1, 2, 3, 4, 5] * 2
            for value in thrown:
                spec = ThrowSpec(dice=("d5",), values=(value,), perspective=0.0,
                                 looks=(PALETTE[2],))  # fmt: skip
                camera.read_throw(render_throw(spec, rng).image)
            expect(page.locator("#collect-state")).to_have_text("picture 10 kept for blue-d5")
            page.get_by_role("button", name="Stop", exact=True).click()
            page.get_by_role("button", name="Group the pictures", exact=True).click()
            expect(page.locator("#groups li")).to_have_count(5)
            folder = tmp_path / "collect" / "blue-d5"
            shown = {(folder / f"{i:03d}.png").read_bytes(): v for i, v in enumerate(thrown)}
            for group in range(1, 6):  # the owner names each group by its picture
                first = sorted((folder / "groups" / f"group-{group:02d}").glob("*.png"))[0]
                page.fill(f"input[data-group='{group}']", str(shown[first.read_bytes()]))
            page.get_by_role("button", name="Teach the named groups", exact=True).click()
            expect(page.locator("#collect-state")).to_have_text("taught blue-d5: 1 2 3 4 5")
            expect(page.locator("#diesets")).to_contain_text("blue-d5")
            # every face was thrown twice, so none is listed as shown once
            row = page.locator("#diesets tr").filter(has_text="blue-d5")
            cells = row.locator("td:not(:last-child)")  # the last: the buttons to mend it
            expect(cells).to_have_text(["blue-d5", "d5", "1 2 3 4 5", "—", "—"])
            page.screenshot(path=str(SHOTS / "devices-groups.png"), full_page=True)


def test_the_live_view_shows_what_the_camera_sees_now(browser: object, tmp_path: Path) -> None:
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    tray = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(43)).image
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([tray], interval=0.1, hold=True), DiceReader(),
                              table)  # fmt: skip
        with in_process(create_app(table, camera=camera)) as url:
            page = browser.new_page()
            page.goto(f"{url}/devices")
            page.get_by_role("button", name="Live view").click()
            expect(page.locator("#live-note")).to_contain_text("no frame from the camera yet")
            camera.start()
            try:
                expect(page.locator("#live-note")).to_have_text(
                    "640 × 640 px, 10.0 frames a second", timeout=10_000
                )
                shown = page.locator("#live-view")
                expect(shown).to_be_visible()
                assert shown.evaluate("img => img.complete && img.naturalWidth") == 640
                button = page.get_by_role("button", name="Stop the live view")
                expect(button).to_have_attribute("aria-pressed", "true")
                button.click()
                expect(shown).to_be_hidden()
            finally:
                camera.stop()


def test_the_kiosk_reconnects_by_itself_after_a_restart(browser: object, tmp_path: Path) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    port = free_port()
    proc = _start(port, tmp_path)
    kiosk = browser.new_page()
    kiosk.goto(f"http://127.0.0.1:{port}/kiosk")
    expect(kiosk.locator("#live")).to_have_text("live")
    _stop(proc)
    expect(kiosk.locator("#live")).to_have_text("reconnecting")
    proc = _start(port, tmp_path)  # the appliance comes back (a restart, the Wi-Fi back)
    try:
        expect(kiosk.locator("#live")).to_have_text("live", timeout=20_000)
        body = b'{"system": "d6pool", "params": {"level": 1, "difficulty": 1}}'
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/checks", data=body,
                                         headers={"content-type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(request) as reply:
            assert reply.status == 201
        expect(kiosk.locator("#prompt")).to_have_text("throw 1 d6")  # events flow again
    finally:
        _stop(proc)


def test_a_tray_area_clicked_on_the_camera_picture_is_saved_refused_and_forgotten(
    browser: object, tmp_path: Path
) -> None:
    import numpy as np
    from playwright.sync_api import Browser, expect

    from server.admin import AdminPin
    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from server.tray_areas import TrayAreaStore
    from vision.frames import Replay
    from vision.reader import DiceReader
    from vision.render import ThrowSpec, render_throw

    assert isinstance(browser, Browser)
    AdminPin(tmp_path).set(PIN)
    store = TrayAreaStore(tmp_path)
    tray = render_throw(ThrowSpec(dice=("d6",)), np.random.default_rng(43)).image
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([tray], interval=0.1, hold=True), DiceReader(),
                              table, areas=store)  # fmt: skip
        app = create_app(table, AdminPin(tmp_path), camera=camera, areas=store)
        with in_process(app) as url:
            page = browser.new_page()
            page.goto(f"{url}/devices")
            state, error = page.locator("#area-state"), page.locator("#area-error")
            expect(state).to_have_text("None: the whole picture is the tray.")
            page.click("text=Show the camera's picture")
            expect(error).to_contain_text("no frame from the camera yet")
            camera.start()
            try:
                deadline = time.monotonic() + 10
                while camera.live() is None:  # its first frame
                    assert time.monotonic() < deadline, "the camera shows no frame"
                    time.sleep(0.05)
                page.click("text=Show the camera's picture")
                picture = page.locator("#area-picture")
                expect(picture).to_be_visible()
                page.wait_for_function(
                    "() => document.getElementById('area-picture').complete"
                    " && document.getElementById('area-picture').naturalWidth === 640"
                )
                expect(error).to_be_empty()
                box = picture.bounding_box()
                assert box is not None
                shares = [(0.1, 0.15), (0.9, 0.1), (0.85, 0.9), (0.15, 0.85)]
                for x, y in shares:
                    picture.click(position={"x": x * box["width"], "y": y * box["height"]})
                field = page.locator("#area-corners")
                expect(field).to_have_value(re.compile(r"^([\d.]+,[\d.]+; ){3}[\d.]+,[\d.]+$"))
                expect(page.locator("#area-marks ellipse")).to_have_count(4)
                page.fill("#pin", "0000")
                page.click("text=Save the tray area")
                expect(error).to_contain_text("wrong admin PIN")
                assert store.current() is None
                page.fill("#pin", PIN)
                page.click("text=Save the tray area")
                expect(state).to_contain_text("In use: marked here (4 corners")
                expect(error).to_be_empty()
                marked = store.current()
                assert marked is not None and len(marked.points) == 4
                for (x, y), (want_x, want_y) in zip(marked.points, shares, strict=True):
                    assert abs(x - want_x) < 0.01 and abs(y - want_y) < 0.01
                page.screenshot(path=str(SHOTS / "devices-tray-area.png"), full_page=True)
                page.click("text=Clear the corners")
                expect(field).to_have_value("")
                expect(page.locator("#area-marks ellipse")).to_have_count(0)
                field.fill("0.1,0.1; 0.9,0.9")  # typed, as with the keyboard alone
                expect(page.locator("#area-marks ellipse")).to_have_count(2)
                page.click("text=Save the tray area")
                expect(error).to_contain_text("3 to 64 corners")
                assert store.current() == marked
                page.click("text=Use the whole picture")
                expect(state).to_have_text("None: the whole picture is the tray.")
                expect(field).to_have_value("")
                assert store.current() is None
            finally:
                camera.stop()


def test_the_tray_found_in_the_last_throw_is_offered_to_check_and_save(
    browser: object, tmp_path: Path
) -> None:
    """The camera looks at a tray on a wooden table: "Find the tray in the picture" fills
    in the corners found in the last settled throw, drawn on the picture, saved only when
    the owner saves them."""
    from playwright.sync_api import Browser, expect

    from server.admin import AdminPin
    from server.app import create_app
    from server.camera import CameraSource
    from server.ledger import Ledger
    from server.table import Table
    from server.tray_areas import TrayAreaStore
    from tests.vision.test_tray_area import _tray_on_a_table
    from vision.frames import Replay
    from vision.reader import DiceReader

    assert isinstance(browser, Browser)
    AdminPin(tmp_path).set(PIN)
    store = TrayAreaStore(tmp_path)
    view, (x0, y0, x1, y1) = _tray_on_a_table(7)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        camera = CameraSource("camera", Replay([view], interval=0.1, hold=True), DiceReader(),
                              table, areas=store)  # fmt: skip
        app = create_app(table, AdminPin(tmp_path), camera=camera, areas=store)
        with in_process(app) as url:
            page = browser.new_page()
            page.goto(f"{url}/devices")
            page.click("text=Find the tray in the picture")
            expect(page.locator("#area-error")).to_contain_text("no picture of the tray yet")
            camera.start()
            try:
                deadline = time.monotonic() + 15
                while table.last_frame("camera") is None:  # settled once
                    assert time.monotonic() < deadline, "the camera never settled"
                    time.sleep(0.05)
                page.click("text=Find the tray in the picture")
                expect(page.locator("#area-note")).to_contain_text(
                    "found in the camera's last settled throw: check its corners"
                )
                expect(page.locator("#area-error")).to_be_empty()
                expect(page.locator("#area-picture")).to_be_visible()
                assert page.locator("#area-marks ellipse").count() >= 4
                assert store.current() is None  # offered, not saved
                page.fill("#pin", PIN)
                page.click("text=Save the tray area")
                expect(page.locator("#area-state")).to_contain_text("In use: marked here")
                marked = store.current()
                assert marked is not None
                xs, ys = [x for x, _ in marked.points], [y for _, y in marked.points]
                assert abs(min(xs) - x0) < 0.02 and abs(max(xs) - x1) < 0.02
                assert abs(min(ys) - y0) < 0.02 and abs(max(ys) - y1) < 0.02
            finally:
                camera.stop()


PAGES = ["/", "/kiosk", "/history", "/tables", "/audit", "/devices"]


def _checks_started(page: Any) -> list[str]:
    """The check-starting requests (POST /api/checks) ``page`` sends from now on: a list
    that grows as it sends them."""
    started: list[str] = []

    def note(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/api/checks"):
            started.append(request.url)

    page.on("request", note)
    return started


def test_a_face_that_is_no_whole_number_is_refused_on_the_devices_page(
    browser: object, tmp_path: Path
) -> None:
    """ "2.5" forgot face 2 and "1e1" face 1 (parseInt): a face must be a whole number,
    refused on the page with nothing sent; a failed teach no longer shows the last success."""
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table
    from vision.teach_synthetic import taught_from_renders

    assert isinstance(browser, Browser)
    admin, store = _admin_and_die_sets(tmp_path)
    store.save(taught_from_renders("d10", 2, "red-d10"))
    with Ledger(tmp_path) as ledger, in_process(create_app(Table(ledger), admin, store)) as url:
        page = browser.new_page()
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url) if r.method != "GET" else None)
        page.goto(f"{url}/devices")
        page.fill("#pin", PIN)
        red = page.locator("#diesets tr", has_text="red-d10")
        expect(red).to_contain_text("0 1 2 3 4 5 6 7 8 9")
        for typed in ("2.5", "1e1"):
            red.get_by_label("face of red-d10 to forget").fill(typed)
            red.get_by_role("button", name="Forget this face").click()
            expect(page.locator("#diesets-note")).to_have_text(
                f'red-d10: a face is a whole number, not "{typed}"; nothing forgotten'
            )
        red.get_by_role("button", name="show face 3 of red-d10").click()
        expect(page.locator("#face-caption")).to_contain_text("red-d10, face 3")
        page.fill("#set-name", "red-d10")
        page.fill("#face", "2.5")
        page.click("text=Teach this face")
        expect(page.locator("#teach-error")).to_have_text('a face is a whole number, not "2.5"')
        expect(page.locator("#face-figure")).to_be_hidden()  # not the earlier success's picture
        page.fill("#face", "4")
        red.get_by_role("button", name="show face 3 of red-d10").click()
        page.click("text=Teach this face")  # refused by the service: no settled throw here
        expect(page.locator("#teach-error")).to_contain_text("no settled throw")
        expect(page.locator("#face-figure")).to_be_hidden()
        assert sent == [f"{url}/api/diesets/red-d10/teach"]  # the one teach with face 4
    assert store.get("red-d10").missing() == []  # no face forgotten


def test_the_history_correction_and_the_unsure_face_take_whole_numbers_only(
    base: str, browser: object
) -> None:
    """History's correction sent parseInt("2.5") = 2; the unsure die's "or it shows" too."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.goto(f"{base}/history")
    page.fill("#c-row", "1")
    page.fill("#c-index", "1")
    page.fill("#c-face", "2.5")
    page.fill("#c-pin", PIN)
    page.click("text=Record it")
    expect(page.locator("#c-error")).to_have_text('the face is a whole number, not "2.5"')
    page.goto(base)
    expect(page.locator("#p-might")).to_be_attached()
    page.evaluate("unsure({row: 1, die: 'd6', advice: 'confirm: 5?', value: 5})")
    item = page.locator("#unsure li").first
    item.get_by_label("face of the unsure d6").fill("2.5")
    item.get_by_role("button", name="Enter", exact=True).click()
    expect(item.locator(".error")).to_have_text('a face is a whole number, not "2.5"')
    assert [u for u in sent if "/confirm" in u] == []


def test_the_table_form_refuses_a_decimal_in_a_whole_number_field(
    base: str, browser: object
) -> None:
    """Level 2.9 showed the odds of 2d6, "3.5 5" started a check with 3 and 5: the form says
    what is wrong, shows no odds and starts nothing."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    started = _checks_started(page)
    page.goto(base)
    page.select_option("#system", "d6pool")
    page.fill("#p-difficulty", "3")
    page.fill("#p-level", "2.9")
    expect(page.locator("#form-error")).to_have_text("level must be a whole number")
    expect(page.locator("#odds")).to_be_empty()
    expect(page.locator("#chart svg")).to_have_count(0)
    page.click("text=Start the check")
    page.select_option("#system", "d5")
    page.fill("#p-at_least", "3.5")
    expect(page.locator("#form-error")).to_have_text("at least must be a whole number")
    expect(page.locator("#odds")).to_be_empty()
    page.select_option("#system", "peupfudge")
    for typed in ("3.5 5", "3 x"):
        page.fill("#p-opposed", typed)
        expect(page.locator("#form-error")).to_have_text("opposed must be whole numbers, as 3 5")
        page.click("text=Start the check")
    page.wait_for_load_state("networkidle")
    assert started == []  # no check started with another value than the one typed


@pytest.mark.parametrize(
    ("system", "fill", "hint"),
    [
        ("peupfudge", {}, "Give the level and difficulty (or the opposed) to see the odds."),
        ("d5", {}, "Give the at least to see the odds."),
        ("decibel", {"#p-pool": "3"}, "Give the target or versus to see the odds."),
    ],
)
def test_an_incomplete_form_is_a_hint_in_plain_words_not_an_error(
    base: str, browser: object, system: str, fill: dict[str, str], hint: str
) -> None:
    """Opening peupfudge said "--level and --difficulty are required (or use --opposed)" in
    red; d5 named a --level-difference the form has no field for."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    expect(page.locator("#p-might")).to_be_attached()
    page.select_option("#system", system)
    for field, value in fill.items():
        page.fill(field, value)
    expect(page.locator("#odds")).to_have_text(hint)
    expect(page.locator("#form-error")).to_be_empty()


def test_a_service_message_is_shown_without_command_line_flags(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    page.select_option("#system", "d6pool")
    page.fill("#p-level", "3")  # no difficulty: "--difficulty is required (or use --versus LEVEL)"
    expect(page.locator("#odds")).to_have_text("Give the difficulty to see the odds.")
    message = page.evaluate(
        "plain('d5: one of the arguments --at-least --level-difference is required')"
    )
    assert message == "d5: one of at least or level difference is required"


def test_the_kiosk_shows_the_last_result_as_such_once_a_new_check_starts(
    base: str, browser: object
) -> None:
    """A result stayed big and green above the next check's chance, read as its value."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    table, kiosk = _table_and_kiosk(browser, base)
    table.select_option("#system", "dphi")
    table.fill("#p-might", "0.5")
    expect(table.locator("#odds")).to_contain_text("%")
    table.click("text=Start the check")
    card = table.locator("article.card").first
    card.get_by_label("d10 number 1").fill("9")
    card.get_by_role("button", name="Enter dice").click()
    expect(kiosk.locator("#detail")).to_contain_text("dphi: success")
    result = kiosk.locator("#headline").inner_text().strip()
    assert result  # the value, big
    table.click("text=Start the check")
    expect(kiosk.locator("#detail")).to_contain_text("to succeed")
    expect(kiosk.locator("#headline")).not_to_contain_text(result)
    expect(kiosk.locator("#headline img")).to_be_visible()  # waiting again
    expect(kiosk.locator("#last")).to_have_text(f"last result: dphi {result} (success)")


def test_the_focus_stays_in_a_card_drawn_again_after_dice_typed(base: str, browser: object) -> None:
    """Enter on a d6 pool's dice drew the card again ("throw 1 more d6"): the focus fell to
    the page's body."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    card = _start_two_d6(page)
    card.get_by_label("d6 number 1").focus()
    page.keyboard.type("6")
    page.keyboard.press("Tab")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    expect(card.locator(".prompt")).to_contain_text("throw 1 more d6")
    expect(card.get_by_label("d6 number 1")).to_be_focused()


@pytest.mark.parametrize("path", [*PAGES, "/tables/dphi", "/tables/d5"])
def test_every_page_fits_a_phone_screen(base: str, browser: object, path: str) -> None:
    """At 360 px the nav ran to 651 px and History and Devices' tables past the screen;
    the printable dφ table was 422 px wide at 390, and a Table card's title of eight
    opposed scores ("opposed=10,11,…,17", one word) ran past the screen."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page(viewport={"width": 360, "height": 740})
    opposed = {"system": "peupfudge", "params": {"opposed": list(range(10, 18))}}
    check = page.request.post(f"{base}/api/checks", data=opposed).json() if path == "/" else None
    page.goto(f"{base}{path}")
    page.wait_for_load_state("networkidle")
    if check is not None:
        expect(page.locator(f"article.card[data-check='{check['id']}'] h3")).to_be_visible()
    wide = page.evaluate("document.documentElement.scrollWidth")
    if check is not None:  # the module's service is shared: nothing left waiting
        page.request.post(f"{base}/api/checks/{check['id']}/withdraw", data={})
    assert wide <= 360
    page.close()


@pytest.mark.parametrize("path", PAGES)
def test_no_page_logs_a_console_error_on_load(base: str, browser: object, path: str) -> None:
    """Devices logged its set name's pattern as no valid expression (the /v flag), and asked
    a service with no camera for the camera's picture.  (An API's answer that the page shows
    in words, such as Audit's 409 "no readings yet" for a die, is logged by Chromium as a
    resource that failed to load: not an error of the page.)"""
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    page = browser.new_page()
    errors: list[str] = []

    def noted(m: Any) -> None:
        failed = m.text.startswith("Failed to load resource")
        answered = failed and "/api/dice/" in m.location["url"]
        if m.type == "error" and not answered:
            errors.append(f"{m.text} ({m.location['url']})")

    page.on("console", noted)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}{path}")
    page.wait_for_load_state("networkidle")
    assert errors == []
    page.close()


def test_a_double_click_starts_one_check(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    started = _checks_started(page)
    page.goto(base)
    page.select_option("#system", "d6pool")
    page.fill("#p-level", "2")
    page.fill("#p-difficulty", "3")
    expect(page.locator("#odds")).to_contain_text("%")
    page.dblclick("text=Start the check")
    expect(page.locator("article.card").first.locator(".prompt")).to_have_text("throw 2 d6")
    page.wait_for_load_state("networkidle")
    assert len(started) == 1


def test_a_might_too_large_draws_no_nan_into_the_chart(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(base)
    page.fill("#p-might", "1e308")
    expect(page.locator("#odds")).to_contain_text("100.00%")
    expect(page.locator("#chart polygon, #chart text")).to_have_count(0)
    assert "NaN" not in page.inner_html("#chart") and errors == []


def test_the_history_filter_matches_the_text_shown_not_field_names(
    base: str, browser: object
) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    check = page.request.post(
        f"{base}/api/checks", data={"system": "d5", "params": {"at_least": 2}}
    )
    page.request.post(f"{base}/api/checks/{check.json()['id']}/dice",
                      data={"dice": [{"die": "d5", "value": 3}]})  # fmt: skip
    page.goto(f"{base}/history")
    expect(page.locator("#rows tr").first).to_be_attached()
    for typed in ("die", '"', "confidence"):  # JSON field names and quotes, shown nowhere
        page.fill("#filter", typed)
        expect(page.locator("#rows tr")).to_have_count(0)
    page.fill("#filter", "d5:3")
    expect(page.locator("#rows tr").first).to_contain_text("d5:3")


def test_a_df_card_says_only_this_tries_refusal(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(base)
    page.select_option("#system", "peupfudge")
    page.fill("#p-opposed", "3 5")
    expect(page.locator("#chart svg").first).to_be_attached()
    page.click("text=Start the check")
    card = page.locator("article.card").first
    expect(card.locator(".prompt")).to_have_text("throw 3 dF for participant #1")
    for i in (1, 2, 3):
        card.get_by_label(f"dF number {i}").fill("2" if i == 1 else "0")
    card.get_by_role("button", name="Enter dice").click()
    expect(card.locator(".error")).to_contain_text("no face 2")
    card.get_by_label("dF number 1").fill("1.5")
    card.get_by_role("button", name="Enter dice").click()
    expect(card.locator(".error")).to_have_text('dF number 1: a face is a whole number, not "1.5"')


def test_a_setting_not_set_reads_not_set_not_null(base: str, browser: object) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    page.goto(f"{base}/devices")
    page.fill("#pin", PIN)
    page.click("text=Show the settings")
    expect(page.locator("#settings")).to_contain_text("not set")
    expect(page.locator("#settings")).not_to_contain_text("null")


class _Wifi:
    """A page's WebSocket behind a switch (Playwright's route): ``drop()`` closes the socket
    and refuses new ones, as a Wi-Fi gone; ``back()`` lets the page connect again; ``hide``
    (a test over a message from the service) keeps those messages from the page."""

    def __init__(self, page: Any, hide: Any = None) -> None:
        self.down = False
        self.open: list[Any] = []
        self.hide = hide
        page.route_web_socket(re.compile(r".*/ws$"), self._route)

    def _route(self, ws: Any) -> None:
        if self.down:
            ws.close()
            return
        self.open.append(ws)
        server = ws.connect_to_server()
        if self.hide is not None:
            server.on_message(lambda m: None if self.hide(m) else ws.send(m))

    def drop(self) -> None:
        self.down = True
        for ws in self.open:
            ws.close()
        self.open.clear()

    def back(self) -> None:
        self.down = False


def test_the_kiosk_asks_again_after_its_socket_drops(base: str, browser: object) -> None:
    """A check resolved while the kiosk's Wi-Fi was down stayed "throw 2 d6" on it for good:
    the kiosk only said "live" again; it now asks the service each time its socket opens."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    kiosk = browser.new_page()
    for might in (0.5, 1.5):  # checks left waiting from before: no news when it is back
        dphi = {"system": "dphi", "params": {"might": might}}
        kiosk.request.post(f"{base}/api/checks", data=dphi)
    wifi = _Wifi(kiosk)
    kiosk.goto(f"{base}/kiosk")
    expect(kiosk.locator("#live")).to_have_text("live")
    pool = {"system": "d6pool", "params": {"level": 2, "difficulty": 3}}
    check = kiosk.request.post(f"{base}/api/checks", data=pool).json()
    expect(kiosk.locator("#prompt")).to_have_text("throw 2 d6")
    wifi.drop()
    expect(kiosk.locator("#live")).to_have_text("reconnecting")
    dice = {"dice": [{"die": "d6", "value": 1}, {"die": "d6", "value": 2}]}
    done = kiosk.request.post(f"{base}/api/checks/{check['id']}/dice", data=dice).json()
    assert done["status"] == "resolved"
    wifi.back()
    expect(kiosk.locator("#live")).to_have_text("live", timeout=15_000)
    expect(kiosk.locator("#detail")).to_have_text(f"d6pool: {done['outcome']}")  # resolved
    expect(kiosk.locator("#prompt")).to_be_empty()
    # a check set up while it was away is shown when it is back, the result going small
    wifi.drop()
    expect(kiosk.locator("#live")).to_have_text("reconnecting")
    kiosk.request.post(f"{base}/api/checks", data={**pool, "params": {"level": 1, "difficulty": 1}})
    wifi.back()
    expect(kiosk.locator("#prompt")).to_have_text("throw 1 d6", timeout=15_000)
    expect(kiosk.locator("#last")).to_contain_text("last result: d6pool")
    waiting = kiosk.request.get(f"{base}/api/checks").json()
    for left in waiting:  # the module's service is shared: nothing left waiting
        kiosk.request.post(f"{base}/api/checks/{left['id']}/withdraw", data={})
    kiosk.close()


def test_the_kiosk_shows_a_check_set_up_and_resolved_while_its_socket_was_down(
    base: str, browser: object
) -> None:
    """A check set up and resolved while the kiosk's Wi-Fi was down was never shown: back, it
    asked again only for the check it showed and the checks waiting, and went on showing the
    result before (or the prompt of a check still waiting).  It now shows what changed
    meanwhile (`GET /api/checks/recent`), in order: the newest result."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    kiosk = browser.new_page()
    wifi = _Wifi(kiosk)
    kiosk.goto(f"{base}/kiosk")
    expect(kiosk.locator("#live")).to_have_text("live")

    def check(params: dict[str, Any], faces: list[int] | None = None) -> dict[str, Any]:
        """A d6 pool check set up through the API, resolved with ``faces`` if given."""
        made = kiosk.request.post(f"{base}/api/checks", data={"system": "d6pool", "params": params})
        if faces is None:
            return dict(made.json())
        dice = {"dice": [{"die": "d6", "value": face} for face in faces]}
        done = kiosk.request.post(f"{base}/api/checks/{made.json()['id']}/dice", data=dice).json()
        assert done["status"] == "resolved"
        return dict(done)

    def away() -> None:
        wifi.drop()
        expect(kiosk.locator("#live")).to_have_text("reconnecting")

    def back() -> None:
        wifi.back()
        expect(kiosk.locator("#live")).to_have_text("live", timeout=15_000)

    heard = check({"level": 2, "difficulty": 3}, [1, 2])  # heard live: a failure, 0
    expect(kiosk.locator("#detail")).to_have_text(f"d6pool: {heard['outcome']}")
    away()
    missed = check({"level": 2, "difficulty": 1}, [4, 3])  # a success, 2
    assert (missed["outcome"], missed["value"]) != (heard["outcome"], heard["value"])
    back()
    expect(kiosk.locator("#headline")).to_have_text(str(missed["value"]))
    expect(kiosk.locator("#detail")).to_have_text(f"d6pool: {missed['outcome']}")
    expect(kiosk.locator("#prompt")).to_be_empty()
    # away while a check waits: one set up and resolved after it is the newest result
    waiting = check({"level": 1, "difficulty": 1})
    expect(kiosk.locator("#prompt")).to_have_text("throw 1 d6")
    away()
    last = check({"level": 2, "difficulty": 3}, [1, 2])
    back()
    expect(kiosk.locator("#detail")).to_have_text(f"d6pool: {last['outcome']}")
    expect(kiosk.locator("#headline")).to_have_text(str(last["value"]))
    expect(kiosk.locator("#prompt")).to_be_empty()
    # away: one set up and resolved, then another set up: that one's prompt, the result small
    away()
    result = check({"level": 2, "difficulty": 1}, [4, 3])
    newest = check({"level": 1, "difficulty": 1})
    back()
    expect(kiosk.locator("#prompt")).to_have_text("throw 1 d6")
    expect(kiosk.locator("#last")).to_have_text(
        f"last result: d6pool {result['value']} ({result['outcome']})"
    )
    for left in (waiting, newest):  # the module's service is shared: nothing left waiting
        kiosk.request.post(f"{base}/api/checks/{left['id']}/withdraw", data={})
    kiosk.close()


def test_an_unsure_die_settled_on_one_screen_leaves_every_other(
    browser: object, tmp_path: Path
) -> None:
    """Settled on one Table page, it stayed on the others; pressed there, "row N was
    confirmed already" and it stayed still.  The focus of a die settled (or dismissed) goes
    on to the next one, then to the heading: it fell to the page's body."""
    import json

    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table

    assert isinstance(browser, Browser)

    def confirms(message: Any) -> bool:  # the reading a confirmed die makes names its row
        return "confirms" in json.loads(message)

    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        with in_process(create_app(table)) as url:
            pages = []
            for hide in (None, None, confirms):  # the third never hears that it was settled
                page = browser.new_page()
                _Wifi(page, hide)
                page.goto(f"{url}/")
                expect(page.locator("#live")).to_have_text("live")
                pages.append(page)
            here, other, deaf = pages
            rows = [table.uncertain("camera", {"die": "d6", "value": face,
                                               "advice": f"confirm: {face}? (the red d6)"})
                    for face in (3, 5)]  # fmt: skip
            for page in pages:
                expect(page.locator("#unsure li")).to_have_count(2)
            first = here.locator(f"#unsure li[data-row='{rows[1]}']")  # the newest, on top
            first.get_by_role("button", name="It shows 5").focus()
            here.keyboard.press("Enter")
            expect(first).to_have_count(0)
            settled = f"#unsure li[data-row='{rows[1]}']"
            expect(other.locator(settled)).to_have_count(0)  # heard, on the other screen
            expect(other.locator("#unsure-news")).to_have_text(
                f"The unsure d6 (row {rows[1]}) was settled on another screen."
            )
            # the focus went on to the die below, not to the page's body
            expect(here.get_by_role("button", name="It shows 3")).to_be_focused()
            # pressed on a screen that did not hear it: taken as settled, and said so
            deaf.locator(settled).get_by_role("button", name="It shows 5").click()
            expect(deaf.locator(settled)).to_have_count(0)
            expect(deaf.locator("#unsure-news")).to_have_text(
                f"The unsure d6 (row {rows[1]}) was settled already, on another screen."
            )
            expect(deaf.locator("#unsure li")).to_have_count(1)
            throws = list(ledger.entries(kind="throw"))
            assert [d["confirms"] for t in throws for d in t.body["dice"]] == [rows[1]]
            here.get_by_role("button", name="Dismiss (re-thrown)").focus()
            here.keyboard.press("Enter")  # the last one: the list goes, the checks' heading
            expect(here.locator("#unsure-section")).to_be_hidden()
            expect(here.locator("#checks-title")).to_be_focused()
            for page in pages:
                page.close()


def test_the_focus_goes_on_to_the_next_card_when_a_check_is_withdrawn(
    browser: object, tmp_path: Path
) -> None:
    """After "Withdraw" the focus fell to the page's body."""
    from playwright.sync_api import Browser, expect

    from server.app import create_app
    from server.ledger import Ledger
    from server.table import Table

    assert isinstance(browser, Browser)
    with Ledger(tmp_path) as ledger:
        table = Table(ledger)
        older = table.create("dphi", {"might": 0.5})["id"]
        newer = table.create("d6pool", {"level": 2, "difficulty": 3})["id"]
        with in_process(create_app(table)) as url:
            page = browser.new_page()
            page.goto(f"{url}/")
            expect(page.locator("#live")).to_have_text("live")
            page.on("dialog", lambda dialog: dialog.accept())
            card = page.locator(f"article.card[data-check='{newer}']")
            card.get_by_role("button", name="Withdraw").focus()
            page.keyboard.press("Enter")
            expect(card).to_have_count(0)
            below = page.locator(f"article.card[data-check='{older}']")
            expect(below.get_by_label("d10 number 1")).to_be_focused()
            below.get_by_role("button", name="Withdraw").focus()
            page.keyboard.press("Enter")
            expect(below).to_have_count(0)
            expect(page.locator("#checks-title")).to_be_focused()  # no card left: the heading
            page.close()


def test_a_die_focused_on_the_history_page_keeps_the_focus_when_a_reading_comes(
    base: str, browser: object
) -> None:
    """Every reading draws the list again: the focus fell to the page's body."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    pool = {"system": "d6pool", "params": {"level": 2, "difficulty": 3}}
    check = page.request.post(f"{base}/api/checks", data=pool)
    url = f"{base}/api/checks/{check.json()['id']}/dice"
    six = {"dice": [{"die": "d6", "value": 6}]}  # a 6 explodes: one more d6 each time

    def thrown() -> int:  # a die thrown, and the row it has
        assert page.request.post(url, data=six).json()["status"] == "need"
        return int(page.request.get(f"{base}/api/throws?limit=1").json()[0]["id"])

    def die(row: int) -> Any:
        return page.get_by_role("button", name=f"row {row}, die 1: d6 read 6")

    row = thrown()
    heard: list[Any] = []  # the page's socket's frames (History shows no "live")
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: heard.append(f)))
    page.goto(f"{base}/history")
    expect(die(row)).to_be_attached()
    deadline = time.monotonic() + 10
    while not heard:  # the service's hello: the page hears the readings from now on
        assert time.monotonic() < deadline, "History's socket did not open"
        page.wait_for_timeout(50)
    die(row).focus()
    expect(die(thrown())).to_be_attached()  # the list was drawn again
    expect(die(row)).to_be_focused()
    page.request.post(f"{base}/api/checks/{check.json()['id']}/withdraw", data={})
    page.close()


def test_the_api_page_works_with_no_internet(base: str, browser: object) -> None:
    """/api/docs loaded Swagger UI's script and style from a CDN: a blank page offline."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page()
    outside: list[str] = []
    errors: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(base):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/api/docs")
    expect(page.get_by_text("/api/checks/{check_id}/withdraw")).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()  # the operations, drawn
    page.wait_for_load_state("networkidle")
    assert outside == [] and errors == []
    page.close()
