"""divergence: two sources' sentiment on the same topic moving apart.

Series: per topic, per source and day, the count, sum and sum of squares of
sentiment scores; for every pair of sources the *gap* ``mean_A - mean_B``.

Test: each source's series goes through the one mean-shift model of
:mod:`~corpuskit.stats.mean_model` (the sentiment detector's and
``detect``'s): its mean over the last ``k`` days (``k`` in ``after_days``,
default 1 and 2) against its record-weighted mean over the ``window`` days
before (default 21; at least ``min_periods`` days where the source has
``min_day_records`` records). The gap's change is the difference of the two
shifts, ``(after_A - before_A) - (after_B - before_B)``, and its variance the
sum of the two shifts' variances (day effects shared by both sources would
cancel in the gap; ignoring that makes the test conservative). The sigma score
is the best ``|change| / sqrt(variance)`` over the after lengths. Gates: each source has at least ``min_records`` records in
the after window, the sources move *apart* (``|gap_after| > |gap_before|``) and
the gap changes by at least ``min_points / 100``.

Detail: ``{sourceA, sourceB, divergencePoints, summary, before, after,
afterA, afterB, beforeA, beforeB, afterDays, windowDays}``. ``sourceA`` is
the source that moved most from its own baseline. ``divergencePoints`` is
the change of the gap in sentiment points (score x 100).

Evidence: for each source of the pair, its records on the topic in the after window of the peak
day, the most extreme in the direction that source moved first (half the records each). ``/v1``
serves ``sourceA``, ``sourceB``, ``divergencePoints`` and ``summary`` at the top of the signal.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from corpuskit.analysis.signals.detector import Detector, RecordSpan, SignalWords, after_start
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.track import Track, fmt_score
from corpuskit.stats.mean_model import mean_shift
from corpuskit.stats.thresholds import OPEN_SIGMA
from corpuskit.text.wording import fmt_score as score_words
from corpuskit.text.wording import source_name


class DivergenceDetector(Detector):
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
    v1_name = "divergence"
    sign = "both"
    measure = "mean"
    v1_fields = {
        "sourceA": ("sourceA", "source_a"),
        "sourceB": ("sourceB", "source_b"),
        "divergencePoints": ("divergencePoints", "divergence_points", "gap"),
        "summary": ("summary",),
    }

    def __init__(self, window: int = 21, min_periods: int = 7, after_days=(1, 2),
                 min_day_records: int = 3, min_records: int = 6, min_points: float = 15.0):
        self.window = window
        self.min_periods = min_periods
        self.after_days = after_days
        self.min_day_records = min_day_records
        self.min_records = min_records
        self.min_points = min_points

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """One track per (topic, source pair) whose sigma reaches ``OPEN_SIGMA`` on some day."""
        n_t, n_s = series.ts_count.shape[:2]
        if n_t == 0 or n_s < 2:
            return []
        count, total, sq = series.ts_scored, series.ts_sum, series.ts_sq
        out = []
        per_k = {}
        for k in self.after_days:
            per_k[k] = mean_shift(count, total, sq, k=k, window=self.window, min_periods=self.min_periods,
                                  min_day_records=self.min_day_records, min_records=self.min_records)
        busy = count.sum(axis=2) >= self.min_records * 2
        for a, b in combinations(range(n_s), 2):
            rows = np.flatnonzero(busy[:, a] & busy[:, b])
            if not len(rows):
                continue
            best = np.full((len(rows), count.shape[2]), -np.inf)
            best_k = np.zeros(best.shape, dtype=int)
            for k in self.after_days:
                pa = {key: v[rows, a] for key, v in per_k[k].items()}
                pb = {key: v[rows, b] for key, v in per_k[k].items()}
                with np.errstate(invalid="ignore", divide="ignore"):
                    gap_after = pa["after"] - pb["after"]
                    gap_before = pa["before"] - pb["before"]
                    change = np.abs(gap_after - gap_before)
                    sigma = change / np.sqrt(pa["var_shift"] + pb["var_shift"])
                    apart = np.abs(gap_after) > np.abs(gap_before)
                ok = (apart & (change * 100 >= self.min_points) & np.isfinite(pa["z"])
                      & np.isfinite(pb["z"]))
                sigma = np.where(ok, sigma, np.nan)
                better = np.nan_to_num(sigma, nan=-np.inf) > best
                best = np.where(better, sigma, best)
                best_k = np.where(better, k, best_k)
            best = np.where(np.isfinite(best), best, np.nan)
            for i, row in enumerate(rows):
                if np.any(best[i] >= OPEN_SIGMA):
                    out.append(self._track(series, int(row), a, b, best[i], best_k[i], per_k))
        return out

    def _track(self, series, row, a, b, sigma, best_k, per_k) -> Track:
        tid = series.topics[row]
        label, name = series.topic_labels[tid], series.topic_names[tid]
        src_a, src_b = series.sources[a], series.sources[b]
        window = self.window

        def describe(d):
            k = int(best_k[d]) or self.after_days[0]
            p = per_k[k]
            after_a, after_b = float(p["after"][row, a, d]), float(p["after"][row, b, d])
            before_a, before_b = float(p["before"][row, a, d]), float(p["before"][row, b, d])
            before_gap = before_a - before_b
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

    # -- the kind's facts (see :class:`~corpuskit.analysis.signals.detector.Detector`) ---------------
    @classmethod
    def evidence_records(cls, conn, evidence: dict, span: RecordSpan, detail: dict, limit: int) -> list[int]:
        """Half the records from each source of the pair, the most extreme in the way it moved first."""
        out: list[int] = []
        half = max(1, limit // 2)
        for source, after, before in ((detail.get("sourceA"), detail.get("afterA"), detail.get("beforeA")),
                                      (detail.get("sourceB"), detail.get("afterB"), detail.get("beforeB"))):
            falling = before is not None and after is not None and after < before
            order = "e.sentiment_score ASC" if falling else "e.sentiment_score DESC"
            rows = conn.execute(
                "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id "
                "WHERE +e.topic_id = ? AND +r.source = ? AND r.day BETWEEN ? AND ? "
                f"AND e.sentiment_score IS NOT NULL ORDER BY {order}, r.published_at, r.id LIMIT ?",
                (evidence["topic_id"], source, span.first, span.last, half)).fetchall()
            out += [r[0] for r in rows]
        return out

    @classmethod
    def episode_series(cls, signal: dict) -> list[tuple[dict, str, str]] | None:
        """Each source of the pair on the topic, over the after window of the first day to the peak."""
        detail = signal["detail"]
        first, last = signal["span"]
        if signal.get("topic_id") is None:
            return None
        peak = detail.get("peakDay") or last
        start = after_start(detail, first)
        sources = sorted({detail.get("sourceA"), detail.get("sourceB")} - {None})
        return [({"topic_id": signal["topic_id"], "source": s}, start, peak) for s in sources] or None

    @classmethod
    def prose(cls, w: SignalWords) -> tuple[str, str] | None:
        """``"Reddit and Hacker News split on <subject>: -0.40 against +0.10"``."""
        d = w.detail
        if "sourceA" not in d:
            return None
        a, b = source_name(d["sourceA"]), source_name(d["sourceB"])
        fa, fb, ba = float(d.get("afterA") or 0), float(d.get("afterB") or 0), d.get("beforeA")
        points = float(d.get("divergencePoints") or 0)
        headline = f"{a} and {b} split on {w.short}: {score_words(fa)} against {score_words(fb)}"
        moved = f" from {score_words(ba)}" if ba is not None else ""
        framing = (f"By {w.day}, sentiment on {w.full} on {a} had moved to {score_words(fa)}{moved}, while on {b} "
                   f"it stood at {score_words(fb)}: the gap between them shifted by {points:.0f} points on a "
                   f"scale of 200 ({w.strength}).")
        return headline, framing

    @classmethod
    def detects_planted(cls, event: dict, detail: dict) -> bool:
        """A divergence finds a planted one when it names the event's two sources."""
        return {detail.get("sourceA"), detail.get("sourceB")} == set(event["sources"])


def _r(value: float):
    return round(value, 4) if np.isfinite(value) else None
