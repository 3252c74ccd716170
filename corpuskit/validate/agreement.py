"""Agreement between coders: Krippendorff's alpha, Cohen's kappa, percent agreement, with bootstrap intervals.

* **Krippendorff's alpha** (Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability") for any number of coders, missing codes allowed, at the
  variable's level of measurement, computed by the ``krippendorff`` package.
  Nominal and ordinal values enter as their rank in the codebook, interval and
  ratio values as numbers.
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

from corpuskit.errors import MissingDependencyError, ValidationError
from corpuskit.stats.intervals import bootstrap_interval
from corpuskit.validate.codes import code_matrix
from corpuskit.validate.samples import sample_codebook

AGREEMENT_COLUMNS = ["variable", "statistic", "value", "low", "high", "units", "coders", "level"]


def _krippendorff():
    try:
        import krippendorff
    except ImportError:
        raise MissingDependencyError("Krippendorff's alpha needs the krippendorff package: "
                                     "pip install krippendorff") from None
    return krippendorff


def krippendorff_alpha(data, level: str = "nominal", domain=None) -> float:
    """Krippendorff's alpha of ``data`` (coders x units, numbers, NaN for a missing code).

    ``level`` is nominal, ordinal, interval or ratio; ``domain`` the possible
    values (for ordinal data: every rank of the scale). NaN when fewer than two
    pairable values or a single value is observed.
    """
    matrix = np.asarray(data, dtype=float)
    if matrix.ndim != 2:
        raise ValidationError("reliability data must be a coders x units table")
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    values = matrix[:, pairable]
    values = values[~np.isnan(values)]
    if values.size < 2 or np.unique(values).size < 2:
        return float("nan")
    kwargs = {"value_domain": list(domain)} if domain is not None and level in ("nominal", "ordinal") else {}
    return float(_krippendorff().alpha(reliability_data=matrix, level_of_measurement=level, **kwargs))


def cohen_kappa(first, second) -> float:
    """Cohen's kappa of two coders' values (NaN/None where a coder left a unit out); NaN when undefined."""
    a = pd.Series(list(first), dtype=object)
    b = pd.Series(list(second), dtype=object)
    if len(a) != len(b):
        raise ValidationError("the two coders' values must be aligned unit by unit")
    both = a.notna() & b.notna()
    a, b = a[both].astype(str), b[both].astype(str)
    if a.empty:
        return float("nan")
    observed = float((a.values == b.values).mean())
    pa, pb = a.value_counts(normalize=True), b.value_counts(normalize=True)
    expected = float(sum(pa.get(v, 0.0) * pb.get(v, 0.0) for v in set(pa.index) | set(pb.index)))
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def percent_agreement(data) -> float:
    """Mean over units with at least two codes of the share of agreeing coder pairs (coders x units)."""
    table = pd.DataFrame(np.asarray(data, dtype=object))
    shares = []
    for col in table.columns:
        values = [v for v in table[col] if v is not None and not (isinstance(v, float) and np.isnan(v))]
        m = len(values)
        if m < 2:
            continue
        counts = pd.Series(values).value_counts()
        shares.append(float((counts * (counts - 1)).sum()) / (m * (m - 1)))
    return float(np.mean(shares)) if shares else float("nan")


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
    stats = {"alpha": lambda u: krippendorff_alpha(u.T, variable.level, domain),
             "percent_agreement": lambda u: percent_agreement(u.T)}
    if table.shape[1] == 2:
        stats["kappa"] = lambda u: cohen_kappa(_nan_none(u[:, 0]), _nan_none(u[:, 1]))
    rows = []
    n_units = int(((~np.isnan(numeric)).sum(axis=0) >= 2).sum())
    for name, fn in stats.items():
        value = fn(units)
        low, high = bootstrap_interval(units, fn, level=level, resamples=resamples, seed=seed)
        rows.append({"variable": variable.name, "statistic": name, "value": value, "low": low,
                     "high": high, "units": n_units, "coders": table.shape[1], "level": variable.level})
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def _nan_none(column):
    return [None if np.isnan(v) else v for v in column]


def agreement(corpus, sample: str, variable: str | None = None, resamples: int = 1000, seed: int = 0,
              level: float = 0.95) -> pd.DataFrame:
    """Agreement between the coders of ``sample``, per variable (all the codebook's when None).

    Columns: variable, statistic (alpha, percent_agreement, kappa with two
    coders), value, low, high (bootstrap interval over records), units (records
    coded by two or more), coders, level (of measurement).
    """
    book = sample_codebook(corpus, sample)
    if book is None:
        raise ValidationError(f"sample {sample!r} has no codebook")
    names = [book.variable(variable).name] if variable is not None else list(book.variables)
    frames = []
    for name in names:
        try:
            table = code_matrix(corpus, sample, name)
        except ValidationError:
            if variable is not None:
                raise
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
    book = sample_codebook(corpus, sample)
    if book is None:
        raise ValidationError(f"sample {sample!r} has no codebook")
    names = [book.variable(variable).name] if variable is not None else list(book.variables)
    frames = []
    for name in names:
        try:
            table = code_matrix(corpus, sample, name)
        except ValidationError:
            continue
        differ = table.apply(lambda row: row.dropna().nunique() > 1, axis=1)
        part = table[differ].reset_index()
        part.insert(1, "variable", name)
        frames.append(part)
    if not frames:
        return pd.DataFrame(columns=["recordId", "variable"])
    return pd.concat(frames, ignore_index=True)
