"use strict";
// the headers of an admin request: the PIN typed at the top of the page
const admin = () => ({ "content-type": "application/json", "X-Admin-PIN": document.getElementById("pin").value });
// a source's news by name, in words (a tower's greeting is "iam" on the wire)
const NEWS = { iam: "said who it is", rethrow: "throw again", "unknown-die": "a die not registered",
  unreadable: "unreadable data" };
// What a tower sent that could not be read, a line each: none where there was none.
function unreadable(d) {
  const many = (n, what) => `${n} ${n === 1 ? what.slice(0, -1) : what}`;
  const what = `unreadable ${d.unreadable_unit || "frames"}`;
  const lines = [];
  if (d.unreadable) {
    const recent = d.unreadable_last_minute ? ` (${d.unreadable_last_minute} in the last minute)` : "";
    lines.push(`${many(d.unreadable, what)} since connected${recent}`);
  } else if (d.unreadable_last_minute) lines.push(`${many(d.unreadable_last_minute, what)} in the last minute`);
  if (d.refused) lines.push(`${many(d.refused, "results")} refused since connected (a die the tower never announced)`);
  return lines.map((line) => el("div", { class: "status unreadable" }, line));
}
// A source's state; a tower sending nothing readable is no "connected" one: said why, in red.
function stateCell(state, d) {
  return el("td", {}, d.garbage_only ? "nothing readable" : state,
    d.problem ? el("div", { class: "error problem" }, d.problem) : null, unreadable(d));
}
async function refresh() {
  const health = await api("/api/health");
  const details = health.source_details || {};
  const names = [...new Set([...Object.keys(health.sources), ...Object.keys(details)])].sort();
  document.getElementById("sources").replaceChildren(...names.map((name) => {
    const d = details[name] || {};
    return el("tr", {}, el("td", {}, name), stateCell(health.sources[name] || d.detail || "—", d),
      el("td", {}, d.since ? d.since.replace("T", " ").slice(0, 19) : "—"),  // as History shows times
      el("td", {}, String(d.readings ?? 0)), el("td", {}, String(d.uncertain ?? 0)),
      el("td", {}, d.last_event ? `${NEWS[d.last_event] || d.last_event}${d.detail ? ": " + d.detail : ""}` : "—"));
  }));
  return health;
}
function showPreview(source) {
  const img = document.getElementById("preview");
  img.src = `/api/sources/${encodeURIComponent(source)}/preview.jpg?t=${Date.now()}`;
  img.hidden = false;
}
document.getElementById("preview").addEventListener("error", (ev) => { ev.target.hidden = true; });
// the camera's last throw, where there is a camera (asked of a service without one, the
// picture's 404 was an error in the console on every load); hidden again if none yet
refresh().then((health) => { if (health.camera) showPreview("camera"); })
  .catch((e) => { document.getElementById("camera-note").textContent = e.message; });
listen((event) => {
  if (event.type === "source" || event.type === "reading" || event.type === "uncertain") refresh();
  if (event.type === "preview") showPreview(event.source);
});

// Mending a set (admin): forget a face shown as another by mistake, or remove the set.
function mend(d) {
  const error = document.getElementById("diesets-note");
  const call = (button, path, done) => busy(button, async () => {
    try {
      await api(`/api/diesets/${encodeURIComponent(d.name)}${path}`, { method: "DELETE", headers: admin() });
      error.textContent = done;
      diesets();
    } catch (e) { error.textContent = plain(e.message); }
  });
  const face = el("input", { type: "number", step: "1", placeholder: "face", size: 4, "aria-label": `face of ${d.name} to forget` });
  return el("td", {},
    d.problem ? "" : el("span", {}, face, " ", el("button", { type: "button", onclick: (ev) => {
      const value = whole(typed(face));
      if (typed(face) === "") { error.textContent = "type the face to forget first"; return; }
      // "2.5" or "1e1" is no face: refused here, never cut to face 2 or 1 and forgotten
      if (value === null) { error.textContent = `${d.name}: a face is a whole number, not "${typed(face)}"; nothing forgotten`; return; }
      call(ev.currentTarget, `/faces/${value}`, `${d.name}: face ${value} forgotten; show it again`);
    } }, "Forget this face")), " ",
    el("button", { type: "button", onclick: (ev) => {
      if (confirm(`Remove the die set ${d.name} and its pictures?`)) call(ev.currentTarget, "", `${d.name} removed`);
    } }, "Remove the set"));
}
// The photos a face was taught from, to check what was shown (a face named wrong is forgotten).
function hideFace() {
  document.getElementById("face-figure").hidden = true;
  document.getElementById("face-caption").textContent = "";
}
function showFace(name, value) {
  const img = document.getElementById("face-picture");
  img.src = `/api/diesets/${encodeURIComponent(name)}/faces/${value}.png?t=${Date.now()}`;
  img.alt = `the photos face ${value} of ${name} was taught from`;
  document.getElementById("face-caption").textContent = `${name}, face ${value}: the photos it was taught from`;
  document.getElementById("face-figure").hidden = false;
}
const taughtFaces = (d) => el("td", {}, ...d.taught.flatMap((v) => [el("button", { type: "button", class: "face",
  "aria-label": `show face ${v} of ${d.name}`, onclick: () => showFace(d.name, v) }, String(v)), " "]));
async function diesets() {
  const sets = await api("/api/diesets");
  // a set spoilt on disk (a face's picture gone) is not read with: its row says why
  document.getElementById("diesets").replaceChildren(...sets.map((d) => d.problem
    ? el("tr", {}, el("td", {}, d.name), el("td", { colspan: 4, class: "error" }, d.problem), mend(d))
    : el("tr", {}, el("td", {}, d.name), el("td", {}, d.die), taughtFaces(d),
      el("td", {}, d.missing.join(" ") || "—"), el("td", {}, d.once.join(" ") || "—"), mend(d))));
}
document.getElementById("teach").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const error = document.getElementById("teach-error");
  const name = document.getElementById("set-name").value;
  const field = document.getElementById("face");
  const value = whole(typed(field));
  if (!document.getElementById("set-name").validity.valid) {
    error.textContent = "a die set's name is small letters, digits and dashes, as my-d20";
    hideFace();
    return;
  }
  if (value === null) {  // refused here: "2.5" is not taught as face 2
    error.textContent = typed(field) === "" ? "type the face shown first" : `a face is a whole number, not "${typed(field)}"`;
    hideFace();
    return;
  }
  await busy(ev.currentTarget.querySelector("button[type=submit]"), async () => {
    try {
      const taught = await api(`/api/diesets/${encodeURIComponent(name)}/teach`, { method: "POST",
        headers: admin(),
        body: { die: document.getElementById("set-die").value, value } });
      error.textContent = taught.note;  // taught, but perhaps from another die: check it
      diesets();
      showFace(name, value);  // what was just taught, to check it
    } catch (e) {
      error.textContent = plain(e.message);
      hideFace();  // the picture of an earlier success is not this try's
    }
  });
});
document.getElementById("teach").noValidate = true;  // the page says what is wrong
diesets().catch(() => {});

document.getElementById("show-settings").addEventListener("click", (ev) => busy(ev.currentTarget, async () => {
  const error = document.getElementById("settings-error");
  try {
    const settings = await api("/api/settings", { headers: admin() });
    document.getElementById("settings").replaceChildren(...Object.entries(settings).map(([k, v]) =>
      el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, v === null || v === undefined ? "not set" : typeof v === "object" ? JSON.stringify(v) : String(v)))));
    error.textContent = "";
  } catch (e) { error.textContent = plain(e.message); }
}));

const TRAY_STATE = {
  taken: (t) => `In use: taken here at ${t.taken_at} (${t.size.join(" × ")} px).`,
  settings: (t) => `In use: the settings' photo ${t.file} (${t.size.join(" × ")} px).`,
  none: () => "None in use: the camera finds dice without one.",
};
function showTray(tray) {
  document.getElementById("tray-state").textContent = TRAY_STATE[tray.in_use](tray);
  const img = document.getElementById("tray-picture");
  img.hidden = tray.in_use === "none";
  if (!img.hidden) img.src = `/api/empty-tray.jpg?t=${Date.now()}`;
}
async function emptyTray(method) {
  const error = document.getElementById("tray-error");
  try {
    const options = method === "GET" ? {} : { method,
      headers: admin(),
      body: method === "POST" ? { source: "camera" } : undefined };
    const tray = await api("/api/empty-tray", options);
    showTray(tray);
    error.textContent = tray.problem || "";  // a picture spoilt on disk: not used, and why
  } catch (e) { error.textContent = e.message; }
}
document.getElementById("take-tray").addEventListener("click", (ev) => busy(ev.currentTarget, () => emptyTray("POST")));
document.getElementById("forget-tray").addEventListener("click", (ev) => busy(ev.currentTarget, () => emptyTray("DELETE")));
emptyTray("GET");

// Teaching by throwing: collect settled one-die throws, group them, name the groups.
const setName = () => encodeURIComponent(document.getElementById("set-name").value);
function showCollect(c) {
  document.getElementById("collect-state").textContent =
    `${c.name} (${c.die}): ${c.pictures} pictures${c.collecting ? ", collecting" : ""}` +
    (c.groups.length ? `, ${c.groups.length} groups` : "");
  document.getElementById("groups").replaceChildren(...c.groups.map((g) => el("li", {},
    el("img", { src: `/api/diesets/${setName()}/groups/${g.group}.png?t=${Date.now()}`, alt: `group ${g.group}`, height: 96 }),
    el("label", {}, `group ${g.group} (${g.pictures} pictures) shows `,
      el("input", { type: "number", step: "1", class: "group-face", "data-group": g.group })))));
  document.getElementById("collect-teach").hidden = !c.groups.length;
  // sent back with the names: groups made again since (another tab) are refused, not taught
  document.getElementById("groups").dataset.grouping = c.grouping;
}
async function collect(button, method, path, body) {
  const error = document.getElementById("collect-error");
  await busy(button, async () => {
    try {
      showCollect(await api(`/api/diesets/${setName()}/${path}`, { method, headers: admin(), body }));
      error.textContent = "";
    } catch (e) { error.textContent = plain(e.message); }
  });
}
document.getElementById("collect-start").addEventListener("click", (ev) =>
  collect(ev.currentTarget, "POST", "collect", { die: document.getElementById("set-die").value }));
document.getElementById("collect-stop").addEventListener("click", (ev) => collect(ev.currentTarget, "DELETE", "collect"));
document.getElementById("collect-group").addEventListener("click", (ev) => collect(ev.currentTarget, "POST", "groups"));
document.getElementById("collect-teach").addEventListener("click", (ev) => busy(ev.currentTarget, async () => {
  const error = document.getElementById("collect-error");
  const values = {}, wrong = [];
  for (const input of document.querySelectorAll("input.group-face")) {
    if (typed(input) === "") continue;
    const face = whole(typed(input));
    if (face === null) wrong.push(`group ${input.dataset.group}: a face is a whole number, not "${typed(input)}"`);
    else values[input.dataset.group] = face;
  }
  if (wrong.length) { error.textContent = `${wrong.join("; ")}; nothing taught`; return; }
  try {
    const grouping = document.getElementById("groups").dataset.grouping || "";
    const taught = await api(`/api/diesets/${setName()}/groups/teach`, { method: "POST", headers: admin(), body: { values, grouping } });
    error.textContent = taught.warnings.join(" ");  // taught, but a group may hold another die
    document.getElementById("collect-state").textContent =
      `taught ${taught.name}: ${taught.taught.join(" ")}` + (taught.missing.length ? `; still to show: ${taught.missing.join(" ")}` : "");
    diesets();
  } catch (e) {
    if (e.status === 409) {  // regrouped since: the groups as they are now, to name again
      const now = await api(`/api/diesets/${setName()}/collect`).catch(() => null);
      if (now) showCollect(now);
    }
    error.textContent = plain(e.message);
  }
}));
listen((event) => {
  if (event.type === "source" && event.event === "collected") {
    document.getElementById("collect-state").textContent = event.detail;
  }
});

// The live view: the camera's newest frame about once a second, while placing the camera.
let liveTimer = null;
// The camera's newest frame (the reply); an Error with the appliance's words where there is none.
async function cameraFrame() {
  const reply = await fetch(`/api/camera/live.jpg?t=${Date.now()}`).catch(() => null);
  if (!reply) throw new Error("the appliance does not answer");
  if (!reply.ok) throw new Error((await reply.json().catch(() => ({}))).detail || reply.statusText);
  return reply;
}
// ``img`` shows the frame in ``reply`` (the picture before let go)
async function showFrame(img, reply) {
  const old = img.src;
  img.src = URL.createObjectURL(await reply.blob());
  if (old.startsWith("blob:")) URL.revokeObjectURL(old);
}
async function liveFrame() {
  const note = document.getElementById("live-note");
  let reply;
  try { reply = await cameraFrame(); } catch (e) { note.textContent = e.message; return; }
  const img = document.getElementById("live-view");
  await showFrame(img, reply);
  img.hidden = false;
  const fps = reply.headers.get("x-frames-per-second");
  note.textContent = `${reply.headers.get("x-frame-size").replace("x", " × ")} px` + (fps ? `, ${fps} frames a second` : "");
}
document.getElementById("live-toggle").addEventListener("click", (ev) => {
  const button = ev.currentTarget;
  if (liveTimer) {
    clearInterval(liveTimer);
    liveTimer = null;
    document.getElementById("live-view").hidden = true;
  } else {
    liveFrame();
    liveTimer = setInterval(liveFrame, 1000);
  }
  button.setAttribute("aria-pressed", String(Boolean(liveTimer)));
  button.textContent = liveTimer ? "Stop the live view" : "Live view";
});

// The tray's area in the picture: its corners clicked on the camera's picture, or typed.
const areaField = document.getElementById("area-corners");
const areaShown = (a) => `${a.points.length} corners, ${Math.round(100 * a.share)}% of the picture`;
const AREA_STATE = {
  marked: (a) => `In use: marked here (${areaShown(a)}).`,
  settings: (a) => `In use: the settings' tray_area (${areaShown(a)}).`,
  whole: () => "None: the whole picture is the tray.",
};
const share3 = (v) => Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000;
const cornersText = (points) => points.map(([x, y]) => `${share3(x)},${share3(y)}`).join("; ");
// "x,y; x,y; …" as [[x, y], …]; what is not two numbers is said in ``bad``
function corners(text) {
  const points = [], bad = [];
  text.split(";").map((s) => s.trim()).filter(Boolean).forEach((part, k) => {
    const xy = part.split(",").map((v) => v.trim());
    if (xy.length === 2 && xy.every((v) => v !== "" && Number.isFinite(Number(v)))) points.push(xy.map(Number));
    else bad.push(`corner ${k + 1} is "${part}", not x,y`);
  });
  return { points, bad };
}
function drawCorners() {
  const ns = "http://www.w3.org/2000/svg";
  const points = corners(areaField.value).points;
  const img = document.getElementById("area-picture");
  const aspect = img.naturalHeight ? img.naturalWidth / img.naturalHeight : 1;  // round dots
  const shape = (tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const line = points.map(([x, y]) => `${x},${y}`).join(" ");
  const tag = points.length >= 3 ? "polygon" : "polyline";
  document.getElementById("area-marks").replaceChildren(
    shape(tag, { points: line, class: "under" }), shape(tag, { points: line, class: "outline" }),
    ...points.map(([x, y]) => shape("ellipse", { cx: x, cy: y, rx: 0.008, ry: 0.008 * aspect, class: "corner" })));
}
function showArea(area) {
  document.getElementById("area-state").textContent = AREA_STATE[area.in_use](area);
  areaField.value = cornersText(area.points || []);
  drawCorners();
}
async function trayArea(method) {
  const error = document.getElementById("area-error");
  const options = method === "GET" ? {} : { method, headers: admin() };
  if (method === "PUT") {
    const { points, bad } = corners(areaField.value);
    if (bad.length) { error.textContent = `${bad.join("; ")}: each corner is two shares of the picture, as 0.1,0.2`; return; }
    options.body = { points };
  }
  try {
    const area = await api("/api/tray-area", options);
    showArea(area);
    error.textContent = area.problem || "";  // a marked area spoilt on disk: not used, and why
  } catch (e) { error.textContent = e.message; }
}
async function showAreaPicture() {
  await showFrame(document.getElementById("area-picture"), await cameraFrame());
  document.getElementById("area-frame").hidden = false;
}
document.getElementById("area-fresh").addEventListener("click", async () => {
  const error = document.getElementById("area-error");
  try {
    await showAreaPicture();
    error.textContent = "";
  } catch (e) { error.textContent = e.message; }
});
document.getElementById("suggest-area").addEventListener("click", async () => {
  const error = document.getElementById("area-error");
  const note = document.getElementById("area-note");
  try {
    const found = await api("/api/tray-area/suggested");
    note.textContent = found.detail;
    error.textContent = "";
    if (!found.points) return;
    areaField.value = cornersText(found.points);
    drawCorners();
    await showAreaPicture().catch(() => {});  // the corners are in the field either way
  } catch (e) { note.textContent = ""; error.textContent = e.message; }
});
document.getElementById("area-picture").addEventListener("load", drawCorners);
document.getElementById("area-picture").addEventListener("click", (ev) => {
  const img = ev.currentTarget;
  const points = corners(areaField.value).points;
  points.push([share3(ev.offsetX / img.clientWidth), share3(ev.offsetY / img.clientHeight)]);
  areaField.value = cornersText(points);
  drawCorners();
});
areaField.addEventListener("input", drawCorners);
document.getElementById("clear-corners").addEventListener("click", () => {
  areaField.value = "";
  drawCorners();
});
document.getElementById("save-area").addEventListener("click", (ev) => busy(ev.currentTarget, () => trayArea("PUT")));
document.getElementById("forget-area").addEventListener("click", (ev) => busy(ev.currentTarget, () => trayArea("DELETE")));
trayArea("GET");
