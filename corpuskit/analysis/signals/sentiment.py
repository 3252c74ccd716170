"""sentiment_shift: a topic's mean sentiment moving away from its baseline.

Series: per topic and day, the number of records and the sum and sum of
squares of their sentiment scores.

Baseline window: the ``window`` days (default 21, at least ``min_periods``
days with ``min_day_records`` records each) that end just before the
*after* window.

Test: the *after* mean is the mean sentiment over the last ``k`` days
(``k`` in ``after_days``, default 1 and 2: a sharp one-day turn and a
two-day drift; the larger score wins). The *before* value is the median of
the baseline's daily means. The scale is
``max(1.4826 * MAD(daily means) / sqrt(k), sd / sqrt(n_after))``: day-to-day
variation of the baseline, floored by the sampling error of the after mean
(``sd`` is the standard deviation of every baseline record's score). The
sigma score is ``|after - before| / scale``. Gates: at least
``min_records`` records in the after window and ``|after - before| >=
min_shift``.

Detail: ``{before, after, delta, direction, afterDays, windowDays, records}``.
"""
from __future__ import annotations

import numpy as np

from corpuskit.analysis.signals.series import DailySeries, rolling_median_mad, rolling_sum, trailing_sum
from corpuskit.analysis.signals.severity import OPEN_SIGMA
from corpuskit.analysis.signals.track import Track, fmt_score


def mean_shift(count, total, sq, *, window: int, min_periods: int, k: int,
               min_day_records: int, min_records: int) -> dict:
    """After-window mean, baseline median of daily means, and the test's scale.

    All inputs and outputs are arrays ``[..., days]``; values are NaN where
    the day cannot be tested.
    """
    count = np.asarray(count, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        daily = np.where(count >= min_day_records, total / np.maximum(count, 1), np.nan)
        med, mad, _ = rolling_median_mad(daily, window, min_periods, lag=k)
        n_after = trailing_sum(count, k)
        after = np.where(n_after >= min_records, trailing_sum(total, k) / np.maximum(n_after, 1), np.nan)
        n_base = rolling_sum(count, window, lag=k)
        s_base = rolling_sum(total, window, lag=k)
        q_base = rolling_sum(sq, window, lag=k)
        var = np.where(n_base > 1, (q_base - s_base ** 2 / np.maximum(n_base, 1)) / np.maximum(n_base - 1, 1),
                       np.nan)
        sampling = np.sqrt(np.maximum(var, 1e-6) / np.maximum(n_after, 1))
        scale = np.maximum(1.4826 * mad / np.sqrt(k), sampling)
    return {"after": after, "before": med, "scale": scale, "n_after": n_after, "var": var}


class SentimentShiftDetector:
    """Mean sentiment of the last day (or two) against the previous ``window`` days, per topic.

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days and the fewest usable baseline days.
    after_days : tuple of int
        Lengths of the after window tried; the largest sigma wins.
    min_day_records : int
        Fewest records for a day's mean to enter the baseline.
    min_records : int
        Fewest records in the after window.
    min_shift : float
        Smallest absolute change of the mean (sentiment scores are in [-1, 1]).
    """

    kind = "sentiment_shift"

    def __init__(self, window: int = 21, min_periods: int = 7, after_days=(1, 2),
                 min_day_records: int = 3, min_records: int = 8, min_shift: float = 0.1):
        self.window = window
        self.min_periods = min_periods
        self.after_days = after_days
        self.min_day_records = min_day_records
        self.min_records = min_records
        self.min_shift = min_shift

    def score(self, count, total, sq):
        """``(sigma, k, parts)``: the best sigma per row and day, its after length, and the
        per-``k`` parts from :func:`mean_shift`."""
        best = np.full(np.shape(count), np.nan)
        best_k = np.zeros(np.shape(count), dtype=int)
        parts = {}
        for k in self.after_days:
            p = mean_shift(count, total, sq, window=self.window, min_periods=self.min_periods, k=k,
                           min_day_records=self.min_day_records, min_records=self.min_records)
            parts[k] = p
            delta = p["after"] - p["before"]
            with np.errstate(invalid="ignore", divide="ignore"):
                sigma = np.abs(delta) / p["scale"]
            sigma = np.where(np.abs(delta) >= self.min_shift, sigma, np.nan)
            better = np.isfinite(sigma) & ~(sigma <= best)
            best = np.where(better, sigma, best)
            best_k = np.where(better, k, best_k)
        return best, best_k, parts

    def tracks(self, series: DailySeries) -> list[Track]:
        """One track per topic whose sigma reaches ``OPEN_SIGMA`` on some day."""
        if not series.topics:
            return []
        sigma, best_k, parts = self.score(series.topic_count, series.topic_sum, series.topic_sq)
        out = []
        for row, tid in enumerate(series.topics):
            if not np.any(sigma[row] >= OPEN_SIGMA):
                continue
            out.append(self._track(series, row, tid, sigma[row], best_k[row], parts))
        return out

    def _track(self, series, row, tid, sigma, best_k, parts) -> Track:
        label = series.topic_labels[tid]
        window = self.window

        def describe(d):
            k = int(best_k[d]) or self.after_days[0]
            p = parts[k]
            before, after = float(p["before"][row, d]), float(p["after"][row, d])
            direction = "negative" if after < before else "positive"
            detail = {"before": round(before, 4), "after": round(after, 4),
                      "delta": round(after - before, 4), "direction": direction,
                      "afterDays": k, "windowDays": window, "records": int(p["n_after"][row, d]),
                      "day": series.days[d]}
            verb = "fell" if after < before else "rose"
            headline = (f"Sentiment on {label} {verb} to {fmt_score(after)} "
                        f"(from {fmt_score(before)})")
            return detail, headline

        return Track(kind=self.kind, subject=f"topic:{series.topic_names[tid]}", sigma=sigma,
                     topic_row=lambda d, r=row: r, describe=describe,
                     evidence={"topic_id": tid, "sentiment": "shift"})
