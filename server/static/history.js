"use strict";
let throws = [];
function shown() {
  const q = document.getElementById("filter").value.trim().toLowerCase();
  return throws.filter((t) => !q || JSON.stringify(t).toLowerCase().includes(q));
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
  return el("button", { type: "button", class: "die", "aria-label": label, title: label, onclick: () => choose(t, i) },
    d.crop ? el("img", { src: `/api/crops/${d.crop}`, alt: "", width: 40, height: 40, loading: "lazy" }) : null,
    dieText(d));
}
function render() {
  document.getElementById("rows").replaceChildren(...shown().map((t) => el("tr", {},
    el("td", {}, t.id), el("td", {}, t.at.replace("T", " ").slice(0, 19)), el("td", {}, t.check || "—"),
    el("td", {}, t.dice.map((d, i) => dieCell(t, d, i))),
    el("td", {}, [...new Set(t.dice.map((d) => d.source))].join(", ")))));
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
  const row = document.getElementById("c-row").value;
  try {
    const body = { index: parseInt(document.getElementById("c-index").value, 10) - 1,
                   face: parseInt(document.getElementById("c-face").value, 10) };
    await api(`/api/throws/${encodeURIComponent(row)}/confirm`, { method: "POST",
      headers: { "content-type": "application/json", "X-Admin-PIN": document.getElementById("c-pin").value }, body });
    error.textContent = "";
    done.textContent = `Recorded: row ${row}, die ${body.index + 1} shows ${body.face}.`;
    reload();
  } catch (e) { done.textContent = ""; error.textContent = e.message; }
});
