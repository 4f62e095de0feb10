"""The engine benchmark runs, and every peer answers the same question as we do.

No timing is asserted here: speed is reported by `dicebridge bench engine`.
"""

from __future__ import annotations

import json

import pytest

from dicebridge.bench import engine
from dicebridge.cli import main

pytest.importorskip("icepool", reason="the bench extra (icepool) is not installed")
pytest.importorskip("dyce", reason="the bench extra (dyce) is not installed")


def test_quick_cases_cover_every_system_with_both_peers() -> None:
    cases = engine.collect(quick=True)
    prefixes = {c.case.split()[0].split(":")[0] for c in cases}
    assert len(cases) >= len(engine.CASE_MODULES)
    assert len(prefixes) >= len(engine.CASE_MODULES)
    for case in cases:
        assert case.icepool is not None or case.dyce is not None, case.case
        assert case.answer is not None, case.case


@pytest.mark.parametrize("case", engine.collect(quick=True), ids=lambda c: c.case)
def test_peers_agree_with_the_engine(case) -> None:
    row = engine.measure(case, budget=0.0)
    assert "disagreement" not in row, row.get("disagreement")
    assert row["ours_ms"] > 0


def test_json_output_has_the_documented_fields(capsys: pytest.CaptureFixture[str]) -> None:
    first = engine.collect(quick=True)[0].case
    assert main(["bench", "engine", "--quick", "--json", "--only", first]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows, "no case ran"
    for row in rows:
        assert {"case", "ours_ms", "icepool_ms", "dyce_ms", "ratio", "exact"} <= set(row)
        assert isinstance(row["exact"], bool)
        if row["ratio"] is not None:
            fastest = min(t for t in (row["icepool_ms"], row["dyce_ms"]) if t is not None)
            assert row["ratio"] == pytest.approx(fastest / row["ours_ms"])


def test_a_case_filter_that_matches_nothing_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    """It had printed the table's header alone and ended well."""
    with pytest.raises(SystemExit, match=r"no case's name holds 'zzz'.*begin d5, d6pool"):
        main(["bench", "engine", "--quick", "--only", "zzz"])


def test_the_table_says_what_machine_measured_it(capsys: pytest.CaptureFixture[str]) -> None:
    first = engine.collect(quick=True)[0].case
    assert main(["bench", "engine", "--quick", "--only", first]) == 0
    assert capsys.readouterr().out.startswith("on ")  # "on CPU (N cores), system, Python …"
