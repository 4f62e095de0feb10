"use strict";
// The live result, readable from two metres: the latest check's state, no controls.
const waitingIcon = document.querySelector("#headline img").cloneNode(true);
const resultText = (check) => (check.value !== null && check.value !== undefined
  ? (typeof check.value === "number" && !Number.isInteger(check.value) ? check.value.toFixed(2) : String(check.value))
  : check.outcome);
let lastResult = null;  // the result shown big, till a new check starts
let shown = null;  // the check shown
let shownResolved = false;  // ... and whether as resolved
const known = new Set();  // the checks this kiosk has shown or seen listed: older than any other
function show(check) {
  shown = check.id;
  shownResolved = check.status === "resolved";
  known.add(check.id);
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
// or a dropped Wi-Fi, whose events it missed) the service is asked again: the check shown,
// if it waits no more, is shown resolved (withdrawn meanwhile: taken off); then the newest
// check set up meanwhile, else (none shown) the newest one waiting.  An answer that news
// overtook (a check's event heard since it was asked) is not drawn over that news.
let heard = 0;  // the checks' events heard
function catchUp() {
  const asked = shown, before = heard;
  api("/api/checks").then(async (waiting) => {
    let none = asked === null;  // no check shown (or the one shown is no more)
    if (!none && !shownResolved && !waiting.some((c) => c.id === asked)) {
      const check = await api(`/api/checks/${asked}`).catch(() => null);
      if (heard !== before) return;
      if (check && check.status === "resolved") show(check);
      else if (!check) { clearPrompt(); none = true; }  // withdrawn, or not back after a restart
    }
    if (heard !== before) return;
    const fresh = waiting.filter((c) => !known.has(c.id));  // set up while not listening
    for (const c of waiting) known.add(c.id);  // (an older one left waiting is not news)
    const newest = fresh.length ? fresh : none ? waiting : [];
    if (newest.length) show(newest[newest.length - 1]);
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
