"""The simple z tests of observations: robust, Poisson, binomial, a mean and Welch's.

Each works on numbers or numpy arrays alike (element by element).
"""
from __future__ import annotations

import numpy as np

#: Scale of the median absolute deviation that estimates a normal standard deviation.
MAD_SCALE = 1.4826


def robust_z(value, window) -> tuple[np.ndarray, np.ndarray]:
    """``(z, median)`` of ``value`` against its baseline ``window`` (values on the last axis).

    ``z = (value - median) / max(MAD_SCALE * MAD, sqrt(max(median, 1)))``: a
    robust z with a Poisson floor, so a quiet series' spread is at least that
    of its counts.
    """
    window = np.asarray(window, dtype=float)
    median = np.median(window, axis=-1)
    mad = np.median(np.abs(window - np.expand_dims(median, -1)), axis=-1)
    scale = np.maximum(MAD_SCALE * mad, np.sqrt(np.maximum(median, 1.0)))
    return (value - median) / scale, median


def poisson_z(recent, previous):
    """z of a count ``recent`` against an earlier count ``previous`` of the same length (both Poisson)."""
    return (recent - previous) / np.sqrt(recent + previous)


def binomial_z(recent, total, p):
    """z of ``recent`` of ``total`` events against the share ``p`` expected of them."""
    return (recent - total * p) / np.sqrt(total * p * (1 - p))


def mean_z(n, total, n_base, total_base, sq_base, sd_floor: float):
    """``(z, baseline mean)``: the mean of ``n`` scores summing ``total`` against a baseline's.

    The baseline holds ``n_base`` scores with sum ``total_base`` and sum of
    squares ``sq_base``; its standard deviation is floored at ``sd_floor``.
    ``z = (mean - baseline mean) / (sd / sqrt(n))``.
    """
    mean_b = total_base / n_base
    var_b = np.maximum(sq_base / n_base - mean_b ** 2, 0.0)
    sd_b = np.maximum(np.sqrt(var_b), sd_floor)
    return (total / n - mean_b) / (sd_b / np.sqrt(n)), mean_b


def welch_z(before: tuple, after: tuple, sd_floor: float):
    """``(z, mean before, mean after)``: Welch's z of two samples' mean scores.

    Each sample is ``(n, sum, sum of squares)``; a variance is floored at ``sd_floor ** 2``.
    """
    stats = []
    for n, total, sq in (before, after):
        mean = total / n
        stats.append((n, mean, np.maximum(sq / n - mean ** 2, sd_floor ** 2)))
    (n0, m0, v0), (n1, m1, v1) = stats
    return (m1 - m0) / np.sqrt(v0 / n0 + v1 / n1), m0, m1
