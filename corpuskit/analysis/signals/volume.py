"""volume_spike: a day's volume far above its robust baseline (``velocity`` in ``/v1``).

Series: records per day per topic, per source, and per entity (records
mentioning it).

Baseline window: the ``window`` days before the tested day (default 21),
at least ``min_periods`` of them inside the corpus (default 7).

Test: the one count model of
:mod:`~corpuskit.analysis.signals.count_model` (a Gamma-Poisson predictive
of the day's count from the baseline days, widened by the baseline's
variance beyond Poisson), on the baseline windows of
:mod:`~corpuskit.analysis.signals.any_series`: the same code
:func:`corpuskit.signals.detect` runs with ``rhythm="none"`` on daily counts. Gates (below them the day scores nothing): ``current >=
min_count`` and ``current / max(expected, 1) >= min_multiplier``; topic and
source series need an expected count of at least ``min_baseline``. Entity
series are tested from an empty baseline up; the entities with at most
``NoveltyDetector.max_baseline`` mentions in the window are novelty's range
of the same test (so an entity is never both new and spiking), and entity
series have the stated rate floor ``ENTITY_RATE_FLOOR`` (thousands of names
are tested: one can turn up a few times by chance).

Detail: ``{baseline, current, multiplier, windowDays, series}`` (``baseline``
is the baseline days' winsorised mean); the signal
fires live on the record that brought the day's count to the threshold
count, the smallest count that passes the gates and scores ``OPEN_SIGMA``.
"""
from __future__ import annotations

import math

import numpy as np

from corpuskit.analysis.signals.count_model import baseline_stats, predictive, tail_sigma
from corpuskit.analysis.signals.count_model import threshold_count as model_threshold
from corpuskit.analysis.signals.novelty import ENTITY_RATE_FLOOR, NOVELTY_MAX_BASELINE
from corpuskit.analysis.signals.any_series import daily_plan, lagged
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.severity import OPEN_SIGMA
from corpuskit.analysis.signals.track import Track, fmt_num


def threshold_count(start: int, current: float, score) -> int:
    """The smallest count from ``start`` up to ``current`` whose ``score(count)`` reaches ``OPEN_SIGMA``."""
    c = start
    while c < current and score(c) < OPEN_SIGMA:
        c += 1
    return c


class VolumeSpikeDetector:
    """Daily volume against the previous ``window`` days, by the one count model.

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days, and the fewest baseline days needed to test.
    min_count : int
        Fewest records on the day for a spike.
    min_multiplier : float
        Smallest ratio of the day's count to the baseline median.
    min_baseline, min_entity_baseline : float
        Smallest baseline median for topic/source series and for entity series.
    entities : bool
        Also test per-entity mention volume.
    """

    kind = "volume_spike"

    def __init__(self, window: int = 21, min_periods: int = 7, min_count: int = 8,
                 min_multiplier: float = 1.5, min_baseline: float = 0.0,
                 min_entity_baseline: float = 0.0, entities: bool = True):
        self.window = window
        self.min_periods = min_periods
        self.min_count = min_count
        self.min_multiplier = min_multiplier
        self.min_baseline = min_baseline
        self.min_entity_baseline = min_entity_baseline
        self.entities = entities

    def score(self, counts: np.ndarray, min_baseline: float, rate_floor: float = 0.0,
              novelty_range: bool = False):
        """Sigma per row and day, with the expected count and the baseline stats (arrays ``[rows, days]``).

        The third value is ``(n, mean, extra_var)`` of each day's baseline (see
        :func:`~corpuskit.analysis.signals.count_model.baseline_stats`). With
        ``novelty_range``, days whose baseline holds at most the novelty
        detector's ``max_baseline`` records are left to novelty.
        """
        counts = np.asarray(counts, dtype=float)
        plan = daily_plan(self.window, self.min_periods)
        n, mean, extra = baseline_stats(lagged(counts, plan.lags(1)))
        mu, var = predictive(n, mean, extra, rate_floor=rate_floor)
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = counts / np.maximum(mu, 1.0)
        ok = ((counts >= self.min_count) & (mult >= self.min_multiplier) & (mu >= min_baseline)
              & (n >= self.min_periods))
        if novelty_range:
            ok &= np.rint(mean * n) > NOVELTY_MAX_BASELINE
        sigma = np.full(counts.shape, np.nan)
        if ok.any():
            sigma[ok] = tail_sigma(counts[ok], mu[ok], var[ok])
        return sigma, mu, (n, mean, extra)

    def tracks(self, series: DailySeries) -> list[Track]:
        """Volume tracks for every topic, source and (optionally) entity."""
        out = []
        groups = [("topic", series.topic_count, self.min_baseline, 0.0),
                  ("source", series.source_count, self.min_baseline, 0.0)]
        if self.entities and len(series.entities):
            groups.append(("entity", series.entity_count, self.min_entity_baseline, ENTITY_RATE_FLOOR))
        for group, counts, min_base, floor in groups:
            if counts.shape[0] == 0:
                continue
            sigma, mu, (n, mean, extra) = self.score(counts, min_base, floor, group == "entity")
            for row in range(counts.shape[0]):
                if not np.any(sigma[row] >= OPEN_SIGMA):
                    continue
                stats = (n[row], mean[row], extra[row], floor)
                out.append(self._track(series, group, row, counts[row], sigma[row], mean[row], stats))
        return out

    def _track(self, series, group, row, counts, sigma, med, stats) -> Track:
        window = self.window
        n, mean, extra, floor = stats

        def threshold(d):
            """Smallest count that passes the gates and scores ``OPEN_SIGMA`` on day ``d``."""
            m = max(float(med[d]), 1.0)
            start = int(max(self.min_count, math.ceil(self.min_multiplier * m)))
            c = model_threshold(n[d], mean[d], extra[d], OPEN_SIGMA, start=start, rate_floor=floor)
            return int(min(max(c, start), counts[d]))

        if group == "topic":
            tid = series.topics[row]
            name, label = series.topic_names[tid], series.topic_labels[tid]
            subject, entity_id, source = f"topic:{name}", None, None
            topic_row = lambda d, r=row: r  # noqa: E731
            evidence = {"topic_id": tid}

            def subject_text(d):
                return f"Volume on {label}"
        elif group == "source":
            source = series.sources[row]
            subject, entity_id = f"source:{source}", None
            topic_row = lambda d, r=row: int(series.source_topic[r, d])  # noqa: E731
            evidence = {"source": source}

            def subject_text(d):
                t = topic_row(d)
                lead = f", led by {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
                return f"Volume from {source}{lead}"
        else:
            entity_id = series.entities[row]
            ename, slug, _ = series.entity_info.get(entity_id, (str(entity_id), str(entity_id), ""))
            subject, source = f"entity:{slug}", None
            topic_row = lambda d, r=row: int(series.entity_topic[r, d])  # noqa: E731
            evidence = {"entity_id": entity_id}

            def subject_text(d):
                t = topic_row(d)
                where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
                return f"Mentions of {ename}{where}"

        def describe(d):
            baseline = round(float(med[d]), 2)
            current = int(counts[d])
            multiplier = round(current / max(baseline, 1.0), 2)
            detail = {"baseline": baseline, "current": current, "multiplier": multiplier,
                      "windowDays": window, "series": group, "day": series.days[d]}
            headline = (f"{subject_text(d)} up {multiplier:.1f}x "
                        f"({current} vs {fmt_num(baseline)}/day)")
            return detail, headline

        return Track(kind=self.kind, subject=subject, sigma=sigma, topic_row=topic_row,
                     describe=describe, entity_id=entity_id, source=source,
                     threshold_count=threshold, evidence=evidence)
