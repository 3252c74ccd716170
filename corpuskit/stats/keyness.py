"""Keyness: which terms one corpus uses more than another, with a test and an effect size.

For a term seen ``a`` times among ``total_a`` tokens of corpus A and ``b`` times among
``total_b`` tokens of corpus B:

* :func:`log_likelihood`: G² as Rayson & Garside (2000) compute it (the form of the UCREL
  log-likelihood calculator): ``E1 = total_a (a + b) / (total_a + total_b)``,
  ``E2 = total_b (a + b) / (total_a + total_b)``, ``G2 = 2 (a ln(a/E1) + b ln(b/E2))`` with
  ``0 ln 0 = 0``. Under no difference it follows chi-squared with one degree of freedom, which
  gives ``p``.
* :func:`log_ratio`: Hardie's (2014) Log Ratio, the binary log of the ratio of relative
  frequencies ``log2((a / total_a) / (b / total_b))``: +1 means twice as frequent in A. A zero
  frequency is replaced by :data:`ZERO_FREQUENCY` (0.5), as CQPweb does, so a term absent from
  one side has a finite ratio.
* :func:`benjamini_hochberg`: p-values adjusted for the false discovery rate over every term
  tested (Benjamini & Hochberg 1995; scipy's ``false_discovery_control``).

:func:`keyness_table` runs all three over many terms at once.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _scipy_stats

from corpuskit.errors import ValidationError

#: What a zero frequency counts as in :func:`log_ratio` (Hardie 2014; CQPweb).
ZERO_FREQUENCY = 0.5

#: The columns of :func:`keyness_table`, in order.
KEYNESS_COLUMNS = ("term", "freq_a", "freq_b", "G2", "log_ratio", "p", "p_adjusted", "direction")


def _frequencies(a, b, total_a, total_b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    total_a, total_b = float(total_a), float(total_b)
    if total_a <= 0 or total_b <= 0:
        raise ValidationError(f"both corpora need tokens (sizes {total_a:g} and {total_b:g})")
    if np.any(a < 0) or np.any(b < 0) or np.any(a > total_a) or np.any(b > total_b):
        raise ValidationError("a frequency must lie between 0 and its corpus size")
    return a, b, total_a, total_b


def _x_log(x, expected):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0) / expected), 0.0)


def log_likelihood(a, b, total_a, total_b):
    """G² of frequencies ``a`` (of ``total_a`` tokens) and ``b`` (of ``total_b``); elementwise."""
    a, b, total_a, total_b = _frequencies(a, b, total_a, total_b)
    n = total_a + total_b
    e1 = total_a * (a + b) / n
    e2 = total_b * (a + b) / n
    g2 = 2.0 * (_x_log(a, e1) + _x_log(b, e2))
    g2 = np.maximum(g2, 0.0)   # rounding can leave -1e-15 where a/total_a == b/total_b
    return float(g2) if g2.ndim == 0 else g2


def log_ratio(a, b, total_a, total_b):
    """Hardie's Log Ratio: ``log2`` of A's relative frequency over B's (zeros count as 0.5)."""
    a, b, total_a, total_b = _frequencies(a, b, total_a, total_b)
    a = np.where(a > 0, a, ZERO_FREQUENCY)
    b = np.where(b > 0, b, ZERO_FREQUENCY)
    ratio = np.log2((a / total_a) / (b / total_b))
    return float(ratio) if ratio.ndim == 0 else ratio


def g2_p_value(g2):
    """The p-value of G² against chi-squared with one degree of freedom."""
    p = _scipy_stats.chi2.sf(np.asarray(g2, dtype=float), df=1)
    return float(p) if np.ndim(p) == 0 else p


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (same order as given); an empty input gives an empty array."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return p.copy()
    if np.any(np.isnan(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValidationError("p-values must lie between 0 and 1")
    return _scipy_stats.false_discovery_control(p, method="bh")


def weighted_benjamini_hochberg(p_values, weights) -> np.ndarray:
    """:func:`benjamini_hochberg` of a list where ``p_values[i]`` occurs ``weights[i]`` times (each
    a positive integer): the adjusted value of each entry, equal to what the expanded list gives.

    An entry covering ranks ``r+1..r+w`` of the sorted list gets the smallest ``p m / rank`` from its
    last rank on, which is where its copies' values end in the expanded computation."""
    p = np.asarray(p_values, dtype=float)
    w = np.asarray(weights, dtype=np.int64)
    if p.size == 0:
        return p.copy()
    if p.shape != w.shape or np.any(w < 1):
        raise ValidationError("weights must be positive integers, one per p-value")
    if np.any(np.isnan(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValidationError("p-values must lie between 0 and 1")
    order = np.argsort(p, kind="mergesort")
    ends = np.cumsum(w[order]).astype(float)
    adjusted = p[order] * (int(w.sum()) / ends)
    np.minimum.accumulate(adjusted[::-1], out=adjusted[::-1])
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return np.clip(out, 0.0, 1.0)


def keyness_table(terms, freq_a, freq_b, total_a, total_b) -> pd.DataFrame:
    """Keyness of every term: a DataFrame with :data:`KEYNESS_COLUMNS`, most key first.

    ``direction`` is ``"a"`` where the term is relatively more frequent in A, ``"b"`` where in B
    (``"="`` where equal). ``p_adjusted`` is Benjamini-Hochberg over all the terms given. Rows are
    sorted by G² (largest first), then term, so the order is deterministic.
    """
    terms = list(terms)
    a, b, total_a, total_b = _frequencies(freq_a, freq_b, total_a, total_b)
    if not (len(terms) == a.size == b.size):
        raise ValidationError("terms, freq_a and freq_b must have the same length")
    if not terms:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            KEYNESS_COLUMNS, (object, "int64", "int64", float, float, float, float, object))})
    g2 = np.atleast_1d(log_likelihood(a, b, total_a, total_b))
    ratio = np.atleast_1d(log_ratio(a, b, total_a, total_b))
    p = np.atleast_1d(g2_p_value(g2))
    rel = a / total_a - b / total_b
    frame = pd.DataFrame({
        "term": terms, "freq_a": a.astype(np.int64), "freq_b": b.astype(np.int64), "G2": g2,
        "log_ratio": ratio, "p": p, "p_adjusted": benjamini_hochberg(p),
        "direction": np.where(rel > 0, "a", np.where(rel < 0, "b", "=")),
    })
    return frame.sort_values(["G2", "term"], ascending=[False, True], kind="mergesort").reset_index(drop=True)
