"""sentiment_shift: a topic's mean sentiment moving away from its baseline.

Series: per topic and day, the number of records and the sum and sum of
squares of their sentiment scores.

Test: the one mean-shift model of
:mod:`~corpuskit.stats.mean_model` (the same code
:func:`corpuskit.signals.detect` runs for ``kind="sentiment_shift"``): the
mean over the last ``k`` days (``k`` in ``after_days``, default 1, 2 and 3: a
sharp one-day turn, and a change that lasts pooled over two or three days so a
quiet topic's few records a day add up) against the record-weighted mean of
the ``window`` days before (default 21, at least ``min_periods`` days with
``min_day_records`` records each), with the variance of a random-effects
model (records within a day, days around the baseline). The sigma score is
the best ``|z|`` over the after lengths.
Gates: at least ``min_records`` records in the after window and
``|after - before| >= min_shift``.

Detail: ``{before, after, delta, direction, afterDays, windowDays, records}``.
"""
from __future__ import annotations

import numpy as np

from corpuskit.analysis.signals.detector import Detector
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.track import Track, fmt_score
from corpuskit.stats.mean_model import shift_sigma
from corpuskit.stats.thresholds import OPEN_SIGMA


class SentimentShiftDetector(Detector):
    """Mean sentiment of the last day (or two) against the previous ``window`` days, per topic.

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days and the fewest usable baseline days.
    after_days : tuple of int
        Lengths of the after window tried; the largest sigma wins.
    min_day_records : int
        Fewest records for a day to count as a usable baseline day (for
        ``min_periods`` and the between-day variance). Default 1, as
        ``detect(kind="sentiment_shift")``: with the per-day sums of squares
        the random-effects model weighs a day of one or two records by its
        own sampling error, so dropping such days only left quiet topics
        untested (on the Hacker News file a quarter of the days a three-day
        shift could be injected into).
    min_records : int
        Fewest records in the after window.
    min_shift : float
        Smallest absolute change of the mean (sentiment scores are in [-1, 1]).
    """

    kind = "sentiment_shift"

    def __init__(self, window: int = 21, min_periods: int = 7, after_days=(1, 2, 3),
                 min_day_records: int = 1, min_records: int = 8, min_shift: float = 0.1):
        self.window = window
        self.min_periods = min_periods
        self.after_days = after_days
        self.min_day_records = min_day_records
        self.min_records = min_records
        self.min_shift = min_shift

    def score(self, count, total, sq):
        """``(sigma, k, parts)``: the best sigma per row and day, its after length, and the
        per-``k`` parts of :func:`~corpuskit.stats.mean_model.mean_shift`."""
        return shift_sigma(count, total, sq, after_days=self.after_days, window=self.window,
                           min_periods=self.min_periods, min_day_records=self.min_day_records,
                           min_records=self.min_records, min_shift=self.min_shift)

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """One track per topic whose sigma reaches ``OPEN_SIGMA`` on some day."""
        if not series.topics:
            return []
        sigma, best_k, parts = self.score(series.topic_scored, series.topic_sum, series.topic_sq)
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
