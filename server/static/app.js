// dicebridge pages: a small shared script (no frameworks, nothing from outside).
"use strict";

async function api(path, options = {}) {
  const init = { headers: { "content-type": "application/json" }, ...options };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  const reply = await fetch(path, init);
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const detail = Array.isArray(data.detail)
      ? data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ")
      : data.detail || reply.statusText;
    throw Object.assign(new Error(detail), { status: reply.status });  // 409: done already
  }
  return data;
}

// Live events from /ws; reconnects by itself after a restart or a dropped Wi-Fi.
function listen(onEvent, onState) {
  let delay = 500;
  function open() {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    ws.onopen = () => { delay = 500; onState && onState("live"); };
    ws.onmessage = (m) => onEvent(JSON.parse(m.data));
    ws.onclose = () => {
      onState && onState("reconnecting");
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  open();
}

// A whole number typed in a field ("3", "-2"): the number; null for anything else ("2.5",
// "1e1", "x", ""), which a face or a count must refuse rather than cut to a whole number.
function whole(text) {
  const t = String(text ?? "").trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

// A field's text as typed: a number field holding what is no number reads "" in the DOM.
function typed(input) {
  return input.validity && input.validity.badInput ? "?" : input.value.trim();
}

// The service's words without command-line syntax: "--at-least" is "at least".
function plain(message) {
  return String(message)
    .replace(/\bargument (--[a-z][a-z0-9-]*)/g, "$1")
    .replace(/one of the arguments ((?:--[a-z][a-z0-9-]*\s*)+)is required/g,
      (_, flags) => `one of ${flags.trim().split(/\s+/).join(" or ")} is required`)
    .replace(/the following arguments are required:/g, "required:")
    .replace(/--([a-z][a-z0-9-]*)(?: [A-Z][A-Z0-9_]*)?/g, (_, flag) => flag.replaceAll("-", " "));
}

// ``button`` disabled while ``work`` (an async function) runs: a double click sends once.
// Its card (or unsure die) is marked busy meanwhile: a disabled button loses the focus, and
// the page puts it back in that part (or the next one, if that part leaves the page).
async function busy(button, work) {
  if (button.disabled) return undefined;
  button.disabled = true;
  const card = button.closest("[data-check], [data-row]");  // a card, an unsure die
  if (card) card.dataset.busy = "1";
  try { return await work(); }
  finally { button.disabled = false; if (card) delete card.dataset.busy; }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function percent(p) {
  if (p === null || p === undefined) return "";
  return p >= 0.001 || p === 0 ? `${(100 * p).toFixed(2)}%` : `${(100 * p).toExponential(2)}%`;
}

function faceText(die, face) {
  return die === "dF" ? (face > 0 ? "+" : face < 0 ? "−" : "0") : String(face);
}

// dφ: the normal curve of σdφ + μ, the part above the line to beat shaded (the seed's charts).
function curve(mu, sigma, beat) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const w = 320, h = 120, lo = mu - 4 * sigma, hi = mu + 4 * sigma;
  // a might too large for the numbers (1e308): no curve rather than NaN in the drawing
  if (![mu, sigma, beat, lo, hi, hi - lo].every(Number.isFinite) || sigma <= 0 || !(hi > lo)) return svg;
  const x = (v) => ((v - lo) / (hi - lo)) * w, y = (v) => h - h * Math.exp(-0.5 * ((v - mu) / sigma) ** 2);
  const line = [], hit = [`${x(Math.max(beat, lo))},${h}`];
  for (let i = 0; i <= 160; i++) {
    const v = lo + ((hi - lo) * i) / 160;
    line.push(`${x(v)},${y(v)}`);
    if (v >= beat) hit.push(`${x(v)},${y(v)}`);
  }
  hit.push(`${w},${h}`);
  if (![...line, ...hit].join(" ").split(/[ ,]/).every((v) => Number.isFinite(Number(v)))) return svg;
  svg.setAttribute("viewBox", `0 0 ${w} ${h + 16}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `the roll's spread around ${mu}; the shaded part beats ${beat}`);
  const area = document.createElementNS(ns, "polygon");
  area.setAttribute("points", hit.join(" ")); area.setAttribute("class", "hit");
  const path = document.createElementNS(ns, "polyline");
  path.setAttribute("points", line.join(" ")); path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  for (const v of [lo, beat, hi]) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x(v)); t.setAttribute("y", h + 12);
    t.setAttribute("text-anchor", v === lo ? "start" : v === hi ? "end" : "middle");
    t.textContent = Math.round(v * 10) / 10;
    svg.append(t);
  }
  svg.append(area, path);
  return svg;
}

// A bar chart of the outcome distribution, the success region in green (SVG, like the dφ seed's).
function chart(distribution, successFrom) {
  const ns = "http://www.w3.org/2000/svg";
  const rows = (distribution || []).filter((r) => Number.isFinite(r.outcome) && Number.isFinite(r.p));
  const svg = document.createElementNS(ns, "svg");
  if (!rows.length) return svg;
  const w = Math.max(240, rows.length * 18), h = 120, top = Math.max(...rows.map((r) => r.p));
  svg.setAttribute("viewBox", `0 0 ${w} ${h + 16}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "chance of each outcome; the outcomes that succeed are green");
  const bw = w / rows.length;
  rows.forEach((r, i) => {
    const bar = document.createElementNS(ns, "rect");
    const bh = top ? (r.p / top) * h : 0;
    bar.setAttribute("x", i * bw + 1); bar.setAttribute("y", h - bh);
    bar.setAttribute("width", Math.max(1, bw - 2)); bar.setAttribute("height", bh);
    if (successFrom !== null && successFrom !== undefined && r.outcome >= successFrom) bar.setAttribute("class", "hit");
    const title = document.createElementNS(ns, "title");
    title.textContent = `${r.outcome}: ${percent(r.p)}`;
    bar.append(title);
    svg.append(bar);
    if (rows.length <= 30 || i % Math.ceil(rows.length / 30) === 0) {
      const t = document.createElementNS(ns, "text");
      t.setAttribute("x", i * bw + bw / 2); t.setAttribute("y", h + 12);
      t.setAttribute("text-anchor", "middle"); t.textContent = r.outcome;
      svg.append(t);
    }
  });
  return svg;
}
