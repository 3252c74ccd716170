"""A level test for measured series (not counts): a robust two-sided z against a baseline.

A value ``x`` (a CPU share, a speed, a byte rate; any sign, any unit) is tested
against ``n`` comparable earlier values (the baseline windows the count model
reads): ``z = |x - median| / scale``, ``scale`` the larger of the robust
standard deviation ``1.4826 MAD`` and :data:`SCALE_FLOOR` of the baseline's
magnitude (so a flat baseline does not make every wobble infinite). Both
directions count: a drop or a flat line where the series usually moves is as
much an anomaly of a measure as a rise. The two-sided tail of a Student t with
``n - 1`` degrees of freedom at ``z / sqrt(1 + 1/n)`` (a prediction from ``n``
baseline values: a short baseline does not make a 6-sigma event of noise) is
reported as the one-sided normal quantile of the same probability, so a sigma
here reads like the count model's (:mod:`corpuskit.stats.count_model`) and the
same thresholds and calibration apply.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from corpuskit.stats.count_model import SIGMA_CAP

#: The least scale, as a share of the baseline's median magnitude (plus a tiny absolute floor).
SCALE_FLOOR = 1e-3


def level_sigma(value, window: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sigma of ``value`` against baseline windows ``[..., n]`` (NaN: missing): ``(sigma, median, n)``.

    Rows whose window has no finite value score NaN (no level to compare with).
    """
    window = np.asarray(window, dtype=float)
    value = np.asarray(value, dtype=float)
    n = np.isfinite(window).sum(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        med = np.nanmedian(window, axis=-1)
        mad = np.nanmedian(np.abs(window - med[..., None]), axis=-1)
        scale = np.maximum(1.4826 * mad, SCALE_FLOOR * np.abs(med) + 1e-9)
        z = np.abs(value - med) / (scale * np.sqrt(1.0 + 1.0 / np.maximum(n, 1)))
        tail = 2.0 * student_t.sf(z, np.maximum(n - 1, 1))
        sigma = np.minimum(norm.isf(np.clip(tail, 1e-300, 1.0)), SIGMA_CAP)
    sigma = np.where(np.isfinite(value) & (n > 0), sigma, np.nan)
    return sigma, med, n
