"""divergence: two sources' sentiment on the same topic moving apart.

Series: per topic, per source and day, the count, sum and sum of squares of
sentiment scores; for every pair of sources the *gap* ``mean_A - mean_B``.

Baseline window: the ``window`` days (default 21) before the after window;
days where either source has fewer than ``min_day_records`` records do not
count; at least ``min_periods`` usable days.

Test: the after gap is the gap of the means over the last ``k`` days (``k`` in
``after_days``, default 1 and 2). The before gap is the median of the baseline's
daily gaps. The scale is ``max(1.4826 * MAD(daily gaps) / sqrt(k),
sqrt(var_A / n_A + var_B / n_B))`` (day-to-day variation of the gap,
floored by the sampling error of the two after means). The sigma score is
``|gap_after - gap_before| / scale``. Gates: each source has at least
``min_records`` records in the after window, the sources move *apart*
(``|gap_after| > |gap_before|``) and the gap changes by at least
``min_points / 100``.

Detail: ``{sourceA, sourceB, divergencePoints, summary, before, after,
afterA, afterB, beforeA, beforeB, afterDays, windowDays}``. ``sourceA`` is
the source that moved most from its own baseline. ``divergencePoints`` is
the change of the gap in sentiment points (score x 100).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from corpuskit.analysis.signals.sentiment import mean_shift
from corpuskit.analysis.signals.series import DailySeries, rolling_median_mad
from corpuskit.analysis.signals.severity import OPEN_SIGMA
from corpuskit.analysis.signals.track import Track, fmt_score


class DivergenceDetector:
    """Change of the sentiment gap between two sources on one topic.

    Parameters
    ----------
    window, min_periods, after_days, min_day_records, min_records
        As in :class:`~corpuskit.analysis.signals.sentiment.SentimentShiftDetector`,
        applied to each source of the pair.
    min_points : float
        Smallest change of the gap, in sentiment points (score x 100).
    """

    kind = "divergence"

    def __init__(self, window: int = 21, min_periods: int = 7, after_days=(1, 2),
                 min_day_records: int = 3, min_records: int = 6, min_points: float = 15.0):
        self.window = window
        self.min_periods = min_periods
        self.after_days = after_days
        self.min_day_records = min_day_records
        self.min_records = min_records
        self.min_points = min_points

    def tracks(self, series: DailySeries) -> list[Track]:
        """One track per (topic, source pair) whose sigma reaches ``OPEN_SIGMA`` on some day."""
        n_t, n_s = series.ts_count.shape[:2]
        if n_t == 0 or n_s < 2:
            return []
        count, total, sq = series.ts_count, series.ts_sum, series.ts_sq
        out = []
        per_k = {}
        for k in self.after_days:
            per_k[k] = mean_shift(count, total, sq, window=self.window, min_periods=self.min_periods,
                                  k=k, min_day_records=self.min_day_records,
                                  min_records=self.min_records)
        with np.errstate(invalid="ignore", divide="ignore"):
            daily = np.where(count >= self.min_day_records, total / np.maximum(count, 1), np.nan)
        busy = count.sum(axis=2) >= self.min_records * 2
        for a, b in combinations(range(n_s), 2):
            rows = np.flatnonzero(busy[:, a] & busy[:, b])
            if not len(rows):
                continue
            gap_daily = daily[rows, a] - daily[rows, b]
            best = np.full(gap_daily.shape, np.nan)
            best_k = np.zeros(gap_daily.shape, dtype=int)
            for k in self.after_days:
                pa = {key: v[rows, a] for key, v in per_k[k].items()}
                pb = {key: v[rows, b] for key, v in per_k[k].items()}
                med, mad, _ = rolling_median_mad(gap_daily, self.window, self.min_periods, lag=k)
                with np.errstate(invalid="ignore", divide="ignore"):
                    gap_after = pa["after"] - pb["after"]
                    sampling = np.sqrt(np.maximum(pa["var"], 1e-6) / np.maximum(pa["n_after"], 1)
                                       + np.maximum(pb["var"], 1e-6) / np.maximum(pb["n_after"], 1))
                    scale = np.maximum(1.4826 * mad / np.sqrt(k), sampling)
                    change = np.abs(gap_after - med)
                    sigma = change / scale
                    apart = np.abs(gap_after) > np.abs(med)
                ok = apart & (change * 100 >= self.min_points)
                sigma = np.where(ok, sigma, np.nan)
                better = np.isfinite(sigma) & ~(sigma <= best)
                best = np.where(better, sigma, best)
                best_k = np.where(better, k, best_k)
            for i, row in enumerate(rows):
                if np.any(best[i] >= OPEN_SIGMA):
                    out.append(self._track(series, int(row), a, b, best[i], best_k[i], per_k,
                                           gap_daily[i]))
        return out

    def _track(self, series, row, a, b, sigma, best_k, per_k, gap_daily) -> Track:
        tid = series.topics[row]
        label, name = series.topic_labels[tid], series.topic_names[tid]
        src_a, src_b = series.sources[a], series.sources[b]
        window = self.window

        def describe(d):
            k = int(best_k[d]) or self.after_days[0]
            p = per_k[k]
            after_a, after_b = float(p["after"][row, a, d]), float(p["after"][row, b, d])
            before_a, before_b = float(p["before"][row, a, d]), float(p["before"][row, b, d])
            med, _, _ = rolling_median_mad(gap_daily[None, :], window, self.min_periods, lag=k)
            before_gap = float(med[0, d])
            after_gap = after_a - after_b
            move_a = abs(after_a - before_a) if np.isfinite(before_a) else 0.0
            move_b = abs(after_b - before_b) if np.isfinite(before_b) else 0.0
            if move_b > move_a:
                (first, second) = (src_b, src_a)
                (fa, fb, ba, bb) = (after_b, after_a, before_b, before_a)
            else:
                (first, second) = (src_a, src_b)
                (fa, fb, ba, bb) = (after_a, after_b, before_a, before_b)
            points = round(abs(after_gap - before_gap) * 100, 1)
            turned = "fell" if fa < ba else "rose"
            summary = (f"On {label}, {first} sentiment {turned} to {fmt_score(fa)} "
                       f"(from {fmt_score(ba)}) while {second} is at {fmt_score(fb)}; "
                       f"the gap moved {points:.1f} points")
            detail = {"sourceA": first, "sourceB": second, "divergencePoints": points,
                      "summary": summary, "before": round(before_gap, 4), "after": round(after_gap, 4),
                      "afterA": round(fa, 4), "afterB": round(fb, 4), "beforeA": _r(ba),
                      "beforeB": _r(bb), "afterDays": k, "windowDays": window, "day": series.days[d]}
            headline = (f"{first} and {second} diverge on {label} "
                        f"({fmt_score(fa)} vs {fmt_score(fb)})")
            return detail, headline

        return Track(kind=self.kind, subject=f"pair:{name}:{src_a}|{src_b}", sigma=sigma,
                     topic_row=lambda d, r=row: r, describe=describe,
                     evidence={"topic_id": tid, "sources": (src_a, src_b)})


def _r(value: float):
    return round(value, 4) if np.isfinite(value) else None
