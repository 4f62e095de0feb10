"use strict";
// The live result, readable from two metres: the latest check's state, no controls.
function show(check) {
  const headline = document.getElementById("headline"), detail = document.getElementById("detail"),
        prompt = document.getElementById("prompt");
  if (check.status === "resolved") {
    headline.textContent = check.value !== null && check.value !== undefined
      ? (typeof check.value === "number" && !Number.isInteger(check.value) ? check.value.toFixed(2) : String(check.value))
      : check.outcome;
    headline.className = `big outcome ${check.success ? "success" : "failure"}`;
    detail.textContent = `${check.system}: ${check.outcome}`;
    prompt.textContent = "";
  } else {
    prompt.textContent = check.prompt || "";
    detail.textContent = `${check.system}: ${percent(check.probability)} to succeed`;
  }
}
listen((event) => {
  if (event.type === "check") show(event);
  if (event.type === "uncertain") document.getElementById("prompt").textContent = event.advice || "";
}, (state) => { document.getElementById("live").textContent = state; });
