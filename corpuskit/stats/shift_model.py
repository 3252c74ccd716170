"""A shift test for measured series: departures from the recent past, ranked among the series' own.

For a measure (a CPU share, a speed, a byte rate) no noise model holds from one
series to the next, so this test asks the series itself how unusual a period is
(a conformal p-value, as in the KNN conformal anomaly detector of Burnaev and
Ishimtsev 2016, with a robust z as the nonconformity instead of neighbours):

1. ``dev_t = (x_t - median) / scale`` against the ``history`` values before
   ``t`` (``scale``: the interquartile range / 1.349, a robust standard deviation);
2. three departures (nonconformities) per period: the point's ``|dev_t|`` (a
   spike), the ``|median|`` of the last ``span`` devs (a level shift) and
   the mean ``|dev|`` of the last ``span`` (a change of spread);
3. each is ranked among the same departure's values over the ``history``
   periods before ``t``: ``p = (1 + #earlier >= now) / (1 + #earlier)``,
   corrected for the three looks (Šidák), reported as the normal quantile of
   ``p / 2`` (so a sigma reads like the count model's); a departure larger than
   every earlier one scores that quantile times its ratio to the earlier largest, so
   unprecedented departures still rank among themselves.

On a stationary series ``sigma >= s`` comes up at no more than the two-sided
normal rate of ``s`` (the ranks are uniform, the correction conservative).
Everything reads only periods before (and the ``span`` up to) ``t``: causal.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view
from scipy.stats import norm

#: Periods of history behind the median, the scale and the ranks.
HISTORY = 2000
#: Periods of the recent window whose median (a level shift) and mean |dev| (a spread) are tested.
SPAN = 12
#: Fewest earlier values for the median and scale (then for the ranks): earlier periods score NaN.
MIN_SCALE_HISTORY = 200
MIN_RANK_HISTORY = 100
#: Rows ranked at a time (bounds the ``rows x history`` comparison block).
BLOCK = 1024


def departures(values: np.ndarray, history: int = HISTORY, span: int = SPAN) -> tuple[list, np.ndarray]:
    """``([spike, level, spread], median)``: the three departures of each period and the baseline median."""
    x = pd.Series(np.asarray(values, dtype=float))
    past = x.shift(1).rolling(history, min_periods=MIN_SCALE_HISTORY)
    med = past.median()
    scale = (past.quantile(0.75) - past.quantile(0.25)) / 1.349
    scale = scale + 1e-9 * (1.0 + med.abs())            # a flat history: any move is large, not infinite
    dev = (x - med) / scale
    spike = dev.abs()
    level = dev.rolling(span, min_periods=span).median().abs()
    spread = dev.abs().rolling(span, min_periods=span).mean()
    return [spike.to_numpy(), level.to_numpy(), spread.to_numpy()], med.to_numpy()


def rank_p(a: np.ndarray, history: int = HISTORY) -> tuple[np.ndarray, np.ndarray]:
    """``(p, excess)``: each value's conformal p among the ``history`` finite values before it (NaN
    with fewer than :data:`MIN_RANK_HISTORY`), and its ratio to the largest of them where it beats all (else 1)."""
    a = np.asarray(a, dtype=float)
    n = len(a)
    padded = np.concatenate([np.full(history, np.nan), a])
    p = np.full(n, np.nan)
    excess = np.ones(n)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        earlier = sliding_window_view(padded, history)[start:stop]      # row t: a[t - history : t]
        now = a[start:stop, None]
        seen = np.isfinite(earlier)
        count = seen.sum(axis=1)
        above = (seen & (earlier >= now)).sum(axis=1)
        ok = (count >= MIN_RANK_HISTORY) & np.isfinite(a[start:stop])
        p[start:stop] = np.where(ok, (1.0 + above) / (1.0 + count), np.nan)
        top = np.max(np.where(seen, earlier, -np.inf), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            excess[start:stop] = np.where(ok & (above == 0) & (top > 0), a[start:stop] / top, 1.0)
    return p, np.maximum(excess, 1.0)


def shift_sigma(values: np.ndarray, history: int = HISTORY, span: int = SPAN) -> tuple[np.ndarray, np.ndarray]:
    """``(sigma, median)`` per period; see the module docstring. NaN where the history is short."""
    looks, median = departures(values, history, span)
    best = np.full(len(median), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        for a in looks:
            p, excess = rank_p(a, history)
            one = norm.isf(_sidak_p(p, len(looks)) / 2.0) * excess
            best = np.fmax(best, one)
    best[~np.isfinite(np.asarray(values, dtype=float))] = np.nan
    return best, median


def _sidak_p(p: np.ndarray, looks: int) -> np.ndarray:
    return 1.0 - (1.0 - p) ** looks
