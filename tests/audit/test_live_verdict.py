"""A live audit goes by the e-value's running maximum (Ville bounds the supremum), and
shows each face's share with a confidence sequence, valid however often it is looked at."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import betaln, logsumexp

from audit import sequential
from audit.logs import ThrowLog, from_faces
from audit.report import render
from audit.verdict import ALPHA, audit

LOG20 = math.log(1 / ALPHA)


def early_streak() -> list[int]:
    """Seven sixes, then 600 fair throws: E passes 20 at throw 6 and is 0.26 at the end."""
    return [6] * 7 + np.random.default_rng(8).integers(1, 7, size=600).tolist()


def test_a_crossing_of_20_stands_after_the_e_value_falls_back() -> None:
    seq = early_streak()
    path = sequential.e_value_path(seq, 6)
    crossed = int(np.flatnonzero(path >= LOG20)[0]) + 1
    assert crossed == 6 and path[-1] < LOG20  # crossed, then fell back below 20
    result = audit(from_faces(seq, 6), live=True)
    assert result.e_value < 20 <= result.e_value_max  # E now would say "not biased"
    assert result.verdict == "biased"
    assert result.peak is not None and result.peak.crossed_at == crossed
    words = result.words()
    assert "first reached 20 at throw 6" in words and "0.3 now" in words
    data = result.to_json()
    assert data["e_value_crossed_at"] == 6 and data["e_value_max_at"] == int(np.argmax(path)) + 1
    assert data["log10_e_value_max"] == pytest.approx(float(path.max()) / math.log(10))
    assert data["log10_e_value"] == pytest.approx(float(path[-1]) / math.log(10))


def test_once_biased_a_live_verdict_never_flips_back() -> None:
    seq = early_streak()
    for n in [*range(1, 12), *range(50, len(seq), 50), len(seq)]:
        verdict = audit(from_faces(seq[:n], 6), live=True).verdict
        assert (verdict == "biased") == (n >= 6), n


def test_a_fair_dies_live_audit_false_alarm_rate_is_at_most_alpha() -> None:
    # 200 fair d6 logs of 1,000 throws, judged live: "biased" iff E reached 20 at any
    # throw (every throw looked at, in effect).  Measured: 4 of 200 (2.0%), and in all
    # 4 E had fallen back under 20 by the end, where E now would have cleared the die
    rng = np.random.default_rng(20261122)
    runs, alarms, fell_back = 200, 0, 0
    for _ in range(runs):
        seq = rng.integers(1, 7, size=1000).tolist()
        result = audit(from_faces(seq, 6), live=True)
        path = sequential.e_value_path(seq, 6)
        crossed = bool((path >= LOG20).any())
        assert (result.verdict == "biased") == crossed
        alarms += crossed
        fell_back += crossed and path[-1] < LOG20
    assert alarms / runs <= ALPHA
    assert fell_back > 0  # why the verdict goes by the maximum, not E now


def test_the_peak_is_the_paths_maximum_and_first_crossing_across_chunks() -> None:
    rng = np.random.default_rng(3)
    seq = [1] * 9 + rng.integers(1, 5, size=300).tolist()
    faces = np.asarray(seq) - 1
    path = sequential.e_value_path(seq, 4)
    chunked = np.concatenate(list(sequential._e_value_chunks(faces, 4, chunk=7)))
    assert chunked == pytest.approx(path, abs=1e-9)
    peak = sequential.e_value_peak(seq, 4)
    assert peak.log_e == pytest.approx(float(path.max()))
    assert peak.at == int(np.argmax(path)) + 1
    assert peak.crossed_at == int(np.flatnonzero(path >= LOG20)[0]) + 1
    assert sequential.e_value_peak([1, 2, 3, 4], 4).crossed_at is None


def test_without_throw_order_a_live_audit_has_only_e_now() -> None:
    result = audit(ThrowLog(6, (130, 100, 100, 100, 100, 70)), live=True)
    data = result.to_json()
    assert result.peak is None and data["e_value_max_at"] is None
    assert data["e_value_crossed_at"] is None and data["e_value_max"] == data["e_value"]


def one_face_log_m(p: float, s: int, t: int, k: int) -> float:
    """ln M_t(p): the e-value's mixture seen from one face, against a share p."""
    conc = np.asarray(sequential.CONCENTRATIONS)
    mix = logsumexp(betaln(conc + s, (k - 1) * conc + t - s) - betaln(conc, (k - 1) * conc))
    return float(mix - math.log(len(conc)) - s * math.log(p) - (t - s) * math.log1p(-p))


@pytest.mark.parametrize("counts", [(10, 20, 30, 40), (3, 0, 1, 2, 0, 4), (500, 480)])
def test_confidence_sequence_ends_are_where_the_one_face_e_value_reaches_20(
    counts: tuple[int, ...],
) -> None:
    low, high = sequential.confidence_sequence(np.asarray(counts))
    t, k = sum(counts), len(counts)
    for s, lo, hi in zip(counts, low, high, strict=True):
        assert lo <= s / t <= hi
        if lo > 0:  # rounded outwards: the end is out, a hair inside is in
            assert one_face_log_m(lo, s, t, k) >= LOG20 > one_face_log_m(lo + 1e-9, s, t, k)
        else:
            assert s == 0
        assert one_face_log_m(hi, s, t, k) >= LOG20 > one_face_log_m(hi - 1e-9, s, t, k)


def test_confidence_sequences_cover_every_look_where_wilson_intervals_do_not() -> None:
    # 300 loaded d6s (face 1 at 20%), looked at after every one of 500 throws: a face's
    # 95% confidence sequence holds its share at all 500 looks in at least 95% of runs.
    # Measured: 98.1% of (run, face) pairs (each face 96.7% to 99.0%); Wilson's 95%
    # intervals, fixed-sample, hold at all 500 looks in 48.9% (at the 500th alone, 95.7%).
    p = sequential.bias_alternative(6, 0.2)
    rng = np.random.default_rng(7)
    faces = rng.choice(6, size=(300, 500), p=p)
    counts = np.cumsum(np.eye(6, dtype=np.int64)[faces], axis=1)  # (run, look, face)
    low, high = sequential.confidence_sequence(counts)
    covered = ((low <= p) & (p <= high)).all(axis=1)  # (run, face): at every look
    per_face = covered.mean(axis=0)
    assert covered.mean() >= 1 - ALPHA
    assert per_face.min() >= 1 - ALPHA - 3 * math.sqrt(ALPHA * (1 - ALPHA) / len(faces))
    n = np.arange(1, 501)[None, :, None]
    share, z = counts / n, stats.norm.ppf(1 - ALPHA / 2)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    wilson = ((centre - half <= p) & (p <= centre + half)).all(axis=1)
    assert wilson.mean() < 1 - ALPHA


def test_a_live_report_shows_the_highest_e_where_it_crossed_and_e_now() -> None:
    live = audit(from_faces(early_streak(), 6), live=True)
    page = render(live, "Audit of a d6")
    assert "highest 10^1.95, at throw 7; 20 first reached at throw 6; 10^-0.58 now" in page
    assert "95% anytime interval" in page and "confidence sequences" in page
    assert "20 first reached at throw 6" in page.split("<svg")[2]  # marked on the path
    assert live.to_json()["face_intervals"] == "confidence_sequence"
    once = audit(from_faces(early_streak(), 6))
    assert "Wilson intervals: fixed-sample, valid for one look" in render(once, "A file")
    assert once.to_json()["face_intervals"] == "wilson"
    wilson = [(f.ci_low, f.ci_high) for f in once.faces]
    anytime = [(f.ci_low, f.ci_high) for f in live.faces]
    assert all(a[0] < w[0] and w[1] < a[1] for a, w in zip(anytime, wilson, strict=True))
