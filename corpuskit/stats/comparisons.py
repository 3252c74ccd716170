"""Two-sample tests for the changes a researcher reports: two counts, two shares, two means.

Each function works element by element on numbers or numpy arrays and returns
``(p_value, test)``: the two-sided p-value (NaN where there is nothing to test)
and the name of the test used, so a table can say which test each row ran.

* :func:`two_rate_test`: two Poisson counts over their exposures (days), the exact
  conditional binomial test (Przyborowski and Wilenski 1940): given ``k1 + k2``
  events, ``k1`` is binomial with ``p = t1 / (t1 + t2)`` under equal rates;
* :func:`two_proportion_test`: two shares ``k1/n1`` and ``k2/n2``, the pooled z test,
  or Fisher's exact test when an expected cell of the 2x2 table is under 5;
* :func:`welch_test`: two means given as ``n``, mean and standard deviation, Welch's t
  test (unequal variances, Welch-Satterthwaite degrees of freedom);
* :func:`rank_effect`: two samples of values, the Vargha-Delaney A effect size (how often a
  value of the first exceeds one of the second) with the one-sided Mann-Whitney p-value that
  the first is the smaller (this one returns ``(effect, p_value)``).

The tests assume independent records: bursts of related posts make a day's records
depend on one another, and the p-values are then too small (see ``docs/uncertainty.md``).
"""
from __future__ import annotations

import numpy as np
from scipy import stats as _scipy_stats

from corpuskit.errors import ValidationError

RATE_TEST = "exact conditional binomial (two Poisson rates)"
PROPORTION_Z_TEST = "two-proportion z (pooled)"
FISHER_TEST = "Fisher's exact"
WELCH_TEST = "Welch's t"

#: Below this expected count in any cell of the 2x2 table, shares are compared with Fisher's test.
FISHER_BELOW = 5.0


def _counts(*values):
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values))
    for a in arrays:
        if np.any(a < 0):
            raise ValidationError("counts and sizes cannot be negative")
    return arrays


def _out(p, names):
    p = np.asarray(p, dtype=float)
    if p.ndim == 0:
        return float(p), str(np.asarray(names).item())
    return p, np.asarray(names, dtype=object)


def two_rate_test(k1, k2, exposure1=1.0, exposure2=1.0):
    """p-value that two Poisson counts ``k1`` and ``k2`` (over ``exposure1``/``exposure2``,
    e.g. days) come from the same rate: the exact conditional binomial test.

    NaN where ``k1 + k2 == 0`` (no events: nothing to compare).
    """
    k1, k2, t1, t2 = _counts(k1, k2, exposure1, exposure2)
    if np.any(t1 <= 0) or np.any(t2 <= 0):
        raise ValidationError("exposures must be positive")
    p = np.full(k1.shape, np.nan)
    for i in np.ndindex(k1.shape):
        total = int(round(k1[i] + k2[i]))
        if total > 0:
            p[i] = _scipy_stats.binomtest(int(round(k1[i])), total, t1[i] / (t1[i] + t2[i])).pvalue
    return _out(p, np.full(k1.shape, RATE_TEST, dtype=object))


def two_proportion_test(k1, n1, k2, n2):
    """p-value that the shares ``k1/n1`` and ``k2/n2`` are equal.

    The pooled z test, ``z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2))`` with
    ``p = (k1 + k2) / (n1 + n2)``; Fisher's exact test when any expected cell
    is under :data:`FISHER_BELOW`. NaN where either size is 0.
    """
    k1, n1, k2, n2 = _counts(k1, n1, k2, n2)
    if np.any(k1 > n1) or np.any(k2 > n2):
        raise ValidationError("successes must lie between 0 and their total")
    p = np.full(k1.shape, np.nan)
    names = np.full(k1.shape, PROPORTION_Z_TEST, dtype=object)
    for i in np.ndindex(k1.shape):
        a, b, c, d = k1[i], n1[i] - k1[i], k2[i], n2[i] - k2[i]
        if n1[i] == 0 or n2[i] == 0:
            continue
        pooled = (a + c) / (n1[i] + n2[i])
        expected = np.array([n1[i] * pooled, n1[i] * (1 - pooled), n2[i] * pooled, n2[i] * (1 - pooled)])
        if expected.min() < FISHER_BELOW:
            names[i] = FISHER_TEST
            table = np.rint([[a, b], [c, d]]).astype(int)
            p[i] = _scipy_stats.fisher_exact(table).pvalue
            continue
        z = (a / n1[i] - c / n2[i]) / np.sqrt(pooled * (1 - pooled) * (1 / n1[i] + 1 / n2[i]))
        p[i] = 2 * _scipy_stats.norm.sf(abs(z))
    return _out(p, names)


def welch_test(n1, mean1, sd1, n2, mean2, sd2):
    """p-value that two means (each given as ``n``, mean and standard deviation, ``ddof=1``)
    are equal: Welch's t test. NaN where either ``n < 2`` or both variances are 0."""
    n1, m1, s1, n2, m2, s2 = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                                   for v in (n1, mean1, sd1, n2, mean2, sd2)))
    if np.any(n1 < 0) or np.any(n2 < 0) or np.any(s1 < 0) or np.any(s2 < 0):
        raise ValidationError("n and sd cannot be negative")
    p = np.full(n1.shape, np.nan)
    for i in np.ndindex(n1.shape):
        if n1[i] < 2 or n2[i] < 2 or (s1[i] == 0 and s2[i] == 0) or np.isnan(m1[i] + m2[i] + s1[i] + s2[i]):
            continue
        p[i] = _scipy_stats.ttest_ind_from_stats(m1[i], s1[i], n1[i], m2[i], s2[i], n2[i],
                                                 equal_var=False).pvalue
    return _out(p, np.full(n1.shape, WELCH_TEST, dtype=object))


#: Vargha and Delaney (2000)'s bars on A: 0.56, 0.64 and 0.71 are small, medium and large effects
#: (mirrored below 0.5: 0.44, 0.36, 0.29); 0.71 is Cohen's d = 0.8 for two normal samples
VD_SMALL, VD_MEDIUM, VD_LARGE = 0.56, 0.64, 0.71


def rank_effect(a, b) -> tuple[float, float]:
    """``(A, p)`` for two samples: the Vargha-Delaney effect size ``A``, the probability that a value
    drawn from ``a`` exceeds one drawn from ``b`` (a tie counts half; 0.5 when they do not differ), and
    the one-sided Mann-Whitney U p-value that ``a`` is stochastically smaller than ``b``.
    ``(nan, nan)`` when either sample is empty; NaN values are an error."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValidationError("rank_effect: the samples hold NaN")
    if not len(a) or not len(b):
        return float("nan"), float("nan")
    test = _scipy_stats.mannwhitneyu(a, b, alternative="less")
    return float(test.statistic) / (len(a) * len(b)), float(test.pvalue)
