"""Checks on a researcher's own pandas series, for the kinds' ``score_series`` (:func:`corpuskit.signals.detect`).

A series is scored only with a sorted, regular ``DatetimeIndex`` of at least two periods and
finite numeric values (NaN marks a period with no data); each check raises
:class:`~corpuskit.errors.ValidationError` saying what to fix.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError


def check_index(index) -> pd.DatetimeIndex:
    """``index`` if it is a sorted ``DatetimeIndex`` of two or more distinct timestamps."""
    if not isinstance(index, pd.DatetimeIndex):
        raise ValidationError(f"the index must be a pandas DatetimeIndex; got {type(index).__name__}")
    if len(index) < 2:
        raise ValidationError("the series needs at least two periods")
    if index.hasnans:
        raise ValidationError("the index has missing timestamps (NaT)")
    if not index.is_monotonic_increasing or index.has_duplicates:
        raise ValidationError("the index must be sorted and without duplicate timestamps")
    return index


def step_of(index: pd.DatetimeIndex) -> pd.Timedelta:
    """The one step between the timestamps of a regular index."""
    diffs = np.diff(index.asi8)
    if diffs.min() != diffs.max():
        raise ValidationError(
            "the index must be regular (one step between all timestamps); reindex first, e.g. "
            "series.resample('1h').sum() or series.asfreq(freq) with NaN for periods without data")
    step = pd.Timedelta(index[1] - index[0])
    if step <= pd.Timedelta(0):
        raise ValidationError("the index must be increasing")
    return step


#: Share of steps unlike the median step above which an index is sampled at irregular instants
#: (NAB's traffic sensors: a quarter to two thirds) rather than regular periods with a few skipped
#: (a collection gap: NAB's elb_request_count skips 8 of 4,031).
SAMPLED_SHARE = 0.01
#: Fewest steps to tell sampling from a few gaps (as ``series_scorer.FORM_MIN_PERIODS`` for counts).
SAMPLED_MIN_STEPS = 150


def sampled_step(index: pd.DatetimeIndex) -> pd.Timedelta | None:
    """The median step of an index sampled at irregular instants (at least :data:`SAMPLED_MIN_STEPS`
    steps, more than :data:`SAMPLED_SHARE` of them unlike the median), else ``None`` (a regular
    index, one with a few gaps, or too short to tell)."""
    steps = pd.Series(index).diff().iloc[1:]      # Timedeltas: whatever the index's resolution
    if len(steps) < SAMPLED_MIN_STEPS:
        return None
    median = steps.median()
    if median <= pd.Timedelta(0) or (steps != median).mean() <= SAMPLED_SHARE:
        return None
    return pd.Timedelta(median)


def check_sampled_values(values: np.ndarray) -> np.ndarray:
    """``values`` of a series sampled at irregular instants, if they vary: one value on every row
    (a 1 per post) is a list of events, whose measure is their count per period, not their value."""
    if len(np.unique(values[np.isfinite(values)])) <= 1:
        raise ValidationError(
            "the index is irregular and the series holds one value throughout: a list of events, not a "
            "measure; count them per period first, e.g. series.resample('1h').count(), or pass values "
            "measured at those instants")
    return values


def numeric(values, what: str) -> np.ndarray:
    """``values`` as a float array (NaN kept), if numeric and finite."""
    try:
        arr = pd.to_numeric(values, errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{what} must be numeric: {exc}") from None
    if np.any(np.isinf(arr)):
        raise ValidationError(f"{what} has infinite values")
    return arr
