"use strict";
async function load() {
  const rows = document.getElementById("dice");
  const dice = await api("/api/dice");
  if (!dice.length) rows.append(el("tr", {}, el("td", { colspan: 5 }, "No registered dice yet: `dicebridge dice add NAME --type d6`.")));
  for (const d of dice) {
    const row = el("tr", {}, el("td", {}, d.name), el("td", {}, d.type));
    try {
      const a = await api(`/api/dice/${d.id}/audit`);
      row.append(el("td", {}, String(a.n)), el("td", {}, a.verdict.replaceAll("_", " ")),
                 el("td", {}, el("a", { href: `/audit/${d.id}` }, "printable report")));
    } catch (e) { row.append(el("td", {}, "0"), el("td", {}, e.message), el("td", {}, "")); }
    rows.append(row);
  }
}
load().catch((e) => { document.getElementById("error").textContent = e.message; });
