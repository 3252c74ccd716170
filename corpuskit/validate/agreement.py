"""Agreement between coders: Krippendorff's alpha, Cohen's kappa, percent agreement, with bootstrap intervals.

* **Krippendorff's alpha** (Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability") for any number of coders, missing codes allowed, at the
  variable's level of measurement, computed by :mod:`corpuskit.validate.alpha`
  (written from the paper, numpy only; the ``krippendorff`` package is the tests'
  oracle, not a dependency). Nominal and ordinal values enter as their rank in the
  codebook, interval and ratio values as numbers.
* **Cohen's kappa** (Cohen 1960) for exactly two coders, over the units both coded:
  ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from each coder's own marginals.
* **Percent agreement**: over units coded by at least two coders, the share of
  agreeing coder pairs within a unit, averaged over units (for two coders: the
  share of units where they agree).
* Each with a **95% percentile bootstrap interval** that resamples units
  (records) with replacement, seeded (:func:`corpuskit.stats.intervals.bootstrap_interval`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.stats.intervals import bootstrap_interval
from corpuskit.validate.alpha import krippendorff_alpha
from corpuskit.validate.codes import code_tables

AGREEMENT_COLUMNS = ["variable", "statistic", "value", "low", "high", "units", "coders", "level"]


def _codes(values) -> np.ndarray:
    """Values as integer codes (-1 for a missing one: None or NaN), any shape."""
    arr = np.asarray(values, dtype=object)
    flat = [None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in arr.ravel()]
    codes, _ = pd.factorize(pd.Series(flat, dtype=object), use_na_sentinel=True)
    return codes.reshape(arr.shape)


def cohen_kappa(first, second) -> float:
    """Cohen's kappa of two coders' values (NaN/None where a coder left a unit out); NaN when undefined."""
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise ValidationError("the two coders' values must be aligned unit by unit")
    codes = _codes([first, second]) if first else np.empty((2, 0), dtype=int)
    return _kappa(codes[0], codes[1])


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    both = (a >= 0) & (b >= 0)
    a, b = a[both], b[both]
    if a.size == 0:
        return float("nan")
    observed = float((a == b).mean())
    k = int(max(a.max(), b.max())) + 1
    expected = float(np.dot(np.bincount(a, minlength=k), np.bincount(b, minlength=k))) / a.size ** 2
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def percent_agreement(data) -> float:
    """Mean over units with at least two codes of the share of agreeing coder pairs (coders x units)."""
    return _percent(_codes(data))


def _percent(codes: np.ndarray) -> float:
    present = (codes >= 0).sum(axis=0)
    pairs = np.zeros(codes.shape[1])
    for value in np.unique(codes[codes >= 0]):
        count = (codes == value).sum(axis=0)
        pairs += count * (count - 1)
    keep = present >= 2
    if not keep.any():
        return float("nan")
    return float(np.mean(pairs[keep] / (present[keep] * (present[keep] - 1))))


def _numeric(table: pd.DataFrame, variable) -> np.ndarray:
    """coders x units numbers of a code table (units x coders of text values)."""
    return np.array([[np.nan if pd.isna(v) else variable.numeric(v) for v in table[c]]
                     for c in table.columns], dtype=float)


def agreement_table(table: pd.DataFrame, variable, resamples: int = 1000, seed: int = 0,
                    level: float = 0.95) -> pd.DataFrame:
    """Alpha, kappa (two coders only) and percent agreement of one variable's code table
    (units x coders, text values, NaN where uncoded), each with its bootstrap interval."""
    numeric = _numeric(table, variable)
    units = numeric.T                     # rows are units: the bootstrap resamples them
    domain = [float(i) for i in range(len(variable.values))] if variable.level in ("nominal", "ordinal") else None
    ranks = np.where(np.isnan(units), -1, _codes(units.T).T)   # distinct values as codes, -1 missing
    data = np.hstack([units, ranks])
    c = units.shape[1]
    stats = {"alpha": lambda u: krippendorff_alpha(u[:, :c].T, variable.level, domain),
             "percent_agreement": lambda u: _percent(u[:, c:].T.astype(int))}
    if c == 2:
        stats["kappa"] = lambda u: _kappa(u[:, c].astype(int), u[:, c + 1].astype(int))
    rows = []
    n_units = int(((~np.isnan(numeric)).sum(axis=0) >= 2).sum())
    for name, fn in stats.items():
        value = fn(data)
        low, high = bootstrap_interval(data, fn, level=level, resamples=resamples, seed=seed)
        rows.append({"variable": variable.name, "statistic": name, "value": value, "low": low,
                     "high": high, "units": n_units, "coders": table.shape[1], "level": variable.level})
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def agreement(corpus, sample: str, variable: str | None = None, resamples: int = 1000, seed: int = 0,
              level: float = 0.95) -> pd.DataFrame:
    """Agreement between the coders of ``sample``, per variable (all the codebook's when None).

    Columns: variable, statistic (alpha, percent_agreement, kappa with two
    coders), value, low, high (bootstrap interval over records), units (records
    coded by two or more), coders, level (of measurement).
    """
    book, tables = code_tables(corpus, sample, variable)
    frames = []
    for name, table in tables.items():
        if table is None:
            if variable is not None:
                raise ValidationError(f"sample {sample!r} has no codes for {name!r}")
            continue
        if table.shape[1] < 2:
            raise ValidationError(f"agreement needs two coders or more; {name!r} in sample "
                                  f"{sample!r} has codes of {', '.join(table.columns)} only")
        frames.append(agreement_table(table, book.variable(name), resamples, seed, level))
    if not frames:
        raise ValidationError(f"sample {sample!r} has no codes yet")
    return pd.concat(frames, ignore_index=True)


def disagreements(corpus, sample: str, variable: str | None = None) -> pd.DataFrame:
    """The records where coders gave different values: recordId, variable, then one column per coder."""
    _, tables = code_tables(corpus, sample, variable)
    frames = []
    for name, table in tables.items():
        if table is None:
            continue
        differ = table.apply(lambda row: row.dropna().nunique() > 1, axis=1)
        part = table[differ].reset_index()
        part.insert(1, "variable", name)
        frames.append(part)
    if not frames:
        return pd.DataFrame(columns=["recordId", "variable"])
    return pd.concat(frames, ignore_index=True)
