"""The printable tables: the csv contract, and that the check table is the adaptive check."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest

from dicebridge.cli import main
from mechanics import dphi_tables
from mechanics.dphi import phi


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["tables", *argv]) == 0
    return capsys.readouterr().out


def test_dphi_csv_contract(capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.reader(io.StringIO(run(capsys, "dphi", "--format", "csv"))))
    assert rows[0] == ["d100", "z"]
    assert [int(r[0]) for r in rows[1:]] == list(range(1, 101))
    z = {int(k): float(v) for k, v in rows[1:]}
    assert z[1] == -2.576 and z[50] == -0.013 and z[51] == 0.013 and z[100] == 2.576
    assert all(z[k] == -z[101 - k] for k in range(1, 101))  # symmetric to the digit


def test_tail_and_check_csv(capsys: pytest.CaptureFixture[str]) -> None:
    tail = list(csv.reader(io.StringIO(run(capsys, "dphi", "--format", "csv", "--table", "tail"))))
    assert tail[0] == ["d100", "third", "z"] and len(tail) == 1 + 6 * 10
    assert tail[1] == ["1", "0", "-3.291"]  # Φ⁻¹(0.0005)
    check = run(capsys, "dphi", "--format", "csv", "--table", "check", "--ratio", "0.0625")
    assert "≤ 47" in check and "≥ 49" in check and "48: ≥ 6 succeeds; 5 → fourth d10 ≥ 1" in check


@pytest.mark.parametrize("ratio", [x / 8 for x in range(-24, 25, 3)])
def test_the_check_table_gives_the_dphi_chance(ratio: float) -> None:
    t = dphi_tables.check_table(ratio)
    chance = Fraction(max(0, 101 - t.first_success), 100)
    if t.split_row is not None:
        row = Fraction(1, 100)
        if t.third_from is not None:
            chance += row * Fraction(10 - t.third_from, 10)
        if t.third_exact is not None and t.fourth_from is not None:
            chance += row / 10 * Fraction(10 - t.fourth_from, 10)
    # the table stops at the fourth digit: at most one 1/10,000 cell is rounded
    assert abs(float(chance) - phi(ratio)) <= 1e-4 + 1e-12


def test_markdown_and_html(capsys: pytest.CaptureFixture[str]) -> None:
    md = run(capsys, "dphi", "--format", "md")
    assert md.count("### ") == 3
    page = run(capsys, "dphi", "--format", "html")
    assert page.startswith("<!doctype html>") and "size: A4" in page
    assert page.count("<table>") == 3 and "http" not in page  # nothing from outside
    d5_page = run(capsys, "d5", "--format", "html")
    assert d5_page.count("<table>") == 4


def test_d5_tables(capsys: pytest.CaptureFixture[str]) -> None:
    t1 = list(csv.reader(io.StringIO(run(capsys, "d5", "--format", "csv"))))
    assert t1[0] == ["result", "d100", "printed", "exact"]
    assert t1[1] == ["0", "01–20", "20%", "20.00%"] and t1[-1][0] == "10+"
    t2 = list(csv.reader(io.StringIO(run(capsys, "d5", "--format", "csv", "--table", "2"))))
    zero = next(r for r in t2 if r[0] == "0")
    assert zero == ["0", "47–54", "8%", "11.11%"]
    t4 = list(csv.reader(io.StringIO(run(capsys, "d5", "--format", "csv", "--table", "4"))))
    assert t4[5] == ["5", "5", "4", "4", "3", "3", "2", "2", "2", "2", "1", "1"]
    with pytest.raises(SystemExit, match="one of 1, 2, 3, 4"):
        main(["tables", "d5", "--format", "csv", "--table", "7"])
