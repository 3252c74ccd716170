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


def numeric(values, what: str) -> np.ndarray:
    """``values`` as a float array (NaN kept), if numeric and finite."""
    try:
        arr = pd.to_numeric(values, errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{what} must be numeric: {exc}") from None
    if np.any(np.isinf(arr)):
        raise ValidationError(f"{what} has infinite values")
    return arr
