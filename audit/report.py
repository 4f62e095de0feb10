"""A printable audit report: one self-contained HTML page with its charts as SVG.

No plotting library and nothing fetched from outside: the page prints on A4
from any browser and opens on the kiosk with no network.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from audit.recognizer import RecognizerReport
from audit.sequential import e_value_path
from audit.verdict import Audit

WIDTH, HEIGHT, PAD = 640, 240, 40


def face_bars_svg(result: Audit) -> str:
    """Per-face shares as bars, their intervals as whiskers (confidence sequences in a
    live audit, Wilson's otherwise), the fair share dashed."""
    faces = result.faces
    top = max(f.ci_high for f in faces) * 1.1
    fair = 1 / result.log.sides
    slot = (WIDTH - 2 * PAD) / len(faces)

    def y(v: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * v / top

    parts = [_svg_open(f"Share of throws per face, with {result.interval_words}s")]
    for i, f in enumerate(faces):
        x = PAD + i * slot
        colour = "#c0392b" if result.off_fair(f) else "#4a6fa5"
        parts.append(
            f'<rect x="{x + slot * 0.15:.1f}" y="{y(f.share):.1f}" width="{slot * 0.7:.1f}" '
            f'height="{y(0) - y(f.share):.1f}" fill="{colour}"/>'
        )
        cx = x + slot / 2
        parts.append(
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(f.ci_low):.1f}" y2="{y(f.ci_high):.1f}" '
            'stroke="#000" stroke-width="1.5"/>'
        )
        parts.append(_text(cx, HEIGHT - PAD + 14, str(f.face)))
    parts.append(
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(fair):.1f}" y2="{y(fair):.1f}" '
        'stroke="#000" stroke-dasharray="5,4"/>'
    )
    parts.append(_text(WIDTH - PAD, y(fair) - 4, f"fair {100 * fair:.2f}%", anchor="end"))
    parts += _y_axis(top, y, percent=True)
    parts.append("</svg>")
    return "\n".join(parts)


def e_value_svg(sequence: Sequence[int], sides: int) -> str:
    """log10 of the e-value after each throw, with the 1/α = 20 line and a ring where
    the path first reached it (the rejection stands from there)."""
    path = e_value_path(sequence, sides) / math.log(10)
    n = len(path)
    low, high = min(float(path.min()), -1.0), max(float(path.max()), math.log10(20) + 0.5)

    def x(i: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * i / max(n - 1, 1)

    def y(v: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v - low) / (high - low)

    step = max(1, n // 600)  # at most ~600 points on the page
    points = " ".join(f"{x(i):.1f},{y(float(path[i])):.1f}" for i in range(0, n, step))
    crossed: list[str] = []
    if len(hits := np.flatnonzero(path >= math.log10(20))):
        i = int(hits[0])
        crossed = [
            f'<circle cx="{x(i):.1f}" cy="{y(float(path[i])):.1f}" r="4" fill="none" '
            'stroke="#c0392b" stroke-width="1.5"/>',
            _text(x(i), y(float(path[i])) - 8, f"20 first reached at throw {i + 1:,}"),
        ]
    parts = [
        _svg_open("Evidence against a fair die as the throws came in (log10 e-value)"),
        f'<polyline points="{points}" fill="none" stroke="#4a6fa5" stroke-width="1.5"/>',
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(math.log10(20)):.1f}" '
        f'y2="{y(math.log10(20)):.1f}" stroke="#c0392b" stroke-dasharray="5,4"/>',
        _text(WIDTH - PAD, y(math.log10(20)) - 4, "E = 20: biased", anchor="end"),
        *crossed,
        _text(WIDTH / 2, HEIGHT - 8, f"throws (0 to {n:,})"),
        *_y_axis(high, y, low=low),
        "</svg>",
    ]
    return "\n".join(parts)


def _svg_open(title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>'
    )


def _text(x: float, y: float, text: str, anchor: str = "middle") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="11" text-anchor="{anchor}">'
        f"{html.escape(text)}</text>"
    )


def _y_axis(
    top: float, y: Callable[[float], float], *, low: float = 0.0, percent: bool = False
) -> list[str]:
    parts = [f'<line x1="{PAD}" x2="{PAD}" y1="{y(low):.1f}" y2="{y(top):.1f}" stroke="#000"/>']
    for k in range(5):
        v = low + (top - low) * k / 4
        label = f"{100 * v:.1f}%" if percent else f"{v:.1f}"
        parts.append(_text(PAD - 4, y(v) + 4, label, anchor="end"))
    return parts


def _e_value_words(data: dict[str, Any]) -> str:
    """The highest E (which decides a live audit), where it was, and E now."""
    now = f"10^{data['log10_e_value']:.2f}"
    if data["e_value_max_at"] is None:  # no throw order: no path
        return f"{now} (20 or more: biased, at any time)"
    crossed = data["e_value_crossed_at"]
    reached = f"; 20 first reached at throw {crossed:,}" if crossed is not None else ""
    return (
        f"highest 10^{data['log10_e_value_max']:.2f}, at throw {data['e_value_max_at']:,}"
        f"{reached}; {now} now (20 or more at any throw: biased, and it stays so)"
    )


def _interval_words(result: Audit) -> str:
    if result.live:
        return "95% confidence sequences: valid however often this audit is looked at"
    return "95% Wilson intervals: fixed-sample, valid for one look at a finished log"


def render(result: Audit, title: str, recognizer: RecognizerReport | None = None) -> str:
    data = result.to_json()
    rule = (
        "the verdict follows the e-value's highest value so far: a live audit, looked at "
        "again and again"
        if result.live
        else "the verdict follows the fixed-sample test: a finished log, judged once"
    )
    rows = [
        ("throws", f"{data['n']:,} on a d{data['sides']}"),
        ("verdict from", rule),
        ("Pearson χ²", f"{data['chi2']:.2f} (p = {data['chi2_p_value']:.3g})"),
        ("G-test", f"{data['g']:.2f} (p = {data['g_p_value']:.3g})"),
        ("e-value", _e_value_words(data)),
        ("per-face intervals", _interval_words(result)),
        (
            f"throws for 80% power ({100 * result.bias:.0f}% bias)",
            f"{data['fixed_sample_throws']:,} with the χ² test; "
            f"{data['sequential_power_throws']:,} with the e-value "
            f"(about {data['sequential_throws']:,} on average)",
        ),
    ]
    if data["monte_carlo"]:
        rows.insert(3, ("Monte Carlo exact p", f"{data['p_value']:.3g}"))
    if data["serial"]["p_value"] is not None:
        flag = "suspicious" if data["serial"]["flag"] else "no sign"
        rows.append(("order effects", f"{flag} (p = {data['serial']['p_value']:.3g})"))
    if recognizer is not None:
        rows.append(("uncertain camera readings left out", str(recognizer.uncertain_excluded)))
        if recognizer.error_rate is not None and recognizer.error_ci is not None:
            low, high = recognizer.error_ci
            rows.append(
                (
                    "camera error rate (confirmed readings)",
                    f"{100 * recognizer.error_rate:.2f}% ({100 * low:.2f}–{100 * high:.2f}%, "
                    f"{recognizer.confirmed} checked)",
                )
            )
    summary = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows
    )
    faces = "".join(
        f"<tr><td>{f['face']}</td><td>{f['count']:,}</td><td>{100 * f['share']:.2f}%</td>"
        f"<td>{100 * f['ci_low']:.2f}–{100 * f['ci_high']:.2f}%</td>"
        f"<td>{f['p_holm']:.3g}</td></tr>"
        for f in data["faces"]
    )
    charts = ["<h2>Share of throws per face</h2>", face_bars_svg(result)]
    if result.log.sequence:
        charts += [
            "<h2>Evidence as the throws came in</h2>",
            e_value_svg(result.log.sequence, result.log.sides),
        ]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
@page {{ size: A4; margin: 14mm; }}
body {{ font: 10pt/1.35 "DejaVu Sans", Arial, sans-serif; color: #000; max-width: 180mm; }}
h1 {{ font-size: 15pt; margin: 0 0 3mm; }}
h2 {{ font-size: 11pt; margin: 4mm 0 0; }}
.verdict {{ font-size: 12pt; border-left: 4px solid #4a6fa5; padding: 2mm 3mm; }}
table {{ border-collapse: collapse; margin: 3mm 0; }}
th, td {{ border: 0.4pt solid #888; padding: 1mm 2mm; text-align: left; }}
svg {{ width: 100%; height: auto; margin: 2mm 0; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="verdict">{html.escape(result.words())}</p>
<table>{summary}</table>
{"".join(charts)}
<table><tr><th>face</th><th>count</th><th>share</th><th>{result.interval_words}</th>
<th>Holm p</th></tr>
{faces}</table>
</body></html>
"""
