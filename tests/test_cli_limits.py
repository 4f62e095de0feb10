"""`odds`, `tables` and `resolve` at their limits: the bounds of a check, one-line refusals,
exact values too long to write, options that would change nothing, and the printed dφ
check table read row by row against the check `resolve` makes."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from typing import Any

import pytest

from dicebridge.cli import main
from dicebridge.odds import OddsReport, to_json, to_text
from dicebridge.tables import CHECK_RATIOS
from mechanics.check_factory import create_check
from mechanics.distribution import Distribution
from mechanics.dphi import phi
from mechanics.reading import Reading


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["odds", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def refused(*argv: str) -> str:
    """The one-line message of a refused command."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    message = str(exit_info.value)
    assert message.startswith(f"dicebridge {argv[0]} {argv[1]}: ") and "\n" not in message
    return message


# --- 1, 2, 4: odds takes the bounds of a check ----------------------------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # just past each bound, so that without it the answer comes (quickly) instead
        (["peupfudge", "--level", "2", "--difficulty", "4", "--dice", "201"], "0 to 200 dice"),
        (["peupfudge", "--opposed", "1", "2", "--dice", "101"], "at most 200 dice in all"),
        (["peupfudge", "--opposed", *map(str, range(201)), "--dice", "0"], "participants"),
        (["d6pool", "--level", "201", "--difficulty", "6"], "pool of 201 dice is beyond the 200"),
        (["d6pool", "--level", "3", "--labor", "198", "--difficulty", "6"], "beyond the 200"),
        (["d6pool", "--level", "3", "--versus", "201"], "--versus: a pool of 201"),
        (["d5", "--at-least", "1001", "--single"], "within ±1000"),
        (["d5", "--at-least", "-1001"], "within ±1000"),
        (["d5", "--level-difference", "1001"], "within ±1000"),
        (["dphi", "--might", "0.5", "--hops", "1e308"], "hops must be within ±1000"),
        (["dphi", "--might", "0.5", "--hops", "1000.5"], "hops must be within ±1000"),
        (["dphi", "--might", "0.5", "--hops", "nan"], "hops must be within ±1000"),
        (["dphi", "--might", "0.5", "--versus", "1", "--hops", "1e308"], "within ±1000"),
    ],
)
def test_odds_refuses_what_a_check_refuses(argv: list[str], said: str) -> None:
    assert said in refused("odds", *argv)


def test_odds_at_the_bounds_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert odds(capsys, "peupfudge", "--level", "2", "--difficulty", "4", "--dice", "200")["exact"]
    assert odds(capsys, "peupfudge", "--opposed", "1", "2", "--dice", "100")["exact"]
    assert odds(capsys, "d6pool", "--level", "200", "--versus", "200")
    assert odds(capsys, "d5", "--at-least", "1000", "--single")["probability"] > 0
    assert odds(capsys, "dphi", "--might", "0.5", "--hops", "-1000")["probability"] == 1.0


def test_an_exact_value_too_long_to_write_is_null_with_a_reason() -> None:
    huge = Fraction(1, 3**10_000)  # 4,772 digits: past Python's 4,300 for int → str
    report = OddsReport(
        system="test",
        description="a long shot",
        probability=float(huge),
        exact=huge,
        distribution=Distribution(0, (3**10_000 - 1, 1)),
        facts=(("P(tie)", huge), ("P(half)", Fraction(1, 2))),
    )
    out = json.loads(json.dumps(to_json(report)))
    assert out["exact"] is None and out["p_tie"]["exact"] is None
    assert out["p_half"]["exact"] == "1/2"
    assert [row["exact"] for row in out["distribution"]] == [None, None]
    assert "about 4772 digits" in out["notes"][-1] and "(and 3 more)" in out["notes"][-1]
    text = to_text(report)
    assert "exactly      (too long to write)" in text and "about 4772 digits" in text


# --- 5, 7: the tables say what is wrong, in one line, with status 2 -------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--ratio", "nan"], "within ±40, not nan"),
        (["--ratio", "inf"], "within ±40, not inf"),
        (["--ratio=-1e308", "--ratio", "1e-320"], "within ±40, not -1e+308"),
        (["--critical", "0.5"], "critical boost must be in [0, 0.5)"),
        (["--critical", "nan"], "critical boost must be in [0, 0.5)"),
        (["--critical=-1"], "critical boost must be in [0, 0.5)"),
    ],
)
def test_tables_refuse_a_check_table_that_has_no_meaning(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["tables", "dphi", "--format", "md", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dicebridge tables dphi: ") and said in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["d5", "--ratio", "1"], "--ratio is for the dφ check table"),
        (["d5", "--critical", "0.1"], "--critical is for the dφ check table"),
        (["dphi", "--format", "csv", "--ratio", "1"], "add --table check"),
        (["dphi", "--format", "md", "--table", "tail", "--critical", "0.1"], "add --table check"),
        (["dphi", "--format", "html", "--table", "check"], "--table is for csv or md"),
        (["dphi", "--format", "md", "--table", "nope"], "one of d100, tail, check"),
    ],
)
def test_tables_refuse_options_that_would_change_nothing(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["tables", *argv])
    assert exit_info.value.code == 2 and said in str(exit_info.value)
    assert capsys.readouterr().err.count("\n") == 1


def test_md_prints_the_one_table_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tables", "dphi", "--format", "md", "--table", "check", "--ratio", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("### ") == 1 and "| +1.000 | +8 | ≤ 15 | ≥ 17 |" in out


# --- 7: odds options that would be silently ignored are refused -----------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["dphi", "--might", "1", "--against", "nan"], "--against takes finite mights"),
        (["dphi", "--might", "1", "--ally", "nan"], "--ally takes finite mights"),
        (["d6pool", "--level", "3", "--difficulty", "3", "--versus-leverage", "1"], "goes with"),
        (["d6pool", "--level", "3", "--difficulty", "3", "--reroll-ties"], "goes with --versus"),
        (["d6pool", "--level", "3", "--versus", "3", "--difficulty", "3"], "no difficulty"),
        (["decibel", "--pool", "5", "--target", "10", "--versus-discard", "1"], "with --versus"),
        (["decibel", "--pool", "5", "--versus", "5", "--second-target", "3"], "with --target"),
    ],
)
def test_odds_refuses_options_that_would_change_nothing(argv: list[str], said: str) -> None:
    assert said in refused("odds", *argv)


def test_against_takes_the_critical_boost_like_resolve_beat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = odds(capsys, "dphi", "--might", "1", "--critical", "0.1", "--against", "100")
    assert out["p_beats_100"] == out["p_beats_all"] == 0.1
    beat = create_check("dphi", might=1.0, beat=100.0, critical=0.1)
    assert beat.chance()[0] == pytest.approx(0.1)
    plain = odds(capsys, "dphi", "--might", "1", "--against", "100")
    assert plain["p_beats_100"] == pytest.approx(phi(-99 / 8), rel=1e-9)


def test_a_split_roll_without_a_swing_is_refused_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["resolve", "dphi", "--might", "1", "--versus", "2", "--hops", "1e308", "--json"]
    assert main(argv) == 2
    out = capsys.readouterr()
    assert json.loads(out.out)["status"] == "refused" and "beyond any swing" in out.err


# --- 6: the printed check table is the check resolve makes --------------------------------
def _row(cell: str, never: int) -> int:
    """A cell: "≤ 47" → 47, "≥ 00" → 100 (00 is 100), "never" → ``never``."""
    return never if cell == "never" else int(cell[2:]) or 100


def _thirds(cell: str) -> tuple[int | None, dict[int, bool | int]]:
    """The third-d10 cell: "48: ≥ 6 succeeds; 5 → fourth d10 ≥ 1" → (48, {third
    digit: success, or the fourth digit it succeeds from})."""
    if cell == "—":
        return None, {}
    row, rules = cell.split(": ")
    wins_from, partial = 10, {}
    for rule in rules.split("; "):
        if rule.endswith(" succeeds"):
            wins_from = int(rule[2:-9])
        else:
            third, fourth = rule.split(" → fourth d10 ≥ ")
            partial = {int(third): int(fourth)}
    return int(row) or 100, {d: partial.get(d, d >= wins_from) for d in range(10)}


def _table_mode(check: Any, k: int) -> bool:
    """`--mode table` for a d100 of k, thrown as two d10s (tens, units; 00 is 100)."""
    tens, units = divmod(k % 100, 10)
    return bool(check.accept(Reading("d10", tens), Reading("d10", units)).resolve().success)


class PrintedRow:
    """What one printed row says of each d100 result k, third d10 and fourth d10."""

    def __init__(self, row: dict[str, str]) -> None:
        self.last_fail, self.first_success = _row(row["fail"], 0), _row(row["succeed"], 101)
        self.split, self.thirds = _thirds(row["third d10 on"])

    def says(self, digits: list[int]) -> set[bool]:
        """The outcomes the row gives the u under these leading digits (u's digits: row
        k − 1, then the third and fourth d10)."""
        if len(digits) >= 2:
            rows = [10 * digits[0] + digits[1] + 1]
        else:
            rows = [k for k in range(1, 101) if not digits or (k - 1) // 10 == digits[0]]
        out: set[bool] = set()
        for k in rows:
            if k != self.split:
                assert k <= self.last_fail or k >= self.first_success, k
                out.add(k >= self.first_success)
                continue
            for third in digits[2:3] or range(10):
                rule = self.thirds[third]
                fourths = digits[3:4] or range(10)
                out |= {rule} if isinstance(rule, bool) else {f >= rule for f in fourths}
        return out


def _walk(check: Any, row: PrintedRow, digits: list[int]) -> int:
    """Throw every d10 the adaptive check asks for, four deep; each decided cell must be
    what the row says.  Returns how many four-digit cells are still undecided: the table
    stops at the fourth d10 and counts the one cell holding the threshold as a failure."""
    if check.need() is None:
        assert row.says(digits) == {bool(check.resolve().success)}, digits
        return 0
    if len(digits) == 4:
        assert row.says(digits) == {False}, digits
        return 1
    return sum(_walk(check.accept(Reading("d10", d)), row, [*digits, d]) for d in range(10))


@pytest.mark.parametrize("critical", ["0", "0.02", "0.05", "0.055", "0.1"])
def test_every_printed_row_is_what_resolve_does(
    critical: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Row k of the check table stands for u in [(k − 1)/100, k/100): d10 digits k − 1 in
    the adaptive check, then the third and fourth d10.  Its whole rows are also what
    `--mode table` says for a d100 of k.  Where the boost sets the chance, the threshold
    is the boost itself, c or 1 − c (decimals: 0.05 is a d20's 1/20): no cell is left
    undecided, and at c = 0.05 row 06 succeeds whole, as `--mode table` says of 06."""
    argv = ["tables", "dphi", "--format", "csv", "--table", "check", "--critical", critical]
    assert main(argv) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == len(CHECK_RATIOS)
    c = float(critical)
    for printed in rows:
        might = float(printed["might at σ 8"])
        row = PrintedRow(printed)
        adaptive = create_check("dphi", might=might, swing=8.0, critical=c)
        clamped = not c <= phi(might / 8) <= 1 - c
        assert _walk(adaptive, row, []) <= (0 if clamped else 1), printed
        table = create_check("dphi", might=might, swing=8.0, critical=c, mode="table", die="d10")
        for k in range(1, 101):
            if k != row.split:
                assert _table_mode(table, k) is (k >= row.first_success), (printed, k)
    edge = {"0.05": ("≤ 05", "≥ 06"), "0.1": ("≤ 10", "≥ 11")}.get(critical)
    if edge:  # the tester's rows: +2.5 swings, whose chance is 1 − c
        top = next(r for r in rows if r["μ/σ"] == "+2.500")
        assert (top["fail"], top["succeed"], top["third d10 on"]) == (*edge, "—")
