"use strict";
let throws = [];
const when = (t) => t.at.replace("T", " ").slice(0, 19);
const sources = (t) => [...new Set(t.dice.map((d) => d.source))].join(", ");
// the text a row shows (not the data's field names: "die" or a quote matched every row)
const rowText = (t) => [t.id, when(t), t.check || "—", ...t.dice.map(dieText), sources(t)].join(" ");
function shown() {
  const q = document.getElementById("filter").value.trim().toLowerCase();
  return throws.filter((t) => !q || rowText(t).toLowerCase().includes(q));
}
function dieText(d) {
  const read = `${d.die}:${faceText(d.die, d.face)}`;
  return d.confirmed === undefined ? read : `${read} → ${faceText(d.die, d.confirmed)}`;
}
function choose(t, i) {  // fill the correction form with this die
  document.getElementById("c-row").value = t.id;
  document.getElementById("c-index").value = i + 1;
  const face = document.getElementById("c-face");
  face.value = t.dice[i].confirmed ?? t.dice[i].face;
  face.focus();
}
function dieCell(t, d, i) {
  const label = `row ${t.id}, die ${i + 1}: ${d.die} read ${faceText(d.die, d.face)}` +
    (d.confirmed === undefined ? "" : `, corrected to ${faceText(d.die, d.confirmed)}`);
  return el("button", { type: "button", class: "die", "aria-label": label, title: label,
    "data-die": `${t.id}:${i}`, onclick: () => choose(t, i) },
    d.crop ? el("img", { src: `/api/crops/${d.crop}`, alt: "", width: 40, height: 40, loading: "lazy" }) : null,
    dieText(d));
}
// Drawn again on every reading: a die that had the focus keeps it (it fell to the page's
// body, and a keyboard started again at the top); gone from the list, the heading has it.
function render() {
  const rows = document.getElementById("rows");
  const focused = rows.contains(document.activeElement) ? document.activeElement.dataset.die : null;
  rows.replaceChildren(...shown().map((t) => el("tr", {},
    el("td", {}, t.id), el("td", {}, when(t)), el("td", {}, t.check || "—"),
    el("td", {}, t.dice.map((d, i) => dieCell(t, d, i))),
    el("td", {}, sources(t)))));
  if (focused === undefined || focused === null) return;
  const again = rows.querySelector(`button[data-die="${focused}"]`);
  (again || document.getElementById("throws-title")).focus({ preventScroll: true });
}
function renderUnsure(rows) {
  document.getElementById("unsure-rows").replaceChildren(...rows.map((r) => el("tr", {},
    el("td", {}, r.row), el("td", {}, r.at.replace("T", " ").slice(0, 19)),
    el("td", {}, r.crop ? el("img", { src: `/api/crops/${r.crop}`, alt: `the unsure ${r.die}`, width: 40, height: 40, loading: "lazy" }) : "—"),
    el("td", {}, r.advice || r.problem || "unclear"),
    el("td", {}, r.confirmed ? `${faceText(r.die, r.confirmed.face)} (throw row ${r.confirmed.throw})` : "—"))));
}
function reload() {
  api("/api/readings/unsure?limit=200").then(renderUnsure).catch(() => {});
  return api("/api/throws?limit=1000").then((data) => { throws = data; render(); })
    .catch((e) => { document.getElementById("error").textContent = e.message; });
}
function download(name, text, type) {
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(a); a.click(); a.remove();
}
document.getElementById("filter").addEventListener("input", render);
document.getElementById("json").addEventListener("click", () => download("throws.json", JSON.stringify(shown(), null, 1), "application/json"));
document.getElementById("csv").addEventListener("click", () => {
  const lines = ["row,time,check,die,face,confidence,source,confirmed"];
  for (const t of shown()) for (const d of t.dice) lines.push([t.id, t.at, t.check || "", d.die, d.face, d.confidence, d.source, d.confirmed ?? ""].join(","));
  download("throws.csv", lines.join("\n") + "\n", "text/csv");
});
reload();
listen((event) => { if (event.type === "reading" || event.type === "uncertain") reload(); });
document.getElementById("correct").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const [error, done] = [document.getElementById("c-error"), document.getElementById("c-done")];
  const field = (id) => document.getElementById(id);
  const [row, index, face] = ["c-row", "c-index", "c-face"].map((id) => whole(typed(field(id))));
  // "2.5" is no row, die or face: refused here, never cut to 2 and recorded
  const wrong = [[row, "c-row", "the row"], [index, "c-index", "the die"], [face, "c-face", "the face"]]
    .filter(([n]) => n === null)
    .map(([, id, what]) => (typed(field(id)) === "" ? `give ${what}` : `${what} is a whole number, not "${typed(field(id))}"`));
  if (!field("c-pin").value) wrong.push("give the admin PIN");
  if (wrong.length) { done.textContent = ""; error.textContent = wrong.join("; "); return; }
  const button = ev.currentTarget.querySelector("button[type=submit]");
  await busy(button, async () => { try {
    const body = { index: index - 1, face };
    await api(`/api/throws/${encodeURIComponent(row)}/confirm`, { method: "POST",
      headers: { "content-type": "application/json", "X-Admin-PIN": document.getElementById("c-pin").value }, body });
    error.textContent = "";
    done.textContent = `Recorded: row ${row}, die ${body.index + 1} shows ${body.face}.`;
    reload();
  } catch (e) { done.textContent = ""; error.textContent = plain(e.message); } });
});
document.getElementById("correct").noValidate = true;  // the page says what is wrong
