"""`dicebridge tables dphi|d5 --format csv|md|html`: the printable tables.

For tables without the appliance, and for the kiosk's printout.  The numbers
come from ``mechanics``; this module only lays them out.  ``--format html``
is one print-ready A4 page (no outside fonts or scripts).
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import sys
from collections.abc import Sequence
from typing import Any

from mechanics import d5_tables, dphi_tables
from mechanics.dphi_tables import CheckTable

Table = tuple[str, list[str], list[list[str]]]  # title, header, rows
CHECK_RATIOS = tuple(x / 8 for x in range(-20, 21))  # might −20..20 at the base swing 8


def add_subcommand(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tables", help="printable d10-digit dφ tables and the d5 tables", description=__doc__
    )
    parser.add_argument("system", choices=("dphi", "d5"))
    parser.add_argument("--format", choices=("csv", "md", "html"), default="md")
    parser.add_argument(
        "--table",
        help="one table (csv: the first by default; md: all by default): "
        "dphi: d100, tail, check; d5: 1, 2, 3, 4",
    )
    parser.add_argument(
        "--ratio",
        type=float,
        action="append",
        metavar="R",
        help="dφ check table for might/swing = R (repeatable; default −2.5 to 2.5 by 1/8)",
    )
    parser.add_argument(
        "--critical",
        type=float,
        metavar="C",
        help="dφ check table with a critical boost C, 0 ≤ C < 0.5 (default 0)",
    )
    parser.set_defaults(handler=run)


TABLE_NAMES = {"dphi": ("d100", "tail", "check"), "d5": ("1", "2", "3", "4")}


def refusal(system: str, message: str) -> SystemExit:
    """Bad input: one line on stderr and exit status 2 (``str()`` of it is the line)."""
    line = f"dicebridge tables {system}: {message}"
    print(line, file=sys.stderr)
    error = SystemExit(line)
    error.code = 2
    return error


def run(args: argparse.Namespace) -> int:
    names = TABLE_NAMES[args.system]
    chosen = args.table
    if chosen is not None and chosen not in names:
        raise refusal(args.system, f"--table for {args.system} is one of {', '.join(names)}")
    if chosen is not None and args.format == "html":
        raise refusal(args.system, "the html page prints every table: --table is for csv or md")
    given = " and ".join(
        flag for flag, value in (("--ratio", args.ratio), ("--critical", args.critical))
        if value is not None
    )  # fmt: skip
    verb = "are" if " and " in given else "is"
    if given and args.system != "dphi":
        raise refusal(args.system, f"{given} {verb} for the dφ check table, not the d5 tables")
    printed = [chosen or names[0]] if args.format == "csv" else [chosen] if chosen else names
    if given and "check" not in printed:
        raise refusal(args.system, f"{given} {verb} for the check table: add --table check")
    try:
        tables = (
            dphi(args.ratio or CHECK_RATIOS, args.critical or 0.0)
            if args.system == "dphi"
            else d5()
        )
    except ValueError as err:  # a ratio or critical boost that has no table
        raise refusal(args.system, str(err)) from None
    if args.format == "csv":
        print(to_csv(tables[names.index(chosen or names[0])]), end="")
    elif args.format == "md":
        picked = tables if chosen is None else [tables[names.index(chosen)]]
        print("\n\n".join(to_markdown(t) for t in picked))
    else:
        print(printable(args.system, tables))
    return 0


def printable(system: str, tables: list[Table] | None = None) -> str:
    """The print-ready A4 page of a system's tables (also served at /tables/SYSTEM)."""
    if tables is None:
        tables = dphi(CHECK_RATIOS) if system == "dphi" else d5()
    if system == "dphi":
        main, tail, check = tables
        return to_html(
            "dφ with d10s: read a d100 (two d10s), 00 = 100",
            [side_by_side(main, 5), pivot_tail(tail), check],
        )
    return to_html("d5 stop-die tables", tables)


def side_by_side(table: Table, groups: int) -> Table:
    """A long two-column table folded into ``groups`` column pairs, to fit a page."""
    title, header, rows = table
    height = -(-len(rows) // groups)
    chunks = [rows[i * height : (i + 1) * height] for i in range(groups)]
    folded = [
        [cell for chunk in chunks for cell in (chunk[r] if r < len(chunk) else ["", ""])]
        for r in range(height)
    ]
    return title, header * groups, folded


def pivot_tail(table: Table) -> Table:
    """The tail rows as a grid: one line per d100 result, one column per third d10."""
    title, _, rows = table
    results = list(dict.fromkeys(r[0] for r in rows))
    grid = [[k, *[z for kk, _, z in rows if kk == k]] for k in results]
    return title, ["d100 \\ third d10", *[str(d) for d in range(10)]], grid


# --- dφ ---------------------------------------------------------------------------------------
def dphi(ratios: Sequence[float], critical: float = 0.0) -> list[Table]:
    main = (
        "d100 → dφ: z = Φ⁻¹((k − 0.5)/100), 00 = 100",
        ["d100", "z"],
        [[str(k), f"{z:.3f}"] for k, z in dphi_tables.d100_rows()],
    )
    tail = (
        "Tail rows: a third d10 refines the result",
        ["d100", "third", "z"],
        [[str(k), str(d), f"{z:.3f}"] for k, d, z in dphi_tables.third_digit_rows()],
    )
    check = (
        "Checks: read the d100 as the first two digits",
        ["μ/σ", "might at σ 8", "fail", "succeed", "third d10 on", "chance"],
        [_check_row(dphi_tables.check_table(r, critical)) for r in ratios],
    )
    return [main, tail, check]


def _check_row(t: CheckTable) -> list[str]:
    last_fail, first_success, third = t.last_fail, t.first_success, "—"
    if t.split_row is not None:
        wins_from = t.third_from if t.third_from is not None else 10
        partial = ""
        if t.third_exact is not None and t.fourth_from is not None:
            if t.fourth_from == 0:  # the straddled digit succeeds whatever the fourth
                wins_from = t.third_exact
            elif t.fourth_from < 10:
                partial = f"{t.third_exact} → fourth d10 ≥ {t.fourth_from}"
        rules = [f"≥ {wins_from} succeeds"] if wins_from <= 9 else []
        rules += [partial] if partial else []
        if not rules:
            last_fail = t.split_row  # no third digit can succeed: the row fails
        elif wins_from == 0 and not partial:
            first_success = t.split_row  # every third digit succeeds
        else:
            third = f"{t.split_row % 100:02d}: " + "; ".join(rules)
    return [
        f"{t.ratio:+.3f}",
        f"{8 * t.ratio:+g}",
        f"≤ {last_fail % 100:02d}" if last_fail >= 1 else "never",
        f"≥ {first_success % 100:02d}" if first_success <= 100 else "never",
        third,
        f"{100 * t.chance:.1f}%",
    ]


# --- d5 ----------------------------------------------------------------------------------------
def d5() -> list[Table]:
    def band(lo: int, hi: int) -> str:
        return f"{lo:02d}–{hi % 100:02d}" if lo != hi else f"{lo:02d}"

    t1_bands = {v: (lo, hi) for lo, hi, v in d5_tables.TABLE1_BANDS}
    t2_bands = {v: (lo, hi) for lo, hi, v in d5_tables.TABLE2_BANDS}
    table1 = (
        "Table 1: one roll (91–100: add 10 and roll again)",
        ["result", "d100", "printed", "exact"],
        [
            [f"{r.result}{'+' if r.result == 10 else ''}", band(*t1_bands[r.result]),
             f"{100 * float(r.printed):.0f}%", f"{100 * float(r.exact):.2f}%"]
            for r in d5_tables.table1_rows()
        ],
    )  # fmt: skip
    table2 = (
        "Table 2: net result (01–06 and 95–100 continue on Table 1, ∓10)",
        ["result", "d100", "printed", "exact"],
        [
            [_net_label(r.result), band(*t2_bands[r.result]),
             f"{100 * float(r.printed):.0f}%", f"{100 * float(r.exact):.2f}%"]
            for r in d5_tables.table2_rows()
        ],
    )  # fmt: skip
    table3 = (
        "Table 3: steps from α to β, α(β/α)^(i/10), two significant figures",
        ["α", "β", *[str(i) for i in range(11)]],
        [[str(a), str(b), *map(str, vals)] for a, b, vals in d5_tables.TABLE3_PRINTED],
    )
    table4 = (
        "Table 4: combining two actors, ⌊α log₂(1 + 2^(−β/α))⌋ added to the higher",
        ["α \\ β", *[str(b) for b in range(11)]],
        [[str(a), *map(str, row)] for a, row in enumerate(d5_tables.TABLE4_PRINTED, start=1)],
    )
    return [table1, table2, table3, table4]


def _net_label(result: int) -> str:
    if result >= 10:
        return "10+"
    if result <= -10:
        return "−10−"
    return str(result)


# --- layouts -----------------------------------------------------------------------------------
def to_csv(table: Table) -> str:
    _, header, rows = table
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def to_markdown(table: Table) -> str:
    title, header, rows = table
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


PAGE_CSS = """
@page { size: A4; margin: 10mm; }
body { font: 7pt/1.1 "DejaVu Sans", Arial, sans-serif; color: #000; margin: 0; }
h1 { font-size: 12pt; margin: 0 0 2mm; }
h2 { font-size: 8pt; margin: 1.5mm 0 0.5mm; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1mm; }
th, td { border: 0.3pt solid #777; padding: 0 1mm; text-align: right; }
th { background: #e8e8e8; }
section { break-inside: avoid; }
/* also served at /tables/SYSTEM: on a screen as narrow as a phone each table scrolls in its
   own box (the dφ table's eleven columns made the page 422 px wide at 390) */
@media screen { section { overflow-x: auto; } }
"""


def to_html(title: str, tables: Sequence[Table]) -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{PAGE_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for name, header, rows in tables:
        parts.append(f"<section><h2>{html.escape(name)}</h2><table><thead><tr>")
        parts += [f"<th>{html.escape(h)}</th>" for h in header]
        parts.append("</tr></thead><tbody>")
        for row in rows:
            cells = "".join(f"<td>{html.escape(c)}</td>" for c in row)
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table></section>")
    parts.append("</body></html>")
    return "\n".join(parts)
