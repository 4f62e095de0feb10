"use strict";
// The live result, readable from two metres: the latest check's state, no controls.
const waitingIcon = document.querySelector("#headline img").cloneNode(true);
const resultText = (check) => (check.value !== null && check.value !== undefined
  ? (typeof check.value === "number" && !Number.isInteger(check.value) ? check.value.toFixed(2) : String(check.value))
  : check.outcome);
let lastResult = null;  // the result shown big, till a new check starts
let shown = null;  // the check shown
let shownResolved = false;  // ... and whether as resolved
// the checks this kiosk has shown or seen listed, and the state it saw each in: a check
// listed in another state (or never seen) when the socket opens again is news
const seen = new Map();
const stateOf = (check) => (check.status === "resolved" ? "resolved" : `${check.status}:${check.readings}`);
function show(check) {
  shown = check.id;
  shownResolved = check.status === "resolved";
  seen.set(check.id, stateOf(check));
  const headline = document.getElementById("headline"), detail = document.getElementById("detail"),
        prompt = document.getElementById("prompt");
  if (check.status === "resolved") {
    headline.textContent = resultText(check);
    headline.className = `big outcome ${check.success ? "success" : "failure"}`;
    detail.textContent = `${check.system}: ${check.outcome}`;
    prompt.textContent = "";
    document.getElementById("last").textContent = "";
    lastResult = check;
  } else {
    // a new check: the last result goes small and says what it was, not read as this one's
    headline.replaceChildren(waitingIcon.cloneNode(true));
    headline.className = "big";
    document.getElementById("last").textContent = lastResult
      ? `last result: ${lastResult.system} ${resultText(lastResult)}${lastResult.value !== null && lastResult.value !== undefined ? ` (${lastResult.outcome})` : ""}`
      : "";
    prompt.textContent = check.prompt || "";
    detail.textContent = `${check.system}: ${percent(check.probability)} to succeed`;
  }
}
// Each time the socket opens (the page opened or reloaded mid-game, or back after a restart
// or a dropped Wi-Fi, whose events it missed) the service is asked again: the checks that
// changed while it was away (`GET /api/checks/recent`, in the order they last changed: set
// up, given dice, resolved) are shown in that order, as their events would have been, so a
// check set up and resolved meanwhile ends on its result, and one set up meanwhile shows
// its prompt, the result before it going small.  The check shown, if it waits no more and
// is not among them, is shown resolved (withdrawn meanwhile: taken off, and the newest one
// waiting shown).  Opened (or reloaded), it shows the newest check waiting: what was listed
// then is no news.  An answer that news overtook (a check's event heard since it was asked)
// is not drawn over that news.
let heard = 0;  // the checks' events heard
let askedOnce = false;  // the service was asked since the page opened
function catchUp() {
  const asked = shown, before = heard, opened = !askedOnce;
  Promise.all([api("/api/checks"), api("/api/checks/recent")]).then(async ([waiting, recent]) => {
    const listed = new Set(recent.map((c) => c.id)), waits = new Set(waiting.map((c) => c.id));
    const remember = () => {  // what was listed, as listed, unless seen since
      askedOnce = true;
      for (const c of [...waiting, ...recent]) if (!seen.has(c.id)) seen.set(c.id, stateOf(c));
    };
    if (heard !== before) { if (opened) remember(); return; }
    const isNews = (c) => !opened && seen.get(c.id) !== stateOf(c);
    // (one waiting since before the last changes listed: older than any of them)
    const news = [...waiting.filter((c) => !listed.has(c.id) && isNews(c)), ...recent.filter(isNews)];
    let none = asked === null;  // no check shown (or the one shown is no more)
    if (!none && !shownResolved && !waits.has(asked) && !listed.has(asked)) {
      const check = await api(`/api/checks/${asked}`).catch(() => null);
      if (heard !== before) { if (opened) remember(); return; }
      if (check && check.status === "resolved") news.unshift(check);  // before those listed
      else if (!check) { clearPrompt(); none = true; }  // withdrawn, or not back after a restart
    }
    remember();
    for (const id of seen.keys()) {  // a kiosk runs for weeks: what can change no more goes
      if (!listed.has(id) && !waits.has(id)) seen.delete(id);
    }
    const newest = news.length ? news : none && waiting.length ? [waiting[waiting.length - 1]] : [];
    for (const c of newest) show(c);
  }).catch(() => {});
}
function clearPrompt() {
  document.getElementById("prompt").textContent = "";
  document.getElementById("detail").textContent = "";
}
listen((event) => {
  const picture = document.getElementById("unsure-picture");
  if (event.type === "check") { heard += 1; show(event); picture.hidden = true; }
  if (event.type === "withdrawn" && event.check === shown) {  // its prompt is no more
    heard += 1;
    clearPrompt();
    api("/api/checks").then((waiting) => {  // the newest still waiting, if any
      if (waiting.length) show(waiting[waiting.length - 1]);
    }).catch(() => {});
  }
  if (event.type === "refused") {  // too many dice thrown together: the players throw again
    document.getElementById("prompt").textContent = event.detail;
    picture.hidden = true;
  }
  if (event.type === "uncertain") {
    document.getElementById("prompt").textContent = event.advice || "";
    // which die it means, as the camera saw it (the players look for that one)
    picture.hidden = !event.crop;
    if (event.crop) {
      picture.src = `/api/crops/${event.crop}`;
      picture.alt = `the ${event.die === "numbered" ? "numbered die" : event.die} the camera is unsure of`;
    }
  }
}, (state) => {
  document.getElementById("live").textContent = state;
  if (state === "live") catchUp();
});
