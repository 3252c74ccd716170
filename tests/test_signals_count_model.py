"""The one count model, and ``corpuskit.signals.detect`` on plain pandas series."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from corpuskit.errors import ValidationError
from corpuskit.signals import detect
from corpuskit.stats.count_model import count_sigma, threshold_count
from corpuskit.stats.thresholds import OPEN_SIGMA

RATES = (0.0, 0.1, 0.3, 1.0, 2.0, 3.3, 5.0, 10.0, 30.0, 100.0, 500.0)
STATED_FP = 0.002      # nominal one-sided rate at 3 sigma is 0.00135; 0.002 allows the sampling error
DRAWS = 20000
WINDOW = 21


def test_one_test_from_zero_to_thousands():
    """Baseline rate per day (21 baseline days of Poisson counts), surge = max(4x, +10) records.

    ==========  =====  ================  ======================  ====================
    rate/day    surge  surge fires (%)   surge sigma, 1st pct.   noise fires (%)
    ==========  =====  ================  ======================  ====================
    0           10     100.00            7.7                     0.000
    0.1         11     100.00            5.4                     0.065
    0.3         11     100.00            5.4                     0.070
    1           11     100.00            4.5                     0.055
    2           12     99.99             3.8                     0.115
    3.3         14     99.89             3.5                     0.070
    5           20     100.00            4.1                     0.075
    10          40     100.00            6.0                     0.150
    30          120    100.00            10.2                    0.085
    100         400    100.00            18.8                    0.135
    500         2000   100.00            40.0 (cap)              0.110
    ==========  =====  ================  ======================  ====================

    (20,000 seeded draws per rate, seed 18: the figures this test computes.)
    Asserted: at every rate the surge fires (sigma >= 3) against the exact
    expected baseline and on at least 99.5% of random baselines, and
    stationary Poisson noise fires at most at the stated rate, 0.2%.
    """
    rng = np.random.default_rng(18)
    for lam in RATES:
        base = rng.poisson(lam, size=(DRAWS, WINDOW)).astype(float)
        noise = rng.poisson(lam, size=DRAWS)
        sigma, _, _ = count_sigma(noise, base)
        assert (sigma >= OPEN_SIGMA).mean() <= STATED_FP, lam
        surge = float(np.ceil(max(4 * lam, lam + 10)))
        s_sigma, _, _ = count_sigma(np.full(DRAWS, surge), base)
        assert (s_sigma >= OPEN_SIGMA).mean() >= 0.995, lam
        flat = np.full((1, WINDOW), lam)
        assert count_sigma(np.array([surge]), flat)[0][0] >= OPEN_SIGMA, lam


def test_threshold_count_is_the_smallest_firing_count():
    for lam in (0.0, 2.0, 50.0):
        flat = np.full(WINDOW, lam)
        c = threshold_count(WINDOW, lam, 0.0, OPEN_SIGMA)
        assert count_sigma(np.array([c]), flat[None])[0][0] >= OPEN_SIGMA
        assert count_sigma(np.array([c - 1]), flat[None])[0][0] < OPEN_SIGMA


def test_overdispersed_baseline_widens_the_test():
    rng = np.random.default_rng(1)
    steady = rng.poisson(100, size=(1, WINDOW)).astype(float)
    wandering = rng.negative_binomial(5, 5 / 105, size=(1, WINDOW)).astype(float)
    s1 = count_sigma(np.array([160.0]), steady)[0][0]
    s2 = count_sigma(np.array([160.0]), wandering)[0][0]
    assert s1 > 4 and s2 < s1


def _hourly(n_days=30, seed=0, rate=20.0):
    rng = np.random.default_rng(seed)
    idx = pd.date_range("2024-01-01", periods=24 * n_days, freq="h")
    shape = 1 + 0.8 * np.sin(2 * np.pi * (idx.hour.to_numpy() - 6) / 24)
    return pd.Series(rng.poisson(rate * shape).astype(float), index=idx)


def test_detect_hourly_finds_a_burst_and_is_causal():
    s = _hourly()
    s.iloc[24 * 20 + 3] += 60                    # a night-time burst
    out = detect(s)
    assert out.attrs["rhythm"] == "daily"
    assert list(out.columns[:3]) == ["sigma", "onset", "fired"]
    assert out.index.equals(s.index)
    assert out["fired"].iloc[24 * 20 + 3]
    assert out["severity"].iloc[24 * 20 + 3] == "high"
    assert out["fired"].sum() <= 3
    # causal: changing the future does not change the past
    later = s.copy()
    later.iloc[24 * 25:] *= 5
    again = detect(later)
    pd.testing.assert_series_equal(out["sigma"].iloc[:24 * 25], again["sigma"].iloc[:24 * 25])


def test_detect_corpus_edge_scores_nothing():
    out = detect(_hourly())
    assert out["sigma"].iloc[:24 * 3].isna().all()
    assert not out["fired"].iloc[:24 * 3].any()


def test_detect_daily_five_minute_and_gaps():
    rng = np.random.default_rng(3)
    daily = pd.Series(rng.poisson(3, 60).astype(float),
                      index=pd.date_range("2024-01-01", periods=60, freq="D"))
    daily.iloc[40] = 16
    daily.iloc[30] = np.nan                      # a collection gap
    out = detect(daily)
    assert out["fired"].iloc[40] and np.isnan(out["sigma"].iloc[30])
    five = pd.Series(rng.poisson(2, 288 * 10).astype(float),
                     index=pd.date_range("2024-01-01", periods=288 * 10, freq="5min"))
    five.iloc[288 * 8: 288 * 8 + 12] += 8        # an hour at 5x
    out5 = detect(five)
    assert out5["fired"].iloc[288 * 8: 288 * 8 + 12].any()
    assert out5["fired"].iloc[288 * 2: 288 * 8].mean() <= 0.003     # noise: at most the 3-sigma rate


def _five_minute(days=12, rate=50.0, seed=6):
    rng = np.random.default_rng(seed)
    idx = pd.date_range("2024-01-01", periods=288 * days, freq="5min")
    return pd.Series(rng.poisson(rate, len(idx)).astype(float), index=idx)


def test_detect_materiality_gate_on_sub_daily_series():
    """A 5-minute blip at 4x is very improbable but adds 1% of a 14,400-record day: not fired by
    default (6%); a two-hour rise adding 7.5% of a day is. ``materiality=0`` turns the gate off."""
    s = _five_minute()
    blip = 288 * 9 + 36                           # 03:00 on day 10
    s.iloc[blip] += 150
    rise = slice(288 * 10 + 120, 288 * 10 + 144)  # two hours on day 11
    s.iloc[rise] += 45
    out = detect(s)
    assert out["sigma"].iloc[blip] > 10
    assert not out["material"].iloc[blip] and not out["fired"].iloc[blip]
    assert out["fired"].iloc[rise].any()
    assert out["material"].iloc[rise].any()
    off = detect(s, materiality=0)
    assert off["fired"].iloc[blip] and off["material"].iloc[blip]
    smaller = _five_minute()
    smaller.iloc[rise] += 30                      # 5% of a day: under the default 6%, over 3%
    assert not detect(smaller)["fired"].iloc[rise].any()
    assert detect(smaller, materiality=0.03)["fired"].iloc[rise].any()
    # the gate reads the past only: changing later days changes nothing before them
    later = s.copy()
    later.iloc[288 * 11:] *= 4
    again = detect(later)
    pd.testing.assert_frame_equal(out.iloc[:288 * 11], again.iloc[:288 * 11])


def test_detect_materiality_needs_a_day_and_ignores_daily_series():
    s = _five_minute(days=3)
    s.iloc[100] += 500                            # inside the first day: no mean day to compare with
    out = detect(s, rhythm="none", min_history=1)
    assert not out["material"].iloc[:288].any() and not out["fired"].iloc[:288].any()
    rng = np.random.default_rng(3)
    daily = pd.Series(rng.poisson(3, 60).astype(float),
                      index=pd.date_range("2024-01-01", periods=60, freq="D"))
    daily.iloc[40] = 16
    for m in (None, 0.5):
        d = detect(daily, materiality=m)
        assert d["fired"].iloc[40]
        assert d["material"].equals(d["sigma"].notna())
    # a step that does not divide a day has no "same hours on previous days": the gate is off
    odd = pd.Series(rng.poisson(5, 2000).astype(float),
                    index=pd.date_range("2024-01-01", periods=2000, freq="7min"))
    o = detect(odd, materiality=0.5)
    assert o["material"].equals(o["sigma"].notna())


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2, "3%", True, float("nan")])
def test_detect_rejects_bad_materiality(bad):
    with pytest.raises(ValidationError, match="materiality"):
        detect(_five_minute(days=2), materiality=bad)


def test_detect_sentiment_shift():
    rng = np.random.default_rng(4)
    idx = pd.date_range("2024-01-01", periods=40, freq="D")
    count = rng.poisson(30, 40).astype(float)
    mean = rng.normal(0.1, 0.05, 40)
    mean[30] = -0.3
    out = detect(pd.DataFrame({"sum": mean * count, "count": count}, index=idx), kind="sentiment_shift")
    assert out["fired"].iloc[30]
    assert out["fired"].sum() <= 2


@pytest.mark.parametrize("bad, message", [
    ([1, 2, 3], "pandas Series"),
    (pd.Series([1.0, 2.0], index=[0, 1]), "DatetimeIndex"),
    (pd.Series([1.0, 2.0, 3.0], index=pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-04"])),
     "regular"),
    (pd.Series(["a", "b"], index=pd.date_range("2024-01-01", periods=2, freq="D")), "numeric"),
    (pd.Series([1.0, np.inf], index=pd.date_range("2024-01-01", periods=2, freq="D")), "infinite"),
    (pd.Series([1.0], index=pd.date_range("2024-01-01", periods=1, freq="D")), "two periods"),
    (pd.Series([1.0, 2.0], index=pd.to_datetime(["2024-01-02", "2024-01-01"])), "sorted"),
])
def test_detect_bad_input(bad, message):
    with pytest.raises(ValidationError, match=message):
        detect(bad)


def test_detect_bad_settings():
    s = _hourly(5)
    with pytest.raises(ValidationError, match="kind"):
        detect(s, kind="nope")
    with pytest.raises(ValidationError, match="rhythm"):
        detect(s, rhythm="monthly")
    with pytest.raises(ValidationError, match="cycles"):
        detect(s, cycles=0)
    with pytest.raises(ValidationError, match="sum"):
        detect(s, kind="sentiment_shift")


def test_low_baseline_entity_surge_is_one_test_with_novelty():
    """The "Norway" gap: 4 mentions in 21 days, then 11, 21 and 17 a day, used to raise nothing."""
    from corpuskit.analysis.signals.novelty import NoveltyDetector
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector

    counts = np.zeros((3, 40))
    counts[0, [5, 9, 14, 20]] = 1
    counts[0, 30:33] = [11, 21, 17]            # Norway: a low baseline, then a surge
    counts[1, 30] = 12                          # a brand-new name
    counts[2, 30] = 12
    counts[2, 25] = 1                           # one mention before: still novelty's range
    volume, _, _ = VolumeSpikeDetector().score(counts, 0.0, 0.5, novelty_range=True)
    novelty, _ = NoveltyDetector().score(counts)
    assert volume[0, 30] >= OPEN_SIGMA and not np.isfinite(novelty[0, 30])
    for row in (1, 2):                          # exactly one of the two ranges speaks
        assert novelty[row, 30] >= OPEN_SIGMA and not np.isfinite(volume[row, 30])


def test_stage_and_detect_are_the_same_code():
    """The daily volume stage equals ``detect(rhythm="none")`` on the same counts (gates aside)."""
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector

    rng = np.random.default_rng(2)
    x = rng.poisson(6, 80).astype(float)
    x[60] = 30
    stage, _, _ = VolumeSpikeDetector(min_count=0, min_multiplier=0, min_extra=0, floor_scale=0).score(x[None], 0.0)
    series = pd.Series(x, index=pd.date_range("2024-01-01", periods=80, freq="D"))
    ours = detect(series, rhythm="none", cycles=21, min_history=7)["sigma"].to_numpy()
    np.testing.assert_allclose(stage[0, 7:], ours[7:])
    assert ours[60] >= 6


def test_detect_sentiment_with_squares_and_no_false_alarms():
    rng = np.random.default_rng(5)
    idx = pd.date_range("2024-01-01", periods=60, freq="D")
    count = rng.poisson(12, 60).astype(float)
    scores = [rng.normal(0.0, 0.4, int(n)).clip(-1, 1) for n in count]
    # a shift of 0.6 on ~12 records of sd 0.4 (about 5 standard errors); without 'sq' the
    # per-record variance comes from 21 day means and is read against Student's t (20 df),
    # so a 0.5 shift (3.2 sampled here) no longer clears 3 on that path: it did when t was read
    # as a normal, which made such noise fire 0.7% of days instead of 0.3%
    scores[45] = (scores[45] - 0.6).clip(-1, 1)
    frame = pd.DataFrame({"sum": [s.sum() for s in scores], "count": count,
                          "sq": [(s ** 2).sum() for s in scores]}, index=idx)
    with_sq = detect(frame, kind="sentiment_shift")
    without = detect(frame[["sum", "count"]], kind="sentiment_shift")
    for out in (with_sq, without):
        assert out["fired"].iloc[45]
        assert out["fired"].drop(idx[45]).sum() <= 1


def test_sentiment_stage_and_detect_are_the_same_code():
    """The daily sentiment stage equals ``detect(kind="sentiment_shift")`` on the same sums (gates aside:
    the stage's 8 records and 0.1 shift; both count every baseline day with a record)."""
    from corpuskit.analysis.signals.sentiment import SentimentShiftDetector

    rng = np.random.default_rng(7)
    count = rng.poisson(6, 70).astype(float)
    scores = [rng.normal(0.05, 0.35, int(n)).clip(-1, 1) for n in count]
    scores[55] = (scores[55] - 0.8).clip(-1, 1)
    total = np.array([s.sum() for s in scores])
    sq = np.array([(s ** 2).sum() for s in scores])
    assert SentimentShiftDetector().min_day_records == 1
    stage, _, _ = SentimentShiftDetector(min_records=5, min_shift=0.0).score(
        count[None], total[None], sq[None])
    frame = pd.DataFrame({"sum": total, "count": count, "sq": sq},
                         index=pd.date_range("2024-01-01", periods=70, freq="D"))
    ours = detect(frame, kind="sentiment_shift")["sigma"].to_numpy()
    np.testing.assert_allclose(stage[0], ours, equal_nan=True)
    assert ours[55] >= 3


def test_mean_shift_variance_is_the_sampling_error_on_a_quiet_topic():
    """Pure sampling noise (no day effect): tau2 ~ 0 and z has unit spread; a real day effect widens it.

    Measured: |z| >= 3 on 0.3% of days without a day effect (the normal rate) and on
    about 1% with one (tau = 0.2 against a record sd of 0.4: tau2 comes from 21 days).
    """
    from corpuskit.stats.mean_model import mean_shift

    rng = np.random.default_rng(8)
    days = 400
    count = rng.poisson(8, days).astype(float)
    for tau in (0.0, 0.2):
        day_mean = rng.normal(0.0, tau, days)
        scores = [rng.normal(m, 0.4, int(n)) for m, n in zip(day_mean, count)]
        total = np.array([s.sum() for s in scores])
        sq = np.array([(s ** 2).sum() for s in scores])
        p = mean_shift(count, total, sq, k=1, window=21, min_periods=7, min_records=5)
        z = p["z"][np.isfinite(p["z"])]
        assert 0.8 < z.std() < 1.25, (tau, z.std())
        assert np.mean(np.abs(z) >= 3) <= (0.015 if tau else 0.005)
        assert np.median(p["s2"][30:]) == pytest.approx(0.16, rel=0.2)
        if tau:
            assert np.median(p["tau2"][30:]) == pytest.approx(tau ** 2, rel=0.5)
        else:
            assert np.median(p["tau2"][30:]) < 0.005


def test_stage_volume_fires_on_a_quiet_topic_surge():
    """The property holds for the stage too: no minimum baseline for topic series (0.3 a day, then 11)."""
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector

    rng = np.random.default_rng(9)
    counts = rng.poisson(0.3, (50, 40)).astype(float)
    counts[:, 35] = np.ceil(np.maximum(4 * counts[:, 14:35].mean(axis=1), counts[:, 14:35].mean(axis=1) + 10))
    det = VolumeSpikeDetector(entities=False)
    sigma, _, _ = det.score(counts, det.min_baseline)
    assert (sigma[:, 35] >= OPEN_SIGMA).all()
    assert not (np.nan_to_num(sigma[:, :35], nan=0.0) >= OPEN_SIGMA).any()   # quiet days stay quiet


@pytest.mark.parametrize("with_sq", [True, False])
def test_detect_sentiment_noise_rate(with_sq):
    """Pure noise (sd 0.3 a record, ~10 records a period): at most 1% of periods fire.

    Two-sided (a rise or a fall) and the best of three after windows, so above the one-sided
    0.135% of a single count test; measured 0.2-0.8% over seeds 1-3 with and without 'sq'.
    """
    rng = np.random.default_rng(1)
    n = 5000
    count = rng.poisson(10, n).astype(float)
    scores = [rng.normal(0.05, 0.3, int(c)).clip(-1, 1) for c in count]
    frame = pd.DataFrame({"sum": [s.sum() for s in scores], "count": count,
                          "sq": [(s ** 2).sum() for s in scores]},
                         index=pd.date_range("2024-01-01", periods=n, freq="h"))
    out = detect(frame if with_sq else frame[["sum", "count"]], kind="sentiment_shift")
    assert out["fired"].mean() <= 0.01
    assert (out["sigma"] >= 4.5).sum() <= 2
