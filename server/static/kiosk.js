"use strict";
// The live result, readable from two metres: the latest check's state, no controls.
const waitingIcon = document.querySelector("#headline img").cloneNode(true);
const resultText = (check) => (check.value !== null && check.value !== undefined
  ? (typeof check.value === "number" && !Number.isInteger(check.value) ? check.value.toFixed(2) : String(check.value))
  : check.outcome);
let lastResult = null;  // the result shown big, till a new check starts
let shown = null;  // the check shown
function show(check) {
  shown = check.id;
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
let heard = false;  // a check's news came: it is newer than what was waiting at the start
// opened (or reloaded) mid-game: the newest check waiting for dice, till news comes
api("/api/checks").then((waiting) => {
  if (waiting.length && !heard) show(waiting[waiting.length - 1]);
}).catch(() => {});
listen((event) => {
  const picture = document.getElementById("unsure-picture");
  if (event.type === "check") { heard = true; show(event); picture.hidden = true; }
  if (event.type === "withdrawn" && event.check === shown) {  // its prompt is no more
    document.getElementById("prompt").textContent = "";
    document.getElementById("detail").textContent = "";
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
}, (state) => { document.getElementById("live").textContent = state; });
