"""Baseline windows and rolling sums over the last axis of a series (or of ``[rows, periods]`` series).

A *baseline window* of position ``t`` holds the values at ``t - lag`` for a set
of ``lags`` (each at least 1 for a baseline: nothing at ``t`` reads ``t`` or a
later position); positions before the first value are NaN. :func:`lagged` is
the one way to build them; :func:`recent_lags` gives the lags of the ``window``
positions just before ``t``, oldest first, and :func:`seasonal_lags` those of
the same phase on earlier cycles (the same hour on earlier days).

:func:`rolling_sum` sums a run of consecutive values ending ``lag`` positions
before each position (``lag`` 0: ending at it, a trailing sum).
"""
from __future__ import annotations

import warnings

import numpy as np


def recent_lags(window: int, lag: int = 1) -> np.ndarray:
    """Lags of the ``window`` positions ending ``lag`` before ``t``, oldest first (``t - lag - window + 1 .. t - lag``)."""
    return np.arange(window + lag - 1, lag - 1, -1)


def seasonal_lags(period: int, cycles: int) -> np.ndarray:
    """Lags of the same phase on each of the ``cycles`` previous cycles of ``period`` positions, newest first."""
    return period * np.arange(1, cycles + 1)


def lagged(values: np.ndarray, lags) -> np.ndarray:
    """``[..., n, len(lags)]``: the value ``lag`` positions before each position (NaN before the start).

    Works on the last axis of ``values`` (one series or ``[rows, n]`` series).
    A run of consecutive lags (as :func:`recent_lags` gives) is returned as a
    view, without copying the values once per lag.
    """
    values = np.asarray(values, dtype=float)
    lags = np.asarray(lags)
    n = values.shape[-1]
    steps = np.diff(lags)
    if n and len(lags) > 1 and (np.all(steps == -1) or np.all(steps == 1)) and lags.min() >= 0:
        first, width = int(lags.min()), len(lags)
        pad = np.full(values.shape[:-1] + (width + first - 1,), np.nan)
        padded = np.concatenate([pad, values], axis=-1)
        view = np.lib.stride_tricks.sliding_window_view(padded, width, axis=-1)[..., :n, :]
        return view if steps[0] == -1 else view[..., ::-1]
    idx = np.arange(n)[:, None] - lags[None, :]
    out = values[..., np.maximum(idx, 0)]
    return np.where(idx >= 0, out, np.nan)


def rolling_sum(values: np.ndarray, window: int, lag: int = 1, complete: bool = False) -> np.ndarray:
    """Sum of the ``window`` consecutive values ending ``lag`` positions before each position.

    By default a missing value counts 0 and a window that reaches before the
    first value sums what it holds. With ``complete`` such a window is NaN, as
    is one holding a missing value (and a one-value window is the value itself).
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    if complete and window == 1:
        return lagged(values, [lag])[..., 0]
    filled = np.nan_to_num(values, nan=0.0) if complete else np.nan_to_num(values)
    zero = np.zeros(values.shape[:-1] + (1,))
    cum = np.concatenate([zero, np.cumsum(filled, axis=-1)], axis=-1)
    idx = np.arange(n)
    if not complete:
        hi = np.clip(idx - lag + 1, 0, n)
        lo = np.clip(idx - lag + 1 - window, 0, n)
        return cum[..., hi] - cum[..., lo]
    cmiss = np.concatenate([zero, np.cumsum(np.isnan(values).astype(float), axis=-1)], axis=-1)
    hi = idx - lag + 1
    lo = hi - window
    out = np.full(values.shape, np.nan)
    ok = lo >= 0
    out[..., ok] = cum[..., hi[ok]] - cum[..., lo[ok]]
    gap = np.zeros(values.shape, dtype=bool)
    gap[..., ok] = cmiss[..., hi[ok]] - cmiss[..., lo[ok]] > 0
    out[gap] = np.nan
    return out


def trailing_sum(values: np.ndarray, k: int, complete: bool = False) -> np.ndarray:
    """Sum over the ``k`` values ending at each position (``[t - k + 1, t]``); see :func:`rolling_sum`."""
    return rolling_sum(values, k, lag=0, complete=complete)


def rolling_median_mad(values: np.ndarray, window: int, min_periods: int, lag: int = 1,
                       chunk: int = 2048) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median, MAD and number of finite values over the ``window`` positions before each position.

    ``lag`` is how many positions before ``t`` the window ends (1: the window is
    ``[t - window, t - 1]``). NaN values (untestable periods) are skipped; where
    fewer than ``min_periods`` values are finite the median and MAD are NaN.
    Works on ``[rows, periods]`` arrays in row chunks to bound memory.
    """
    values = np.asarray(values, dtype=float)
    flat = values.reshape(-1, values.shape[-1])
    med = np.full(flat.shape, np.nan)
    mad = np.full(flat.shape, np.nan)
    n_obs = np.zeros(flat.shape)
    lags = recent_lags(window, lag)
    for start in range(0, flat.shape[0], chunk):
        block = lagged(flat[start:start + chunk], lags)
        finite = np.isfinite(block).sum(axis=-1)
        with np.errstate(all="ignore"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=RuntimeWarning)
                m = np.nanmedian(block, axis=-1)
                d = np.nanmedian(np.abs(block - m[..., None]), axis=-1)
        ok = finite >= min_periods
        med[start:start + chunk] = np.where(ok, m, np.nan)
        mad[start:start + chunk] = np.where(ok, d, np.nan)
        n_obs[start:start + chunk] = finite
    shape = values.shape
    return med.reshape(shape), mad.reshape(shape), n_obs.reshape(shape)
