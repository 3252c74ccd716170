"""volume_spike: a day's volume far above its robust baseline (``velocity`` in ``/v1``).

Series: records per day per topic, per source, per entity (records
mentioning it) and per term (records writing a proper-noun phrase that is not
an entity, when the series hold terms).

Baseline window: the ``window`` days before the tested day (default 21),
at least ``min_periods`` of them inside the corpus (default 7).

Test: the surge scorer of :mod:`~corpuskit.analysis.signals.surge` (the
count model of :mod:`corpuskit.stats.count_model`: a Gamma-Poisson predictive
of the day's count from the baseline days, widened by the baseline's
variance beyond Poisson), on the baseline windows
:func:`corpuskit.signals.detect` reads with ``rhythm="none"`` on daily
counts. Gates (below them the day scores nothing): ``current >= min_count``
and ``current / max(expected, 1) >= min_multiplier``; topic and source series
need an expected count of at least ``min_baseline``. Entity and term series
are tested from an empty baseline up; the days in novelty's range (at most
the run's ``NoveltyDetector.max_baseline`` mentions in the window, see
:func:`~corpuskit.analysis.signals.surge.in_novelty_range`) are left to
novelty, so a name is never both new and spiking; name series have the
stated rate floor ``ENTITY_RATE_FLOOR`` (thousands of names are tested: one
can turn up a few times by chance).

Detail: ``{baseline, current, multiplier, windowDays, series}`` (``baseline``
is the baseline days' winsorised mean); the signal
fires live on the record that brought the day's count to the threshold
count, the smallest count that passes the gates and scores ``OPEN_SIGMA``.
"""
from __future__ import annotations

import math

import numpy as np

from corpuskit.analysis.signals.detector import Detector, novelty_bound
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.surge import (baseline_total, in_novelty_range, surge_baseline,
                                              surge_sigma)
from corpuskit.analysis.signals.terms import term_slug
from corpuskit.analysis.signals.track import Track, fmt_num
from corpuskit.stats.count_model import threshold_count
from corpuskit.stats.thresholds import ENTITY_RATE_FLOOR, NOVELTY_MAX_BASELINE, OPEN_SIGMA


class VolumeSpikeDetector(Detector):
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
        Smallest baseline median for topic/source series and for entity and term series.
    entities : bool
        Also test per-entity (and per-term, when the series hold terms) mention volume.
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
              novelty_range: bool = False, novelty_max_baseline: int = NOVELTY_MAX_BASELINE):
        """Sigma per row and day, with the expected count and the baseline stats (arrays ``[rows, days]``).

        The third value is ``(n, mean, extra_var)`` of each day's baseline (see
        :func:`~corpuskit.stats.count_model.baseline_stats`). With
        ``novelty_range``, days whose baseline holds at most
        ``novelty_max_baseline`` mentions are left to novelty.
        """
        counts = np.asarray(counts, dtype=float)
        base = surge_baseline(counts, self.window, rate_floor)
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = counts / np.maximum(base.mu, 1.0)
        ok = ((counts >= self.min_count) & (mult >= self.min_multiplier) & (base.mu >= min_baseline)
              & (base.n >= self.min_periods))
        if novelty_range:
            ok &= ~in_novelty_range(baseline_total(counts, self.window), novelty_max_baseline)
        return surge_sigma(counts, base, ok), base.mu, (base.n, base.mean, base.extra)

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """Volume tracks for every topic, source and (optionally) entity and term.

        Name days in the novelty range of the run (the ``max_baseline`` of a
        novelty detector among ``peers``) are novelty's.
        """
        out = []
        groups = [("topic", series.topic_count, self.min_baseline, 0.0),
                  ("source", series.source_count, self.min_baseline, 0.0)]
        if self.entities and len(series.entities):
            groups.append(("entity", series.entity_count, self.min_entity_baseline, ENTITY_RATE_FLOOR))
        if self.entities and len(series.terms):
            groups.append(("term", series.term_count, self.min_entity_baseline, ENTITY_RATE_FLOOR))
        bound = novelty_bound(peers)
        for group, counts, min_base, floor in groups:
            if counts.shape[0] == 0:
                continue
            named = group in ("entity", "term")
            sigma, mu, (n, mean, extra) = self.score(counts, min_base, floor, named, bound)
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
            c = threshold_count(n[d], mean[d], extra[d], OPEN_SIGMA, start=start, rate_floor=floor)
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
        else:                                   # a name: an entity, or a term that is none
            if group == "term":
                term = series.terms[row]
                entity_id, slug, topics = None, term_slug(term), series.term_topic
                evidence, what = {"term": term}, f"Records writing \"{term}\""
            else:
                entity_id = series.entities[row]
                ename, slug, _ = series.entity_info.get(entity_id, (str(entity_id), str(entity_id), ""))
                topics, evidence, what = series.entity_topic, {"entity_id": entity_id}, f"Mentions of {ename}"
            subject, source = f"{group}:{slug}", None
            topic_row = lambda d, r=row, a=topics: int(a[r, d])  # noqa: E731

            def subject_text(d):
                t = topic_row(d)
                where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
                return f"{what}{where}"

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
