"""The audit's limits and its reading of logs: every out-of-range input is refused
with a one-line message naming the real problem, and the fast computations give
what the straightforward ones give."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from audit import sequential
from audit.logs import LogError, ThrowLog, from_counts, read_log, read_values
from audit.verdict import audit
from dicebridge.cli import main

# --- the straightforward versions the fast ones must agree with ---------------------


def reference_stopping_time(sides: int, bias: float, runs: int, cap: int) -> int:
    return int(np.ceil(np.mean(reference_stopping_times(sides, bias, runs, cap))))


def reference_stopping_times(sides: int, bias: float, runs: int, cap: int) -> list[int]:
    """The e-value recomputed from the counts after every throw (the pre-numpy method),
    on the same random numbers (chunks of 4,000 faces drawn with Generator.choice)."""
    p = sequential.bias_alternative(sides, bias)
    rng = np.random.default_rng(20261122)
    conc = np.asarray(sequential.CONCENTRATIONS)[:, None]
    times = []
    for _ in range(runs):
        counts, done, stopped = np.zeros(sides), 0, cap
        while done < cap:
            faces = rng.choice(sides, size=4000, p=p)
            steps = np.zeros((4000, sides))
            steps[np.arange(4000), faces] = 1
            prefix = counts + steps.cumsum(axis=0)
            n = done + np.arange(1, 4001)
            a = conc[:, :, None]
            logs = (
                gammaln(sides * conc) - gammaln(sides * conc + n)
                + (gammaln(a + prefix[None]) - gammaln(a)).sum(axis=2)
                + n * np.log(sides)
            )  # fmt: skip
            log_e = logsumexp(logs, axis=0) - np.log(4)
            hits = np.nonzero(log_e >= np.log(20))[0]
            if len(hits):
                stopped = done + int(hits[0]) + 1
                break
            counts, done = prefix[-1], done + 4000
        times.append(min(stopped, cap))
    return times


def reference_duplicates(seq: list[int], length: int) -> list[tuple[int, int, int]]:
    """The dictionary-of-tuples scan the numpy hashing replaced."""
    seen: dict[tuple[int, ...], int] = {}
    hits, i = [], 0
    while i + length <= len(seq):
        key = tuple(seq[i : i + length])
        j = seen.get(key)
        if j is not None and i - j >= length:
            run = length
            while i + run < len(seq) and seq[j + run] == seq[i + run]:
                run += 1
            hits.append((j, i, run))
            i += run
            continue
        seen.setdefault(key, i)
        i += 1
    return hits


@pytest.mark.parametrize(("sides", "bias", "runs"), [(6, 0.2, 100), (100, 1.0, 2), (2, 0.5, 30)])
def test_stopping_time_simulation_matches_the_recomputed_e_value(
    sides: int, bias: float, runs: int
) -> None:
    fixed = sequential.throws_for_power(sides, bias)
    fast = sequential.sequential_stopping_time(sides, bias, runs=runs, fixed_sample=fixed)
    assert fast == reference_stopping_time(sides, bias, runs, 50 * fixed)


def test_stopping_time_simulation_has_a_work_budget() -> None:
    # a d100 at bias 0.05 averages about 18 million throws a run; cut at 100,000 the
    # only run is a lower bound at the budget (this ran for minutes before the budget)
    assert (
        sequential.sequential_stopping_time(100, 0.05, fixed_sample=1_617_766, budget=100_000)
        == 100_000
    )
    # runs simulate whole chunks of 4,000 throws; once 50,000 are spent no run starts,
    # and a run the budget cuts short is left out
    fixed = sequential.throws_for_power(6, 0.2)
    spent, finished = 0, []
    for stopped in reference_stopping_times(6, 0.2, 100, 50 * fixed):
        chunks = math.ceil(stopped / 4000)
        if spent + 4000 * (chunks - 1) >= 50_000:
            break  # not started, or cut short before its last chunk
        spent += 4000 * chunks
        finished.append(stopped)
    assert 5 < len(finished) < 13
    budgeted = sequential.sequential_stopping_time(6, 0.2, fixed_sample=fixed, budget=50_000)
    assert budgeted == math.ceil(np.mean(finished))


def test_e_value_path_is_the_e_value_of_each_prefix() -> None:
    rng = np.random.default_rng(3)
    seq = rng.integers(1, 101, size=400).tolist()
    path = sequential.e_value_path(seq, 100)
    counts = np.zeros(100)
    for i, face in enumerate(seq):
        counts[face - 1] += 1
        if i % 37 == 0 or i == len(seq) - 1:
            assert path[i] == pytest.approx(sequential.log_e_value(counts.tolist()), abs=1e-9)


def test_duplicated_stretches_match_the_dictionary_scan() -> None:
    rng = random.Random(11)
    for _ in range(400):
        length = rng.choice([1, 2, 3, 5, 30])
        seq = [rng.randint(1, rng.choice([2, 3, 6])) for _ in range(rng.randint(0, 200))]
        if seq and rng.random() < 0.7:  # paste a stretch of itself somewhere
            a = rng.randrange(len(seq))
            at = rng.randrange(len(seq))
            seq = seq[:at] + seq[a : a + rng.randint(1, 90)] + seq[at:]
        assert sequential.duplicated_stretches(seq, length) == reference_duplicates(seq, length)


# --- defect 1: the number of sides ---------------------------------------------------


def err_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err  # one line
    return err


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


@pytest.mark.parametrize("sides", ["0", "1", "-1", "101", "1000", "10000000000000000000000"])
def test_sides_outside_d2_to_d100_are_refused_naming_sides(
    sides: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "one.txt", "1\n")
    err = err_of(capsys, "audit", str(log), "--sides", sides, "--json")
    assert "--sides must be from 2 to 100" in err and "--bias" not in err
    with pytest.raises(LogError, match="dice of 2 to 100 sides"):
        read_log(log, int(sides))


def test_a_d100_log_of_one_throw_is_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "one.txt", "1\n")
    assert main(["audit", str(log), "--sides", "100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 1 and out["verdict"] == "insufficient"
    assert out["throws_needed"] == 101_891 and out["sequential_throws"] > out["throws_needed"]


# --- defects 2 and 3: --bias, and messages that name the real problem ----------------


@pytest.mark.parametrize("bias", ["0.01", "0.049", "1e-300", "0", "-0.2", "1.5", "5", "nan", "inf"])
def test_bias_outside_its_range_is_refused(
    bias: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "ok.txt", "1\n2\n3\n")
    err = err_of(capsys, "audit", str(log), "--sides", "6", "--bias", bias)
    assert "--bias must be from 0.05 to 1" in err and "solver" not in err
    with pytest.raises(LogError, match=r"from 0\.05 to 1"):
        audit(read_log(log, 6), bias=float(bias))


def test_the_ends_of_the_bias_range_are_answered() -> None:
    log = from_counts([(1, 100), (2, 100)], 2)
    assert audit(log, bias=0.05).throws_needed == 3140
    assert audit(log, bias=1.0).throws_needed < 10  # a coin that always lands on face 1


# --- defect 4: bytes that are not UTF-8 ----------------------------------------------


def test_a_log_that_is_not_utf8_is_refused_with_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write(tmp_path / "nonutf8.txt", b"1\n2\n\xff\xfe3\n4\n")
    err = err_of(capsys, "audit", str(log), "--sides", "6")
    assert "nonutf8.txt line 3: not UTF-8" in err
    data = ["--data-dir", str(tmp_path)]
    assert main(["dice", "add", "Red d6", "--type", "d6", *data]) == 0
    capsys.readouterr()
    err = err_of(capsys, "dice", "import", "red-d6", str(log), *data)
    assert "nonutf8.txt line 3: not UTF-8" in err


# --- defect 5: counts too large to compute exactly -------------------------------------


@pytest.mark.parametrize("count", ["1" + "9" * 30, str(10**17), str(10**15), "1000000001"])
def test_counts_past_a_billion_throws_are_refused(
    count: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = write(tmp_path / "big.csv", "".join(f"{face},{count}\n" for face in range(1, 7)))
    err = err_of(capsys, "audit", str(table), "--sides", "6")
    assert "big.csv line 1" in err and "past 1,000,000,000 throws" in err


def test_large_counts_report_one_e_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = write(tmp_path / "fair.csv", "".join(f"{f},{10**8}\n" for f in range(1, 7)))
    assert main(["audit", str(table), "--sides", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "consistent_with_fair"
    assert out["log10_e_value"] < 0  # a fair log is evidence for the fair die
    assert math.log10(out["e_value"]) == pytest.approx(out["log10_e_value"])


def test_an_e_value_beyond_floats_is_null_not_capped() -> None:
    log = ThrowLog(6, (10**6, 0, 0, 0, 0, 0))
    result = audit(log)
    assert result.log_e > 1000 and result.e_value == math.inf
    data = result.to_json()
    assert data["e_value"] is None  # not a capped number that disagrees with log10_e_value
    assert data["log10_e_value"] == pytest.approx(result.log_e / math.log(10))
    json.dumps(data, allow_nan=False)  # valid JSON, as the web API sends it
    small = audit(ThrowLog(6, (5, 5, 5, 5, 5, 5)))
    assert small.e_value == pytest.approx(math.exp(small.log_e))


# --- defect 6: what a throw log may hold ----------------------------------------------


def test_a_byte_order_mark_and_trailing_comments_are_read(tmp_path: Path) -> None:
    log = write(tmp_path / "bom.txt", "\ufeff2\n3 # re-thrown\n# a note\n  4  \n")
    assert read_log(log, 6).sequence == (2, 3, 4)
    assert read_values(log) == [2, 3, 4]
    table = write(tmp_path / "c.csv", "\ufeffface,count # header\n1,10 # red\n2,12\n")
    assert read_log(table, 2).counts == (10, 12)


@pytest.mark.parametrize("line", ["1_0", "\uff12", "٣", "3.0", "0x3", "1e1", "+", "3 4"])
def test_only_ascii_digits_are_numbers(line: str, tmp_path: Path) -> None:
    log = write(tmp_path / "odd.txt", f"1\n{line}\n")
    with pytest.raises(LogError, match=r"line 2: .* is not a face number"):
        read_log(log, 20)
    with pytest.raises(LogError, match=r"line 2: .* is not a face number"):
        read_values(log)
    table = write(tmp_path / "odd.csv", f"1,3\n{line},4\n")
    with pytest.raises(LogError, match="line 2"):
        read_log(table, 20)


def test_a_face_out_of_range_names_its_line(tmp_path: Path) -> None:
    log = write(tmp_path / "log.txt", "# d6\n3\n\n9\n")
    with pytest.raises(LogError, match=r"log\.txt line 4: face 9 is not a face of a d6"):
        read_log(log, 6)


# --- defect 7: --die with --sides ---------------------------------------------------


def test_sides_with_a_registered_die_is_refused_and_help_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = err_of(capsys, "audit", "--die", "x", "--sides", "20", "--data-dir", str(tmp_path))
    assert "--sides is for a FILE" in err
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "--sides is refused" in " ".join(capsys.readouterr().out.split())


# --- defect 8: a log imported twice ---------------------------------------------------


def test_importing_a_log_twice_warns_and_the_verdict_says_copies_were_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["dice", "add", "Red d6", "--type", "d6", *data]) == 0
    rng = np.random.default_rng(4)
    log = write(tmp_path / "red.txt", "\n".join(map(str, rng.integers(1, 7, size=600))) + "\n")
    assert main(["dice", "import", "red-d6", str(log), *data]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["dice", "import", "red-d6", str(log), *data]) == 0
    err = capsys.readouterr().err
    assert "warning: 600 of the imported throws repeat" in err
    assert "throws 601–1,200 repeat throws 1–600" in err
    assert main(["audit", "--die", "red-d6", "--json", *data]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["duplicated_stretches"] == [[0, 600, 600]]
    assert out["words"].startswith("Copied throws found: throws 601–1,200 repeat throws 1–600")
    assert "cannot be trusted" in out["words"]
