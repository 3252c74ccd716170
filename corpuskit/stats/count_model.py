"""One count model for every baseline, from zero records a period to thousands.

A count ``c`` is tested against ``n`` comparable earlier counts ``x_1..x_n``
(the baseline: the previous days, or the same hour on previous days, ...).

Rate: a Gamma-Poisson posterior. With a weak prior ``Gamma(PRIOR_SHAPE,
PRIOR_RATE)`` (half a record spread over ``1 / PRIOR_RATE`` periods) and the
baseline's robust total ``n * m`` (``m`` the winsorised mean, see
:func:`baseline_stats`), the period's rate is ``Gamma(a, b)`` with
``a = PRIOR_SHAPE + n m`` and ``b = PRIOR_RATE + n``.

Predictive: the count is negative binomial with mean ``mu = a / b`` and variance
``mu + a / b**2 + v``: Poisson noise, the uncertainty of the rate (large when
the baseline is short or empty) and ``v``, the baseline's variance beyond
Poisson (a rate that wanders from day to day). ``v`` is estimated from the
baseline but only the part beyond its own sampling noise counts, so a
stationary Poisson series keeps the Poisson tail.

Sigma: the standard normal quantile of the predictive upper tail
``P(X >= c)``, capped at ``SIGMA_CAP``. One test, so "novelty" (an empty
baseline), a surge on a quiet series and a spike on a busy one are ranges of
the same score: with 21 baseline days, 10 records against a baseline of 0 score
about 7 sigma; 14 against 3.3/day about 4; 2,000 against 500/day about 40.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import nbinom, norm, poisson

from corpuskit.stats.threshold_search import smallest_reaching

PRIOR_SHAPE = 0.5
PRIOR_RATE = 0.05
SIGMA_CAP = 40.0
WINSOR_Z = 3.0
NOISE_ALLOWANCE = 2.0


def baseline_stats(window: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, mean, extra_var)`` of baseline windows ``[..., n]`` (NaN: missing, skipped).

    Values above ``median + WINSOR_Z * scale`` (``scale`` the larger of the
    robust standard deviation ``1.4826 MAD``, the Poisson ``sqrt(median)`` and
    1) are clipped there, so one earlier spike does not raise the baseline.
    ``extra_var`` is the clipped sample variance beyond the Poisson variance
    ``mean`` and beyond ``NOISE_ALLOWANCE`` standard errors of a Poisson sample
    variance (``mean * sqrt(2 / (n - 1))``); zero for a Poisson-like baseline.
    """
    window = np.asarray(window, dtype=float)
    finite = np.isfinite(window)
    n = finite.sum(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        med = np.nanmedian(window, axis=-1)
        mad = np.nanmedian(np.abs(window - med[..., None]), axis=-1)
        scale = np.maximum.reduce([1.4826 * mad, np.sqrt(np.maximum(med, 0)), np.ones_like(med)])
        clipped = np.minimum(window, (med + WINSOR_Z * scale)[..., None])
        mean = np.nanmean(clipped, axis=-1)
        var = np.nanvar(clipped, axis=-1, ddof=1)
    mean = np.where(n > 0, mean, 0.0)
    var = np.where(n > 1, var, 0.0)
    allowance = mean * (1.0 + NOISE_ALLOWANCE * np.sqrt(2.0 / np.maximum(n - 1, 1)))
    extra = np.where(n > 1, np.maximum(var - allowance, 0.0), 0.0)
    return n, mean, extra


def predictive(n, mean, extra_var, prior_shape: float = PRIOR_SHAPE,
               prior_rate: float = PRIOR_RATE, rate_floor: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the next count's posterior predictive.

    ``rate_floor`` (records per period) is the stated floor of the mean: a
    series that is one of thousands tested (an entity, a term) can turn up a
    few times by chance, so its expected count is never below the floor.
    """
    n = np.asarray(n, dtype=float)
    a = prior_shape + n * np.asarray(mean, dtype=float)
    b = prior_rate + n
    mu = a / b
    floored = np.maximum(mu, rate_floor)
    return floored, floored + a / b ** 2 + np.asarray(extra_var, dtype=float)


def tail_sigma(count, mu, var) -> np.ndarray:
    """Normal quantile of ``P(X >= count)`` for a count with predictive mean ``mu`` and variance ``var``.

    Negative binomial with that mean and variance (Poisson when ``var`` is
    within a hair of ``mu``); a count at or below the mean scores <= 0.
    """
    count, mu, var = np.broadcast_arrays(np.asarray(count, float), np.asarray(mu, float),
                                         np.asarray(var, float))
    mu = np.maximum(mu, 1e-12)
    over = var - mu
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(over > 1e-9 * mu, mu ** 2 / np.maximum(over, 1e-300), np.inf)
        p = r / (r + mu)
        k = np.ceil(count) - 1
        nb = nbinom.sf(k, np.where(np.isfinite(r), r, 1.0), np.where(np.isfinite(r), p, 0.5))
        po = poisson.sf(k, mu)
        tail = np.where(np.isfinite(r), nb, po)
        z = norm.isf(np.clip(tail, 1e-300, 1.0))
    z = np.minimum(z, SIGMA_CAP)
    # beyond double precision in the tail: keep ordering by a normal approximation
    deep = tail < 1e-290
    if np.any(deep):
        approx = (count - mu) / np.sqrt(np.maximum(var, 1e-12))
        z = np.where(deep, np.minimum(np.maximum(z, approx), SIGMA_CAP), z)
    return np.where(np.isfinite(count), z, np.nan)


def count_sigma(count, window: np.ndarray, rate_floor: float = 0.0,
                prior_shape: float = PRIOR_SHAPE,
                prior_rate: float = PRIOR_RATE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sigma of ``count`` against baseline windows ``[..., n]``: ``(sigma, expected, n)``.

    The whole test in one call (see the module docstring); rows whose window
    has no finite value still score, against the prior alone.
    """
    n, mean, extra = baseline_stats(window)
    mu, var = predictive(n, mean, extra, prior_shape, prior_rate, rate_floor)
    return tail_sigma(count, mu, var), mu, n


def threshold_count(n, mean, extra_var, sigma: float, start: int = 0, limit: int = 10 ** 7,
                    rate_floor: float = 0.0) -> int:
    """Smallest count that scores at least ``sigma`` against a baseline (``n``, ``mean``, ``extra_var``)."""
    mu, var = predictive(n, mean, extra_var, rate_floor=rate_floor)
    start = max(int(start), 0)
    return smallest_reaching(lambda c: float(tail_sigma(c, mu, var)), sigma, start,
                             int(np.ceil(float(mu))) + 1, limit)
