"""One mean-shift model for sentiment series: the period's mean score against its baseline.

Input per period: the number of records ``n_t``, the sum of their scores
``S_t`` and (optionally) the sum of squares ``Q_t``. The *after* window is the
last ``k`` periods, the baseline the ``window`` periods before it.

Variance, random-effects style (DerSimonian and Laird): a record's score
varies around its period's mean with the *within-period* variance ``s2``
(pooled over the baseline: ``(sum Q - sum S_d^2 / n_d) / (n - D)``), and a
period's mean varies around the baseline mean with the *between-period*
variance ``tau2`` beyond what ``s2`` explains (method of moments on the
baseline periods with at least ``min_day_records`` records, never negative).
The after mean minus the baseline mean then has variance::

    s2 / n_after + s2 / n_base + tau2 * sum(n_d^2) / n_after^2 + tau2 * sum(n_d^2) / n_base^2

so a quiet topic with 8 records a day is tested against the sampling error of
8 records (not against the spread of its small days' means, which is mostly
that same sampling error counted twice), and a topic whose daily mean really
wanders needs a bigger move. Without ``Q`` the within-period variance cannot
be separated: ``s2`` is then the spread of the baseline's period means scaled
by their sizes and ``tau2`` is 0.

The score is ``t = (after - before) / sqrt(var)``, read as a normal ``z`` of
the same tail probability under Student's t with Satterthwaite's degrees of
freedom (``tau2``, and ``s2`` when there is no ``Q``, are estimated from only the
baseline's periods, so ``t`` has heavier tails than a normal); callers use
``|z|`` as the sigma. ``s2`` is floored at ``S2_FLOOR`` (scores in [-1, 1] rarely vary less).
"""
from __future__ import annotations

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from corpuskit.stats.windows import rolling_sum, trailing_sum

S2_FLOOR = 0.01


def mean_shift(count, total, sq=None, *, k: int, window: int, min_periods: int,
               min_day_records: int = 1, min_records: int = 1) -> dict:
    """The after-window mean against the baseline mean, arrays ``[..., periods]``.

    Returns ``after``, ``before`` (record-weighted baseline mean), ``z``,
    ``n_after``, ``n_base``, ``days`` (baseline periods with at least
    ``min_day_records`` records), ``s2``, ``tau2``, ``var_shift`` (the variance of
    after minus before) and ``df`` (Satterthwaite's degrees of freedom ``t`` is read
    with: a shift of ``x`` standard errors scores ``norm.isf(t.sf(x, df))``). ``z`` is NaN
    where fewer than ``min_periods`` baseline periods or ``min_records``
    after-records exist.
    """
    count = np.nan_to_num(np.asarray(count, dtype=float))
    total = np.nan_to_num(np.asarray(total, dtype=float))
    has_sq = sq is not None
    sq = np.nan_to_num(np.asarray(sq, dtype=float)) if has_sq else np.zeros_like(total)
    present = count > 0
    usable = count >= max(min_day_records, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_day_a = np.where(present, total ** 2 / np.where(present, count, 1), 0.0)
        n_after = trailing_sum(count, k)
        after = np.where(n_after > 0, trailing_sum(total, k) / n_after, np.nan)
        n_after_sq = trailing_sum(count ** 2, k)

        n_base = rolling_sum(count, window, lag=k)
        s_base = rolling_sum(total, window, lag=k)
        before = np.where(n_base > 0, s_base / n_base, np.nan)
        # the usable periods: the between-period spread
        n_u = rolling_sum(np.where(usable, count, 0.0), window, lag=k)
        s_u = rolling_sum(np.where(usable, total, 0.0), window, lag=k)
        a_u = rolling_sum(np.where(usable, per_day_a, 0.0), window, lag=k)
        b_u = rolling_sum(np.where(usable, count ** 2, 0.0), window, lag=k)
        days = rolling_sum(usable.astype(float), window, lag=k)
        q_between = np.maximum(a_u - s_u ** 2 / np.maximum(n_u, 1e-12), 0.0)
        if has_sq:
            d_all = rolling_sum(present.astype(float), window, lag=k)
            within = rolling_sum(sq, window, lag=k) - rolling_sum(per_day_a, window, lag=k)
            s2 = np.where(n_base - d_all > 0, within / np.maximum(n_base - d_all, 1), np.nan)
            s2 = np.maximum(np.nan_to_num(s2, nan=S2_FLOOR), S2_FLOOR)
            denom = n_u - b_u / np.maximum(n_u, 1e-12)
            tau2 = np.where((days > 1) & (denom > 0),
                            (q_between - (days - 1) * s2) / np.maximum(denom, 1e-12), 0.0)
            tau2 = np.maximum(tau2, 0.0)
        else:
            d_all = days
            s2 = np.where(days > 1, q_between / np.maximum(days - 1, 1), S2_FLOOR)
            s2 = np.maximum(s2, S2_FLOOR)
            tau2 = np.zeros_like(s2)
        var_within = s2 / np.maximum(n_after, 1e-12) + s2 / np.maximum(n_base, 1e-12)
        var_between = (tau2 * n_after_sq / np.maximum(n_after, 1e-12) ** 2
                       + tau2 * b_u / np.maximum(n_u, 1e-12) ** 2)
        var = var_within + var_between
        t = (after - before) / np.sqrt(var)
        # the variances are estimated: read t against Student's t with Satterthwaite's
        # degrees of freedom (tau2 from `days` periods; s2 from the baseline's records,
        # or from its `days` period means when there are no sums of squares)
        df_between = np.maximum(days - 1, 1.0)
        df_within = (np.maximum(n_base - d_all, 1.0) if has_sq else df_between)
        df = var ** 2 / np.maximum(var_within ** 2 / df_within + var_between ** 2 / df_between, 1e-300)
        df = np.maximum(df, 1.0)
        z = np.where(np.isfinite(df) & np.isfinite(t),
                     np.sign(t) * norm.isf(np.clip(student_t.sf(np.abs(t), df), 1e-300, 1.0)), t)
    ok = (days >= min_periods) & (n_after >= max(min_records, 1)) & np.isfinite(z)
    return {"after": after, "before": before, "z": np.where(ok, z, np.nan), "n_after": n_after,
            "n_base": n_base, "days": days, "s2": s2, "tau2": tau2, "var_shift": var, "df": df}


def shift_sigma(count, total, sq=None, *, after_days=(1, 2), window: int = 21, min_periods: int = 7,
                min_day_records: int = 1, min_records: int = 1, min_shift: float = 0.0):
    """``(sigma, best_k, parts)``: the best ``|z|`` over the after windows.

    Not corrected for the looks: the after windows overlap (the 2-day window
    holds the 1-day one), so the best of them fires little more often than one
    alone; ``benchmarks/bench_signals_injected.py`` measures the false rate on
    real backgrounds.

    ``parts`` maps each after length ``k`` to its :func:`mean_shift` output;
    ``best_k`` is the length that won (0 where nothing could be tested).
    Periods whose shift is smaller than ``min_shift`` score NaN.
    """
    shape = np.shape(count)
    best = np.full(shape, -np.inf)
    best_k = np.zeros(shape, dtype=int)
    parts = {}
    for k in after_days:
        p = mean_shift(count, total, sq, k=k, window=window, min_periods=min_periods,
                       min_day_records=min_day_records, min_records=min_records)
        parts[k] = p
        with np.errstate(invalid="ignore"):
            sigma = np.where(np.abs(p["after"] - p["before"]) >= min_shift, np.abs(p["z"]), np.nan)
        better = np.nan_to_num(sigma, nan=-np.inf) > best
        best = np.where(better, sigma, best)
        best_k = np.where(better, k, best_k)
    sigma = np.where(np.isfinite(best), best, np.nan)
    return sigma, best_k, parts
