"""``detect``'s ``shift`` form (:mod:`corpuskit.stats.shift_model`) on synthetic measured series."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from corpuskit.analysis.signals import series_scorer
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
