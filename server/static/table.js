"use strict";
let systems = {};
const cards = new Map();
const KEEP_RESOLVED = 12;  // resolved checks kept on the page (the History page has them all)

// The form's values as the service takes them, and what is wrong with them in words: a
// decimal in a whole-number field is refused here, never cut to another number.
function params() {
  const out = {}, problems = [];
  for (const input of document.querySelectorAll("#fields [name]")) {
    if (input.type === "checkbox") { if (input.checked) out[input.name] = true; continue; }
    const text = typed(input), kind = input.dataset.kind, name = input.name.replaceAll("_", " ");
    if (text === "") continue;
    if (kind === "int") {
      const n = whole(text);
      if (n === null) problems.push(`${name} must be a whole number`);
      else out[input.name] = n;
    } else if (kind === "ints") {
      const parts = text.split(/[\s,;]+/).filter(Boolean), ns = parts.map(whole);
      if (ns.some((n) => n === null)) problems.push(`${name} must be whole numbers, as 3 5`);
      else out[input.name] = ns;
    } else if (kind === "number") {
      const n = Number(text);
      if (!Number.isFinite(n)) problems.push(`${name} must be a number`);
      else out[input.name] = n;
    } else out[input.name] = input.value;
  }
  return { values: out, problems };
}

// A form the service finds incomplete ("--level and --difficulty are required (or use
// --opposed)"): what to give, in words, naming only the fields on the form; null otherwise.
function missingHint(message) {
  if (!/\brequired\b/.test(message)) return null;
  const onForm = (part) => [...part.matchAll(/--([a-z][a-z0-9-]*)/g)]
    .map((m) => m[1].replaceAll("-", "_"))
    .filter((name) => document.querySelector(`#fields [name="${name}"]`))
    .map((name) => name.replaceAll("_", " "));
  const [main, alt = ""] = message.split(/\(or /);
  const need = onForm(main), other = onForm(alt);
  if (!need.length && !other.length) return "Fill in the form to see the odds.";
  const joined = need.join(/one of/.test(main) ? " or " : " and ");
  if (!need.length) return `Give the ${other.join(" or ")} to see the odds.`;
  return `Give the ${joined}${other.length ? ` (or the ${other.join(" or ")})` : ""} to see the odds.`;
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
    const chartBox = document.getElementById("chart");
    const { values, problems } = params();
    if (problems.length) {  // refused here: no odds of another value than the one typed
      odds.textContent = ""; chartBox.replaceChildren();
      error.textContent = problems.join("; ");
      return;
    }
    const empty = [...document.querySelectorAll("#fields [required]")].filter((x) => typed(x) === "");
    if (empty.length) {  // a form just opened is not an error: say what the odds wait for
      odds.textContent = `Give the ${empty.map((x) => x.name.replaceAll("_", " ")).join(" and ")} to see the odds.`;
      chartBox.replaceChildren();
      error.textContent = "";
      return;
    }
    try {
      const r = await api("/api/odds", { method: "POST", body: { system: document.getElementById("system").value, params: values } });
      odds.textContent = `${r.description}: ${percent(r.probability)}${r.exact ? ` (exactly ${r.exact})` : ""}`;
      chartBox.replaceChildren(
        r.distribution ? chart(r.distribution, r.success_from) : curve(r.might, r.swing, 0));
      error.textContent = "";
    } catch (e) {
      chartBox.replaceChildren();
      const hint = missingHint(e.message);  // a form not yet complete: no error, a hint
      odds.textContent = hint || "";
      error.textContent = hint ? "" : plain(e.message);
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
  const enter = el("button", { type: "submit" }, "Enter dice");
  const form = el("form", { novalidate: true, onsubmit: async (ev) => {
      ev.preventDefault();
      error.textContent = "";  // an old refusal is not this try's
      const fields = [...form.querySelectorAll("input.face")];
      const values = fields.map((x) => whole(typed(x)));
      const wrong = fields.findIndex((x, i) => values[i] === null);
      if (wrong >= 0) {  // refused here: a face cut to another number would be recorded
        error.textContent = typed(fields[wrong]) === ""
          ? `type the face of ${need.die} number ${wrong + 1} first`
          : `${need.die} number ${wrong + 1}: a face is a whole number, not "${typed(fields[wrong])}"`;
        fields[wrong].focus();
        return;
      }
      const dice = values.map((value) => ({ die: need.die, value }));
      await busy(enter, async () => {
        try { update(await api(`/api/checks/${check.id}/dice`, { method: "POST", body: { dice } })); }
        catch (e) { error.textContent = plain(e.message); }
      });
    } },
    el("label", {}, `Enter the ${need.count} ${need.die} by hand`), inputs, " ",
    enter, " ",
    el("button", { type: "button", onclick: (ev) => busy(ev.currentTarget, async () => {
      error.textContent = "";
      try { update(await api(`/api/checks/${check.id}/roll`, { method: "POST" })); }
      catch (e) { error.textContent = plain(e.message); } }) }, "Let the appliance throw"), " ",
    hasCamera ? el("button", { type: "button", title: "dice thrown before this check was set up",
      onclick: (ev) => busy(ev.currentTarget, async () => {
        try { error.textContent = ""; status.textContent = (await api("/api/camera/read-again", { method: "POST" })).detail; }
        catch (e) { error.textContent = plain(e.message); } }) }, "Read the tray again") : "",
    " ",
    // set up by mistake: it waits for no more dice (the ledger keeps it, and its dice so far)
    el("button", { type: "button", class: "withdraw", onclick: (ev) => {
      if (!confirm("Withdraw this check? It takes no more dice (the ledger keeps it).")) return;
      busy(ev.currentTarget, async () => {
        error.textContent = "";
        try {
          await api(`/api/checks/${check.id}/withdraw`, { method: "POST", body: { reason: "withdrawn on the Table page" } });
          drop(check.id);
        } catch (e) { error.textContent = plain(e.message); }
      });
    } }, "Withdraw"),
    status, error);
  return form;
}

// Whether the keyboard's focus is in ``part`` (a card, an unsure die), or was till one of
// its buttons was disabled while its request ran (busy() marks the part meanwhile).
const holdsFocus = (part) => part.contains(document.activeElement) || part.dataset.busy === "1";

// The focus of a part that leaves the page goes on to ``next`` (its first field or button,
// else the part itself), else to ``heading``: it fell to the page's body, where a keyboard
// starts again at the top.
function handFocus(next, heading) {
  if (!next) { heading.focus(); return; }
  const control = next.querySelector("input, button");
  if (!control) next.setAttribute("tabindex", "-1");
  (control || next).focus();
}

// A check withdrawn (here or elsewhere) leaves the page; the focus in its card goes on to the
// card below (else above, else the list's heading).
function drop(id) {
  const card = cards.get(id);
  cards.delete(id);
  if (!card) return;
  const focused = holdsFocus(card);
  const next = [card.nextElementSibling, card.previousElementSibling]
    .find((c) => c && c.matches("article.card"));
  card.remove();
  if (focused) handFocus(next, document.getElementById("checks-title"));
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
  // the focus in this card (a die typed and Enter) stays in it when it is drawn again
  const keep = card.contains(document.activeElement) || card.dataset.busy === "1";
  // (several scores, "opposed=10, 11, 12": spaced, so a phone's line can break between them)
  const param = ([k, v]) => `${k}=${Array.isArray(v) ? v.join(", ") : v}`;
  const title = el("h3", {}, `${check.system} ${Object.entries(check.params || {}).map(param).join(" ")}`);
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
  if (keep) {
    card.setAttribute("tabindex", "-1");  // a resolved card has no field: the card itself
    (card.querySelector("input, button") || card).focus();
  }
}

// A die the camera could not read surely: its picture, what to do, and one press to say
// what it shows (the camera's guess) or another face; fed to the waiting check like a reading.
function unsure(event) {
  const list = document.getElementById("unsure");
  const error = el("p", { class: "error", role: "alert" });
  const other = el("input", { type: "number", step: "1", "aria-label": `face of the unsure ${event.die}` });
  const item = el("li", { "data-row": event.row });
  news("");  // an older "settled on another screen" is old news
  // settled (or dismissed): it leaves the page, its focus going on to the next die, else to
  // the heading (of this list, or of the checks once it is empty)
  const done = (said = "") => {
    const focused = holdsFocus(item);
    const next = item.nextElementSibling || item.previousElementSibling;
    item.remove();
    document.getElementById("unsure-section").hidden = !list.children.length;
    if (focused) handFocus(next, document.getElementById(list.children.length ? "unsure-title" : "checks-title"));
    if (said) news(said);
  };
  let sending = false;  // its answer, not the event of the reading it makes, takes it off
  const send = async (face) => {
    error.textContent = "";
    sending = true;
    try {
      const reply = await api(`/api/readings/${event.row}/confirm`, { method: "POST", body: face === null ? {} : { face } });
      if (reply.check) update(reply.check);
      done();
    } catch (e) {  // 409: confirmed already, on another screen (its event not heard yet)
      if (e.status === 409) done(`The unsure ${event.die} (row ${event.row}) was settled already, on another screen.`);
      else error.textContent = plain(e.message);
    } finally { sending = false; }
  };
  // settled on another screen: the reading it made names its row (see start())
  item.addEventListener("settled", () => {
    if (!sending) done(`The unsure ${event.die} (row ${event.row}) was settled on another screen.`);
  });
  // the guess is offered only when the camera asks for it ("confirm: 5?"), not when its
  // advice is to re-throw (a guess that poor must not be one press away)
  const asks = (event.advice || "").startsWith("confirm") && event.value !== null && event.value !== undefined;
  const guess = asks ? faceText(event.die, event.value) : null;
  // "confirm: 18 or 10?": the next likeliest face is one press away too
  const runnerUp = asks && event.runner_up !== null && event.runner_up !== undefined ? event.runner_up : null;
  // a numbered die seen among pip dice is none of the dice being read: no face to give it
  // here (the server refuses one); it is entered by hand as the die it is, or taken out
  const faced = event.die !== "numbered";
  const name = faced ? event.die : "numbered die";
  // pips with no die around them, or a die far smaller than the rest: perhaps a speck
  const speck = event.problem === "no outline" || event.problem === "speck-sized";
  // a 1 the camera read beside a die it read already: perhaps one of that die's pips
  const pip = event.problem === "a pip of another die";
  // a glare spot or a pip found apart, lying on a die the camera read or asks about
  const part = event.problem === "on another die";
  const dismiss = !faced ? "Dismiss (taken out)" : speck ? "Dismiss (a speck, or re-thrown)"
    : pip ? "Dismiss (a pip of the die beside it)"
    : part ? "Dismiss (part of the die it lies on)" : "Dismiss (re-thrown)";
  item.append(
    event.crop ? el("img", { src: `/api/crops/${event.crop}`, alt: `the unsure ${name} as the camera saw it`, width: 64, height: 64 }) : "",
    el("span", {}, event.advice || `the ${name} is unclear`), " ",
    guess === null ? "" : el("button", { type: "button", class: "primary", onclick: (ev) => busy(ev.currentTarget, () => send(null)) }, `It shows ${guess}`), " ",
    runnerUp === null ? "" : el("button", { type: "button", onclick: (ev) => busy(ev.currentTarget, () => send(runnerUp)) }, `It shows ${faceText(event.die, runnerUp)}`), " ",
    faced ? el("label", {}, guess === null ? "it shows " : "or it shows ", other) : "", " ",
    faced ? el("button", { type: "button", onclick: (ev) => {
      const face = whole(typed(other));
      if (typed(other) === "") error.textContent = "type the face it shows first";
      else if (face === null) error.textContent = `a face is a whole number, not "${typed(other)}"`;
      else busy(ev.currentTarget, () => send(face));
    } }, "Enter") : "", " ",
    el("button", { type: "button", onclick: () => done() }, dismiss),
    error);
  list.prepend(item);
  while (list.children.length > 8) list.lastChild.remove();
  document.getElementById("unsure-section").hidden = false;
}

// A line under the unsure dice that says why one left the page by itself.
function news(text) {
  const line = document.getElementById("unsure-news");
  line.textContent = text;
  line.hidden = !text;
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
  const form = document.getElementById("check-form");
  form.noValidate = true;  // the page says what is wrong, in its own words
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const error = document.getElementById("form-error");
    const { values, problems } = params();
    if (problems.length) { error.textContent = problems.join("; "); return; }  // nothing sent
    await busy(form.querySelector("button[type=submit]"), async () => {
      try {
        const check = await api("/api/checks", { method: "POST", body: { system: select.value, params: values } });
        update(check);
        error.textContent = "";
        cards.get(check.id).querySelector("input, button")?.focus();  // on to the dice, keyboard too
      } catch (e) {
        const hint = missingHint(e.message);
        error.textContent = hint ? hint.replace(" to see the odds.", " first.") : plain(e.message);
      }
    });
  });
  listen((event) => {
    // a check set up elsewhere joins the page; one resolved before it was seen does not
    if (event.type === "check" && (cards.has(event.id) || event.status !== "resolved")) update(event);
    if (event.type === "withdrawn") drop(event.check);
    if (event.type === "uncertain" && event.row) unsure(event);
    // an unsure die settled on any screen: the reading it makes names the row it confirms,
    // and the die leaves every page (pressed again, it was "confirmed already")
    if (event.type === "reading" && Number.isInteger(event.confirms)) {
      for (const item of document.querySelectorAll(`#unsure li[data-row="${event.confirms}"]`)) {
        item.dispatchEvent(new CustomEvent("settled"));
      }
    }
    // a throw of more dice than the check needs now (their order is not known): say why
    // it went unused, on that check's card, till the check moves on
    if (event.type === "refused") {
      const error = cards.get(event.check)?.querySelector("p.error");
      if (error) error.textContent = event.detail;
    }
  },
         (state) => {
           document.getElementById("live").textContent = state;
           // checks set up while the page was not listening (before its socket first opened,
           // or while the Wi-Fi was down) join it now: their events were missed
           // and those waiting here that wait no more (resolved, or withdrawn, or not back after
           // a restart) are asked for one by one: shown resolved, or dropped
           if (state === "live") {
             api("/api/checks").then((now) => {
               for (const check of now) update(check);
               const waiting = new Set(now.map((c) => c.id));
               for (const [id, card] of cards) {
                 if (waiting.has(id) || card.classList.contains("resolved")) continue;
                 api(`/api/checks/${id}`).then(update, () => drop(id));
               }
             }, () => {});
           }
         });
  // dice the camera was unsure of in the last quarter hour that nobody has settled yet
  const recent = (await api("/api/readings/unsure?limit=8")).filter((r) =>
    !r.confirmed && Date.now() - Date.parse(r.at) < 15 * 60 * 1000);
  for (const r of recent.reverse()) unsure(r);
}
start();
