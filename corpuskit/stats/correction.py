"""Multiple-test correction: the sigma of the best of several looks (Šidák).

A detector that looks at ``m`` tests (scales of one series, hours of one day)
and keeps the best must not fire ``m`` times as often as one test: the best
test's one-sided tail probability ``p`` becomes ``1 - (1 - p) ** m``, turned
back into a normal quantile.

The deep tail (``p`` below ``DEEP_TAIL``) is left as it is. There the
correction moves a sigma by a negligible amount (``log m`` against an exponent
of hundreds), but ``p`` itself underflows: scores beyond about 37.5 sigma (the
count model's normal approximation, up to its cap of 40) all have ``p = 0``,
and a corrected value would collapse them onto one figure and lose their order,
which the onset rule of :mod:`corpuskit.analysis.signals.series_scorer` reads.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import norm

#: Tail probability below which a sigma is left uncorrected (see the module docstring).
DEEP_TAIL = 1e-250


def sidak(sigma, looks) -> np.ndarray:
    """The sigma of the best of ``looks`` tests that each scored ``sigma`` (one look: unchanged).

    ``looks`` is a number or an array broadcast against ``sigma``.
    """
    sigma = np.asarray(sigma, dtype=float)
    looks = np.asarray(looks, dtype=float)
    p = norm.sf(sigma)
    with np.errstate(invalid="ignore", over="ignore"):
        p_any = -np.expm1(looks * np.log1p(-np.minimum(p, 1 - 1e-16)))
        out = norm.isf(np.maximum(p_any, 1e-300))
    return np.where((looks <= 1) | (p < DEEP_TAIL), sigma, out)
