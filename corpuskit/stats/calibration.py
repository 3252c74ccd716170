"""Calibrating a series' scores against its own causal history.

A model's sigma (:mod:`corpuskit.stats.count_model`) is exact only when the
model is: on a series whose rate wanders more than its baseline shows (an
overdispersed or seasonal series), sigma 3 comes up far more often than the
nominal 0.135%. :func:`calibrated_sigma` rescales each period's sigma by how
its own earlier sigmas behaved: ``factor_t`` is the ``REFERENCE_TAIL`` upper
quantile of the finite sigmas in the ``window`` periods *before* ``t``,
divided by the quantile the model promises (``norm.isf(REFERENCE_TAIL)``, 2),
clipped to ``[1, MAX_FACTOR]``; the calibrated sigma is ``sigma / factor_t``.

* Causal: ``t`` reads only sigmas before it, so a live run gives the same
  figure as a replay.
* Only deflates: a model that is right (the quantile near 2) or conservative
  keeps its sigma, so calibration never creates an alarm.
* A spike in the history barely moves an upper 2.3% quantile, so one earlier
  event does not hide the next.
* Fewer than ``min_history`` earlier sigmas: factor 1 (the model alone).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

#: The upper tail share at which the series' own sigmas are compared with the model's.
REFERENCE_TAIL = 0.02275
#: The largest deflation (a series whose reference quantile is 3x the model's is scaled by 1/3).
MAX_FACTOR = 3.0


def calibration_factor(sigma: np.ndarray, window: int, min_history: int,
                       tail: float = REFERENCE_TAIL) -> np.ndarray:
    """Per period, the factor its sigma is divided by (1 where the history is short).

    ``tail``: the upper share at which the earlier sigmas are compared with the
    model (default :data:`REFERENCE_TAIL`; a smaller one compares nearer the
    thresholds that open signals, and needs more history to be read).
    """
    if window < 1 or min_history < 1:
        raise ValueError("window and min_history must be positive")
    if not 0.0 < tail < 0.5:
        raise ValueError(f"tail must be in (0, 0.5); got {tail!r}")
    s = pd.Series(np.asarray(sigma, dtype=float)).shift(1)
    q = s.rolling(window, min_periods=min_history).quantile(1.0 - tail).to_numpy()
    factor = np.clip(q / norm.isf(tail), 1.0, MAX_FACTOR)
    return np.where(np.isfinite(factor), factor, 1.0)


def calibrated_sigma(sigma: np.ndarray, window: int, min_history: int,
                     tail: float = REFERENCE_TAIL) -> tuple[np.ndarray, np.ndarray]:
    """``(sigma / factor, factor)``; see the module docstring. NaN sigmas stay NaN."""
    factor = calibration_factor(sigma, window, min_history, tail)
    sigma = np.asarray(sigma, dtype=float)
    return np.where(sigma > 0, sigma / factor, sigma), factor
