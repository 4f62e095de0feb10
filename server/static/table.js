"use strict";
let systems = {};
const cards = new Map();
const KEEP_RESOLVED = 12;  // resolved checks kept on the page (the History page has them all)

function params() {
  const out = {};
  for (const input of document.querySelectorAll("#fields [name]")) {
    if (input.type === "checkbox") { if (input.checked) out[input.name] = true; continue; }
    if (input.value === "") continue;
    const kind = input.dataset.kind;
    out[input.name] = kind === "int" ? parseInt(input.value, 10)
      : kind === "ints" ? input.value.split(/[\s,;]+/).filter(Boolean).map((v) => parseInt(v, 10))
      : kind === "number" ? parseFloat(input.value) : input.value;
  }
  return out;
}

function buildFields() {
  const fields = document.getElementById("fields");
  fields.replaceChildren();
  for (const p of systems[document.getElementById("system").value]) {
    const id = `p-${p.name}`;
    let input;
    if (p.kind === "flag") input = el("input", { type: "checkbox", id, name: p.name });
    else if (p.kind === "choice") input = el("select", { id, name: p.name },
      p.choices.map((c) => el("option", { value: c, selected: c === p.default }, c)));
    else input = el("input", { id, name: p.name,
      type: p.kind === "text" || p.kind === "ints" ? "text" : "number",
      inputmode: p.kind === "ints" ? "numeric" : null, placeholder: p.kind === "ints" ? "3 5" : null,
      step: p.kind === "int" ? "1" : "any", required: p.required,
      value: p.default === null ? "" : p.default, "data-kind": p.kind });
    fields.append(el("div", {}, el("label", { for: id }, p.name.replaceAll("_", " ")), input,
      el("span", { class: "help" }, p.help)));
  }
  preview();
}

let previewTimer = null;
function preview() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(async () => {
    const odds = document.getElementById("odds"), error = document.getElementById("form-error");
    const empty = [...document.querySelectorAll("#fields [required]")].filter((x) => x.value === "");
    if (empty.length) {  // a form just opened is not an error: say what the odds wait for
      odds.textContent = `Give the ${empty.map((x) => x.name.replaceAll("_", " ")).join(" and ")} to see the odds.`;
      document.getElementById("chart").replaceChildren();
      error.textContent = "";
      return;
    }
    try {
      const r = await api("/api/odds", { method: "POST", body: { system: document.getElementById("system").value, params: params() } });
      odds.textContent = `${r.description}: ${percent(r.probability)}${r.exact ? ` (exactly ${r.exact})` : ""}`;
      document.getElementById("chart").replaceChildren(
        r.distribution ? chart(r.distribution, r.success_from) : curve(r.might, r.swing, 0));
      error.textContent = "";
    } catch (e) {
      odds.textContent = ""; document.getElementById("chart").replaceChildren();
      error.textContent = e.message;
    }
  }, 150);
}

function entry(check) {
  const need = check.need && check.need[0];
  if (!need) return null;
  const inputs = [];
  for (let i = 0; i < need.count && i < 50; i++) {
    inputs.push(el("input", { type: "number", "aria-label": `${need.die} number ${i + 1}`,
      class: "face", step: "1", required: true }));
  }
  const error = el("p", { class: "error", role: "alert" });
  const status = el("p", { class: "status", role: "status" });
  const form = el("form", { onsubmit: async (ev) => {
      ev.preventDefault();
      const dice = [...form.querySelectorAll("input.face")].map((x) => ({ die: need.die, value: parseInt(x.value, 10) }));
      try { update(await api(`/api/checks/${check.id}/dice`, { method: "POST", body: { dice } })); }
      catch (e) { error.textContent = e.message; }
    } },
    el("label", {}, `Enter the ${need.count} ${need.die} by hand`), inputs, " ",
    el("button", { type: "submit" }, "Enter dice"), " ",
    el("button", { type: "button", onclick: async () => {
      try { update(await api(`/api/checks/${check.id}/roll`, { method: "POST" })); }
      catch (e) { error.textContent = e.message; } } }, "Let the appliance throw"), " ",
    hasCamera ? el("button", { type: "button", title: "dice thrown before this check was set up",
      onclick: async () => {
        try { error.textContent = ""; status.textContent = (await api("/api/camera/read-again", { method: "POST" })).detail; }
        catch (e) { error.textContent = e.message; } } }, "Read the tray again") : "",
    status, error);
  return form;
}

function update(check) {
  document.getElementById("no-checks")?.remove();
  let card = cards.get(check.id);
  if (!card) {
    card = el("article", { class: "card", "data-check": check.id });
    cards.set(check.id, card);
    document.getElementById("checks").prepend(card);
  }
  card.classList.toggle("resolved", check.status === "resolved");
  const resolved = [...cards.values()].filter((c) => c.classList.contains("resolved"));
  for (const old of resolved.slice(0, Math.max(0, resolved.length - KEEP_RESOLVED))) {
    cards.delete(old.dataset.check); old.remove();  // a long game: the oldest outcomes go
  }
  // the reply to a POST and the WebSocket event carry the same state: drawing it twice
  // would wipe a die someone started typing in between
  const { type, ...shown } = check;  // an event says "type": the state is the rest
  const state = JSON.stringify(shown);
  if (card.dataset.state === state) return;
  card.dataset.state = state;
  const title = el("h3", {}, `${check.system} ${Object.entries(check.params || {}).map(([k, v]) => `${k}=${v}`).join(" ")}`);
  if (check.status === "resolved") {
    card.replaceChildren(title,
      el("p", { class: `outcome ${check.success ? "success" : "failure"}` },
        el("strong", {}, `${check.outcome}`),
        typeof check.value === "number" ? ` — ${Number.isInteger(check.value) ? check.value : check.value.toFixed(2)}` : ""),
      el("p", {}, check.explanation || ""),
      el("p", { class: "status" }, `dice: ${(check.readings || []).map((r) => `${r.die}:${faceText(r.die, r.face)}`).join(" ")}`));
  } else {
    card.replaceChildren(title,
      el("p", { class: "prompt" }, check.prompt || ""),
      el("p", { class: "status" }, `chance before the throw: ${percent(check.probability)}`),
      entry(check));
  }
}

// A die the camera could not read surely: its picture, what to do, and one press to say
// what it shows (the camera's guess) or another face; fed to the waiting check like a reading.
function unsure(event) {
  const list = document.getElementById("unsure");
  const error = el("p", { class: "error", role: "alert" });
  const other = el("input", { type: "number", step: "1", "aria-label": `face of the unsure ${event.die}` });
  const item = el("li", { "data-row": event.row });
  const done = () => { item.remove(); document.getElementById("unsure-section").hidden = !list.children.length; };
  const send = async (face) => {
    try {
      const reply = await api(`/api/readings/${event.row}/confirm`, { method: "POST", body: face === null ? {} : { face } });
      if (reply.check) update(reply.check);
      done();
    } catch (e) { error.textContent = e.message; }
  };
  // the guess is offered only when the camera asks for it ("confirm: 5?"), not when its
  // advice is to re-throw (a guess that poor must not be one press away)
  const asks = (event.advice || "").startsWith("confirm") && event.value !== null && event.value !== undefined;
  const guess = asks ? faceText(event.die, event.value) : null;
  // "confirm: 18 or 10?": the next likeliest face is one press away too
  const runnerUp = asks && event.runner_up !== null && event.runner_up !== undefined ? event.runner_up : null;
  // a numbered die seen among pip dice is none of the dice being read: no face to give it
  // here (the server refuses one); it is entered by hand as the die it is, or taken out
  const typed = event.die !== "numbered";
  const name = typed ? event.die : "numbered die";
  // pips with no die around them, or a die far smaller than the rest: perhaps a speck
  const speck = event.problem === "no outline" || event.problem === "speck-sized";
  // a 1 the camera read beside a die it read already: perhaps one of that die's pips
  const pip = event.problem === "a pip of another die";
  // a glare spot or a pip found apart, lying on a die the camera read or asks about
  const part = event.problem === "on another die";
  const dismiss = !typed ? "Dismiss (taken out)" : speck ? "Dismiss (a speck, or re-thrown)"
    : pip ? "Dismiss (a pip of the die beside it)"
    : part ? "Dismiss (part of the die it lies on)" : "Dismiss (re-thrown)";
  item.append(
    event.crop ? el("img", { src: `/api/crops/${event.crop}`, alt: `the unsure ${name} as the camera saw it`, width: 64, height: 64 }) : "",
    el("span", {}, event.advice || `the ${name} is unclear`), " ",
    guess === null ? "" : el("button", { type: "button", class: "primary", onclick: () => send(null) }, `It shows ${guess}`), " ",
    runnerUp === null ? "" : el("button", { type: "button", onclick: () => send(runnerUp) }, `It shows ${faceText(event.die, runnerUp)}`), " ",
    typed ? el("label", {}, guess === null ? "it shows " : "or it shows ", other) : "", " ",
    typed ? el("button", { type: "button", onclick: () => {
      if (other.value === "") error.textContent = "type the face it shows first";
      else send(parseInt(other.value, 10));
    } }, "Enter") : "", " ",
    el("button", { type: "button", onclick: done }, dismiss),
    error);
  list.prepend(item);
  while (list.children.length > 8) list.lastChild.remove();
  document.getElementById("unsure-section").hidden = false;
}

let hasCamera = false;  // the "read the tray again" button only where a camera is
async function start() {
  // the form first (people start typing at once); whether there is a camera comes with it
  const [known, health, waiting] = await Promise.all(
    [api("/api/systems"), api("/api/health"), api("/api/checks")]);
  systems = known;
  hasCamera = Boolean(health.camera);
  const select = document.getElementById("system");
  for (const name of Object.keys(systems)) select.append(el("option", { value: name }, name));
  select.addEventListener("change", buildFields);
  document.getElementById("fields").addEventListener("input", preview);
  buildFields();
  // checks waiting at the table, wherever they were set up (this page before a reload,
  // another screen, the demo), before any new one: the newest on top
  for (const check of waiting) update(check);
  document.getElementById("check-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const error = document.getElementById("form-error");
    try {
      const check = await api("/api/checks", { method: "POST", body: { system: select.value, params: params() } });
      update(check);
      error.textContent = "";
      cards.get(check.id).querySelector("input, button")?.focus();  // on to the dice, keyboard too
    } catch (e) { error.textContent = e.message; }
  });
  listen((event) => {
    // a check set up elsewhere joins the page; one resolved before it was seen does not
    if (event.type === "check" && (cards.has(event.id) || event.status !== "resolved")) update(event);
    if (event.type === "uncertain" && event.row) unsure(event);
    // a throw of more dice than the check needs now (their order is not known): say why
    // it went unused, on that check's card, till the check moves on
    if (event.type === "refused") {
      const error = cards.get(event.check)?.querySelector("p.error");
      if (error) error.textContent = event.detail;
    }
  },
         (state) => { document.getElementById("live").textContent = state; });
  // dice the camera was unsure of in the last quarter hour that nobody has settled yet
  const recent = (await api("/api/readings/unsure?limit=8")).filter((r) =>
    !r.confirmed && Date.now() - Date.parse(r.at) < 15 * 60 * 1000);
  for (const r of recent.reverse()) unsure(r);
}
start();
