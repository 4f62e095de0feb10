"use strict";
let throws = [];
function shown() {
  const q = document.getElementById("filter").value.trim().toLowerCase();
  return throws.filter((t) => !q || JSON.stringify(t).toLowerCase().includes(q));
}
function render() {
  document.getElementById("rows").replaceChildren(...shown().map((t) => el("tr", {},
    el("td", {}, t.id), el("td", {}, t.at.replace("T", " ").slice(0, 19)), el("td", {}, t.check || "—"),
    el("td", {}, t.dice.map((d) => `${d.die}:${faceText(d.die, d.face)}`).join(" ")),
    el("td", {}, [...new Set(t.dice.map((d) => d.source))].join(", ")))));
}
function download(name, text, type) {
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(a); a.click(); a.remove();
}
document.getElementById("filter").addEventListener("input", render);
document.getElementById("json").addEventListener("click", () => download("throws.json", JSON.stringify(shown(), null, 1), "application/json"));
document.getElementById("csv").addEventListener("click", () => {
  const lines = ["row,time,check,die,face,confidence,source"];
  for (const t of shown()) for (const d of t.dice) lines.push([t.id, t.at, t.check || "", d.die, d.face, d.confidence, d.source].join(","));
  download("throws.csv", lines.join("\n") + "\n", "text/csv");
});
api("/api/throws?limit=1000").then((data) => { throws = data; render(); })
  .catch((e) => { document.getElementById("error").textContent = e.message; });
listen((event) => { if (event.type === "reading") api("/api/throws?limit=1000").then((d) => { throws = d; render(); }); });
