"""Intervals for the figures a researcher reports: counts, shares, means, and a seeded bootstrap.

Every function works element by element on numbers or numpy arrays and returns
``(low, high)`` at ``level`` (0.95 by default):

* :func:`poisson_interval`: an exact (Garwood) interval for a count;
* :func:`wilson_interval`: the Wilson score interval for a share ``k / n``;
* :func:`mean_interval`: Student's t interval for the mean of a sample, and
  :func:`mean_interval_from_moments` for means given as ``n``, mean and standard deviation;
* :func:`bootstrap_interval`: the percentile interval of any statistic, reproducible from its seed.

A share with ``n == 0`` and the mean of fewer than two values have no interval: NaN.
"""
from __future__ import annotations

import numpy as np
from scipy import special as _special

from corpuskit.errors import ValidationError


def _check_level(level: float) -> float:
    if not 0.0 < float(level) < 1.0:
        raise ValidationError(f"level must be between 0 and 1 (exclusive), not {level!r}")
    return float(level)


def poisson_interval(count, level: float = 0.95):
    """Exact two-sided interval for the rate behind an observed ``count`` (Garwood 1936).

    ``low = chi2.ppf(a/2, 2k) / 2`` (0 for ``k == 0``) and
    ``high = chi2.ppf(1 - a/2, 2k + 2) / 2``, with ``a = 1 - level``.
    """
    alpha = 1.0 - _check_level(level)
    k = np.asarray(count, dtype=float)
    if np.any(k < 0):
        raise ValidationError("a count cannot be negative")
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, _chi2_ppf(alpha / 2, 2 * k) / 2, 0.0)
    high = _chi2_ppf(1 - alpha / 2, 2 * k + 2) / 2
    return _unwrap(low), _unwrap(high)


def _chi2_ppf(q: float, df):
    """``scipy.stats.chi2.ppf(q, df)`` for ``0 < q < 1``, as it computes it (``2 gammaincinv(df/2, q)``;
    NaN where ``df <= 0``), without importing ``scipy.stats`` (seconds on a first call)."""
    df = np.asarray(df, dtype=float)
    return np.where(df > 0, 2 * _special.gammaincinv(df / 2, q), np.nan)


def wilson_interval(successes, total, level: float = 0.95):
    """Wilson score interval for the share ``successes / total`` (Wilson 1927); NaN where ``total == 0``."""
    z = float(_special.ndtri(0.5 + _check_level(level) / 2))     # norm.ppf
    k = np.asarray(successes, dtype=float)
    n = np.asarray(total, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValidationError("successes must lie between 0 and total")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        # exactly 0 (1) when no (every) record succeeds: rounding would leave 5e-17 above the share
        low = np.where(n > 0, np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
        high = np.where(n > 0, np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    return _unwrap(low), _unwrap(high)


def mean_interval(values, level: float = 0.95) -> tuple[float, float]:
    """Student's t interval for the mean of ``values`` (NaN dropped); NaN with fewer than two values."""
    level = _check_level(level)
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size < 2:
        return float("nan"), float("nan")
    mean = float(x.mean())
    from scipy import stats as _scipy_stats

    half = float(_scipy_stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return mean - half, mean + half


def bootstrap_interval(data, statistic, level: float = 0.95, resamples: int = 1000,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(sample)`` over rows of ``data``.

    ``data`` is resampled by row (a numpy array or a pandas DataFrame) ``resamples``
    times with ``numpy.random.default_rng(seed)``, so the same seed gives the
    same interval. Resamples where the statistic is NaN are left out.
    """
    level = _check_level(level)
    if resamples < 1:
        raise ValidationError("resamples must be at least 1")
    n = len(data)
    if n == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    take = getattr(data, "iloc", None)
    values = []
    for _ in range(int(resamples)):
        rows = rng.integers(0, n, size=n)
        values.append(statistic(take[rows] if take is not None else np.asarray(data)[rows]))
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    return (float(np.quantile(values, (1 - level) / 2)), float(np.quantile(values, 0.5 + level / 2)))


def _unwrap(value):
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


def mean_interval_from_moments(n, mean, sd, level: float = 0.95):
    """Student's t interval for means summarised as ``n`` values with ``mean`` and standard
    deviation ``sd`` (``ddof=1``), element by element: ``mean -+ t(1 - a/2, n - 1) * sd / sqrt(n)``.

    The form for aggregated data (a day's scored records), where :func:`mean_interval` needs
    the values themselves. NaN where ``n < 2`` or ``mean``/``sd`` is NaN.
    """
    level = _check_level(level)
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    sd = np.asarray(sd, dtype=float)
    if np.any(n < 0) or np.any(sd < 0):
        raise ValidationError("n and sd cannot be negative")
    from scipy import stats as _scipy_stats

    with np.errstate(invalid="ignore", divide="ignore"):
        ok = n >= 2
        t = _scipy_stats.t.ppf(0.5 + level / 2, np.where(ok, n - 1, 1.0))
        half = np.where(ok, t * sd / np.sqrt(np.where(ok, n, 1.0)), np.nan)
    return _unwrap(mean - half), _unwrap(mean + half)
