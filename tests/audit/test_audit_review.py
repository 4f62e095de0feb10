"""The review of the audit: a live audit looked at again and again, copies in a coin's
log, an empty comparison log, power where the verdict's test is exact, logs as dice
write them (a d10's 0, a Fudge die's −1, named columns), and the ledger's folder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audit import fairness, sequential
from audit.ledger_audit import audit_die, import_log, readings_of
from audit.logs import LogError, ThrowLog, die_faces, from_faces, read_log
from audit.verdict import ALPHA, audit
from dicebridge.cli import main
from server.ledger import Ledger
from server.registry import DiceRegistry


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["audit", *argv, "--json"]) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["audit", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err  # one line
    return err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- 1. a live audit is looked at again and again: the e-value gives its verdict ------


def test_a_fair_die_whose_audit_is_opened_every_100_throws_is_rarely_called_biased() -> None:
    # 200 fair d6s, each audited as a registered die is (live) after every 100 throws up
    # to 2,000: called biased at least once in under 5% of them (plus 3 standard
    # errors).  Judged by the fixed-sample χ² at each look, a third of them are.
    rng = np.random.default_rng(20261122)
    runs = 200
    live_alarms = fixed_alarms = 0
    for _ in range(runs):
        throws = rng.integers(0, 6, size=2000)
        live = fixed = False
        for n in range(100, 2001, 100):
            counts = tuple(int(c) for c in np.bincount(throws[:n], minlength=6))
            result = audit(ThrowLog(6, counts), live=True)
            live |= result.verdict == "biased"
            fixed |= result.p_value < ALPHA  # what the verdict followed before
        live_alarms += live
        fixed_alarms += fixed
    bound = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / runs)  # 0.096
    assert live_alarms / runs <= bound
    assert fixed_alarms / runs > bound  # 66 of 200: why live audits changed


def test_a_loaded_registered_die_is_still_called_biased(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    loaded = rng.choice(np.arange(1, 7), size=600, p=[0.1, 0.15, 0.15, 0.15, 0.15, 0.3])
    with Ledger(tmp_path) as ledger:
        registry = DiceRegistry(ledger)
        registry.register("Loaded", "d6")
        import_log(ledger, registry, "loaded", [int(v) for v in loaded], "loaded.txt")
        done = audit_die(ledger, registry, "loaded", rng=np.random.default_rng(1))
    result = done.result
    assert result.live and result.verdict_test == "e_value"
    assert result.verdict == "biased" and result.e_value >= 20
    words = result.words()
    assert words.startswith("Biased: after 600 throws, face 1 comes up") and "face 6" in words
    assert "e-value" in words and "however often" in words
    assert done.to_json()["verdict_test"] == "e_value"


def test_a_live_audit_reports_the_chi2_as_information_only() -> None:
    counts = (130, 100, 100, 100, 100, 70)  # χ² p = 0.003, but E = 7
    once = audit(ThrowLog(6, counts))
    live = audit(ThrowLog(6, counts), live=True)
    assert once.verdict == "biased" and once.verdict_test == "fixed_sample"
    assert live.p_value == once.p_value < 0.01 and live.e_value < 20
    assert live.verdict == "insufficient"
    words = live.words()
    assert words.startswith("Not enough throws yet: 600 so far")
    assert f"about {live.sequential_power_throws:,} throws with the e-value" in words
    assert "χ² test alone gives p = 0.0029" in words and "20 needed" in words
    data = live.to_json()
    assert data["throws_needed"] == data["sequential_power_throws"] > data["fixed_sample_throws"]
    assert once.to_json()["throws_needed"] == once.fixed_sample_throws


def test_a_live_audit_calls_a_die_fair_only_after_the_e_values_80_percent_power() -> None:
    needed = sequential.sequential_throws_for_power(6, 0.2)
    # the same simulated loaded dice as the mean stopping time: 80% have stopped by then
    assert sequential.throws_for_power(6, 0.2) < sequential.sequential_stopping_time(6, 0.2)
    assert sequential.sequential_stopping_time(6, 0.2) < needed
    fair = ThrowLog(6, (needed // 6 + 1,) * 6)
    assert audit(fair, live=True).verdict == "consistent_with_fair"
    short = ThrowLog(6, ((needed - 60) // 6,) * 6)
    assert audit(short, live=True).verdict == "insufficient"
    assert audit(short).verdict == "consistent_with_fair"  # the χ² needs fewer


def test_the_command_line_and_the_api_say_which_test_gives_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["dice", "add", "Red d6", "--type", "d6", *data]) == 0
    log = write(tmp_path / "red.txt", "\n".join(["1", "2", "3", "4", "5", "6"] * 50) + "\n")
    assert main(["dice", "import", "red-d6", str(log), *data]) == 0
    capsys.readouterr()
    assert run_json(capsys, "--die", "red-d6", *data)["verdict_test"] == "e_value"
    assert run_json(capsys, str(log), "--sides", "6")["verdict_test"] == "fixed_sample"
    assert main(["audit", "--die", "red-d6", *data]) == 0
    out = capsys.readouterr().out
    assert "for information: a live audit goes by the e-value" in out
    assert "gives this verdict" in out


# --- 2. copied stretches: a window long enough for the log ---------------------------


def test_a_long_coin_log_of_random_flips_holds_no_copies() -> None:
    rng = np.random.default_rng(2)
    flips = rng.integers(1, 3, size=200_000).tolist()
    # with a window of 30 flips, chance alone repeats a dozen stretches here
    assert len(sequential.duplicated_stretches(flips, 30)) > 5
    assert sequential.copy_window(flips) == 56
    assert sequential.duplicated_stretches(flips) == []
    result = audit(from_faces(flips, 2))
    assert result.duplicates == [] and not result.words().startswith("Copied")


def test_a_real_copy_in_a_coin_log_is_still_found() -> None:
    rng = np.random.default_rng(3)
    flips = rng.integers(1, 3, size=200_000).tolist()
    pasted = flips[:150_000] + flips[20_000:20_400] + flips[150_000:]
    ((first, again, length),) = sequential.duplicated_stretches(pasted)
    assert (first, again) == (20_000, 150_000) or (first + 1, again + 1) == (20_000, 150_000)
    assert 400 <= length < 420
    assert audit(from_faces(pasted, 2)).words().startswith("Copied throws found")


def test_the_copy_window_stays_30_for_a_d6_and_grows_for_few_faces() -> None:
    rng = np.random.default_rng(4)
    assert sequential.copy_window(rng.integers(1, 7, size=100_000).tolist()) == 30
    assert sequential.copy_window(rng.integers(1, 7, size=1000).tolist()) == 30
    assert sequential.copy_window(rng.integers(1, 3, size=1000).tolist()) == 40
    biased_coin = rng.choice([1, 2], size=10_000, p=[0.9, 0.1]).tolist()
    assert sequential.copy_window(biased_coin) > 150  # faces that repeat need more
    assert sequential.duplicated_stretches([1] * 500) == []  # one face: nothing tells


# --- 3. an empty comparison log -------------------------------------------------------


def test_an_empty_comparison_log_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "a.csv", "face,count\n1,30\n2,34\n")
    empty = write(tmp_path / "empty.csv", "face,count\n1,0\n2,0\n")
    err = refused(capsys, str(log), "--sides", "2", "--compare", str(empty))
    assert "empty.csv holds no throws to compare with" in err
    with pytest.raises(ValueError, match="second log holds no throws"):
        fairness.homogeneity([30, 34], [0, 0])


# --- 4. power with the test the verdict uses ------------------------------------------


def test_five_heads_of_five_are_not_enough_to_call_a_coin_fair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # at 5 throws of a coin the Monte Carlo exact p is never below 2/32 = 0.0625, so no
    # bias can be found, and "consistent with fair" would claim what was not tested
    assert sequential.throws_for_power(2, 1.0) == 6
    h5 = write(tmp_path / "h5.txt", "1\n" * 5)
    out = run_json(capsys, str(h5), "--sides", "2", "--bias", "1")
    assert out["monte_carlo"] and out["p_value"] > ALPHA
    assert out["verdict"] == "insufficient" and out["more_throws"] == 1
    assert out["words"].startswith("Not enough throws yet: 5 so far")
    h6 = write(tmp_path / "h6.txt", "1\n" * 6)
    assert run_json(capsys, str(h6), "--sides", "2", "--bias", "1")["verdict"] == "biased"


@pytest.mark.parametrize(("sides", "bias"), [(2, 1.0), (2, 0.9), (3, 1.0)])
def test_at_the_throws_needed_the_verdicts_test_can_reject(sides: int, bias: float) -> None:
    n = sequential.throws_for_power(sides, bias)
    alternative = sequential.bias_alternative(sides, bias)
    rng = np.random.default_rng(9)
    logs = rng.multinomial(n, alternative, size=100)
    rejected = sum(
        audit(ThrowLog(sides, tuple(int(c) for c in counts)), bias=bias).verdict == "biased"
        for counts in logs
    )
    assert rejected / len(logs) >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / len(logs))


# --- 5. logs as dice write them ---------------------------------------------------------


def test_a_d10_log_reads_0_to_9_or_1_to_10_as_one_die(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zero = write(tmp_path / "zero.txt", "0\n1\n9\n0\n5\n")
    ten = write(tmp_path / "ten.txt", "10\n1\n9\n10\n5\n")
    assert read_log(zero, die_faces("d10")).sequence == read_log(ten, die_faces("d10")).sequence
    assert read_log(zero, die_faces("d10")).sequence == (10, 1, 9, 10, 5)
    mixed = run_json(capsys, str(write(tmp_path / "mixed.txt", "0\n10\n3\n")), "--type", "d10")
    assert mixed["sides"] == 10 and mixed["faces"][9]["count"] == 2
    err = refused(capsys, str(zero), "--sides", "10")
    assert "face 0 is not a face of a d10 (1–10)" in err and "--type d10" in err


def test_a_fudge_log_reads_minus_one_zero_plus_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "df.txt", "-1\n0\n+1\n1\n-1\n")
    out = run_json(capsys, str(log), "--type", "dF")
    assert out["sides"] == 3 and [f["count"] for f in out["faces"]] == [2, 1, 2]
    err = refused(capsys, str(log), "--sides", "3")
    assert "face -1 is not a face of a d3" in err and "--type dF" in err
    err = refused(capsys, str(write(tmp_path / "bad.txt", "2\n")), "--type", "dF")
    assert "face 2 is not a face of a dF (−1, 0, +1)" in err


def test_die_types_and_their_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(tmp_path / "d4.txt", "1\n4\n2\n")
    assert run_json(capsys, str(log), "--type", "d4")["sides"] == 4
    for bad in ("d1", "d101", "dx", "6"):
        assert "a die type is dK" in refused(capsys, str(log), "--type", bad)
    assert "not both" in refused(capsys, str(log), "--type", "d4", "--sides", "4")
    assert "--type is for a FILE" in refused(
        capsys, "--die", "red-d6", "--type", "d6", "--data-dir", str(tmp_path)
    )


def test_the_ledger_and_a_file_read_a_d10_alike(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        registry = DiceRegistry(ledger)
        registry.register("Blue d10", "d10")
        done = import_log(ledger, registry, "blue-d10", [0, 10, 3], "blue.txt")
        assert done["throws"] == 3  # a 10 is the d10's 0, as readings keep it
        assert [r.face for r in readings_of(ledger, registry.get("blue-d10"))] == [10, 10, 3]
    log = write(tmp_path / "blue.txt", "0\n10\n3\n")
    assert read_log(log, die_faces("d10")).counts[9] == 2


def test_named_columns_and_a_die_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = write(tmp_path / "two.csv", "die,face,count\nred,1,10\nred,2,14\nblue,1,7\nblue,2,5\n")
    assert read_log(table, 2, "red").counts == (10, 14)
    assert read_log(table, 2, "BLUE").counts == (7, 5)
    err = refused(capsys, str(table), "--sides", "2")
    assert "holds the throws of 2 dice (blue, red): pick one with --die" in err
    assert "its dice: blue, red" in refused(capsys, str(table), "--sides", "2", "--die", "green")
    out = run_json(
        capsys, str(table), "--sides", "2", "--die", "red", "--compare", str(table),
        "--compare-die", "blue",
    )  # fmt: skip
    assert out["n"] == 24 and out["homogeneity"]["n"] == 12
    plain = write(tmp_path / "plain.txt", "1\n2\n")
    assert "names no die column" in refused(capsys, str(plain), "--sides", "2", "--die", "red")
    swapped = write(tmp_path / "swapped.csv", "count,face\n5,2\n3,1\n")
    assert read_log(swapped, 2).counts == (3, 5)
    derived = write(tmp_path / "derived.csv", "face,share,approx_count_derived\n1,0.5,9\n2,0.5,8\n")
    assert read_log(derived, 2).counts == (9, 8)
    ordered = write(tmp_path / "ordered.csv", "face\n2\n1\n2\n")
    assert read_log(ordered, 2).sequence == (2, 1, 2)
    by_die = write(tmp_path / "by_die.csv", "die,face\nred,2\nblue,1\nred,1\n")
    assert read_log(by_die, 2, "red").sequence == (2, 1)
    with pytest.raises(LogError, match="line 1: 'k,throws' is neither face,count numbers"):
        read_log(write(tmp_path / "other.csv", "k,throws\n0,185\n"), 6)
    with pytest.raises(LogError, match="line 3: 'red,x,4' is not face,count numbers"):
        read_log(write(tmp_path / "bad.csv", "die,face,count\nred,1,3\nred,x,4\n"), 6, "red")


# --- 6. the ledger's folder -------------------------------------------------------------


def test_audit_die_reads_the_ledger_where_dicebridge_data_dir_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "elsewhere"
    assert main(["dice", "add", "Red d6", "--type", "d6", "--data-dir", str(data)]) == 0
    log = write(tmp_path / "red.txt", "1\n2\n3\n4\n5\n6\n")
    assert main(["dice", "import", "red-d6", str(log), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)  # no ./data here
    monkeypatch.setenv("DICEBRIDGE_DATA_DIR", str(data))
    assert run_json(capsys, "--die", "red-d6")["n"] == 6
