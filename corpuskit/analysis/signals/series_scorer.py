"""The series scorer: causal count tests on any regular series, behind :func:`corpuskit.signals.detect`.

Input: counts per period at a regular step (5 minutes, an hour, a day...).

Baseline (chosen from the series): the test for period ``t`` compares a
trailing sum ending at ``t`` with the same sum at ``lags`` earlier positions:

* sub-daily series with a daily rhythm: the same time of day on each of the
  previous ``cycles`` days (14 by default);
* daily series with a weekly rhythm: the same weekday on each of the
  previous ``cycles`` weeks (8);
* otherwise: the ``cycles * ...`` immediately preceding blocks of the same
  length (21 for daily series, a day's worth for sub-daily ones).

Whether the rhythm is there is decided on the first ``warmup`` periods only
(an F test of the phase means, see :func:`has_rhythm`), so no score reads
data after its own timestamp. Periods before ``min_history`` baseline values
exist score NaN (the corpus edge: no signal rather than a false one).

Scales: for sub-hourly series the trailing sum over one period and over two
hours; for hourly series one hour and three hours; for daily series one day.
Each scale is tested with :func:`~corpuskit.stats.count_model.count_sigma`
(form ``count``) or, for a measured series (form ``level``: a share, a rate, a
speed; :func:`form_of` tells them apart on the warm-up when the form is ``auto``),
:func:`~corpuskit.stats.level_model.level_sigma`. (Form ``shift``, what ``auto``
gives a measure, is :func:`score_shift` instead: one scale, no calibration, no gate.)
For the count and level forms the period's sigma is the best scale's, corrected for the number of
scales looked at (:func:`~corpuskit.stats.correction.sidak`), so more scales
do not mean more false alarms.

Calibration (:mod:`corpuskit.stats.calibration`): the best scale's sigma is
divided by how far the series' own sigmas over the previous 28 days (at least
365 periods, from 220 on) overshoot the model's upper 0.1% tail, so a threshold means the
same false-alarm rate on a smooth series and a bursty one. The corpus stages'
daily plan (:func:`daily_plan`) does not calibrate (``calibrate=False``):
their thresholds and the demo's figures are those of the model.

Materiality (sub-daily series whose step divides a day): a period can open an
anomaly only where the last two hours hold more than the same two hours
usually do (the median of the previous 7 days) by at least ``materiality`` (6%
by default) of a mean day's volume (the previous 7 days' mean). A 5-minute blip
at night can be very improbable and still add nothing a reader of the day would
notice. The 6% and the calibration's 0.1% tail are the setting that
``benchmarks/bench_nab.py``'s leave-one-file-out procedure chooses in every fold
on NAB's five shared Twitter series.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from corpuskit.stats.calibration import calibrated_sigma
from corpuskit.stats.correction import sidak
from corpuskit.stats.count_model import count_sigma
from corpuskit.stats.level_model import level_sigma
from corpuskit.stats.shift_model import HISTORY as SHIFT_HISTORY
from corpuskit.stats.shift_model import SPAN as SHIFT_SPAN
from corpuskit.stats.shift_model import shift_sigma
from corpuskit.stats.windows import lagged, seasonal_lags, trailing_sum

DAY = pd.Timedelta(days=1)
HOUR = pd.Timedelta(hours=1)
WEEK = pd.Timedelta(days=7)
#: The longer scale of a sub-hourly series (its trailing sum is tested beside the single period).
SUB_HOURLY_SCALE = pd.Timedelta(hours=2)
#: Default share of a mean day's volume that a sub-daily anomaly must add over MATERIAL_SPAN
#: (chosen by leave-one-file-out on NAB's five shared Twitter series, every fold choosing 6%).
MATERIALITY = 0.06
MATERIAL_SPAN = pd.Timedelta(hours=2)
MATERIAL_DAYS = 7
#: ``detect``'s default form: ``count`` (the count model), ``level`` (a measure, robust two-sided z)
#: or ``auto`` (:func:`form_of`, from the values). Chosen by ``benchmarks/bench_detect.py --lodo``.
FORM = "auto"
#: The form ``auto`` gives a series :func:`form_of` reads as a measure (not counts): ``shift``
#: (:mod:`corpuskit.stats.shift_model`) or ``level``; every fold of ``benchmarks/bench_detect.py --lodo``
#: chooses ``shift``.
MEASURED_FORM = "shift"
#: ``detect``'s default sigma for ``fired`` on ``volume_spike`` (chosen with :data:`FORM`; the corpus
#: stages open at ``OPEN_SIGMA``, 3, and ``detect(kind="sentiment_shift")`` keeps that).
THRESHOLD = 3.2
#: Periods after an onset of the ``shift`` form in which only a stronger sigma opens another:
#: ``"day"`` (a day's periods, as the other forms) or a number of periods whatever the step.
#: Chosen with the shift form's history and span by ``benchmarks/bench_detect.py --lodo``.
SHIFT_SUPPRESSION = 48
#: Standard errors of slack in :func:`form_of`'s dispersion check (Poisson counts pass it but rarely fail by chance).
FORM_NOISE_SE = 4.0
#: Fewer warm-up periods than this: whole non-negative numbers are taken for counts (too few to tell).
FORM_MIN_PERIODS = 150
#: Calibration history (see :mod:`corpuskit.stats.calibration`): the sigmas of the previous 28 days
#: (at least 365 periods), from 220 of them on (about five expected beyond the reference tail).
CALIBRATION_DAYS = 28
CALIBRATION_MIN_PERIODS = 365
CALIBRATION_MIN_HISTORY = 220
#: The upper tail at which ``detect`` compares a series' earlier sigmas with the model's (0.1%:
#: near the thresholds that open anomalies; chosen by leave-one-file-out on NAB with the 6% gate).
CALIBRATION_TAIL = 0.001


@dataclass
class Plan:
    """How a series is tested: its step, rhythm, scales (in periods) and baseline lags."""

    step: pd.Timedelta
    rhythm: str            # "daily", "weekly" or "none"
    scales: tuple
    cycles: int
    min_history: int
    refractory: int = 0
    materiality: float = 0.0
    calibrate: bool = True
    calibration_tail: float = CALIBRATION_TAIL
    form: str = "count"    # "count" (the count model), "level" (robust two-sided z) or "shift" (ranked departures)
    shift_history: int = SHIFT_HISTORY   # the shift form's history and recent window (periods)
    shift_span: int = SHIFT_SPAN

    def calibration_window(self) -> int:
        """Periods of score history the calibration reads."""
        return max(int(CALIBRATION_DAYS * DAY / self.step), CALIBRATION_MIN_PERIODS)

    def lags(self, scale: int) -> np.ndarray:
        """Offsets (in periods) of the baseline values for a trailing sum of ``scale`` periods."""
        if self.rhythm == "daily":
            return seasonal_lags(int(DAY / self.step), self.cycles)
        if self.rhythm == "weekly":
            return seasonal_lags(int(WEEK / self.step), self.cycles)
        if self.step < DAY:
            span = max(int(DAY / self.step) // scale, self.cycles)
        else:
            span = self.cycles
        return seasonal_lags(scale, span)


def plan_for(values: np.ndarray, index: pd.DatetimeIndex, step: pd.Timedelta, rhythm: str = "auto",
             cycles: int | None = None, min_history: int | None = None,
             materiality: float | None = None, form: str = "count", sampled: bool = False) -> Plan:
    """The test plan for a series: rhythm (decided on its warm-up), scales, baseline length,
    materiality (``None``: :data:`MATERIALITY` for sub-daily count series that divide a day, else 0)
    and form (``count``, ``level``, or ``auto``: see :func:`form_of`; ``sampled``: the rows were taken
    at irregular instants)."""
    if form == "auto":
        form = form_of(values[:warmup_length(step, len(values))], sampled)
        form = MEASURED_FORM if form == "level" else form
    if step < HOUR:
        longer = int(SUB_HOURLY_SCALE / step)
        scales = (1, longer) if longer > 1 else (1,)
    elif step < DAY:
        scales = (1, max(int(3 * HOUR / step), 1))
        scales = tuple(sorted(set(scales)))
    else:
        scales = (1,)
    if rhythm == "auto":
        rhythm = "none"
        if step < DAY and DAY % step == pd.Timedelta(0):
            per = int(DAY / step)
            warm = min(len(values), 7 * per)
            if warm >= 3 * per and has_rhythm(values[:warm], index[:warm], "daily"):
                rhythm = "daily"
        elif step == DAY:
            warm = min(len(values), 8 * 7)
            if warm >= 4 * 7 and has_rhythm(values[:warm], index[:warm], "weekly"):
                rhythm = "weekly"
    if cycles is None:
        cycles = {"daily": 14, "weekly": 8}.get(rhythm, 21)
    if min_history is None:
        min_history = {"daily": 3, "weekly": 3}.get(rhythm, 7)
    refractory = suppression_periods("day" if form != "shift" else SHIFT_SUPPRESSION, step)
    divides_day = step < DAY and DAY % step == pd.Timedelta(0)
    if materiality is None:
        materiality = MATERIALITY if divides_day and form == "count" else 0.0
    elif materiality > 0 and (not divides_day or form != "count"):
        materiality = 0.0
    return Plan(step=step, rhythm=rhythm, scales=scales, cycles=int(cycles),
                min_history=int(min_history), refractory=refractory, materiality=float(materiality),
                form=form)


def suppression_periods(suppression, step: pd.Timedelta) -> int:
    """Periods an onset holds off weaker ones: a day's (at least 1) for ``"day"``, else the number given."""
    if suppression == "day":
        return int(DAY / step) if step < DAY else 1
    return int(suppression)


def warmup_length(step: pd.Timedelta, n: int) -> int:
    """Periods the automatic choices read: the first week of a sub-daily series, eight weeks of a coarser one."""
    return min(n, int(WEEK / step) if step < DAY else 8 * 7)


def form_of(warmup: np.ndarray, sampled: bool = False) -> str:
    """``count`` or ``level``, from the warm-up values only (so the choice stays causal) and
    whether the series was ``sampled`` at irregular instants (then ``level``: a count is tallied
    over equal periods, so rows taken when a sensor reported hold a measure whatever their values).

    Counts of events are non-negative whole numbers whose period-to-period
    changes vary at least as much as Poisson noise makes them
    (half the mean square difference of successive independent pairs at least the mean, within
    :data:`FORM_NOISE_SE` standard errors; a wandering rate only adds). Anything else (a
    fraction, a negative value, or whole numbers steadier than counts could be,
    such as a speed) is a measure: ``level``. Fewer than :data:`FORM_MIN_PERIODS` whole
    non-negative values: ``count``.
    """
    x = np.asarray(warmup, dtype=float)
    x = x[np.isfinite(x)]
    if sampled or np.any(x < 0) or np.any(x != np.round(x)):
        return "level"
    if len(x) < FORM_MIN_PERIODS:
        return "count"
    half_sq = (x[1::2][:len(x) // 2] - x[0::2][:len(x) // 2]) ** 2 / 2.0   # independent pairs
    spread = half_sq.mean() + FORM_NOISE_SE * half_sq.std(ddof=1) / np.sqrt(len(half_sq))
    return "count" if spread >= np.mean(x) else "level"


def has_rhythm(values: np.ndarray, index: pd.DatetimeIndex, rhythm: str, alpha: float = 1e-3,
               min_share: float = 0.05) -> bool:
    """Whether phase (hour of day, or weekday) explains a real share of the series' variance.

    One-way ANOVA of the counts (hourly sums for sub-daily series) by phase:
    significant at ``alpha`` and at least ``min_share`` of the variance.
    """
    s = pd.Series(values, index=index).dropna()
    if rhythm == "daily":
        s = s.resample("1h").sum(min_count=1).dropna()
        phase = s.index.hour
    else:
        phase = s.index.day_of_week
    if len(s) < 2 * len(np.unique(phase)) or s.var() <= 0:
        return False
    groups = s.groupby(phase)
    k, n = groups.ngroups, len(s)
    grand = s.mean()
    between = (groups.size() * (groups.mean() - grand) ** 2).sum()
    within = ((s - groups.transform("mean")) ** 2).sum()
    if within <= 0 or k < 2 or n <= k:
        return between > 0
    f_stat = (between / (k - 1)) / (within / (n - k))
    share = between / (between + within)
    return bool(f_dist.sf(f_stat, k - 1, n - k) < alpha and share >= min_share)


def daily_plan(window: int, min_periods: int) -> Plan:
    """The plan the corpus stages use on daily series: the ``window`` days before, no rhythm."""
    return Plan(step=DAY, rhythm="none", scales=(1,), cycles=window, min_history=min_periods,
                refractory=1, calibrate=False)


def score_counts(values: np.ndarray, plan: Plan) -> dict:
    """Per-period ``sigma``, ``expected``, ``baseline_n`` and the winning ``scale`` (arrays)."""
    values = np.asarray(values, dtype=float)
    if plan.form == "shift":
        return score_shift(values, plan)
    n = len(values)
    best = np.full(n, -np.inf)
    expected = np.full(n, np.nan)
    base_n = np.zeros(n)
    scale_won = np.zeros(n, dtype=int)
    for scale in plan.scales:
        sums = trailing_sum(values, scale, complete=True)
        window = lagged(sums, plan.lags(scale))
        sigma, mu, nb = (level_sigma if plan.form == "level" else count_sigma)(sums, window)
        sigma = np.where(nb >= plan.min_history, sigma, np.nan)
        better = np.nan_to_num(sigma, nan=-np.inf) > best
        best = np.where(better, sigma, best)
        expected = np.where(better, mu / scale, expected)
        base_n = np.where(better, nb, np.maximum(base_n, nb))
        scale_won = np.where(better, scale, scale_won)
    looks = len(plan.scales)
    sigma = np.where(np.isfinite(best), sidak(best, looks), np.nan)
    sigma[np.isnan(values)] = np.nan
    factor = np.ones(n)
    if plan.calibrate:
        sigma, factor = calibrated_sigma(sigma, plan.calibration_window(), CALIBRATION_MIN_HISTORY,
                                         plan.calibration_tail)
    material = np.isfinite(sigma)
    if plan.materiality > 0:
        material &= material_excess(values, plan.step) >= plan.materiality
    return {"sigma": sigma, "expected": expected, "baseline_n": base_n, "scale": scale_won,
            "calibration": factor,
            "material": material, "onset": onset(np.where(material, sigma, np.nan), plan.refractory)}


def score_shift(values: np.ndarray, plan: Plan) -> dict:
    """The ``shift`` form (:mod:`corpuskit.stats.shift_model`) on a measure: with a rhythm, on the
    residual from the median of the same phase on the ``cycles`` previous days (or weeks); no
    calibration (the ranks are the series' own) and no materiality gate."""
    n = len(values)
    seasonal = np.zeros(n)
    base_n = np.zeros(n)
    if plan.rhythm != "none":
        window = lagged(values, plan.lags(1))
        base_n = np.isfinite(window).sum(axis=1).astype(float)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            seasonal = np.where(base_n >= plan.min_history, np.nanmedian(window, axis=1), np.nan)
    sigma, median = shift_sigma(values - seasonal, plan.shift_history, plan.shift_span)
    if plan.rhythm == "none":
        base_n = pd.Series(values).shift(1).rolling(plan.shift_history, min_periods=1).count().fillna(0).to_numpy()
    return {"sigma": sigma, "expected": seasonal + median, "baseline_n": base_n, "scale": np.ones(n, dtype=int),
            "calibration": np.ones(n), "material": np.isfinite(sigma), "onset": onset(sigma, plan.refractory)}


def material_excess(values: np.ndarray, step: pd.Timedelta) -> np.ndarray:
    """Per period: the last two hours' excess over the same two hours' median on the previous
    :data:`MATERIAL_DAYS` days, as a share of the mean day over those days (NaN without a day of history).
    """
    per_day = int(DAY / step)
    span = max(1, int(MATERIAL_SPAN / step))
    sums = trailing_sum(values, span, complete=True)
    past = lagged(sums, seasonal_lags(per_day, MATERIAL_DAYS))
    enough = np.isfinite(past).any(axis=1)
    usual = np.full(len(values), np.nan)
    usual[enough] = np.nanmedian(past[enough], axis=1)
    days = pd.Series(np.nan_to_num(values, nan=0.0)).rolling(per_day * MATERIAL_DAYS, min_periods=1).sum()
    seen = pd.Series(np.isfinite(values).astype(float)).rolling(per_day * MATERIAL_DAYS, min_periods=1).sum()
    day_mean = (days / np.maximum(seen, 1) * per_day).shift(1).to_numpy(copy=True)
    day_mean[(seen.shift(1) < per_day).to_numpy()] = np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sums - usual) / np.maximum(day_mean, 1.0)


def onset(sigma: np.ndarray, refractory: int) -> np.ndarray:
    """True where ``sigma`` is above every sigma of the ``refractory`` periods before it.

    An anomaly that lasts (a surge of several hours) opens once, at its start or
    when it grows stronger, not at every period it lasts; the corpus stages do
    the same with their open/update rule.
    """
    s = np.nan_to_num(sigma, nan=-np.inf)
    if refractory <= 0:
        return np.isfinite(sigma)
    prev = pd.Series(s).shift(1).rolling(refractory, min_periods=1).max().to_numpy()
    prev = np.nan_to_num(prev, nan=-np.inf)
    return np.isfinite(sigma) & (s > prev)
