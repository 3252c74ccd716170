"""Krippendorff's alpha, written from Krippendorff (2011), with a bootstrap interval over units.

Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
Communication, University of Pennsylvania. The steps, on reliability data of ``m`` coders
(rows) by ``N`` units (columns), NaN (or None) where a coder left a unit out:

1. Only *pairable* values count: those of units with two or more values. ``m_u`` is the
   number of values of unit ``u``.
2. The coincidence matrix ``o[c, k] = sum_u (number of c-k pairs in u) / (m_u - 1)``, pairs
   ordered and taken between different coders, so ``o`` is symmetric; its marginals are
   ``n_c = sum_k o[c, k]`` and ``n = sum_c n_c`` (the number of pairable values).
3. The expected coincidences ``e[c, k] = n_c (n_k - [c == k]) / (n - 1)``.
4. ``alpha = 1 - D_o / D_e`` with ``D_o = sum o[c, k] delta2(c, k)`` and
   ``D_e = sum e[c, k] delta2(c, k)`` (equal to the paper's ``1 - (n - 1) sum o delta2 / sum
   n_c n_k delta2``), where the squared difference ``delta2`` depends on the level:

   * nominal: 0 if ``c == k`` else 1;
   * ordinal: ``(sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2``, over the values' ranks (the
     marginal frequencies of the values from ``c`` to ``k`` on the ordered scale);
   * interval: ``(c - k) ** 2``;
   * ratio: ``((c - k) / (c + k)) ** 2`` (0 where ``c + k == 0``).

Alpha is undefined (NaN here) when fewer than two pairable values or a single distinct
pairable value is observed: ``D_e`` is then 0.

:func:`krippendorff_alpha_interval` gives a percentile bootstrap interval: units (columns)
are drawn with replacement ``resamples`` times, alpha recomputed on each draw, NaN draws
dropped, and the ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles returned. The draws use
``numpy.random.default_rng(seed)`` exactly as :func:`corpuskit.stats.intervals.bootstrap_interval`
does (one ``integers(0, N, size=N)`` per resample), so both give the same interval for a seed.
This is the ordinary nonparametric bootstrap over units, not the Hayes & Krippendorff (2007)
bootstrap, which resamples pairs of values within the coincidence matrix.
"""
from __future__ import annotations

import numpy as np

from corpuskit.errors import ValidationError

#: The levels of measurement alpha knows.
ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _check_level(level) -> str:
    if level not in ALPHA_LEVELS:
        raise ValidationError(f"level of measurement must be one of {', '.join(ALPHA_LEVELS)}, not {level!r}")
    return level


def _matrix(data) -> np.ndarray:
    """``data`` as a float coders x units matrix, NaN for a missing value (None or NaN)."""
    try:
        matrix = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError("reliability data must hold numbers, with NaN or None for a missing "
                              "value") from None
    if matrix.ndim != 2:
        raise ValidationError("reliability data must be a coders x units table")
    if np.isinf(matrix).any():
        raise ValidationError("reliability data cannot hold infinite values")
    return matrix


def _value_counts(matrix: np.ndarray, level: str, domain) -> tuple[np.ndarray, np.ndarray]:
    """The values (in scale order) and the units x values table of how many coders gave each."""
    observed = np.unique(matrix[~np.isnan(matrix)])
    if domain is not None and level in ("nominal", "ordinal"):
        values = np.asarray(list(domain), dtype=float).ravel()
        if np.isnan(values).any() or np.unique(values).size != values.size:
            raise ValidationError("the value domain must list distinct values, without NaN")
        outside = observed[~np.isin(observed, values)]
        if outside.size:
            raise ValidationError(f"the reliability data hold values outside the domain: "
                                  f"{', '.join(f'{v:g}' for v in outside[:5])}")
    else:
        values = observed
    units, coders = np.nonzero(~np.isnan(matrix.T))
    order = np.argsort(values, kind="stable")
    column = order[np.searchsorted(values[order], matrix.T[units, coders])]
    counts = np.zeros((matrix.shape[1], values.size), dtype=np.int64)
    np.add.at(counts, (units, column), 1)
    return values, counts


def _delta2(values: np.ndarray, level: str, n_v: np.ndarray) -> np.ndarray:
    """The squared differences between every two values, at ``level`` (ranks follow ``values``' order)."""
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "ordinal":
        ranks = np.arange(values.size)
        low = np.minimum(ranks[:, None], ranks[None, :])
        high = np.maximum(ranks[:, None], ranks[None, :])
        through = np.concatenate([[0.0], np.cumsum(n_v)])       # through[i] = n_0 + ... + n_(i-1)
        between = through[high + 1] - through[low]               # n_low + ... + n_high
        return (between - (n_v[low] + n_v[high]) / 2.0) ** 2
    c, k = values[:, None], values[None, :]
    if level == "interval":
        return (c - k) ** 2
    total = c + k
    return np.divide(c - k, total, out=np.zeros((values.size, values.size)), where=total != 0) ** 2


def _alpha_from_counts(counts: np.ndarray, values: np.ndarray, level: str) -> float:
    """Alpha from a units x values table of counts (see the module docstring for the steps)."""
    m_u = counts.sum(axis=1)
    pairable = m_u >= 2
    counts, m_u = counts[pairable].astype(float), m_u[pairable]
    if counts.size == 0:
        return float("nan")
    weighted = counts / (m_u - 1.0)[:, None]
    o = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_v = o.sum(axis=0)
    n = n_v.sum()
    if n < 2 or np.count_nonzero(n_v > 0) < 2:
        return float("nan")
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n - 1.0)
    d = _delta2(values, level, n_v)
    expected = float((e * d).sum())
    if expected == 0.0:
        return float("nan")
    return 1.0 - float((o * d).sum()) / expected


def krippendorff_alpha(data, level: str = "nominal", domain=None) -> float:
    """Krippendorff's alpha of ``data`` (coders x units, numbers, NaN or None for a missing code).

    ``level`` is nominal, ordinal, interval or ratio; ``domain`` the possible values, in scale
    order, for nominal and ordinal data (for ordinal data: every rank of the scale); it is not
    used at the interval and ratio levels. A value outside ``domain`` is a
    :class:`~corpuskit.errors.ValidationError`. NaN when fewer than two pairable values or a
    single value is observed. Krippendorff (2011); see the module docstring.
    """
    level = _check_level(level)
    values, counts = _value_counts(_matrix(data), level, domain)
    return _alpha_from_counts(counts, values, level)


def krippendorff_alpha_interval(data, level: str = "nominal", domain=None, resamples: int = 1000,
                                seed: int = 0, ci: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval ``(low, high)`` of :func:`krippendorff_alpha` at coverage ``ci``.

    Units (columns of ``data``) are drawn with replacement ``resamples`` times with
    ``numpy.random.default_rng(seed)``; draws where alpha is undefined are left out; (NaN, NaN)
    when every draw is, or there are no units. The same seed gives the same interval.
    """
    level = _check_level(level)
    if not 0.0 < float(ci) < 1.0:
        raise ValidationError(f"ci must be between 0 and 1 (exclusive), not {ci!r}")
    if int(resamples) < 1:
        raise ValidationError("resamples must be at least 1")
    values, counts = _value_counts(_matrix(data), level, domain)
    units = counts.shape[0]
    if units == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    draws = np.array([_alpha_from_counts(counts[rng.integers(0, units, size=units)], values, level)
                      for _ in range(int(resamples))])
    draws = draws[~np.isnan(draws)]
    if draws.size == 0:
        return float("nan"), float("nan")
    return float(np.quantile(draws, (1 - ci) / 2)), float(np.quantile(draws, 0.5 + ci / 2))
