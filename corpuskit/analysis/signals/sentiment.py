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

Evidence: the topic's records in the after window of the peak day, the most extreme in the
direction of the shift first. ``/v1`` does not serve the kind.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.analysis.signals.detector import Detector, RecordSpan, SignalWords
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.series_scorer import onset, plan_for
from corpuskit.analysis.signals.track import Track, fmt_score
from corpuskit.analysis.signals.user_series import check_index, numeric, step_of
from corpuskit.errors import ValidationError
from corpuskit.stats.mean_model import shift_sigma
from corpuskit.stats.thresholds import OPEN_SIGMA
from corpuskit.text.wording import fmt_count, fmt_days
from corpuskit.text.wording import fmt_score as score_words

#: After windows (periods) and fewest records of :func:`corpuskit.signals.detect`'s sentiment test.
SENTIMENT_AFTER = (1, 2, 3)
SENTIMENT_MIN_RECORDS = 5


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
    sign = "both"
    measure = "mean"

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

    # -- the kind's facts (see :class:`~corpuskit.analysis.signals.detector.Detector`) ---------------
    @classmethod
    def evidence_records(cls, conn, evidence: dict, span: RecordSpan, detail: dict, limit: int) -> list[int]:
        """The topic's scored records of the after window, the most extreme in the shift's direction first."""
        order = "e.sentiment_score ASC" if detail.get("direction") == "negative" else "e.sentiment_score DESC"
        rows = conn.execute(
            "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id "
            "WHERE +e.topic_id = ? AND r.day BETWEEN ? AND ? AND e.sentiment_score IS NOT NULL "
            f"ORDER BY {order}, r.published_at, r.id "
            "LIMIT ?", (evidence["topic_id"], span.first, span.last, limit)).fetchall()
        return [r[0] for r in rows]

    @classmethod
    def prose(cls, w: SignalWords) -> tuple[str, str] | None:
        """``"Sentiment on <subject> falls: -0.21, down from +0.05 over 2 days"``."""
        d = w.detail
        if "after" not in d:
            return None
        before, after = float(d["before"]), float(d["after"])
        rose = after >= before
        days = int(d.get("afterDays") or 1)
        headline = (f"Sentiment on {w.short} {'rises' if rose else 'falls'}: {score_words(after)}, "
                    f"{'up' if rose else 'down'} from {score_words(before)} over {fmt_days(days)}")
        n = d.get("records")
        of = f" of {fmt_count(n)} records" if n else ""
        when = f"On {w.day}" if days == 1 else f"Over the {fmt_days(days)} to {w.day}"
        framing = (f"{when}, the average sentiment{of} on {w.full} "
                   f"{'rose' if rose else 'fell'} to {score_words(after)}, from {score_words(before)} in the "
                   f"{fmt_days(w.window)} before ({w.strength}).")
        return headline, framing

    @staticmethod
    def score_series(frame, rhythm, cycles, min_history, materiality=None, form=None):
        """Shift of the mean sentiment: the one mean-shift model this detector runs.

        :func:`~corpuskit.stats.mean_model.shift_sigma` with after
        windows of 1, 2 and 3 periods against the ``cycles`` periods before
        (default 21 for daily series, a day's worth for finer ones), at least 5
        records in the after window. Two-sided: sigma is the best ``|z|``.
        """
        if not isinstance(frame, pd.DataFrame) or not {"sum", "count"} <= set(frame.columns):
            raise ValidationError("sentiment_shift needs a DataFrame with columns 'sum' and 'count' "
                                  "(per-period sum of sentiment scores and number of records; optional 'sq')")
        if form is not None:
            raise ValidationError(f"sentiment_shift has one test: leave form unset; got {form!r}")
        if rhythm not in ("auto", "none"):
            raise ValidationError("sentiment_shift compares each period with the periods just before it: "
                                  f"rhythm must be 'auto' or 'none'; got {rhythm!r}")
        index = check_index(frame.index)
        sums = numeric(frame["sum"], "'sum'")
        counts = numeric(frame["count"], "'count'")
        if np.any(counts[np.isfinite(counts)] < 0):
            raise ValidationError("'count' must be non-negative")
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        if np.any(np.abs(means[np.isfinite(means)]) > 1 + 1e-9):
            raise ValidationError("'sum' / 'count' must lie in [-1, 1] (mean sentiment per period)")
        sq = numeric(frame["sq"], "'sq'") if "sq" in frame.columns else None
        if sq is not None and np.any(sq[np.isfinite(sq)] < 0):
            raise ValidationError("'sq' must be non-negative")
        step = step_of(index)
        plan = plan_for(counts, index, step, "none", cycles, min_history)
        sigma, best_k, parts = shift_sigma(counts, sums, sq, after_days=SENTIMENT_AFTER,
                                           window=len(plan.lags(1)), min_periods=plan.min_history,
                                           min_records=SENTIMENT_MIN_RECORDS)
        first = parts[SENTIMENT_AFTER[0]]
        expected = first["before"].copy()
        for k in SENTIMENT_AFTER[1:]:
            expected = np.where(best_k == k, parts[k]["before"], expected)
        sigma = np.where(np.isnan(counts), np.nan, sigma)
        return {"sigma": sigma, "expected": expected, "baseline_n": first["days"],
                "onset": onset(sigma, max(SENTIMENT_AFTER) - 1)}, plan
