"""``detect``'s ``shift`` form (:mod:`corpuskit.stats.shift_model`) on synthetic measured series."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from corpuskit.analysis.signals import series_scorer, user_series
from corpuskit.errors import ValidationError
from corpuskit.signals import detect
from corpuskit.stats.shift_model import SPAN, departures, rank_p, shift_sigma

DAY = 288   # five-minute periods


def _series(values) -> pd.Series:
    return pd.Series(np.asarray(values, dtype=float),
                     index=pd.date_range("2024-01-01", periods=len(values), freq="5min"))


def _noise(n: int, seed: int) -> np.ndarray:
    return 40.0 + 2.0 * np.random.default_rng(seed).standard_normal(n)


def test_a_level_shift_fires_once_at_its_start():
    values = _noise(10 * DAY, 1)
    start = 8 * DAY + 17
    values[start:] += 6.0            # three noise sd: no single point stands out for long
    out = detect(_series(values), form="shift", threshold=4.0)
    fired = np.flatnonzero(out["fired"].to_numpy())
    assert len(fired) and start <= fired[0] <= start + 12
    assert np.sum((fired >= start) & (fired < start + DAY)) == 1     # one detection, not one per period
    assert not np.any(fired[fired < start] >= DAY)                   # quiet before (after the warm-up)


def test_a_spike_down_fires_where_it_is():
    values = _noise(10 * DAY, 2)
    values[9 * DAY] = 25.0           # a drop: a measure's anomaly can go either way
    out = detect(_series(values), form="shift", threshold=4.0)
    fired = np.flatnonzero(out["fired"].to_numpy())
    assert 9 * DAY in fired
    assert not np.any(fired[fired < 9 * DAY] >= DAY)


def test_a_change_of_spread_fires_soon():
    values = _noise(10 * DAY, 3)
    start = 8 * DAY
    values[start:] = 40.0 + 2.0 * (values[start:] - 40.0)            # twice the sd, same level
    out = detect(_series(values), form="shift", threshold=4.0)
    fired = np.flatnonzero(out["fired"].to_numpy())
    assert np.any((fired >= start) & (fired < start + 48))
    assert not np.any(fired[fired < start] >= DAY)
    spread = departures(values)[0][2]            # the mean |dev| of the last SPAN periods: it holds the change
    p, _ = rank_p(spread)
    assert np.mean(p[start + SPAN:start + SPAN + 48] < 0.01) > 0.5   # the spike and level ranks: about 0.2
    assert np.mean(p[DAY:start] < 0.01) < 0.05


def test_a_stationary_series_stays_at_the_nominal_rate():
    """Sigma >= 3 on at most the two-sided normal share of periods (the three looks corrected), pooled
    over seeds; the onsets (what ``fired`` counts) are fewer still."""
    over, onsets, scored = 0, 0, 0
    for seed in range(6):
        sigma, _ = shift_sigma(np.random.default_rng(100 + seed).standard_normal(6000))
        finite = sigma[np.isfinite(sigma)]
        over += int(np.sum(finite >= 3.0))
        scored += len(finite)
        onsets += int(detect(_series(np.random.default_rng(100 + seed).standard_normal(6000)),
                             form="shift", rhythm="none", threshold=3.0)["fired"].sum())
    nominal = 2 * norm.sf(3.0)
    assert over / scored <= nominal
    assert onsets / scored <= nominal


def test_the_daily_rhythm_is_taken_out_first():
    """A value inside the day's range but at the wrong hour (the day's peak level at its trough) is
    found only against the same time on previous days."""
    t = np.arange(12 * DAY)
    rng = np.random.default_rng(5)
    values = 50 + 30 * np.sin(2 * np.pi * t / DAY) + rng.standard_normal(len(t))
    trough = 10 * DAY + 3 * DAY // 4                     # sin at its minimum: about 20
    values[trough:trough + 6] = 75.0                     # the peak's level, half a day early
    out = detect(_series(values), form="shift", threshold=4.0)
    assert out.attrs["rhythm"] == "daily"
    fired = np.flatnonzero(out["fired"].to_numpy())
    assert np.any((fired >= trough) & (fired < trough + 6))
    assert not np.any(fired[fired < trough] >= 3 * DAY)


def test_ranks_and_the_auto_form():
    p, excess = rank_p(np.arange(1.0, 301.0), history=200)
    assert np.isnan(p[99]) and p[100] == 1.0 / 101.0                # needs 100 earlier values
    assert p[250] == 1.0 / 201.0 and excess[250] == 251.0 / 250.0   # above every earlier one
    measure = _series(_noise(3 * DAY, 7))
    assert series_scorer.plan_for(measure.to_numpy(), measure.index, pd.Timedelta("5min"),
                                  form="auto").form == series_scorer.MEASURED_FORM == "shift"
    counts = _series(np.random.default_rng(8).poisson(5, 3 * DAY))
    assert series_scorer.plan_for(counts.to_numpy(), counts.index, pd.Timedelta("5min"),
                                  form="auto").form == "count"


def test_the_plans_history_span_and_suppression_reach_the_score(monkeypatch):
    """The shift form reads its history and span from the plan, and its suppression from
    ``SHIFT_SUPPRESSION`` (a day's periods, or a number of periods); the other forms keep a day."""
    from dataclasses import replace

    values = _noise(6 * DAY, 9)
    series = _series(values)
    plan = series_scorer.plan_for(values, series.index, pd.Timedelta("5min"), rhythm="none", form="shift")
    short = replace(plan, shift_history=500, shift_span=6)
    got = series_scorer.score_counts(values, short)["sigma"]
    want, _ = shift_sigma(values, 500, 6)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, series_scorer.score_counts(values, replace(plan, shift_span=24))["sigma"],
                              equal_nan=True)
    monkeypatch.setattr(series_scorer, "SHIFT_SUPPRESSION", 48)
    assert series_scorer.plan_for(values, series.index, pd.Timedelta("5min"), rhythm="none",
                                  form="shift").refractory == 48
    counts = np.random.default_rng(8).poisson(5, 3 * DAY).astype(float)
    assert series_scorer.plan_for(counts, series.index[:3 * DAY], pd.Timedelta("5min"),
                                  form="count").refractory == DAY
    monkeypatch.setattr(series_scorer, "SHIFT_SUPPRESSION", "day")
    assert series_scorer.plan_for(values, series.index, pd.Timedelta("5min"), rhythm="none",
                                  form="shift").refractory == DAY
    assert series_scorer.suppression_periods("day", pd.Timedelta(days=1)) == 1


def _sampled(values, seed: int) -> pd.Series:
    """Whole-number readings at irregular instants: most 5 minutes apart, a third 10 or 15 (a sensor
    reporting when it can), as NAB's traffic series."""
    rng = np.random.default_rng(seed)
    steps = rng.choice([5, 5, 10, 15], size=len(values) - 1)
    stamps = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.concatenate([[0], np.cumsum(steps)]), unit="min")
    return pd.Series(np.asarray(values, dtype=float), index=pd.DatetimeIndex(stamps))


def test_a_series_sampled_at_irregular_instants_is_a_measure_read_row_for_row():
    """Whole numbers as variable as counts (a travel time in seconds) read as counts on a regular grid;
    sampled at irregular instants they are a measure: ``auto`` gives the shift form on the rows, at
    the median step, and the output keeps the series' own timestamps."""
    rng = np.random.default_rng(5)
    values = np.round(200 + 25 * rng.standard_normal(3000)).clip(min=1)
    values[2500:] += 120                                   # a jump in the travel time
    sampled = _sampled(values, 6)
    out = detect(sampled)
    rows = pd.Series(values, index=pd.date_range("2024-01-01", periods=len(values), freq="5min"))
    as_rows = detect(rows, form="shift")
    assert out.index.equals(sampled.index)
    np.testing.assert_array_equal(out["fired"].to_numpy(), as_rows["fired"].to_numpy())
    np.testing.assert_allclose(out["sigma"].to_numpy(), as_rows["sigma"].to_numpy(), equal_nan=True)
    assert detect(rows)["fired"].to_numpy().tolist() != out["fired"].to_numpy().tolist()  # counts on a grid
    assert 2500 <= np.flatnonzero(out["fired"].to_numpy() & (np.arange(3000) >= 2500))[0] <= 2512


def test_counts_need_equal_periods_and_a_few_gaps_are_not_sampling():
    """``form='count'`` refuses an irregular index, and so does ``auto`` on a regular series that
    skips a few periods (a collection gap: reindex with NaN), which stays a count."""
    sampled = _sampled(np.random.default_rng(7).poisson(30, 1000), 8)
    with pytest.raises(ValidationError, match="regular"):
        detect(sampled, form="count")
    gappy = pd.Series(np.random.default_rng(9).poisson(30, 1000).astype(float),
                      index=pd.date_range("2024-01-01", periods=1005, freq="5min").delete([100, 400, 401, 700, 900]))
    with pytest.raises(ValidationError, match="regular"):
        detect(gappy)
    assert user_series.sampled_step(gappy.index) is None
    assert user_series.sampled_step(sampled.index) == pd.Timedelta(minutes=5)
    assert series_scorer.form_of(np.random.default_rng(1).poisson(30, 400), sampled=True) == "level"
    assert series_scorer.form_of(np.random.default_rng(1).poisson(30, 400)) == "count"
    short = _sampled(np.random.default_rng(3).poisson(30, user_series.SAMPLED_MIN_STEPS), 4)
    assert user_series.sampled_step(short.index) is None          # too few steps to tell a gap from sampling


def test_one_value_per_event_at_irregular_instants_is_refused_as_a_list_of_events():
    """A 1 on every post's timestamp is a list of events, not a measure sampled at those instants:
    read as a measure nothing could ever fire, so ``detect`` asks for counts per period instead; a
    measure taken at the same instants is scored."""
    events = _sampled(np.ones(1000), 11)
    with pytest.raises(ValidationError, match=r"list of events.*resample"):
        detect(events)
    with pytest.raises(ValidationError, match="list of events"):
        detect(events, form="shift")
    measured = events * np.random.default_rng(12).integers(1, 500, len(events))
    assert len(detect(measured)) == len(events)
