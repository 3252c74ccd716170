"""Hourly volume bursts: a topic's hour far above the same hour on earlier days.

A ``volume_spike`` (``velocity`` in ``/v1``) found at hourly resolution, for
topics busy enough to have an hourly baseline. Its detail says
``series: "topic-hourly"`` and names the ``hour``.

Series: records per primary topic per UTC hour (``DailySeries.topic_hour_count``).

Baseline: the same hour of day on the ``window`` days before (default 14), at
least ``min_periods`` of them inside the corpus (default 7). Comparing 14:00
with earlier 14:00s keeps the daily rhythm (busy afternoons, quiet nights)
from reading as bursts.

"Where volume allows": an hour is testable only when its baseline median is
at least ``min_baseline`` records (default 3); quieter topics are left to
the daily detector, whose counts are large enough to judge.

Test: as the daily detector, the surge scorer of
:mod:`~corpuskit.analysis.signals.surge` (the hour's count against the
Gamma-Poisson predictive from the same hour on the baseline days), behind the gates
``count >= min_count`` and ``count / median >= min_multiplier``. A day's
sigma is its strongest hour's, corrected for having looked at every testable
hour of the day (:func:`corpuskit.stats.correction.sidak`): an hour's
one-sided tail probability ``p`` becomes ``1 - (1 - p) ** n`` for ``n``
testable hours, and that is turned back into a sigma. Without it, 24 looks a
day would make a chance 3-sigma hour about one day in forty.

No double counting: on a day whose whole-day topic volume already spikes
(the daily :class:`~corpuskit.analysis.signals.volume.VolumeSpikeDetector`
with its default settings scores ``OPEN_SIGMA``), the burst is that spike and
the hourly track scores nothing. So this detector adds the bursts a day's
total dilutes: an hour of frenzy on an otherwise ordinary day.

The signal fires live on the record that brought the first bursting hour to
its threshold count.
"""
from __future__ import annotations

import math

import numpy as np

from corpuskit.analysis.signals.detector import Detector
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.surge import surge_baseline
from corpuskit.analysis.signals.track import Track, fmt_num
from corpuskit.analysis.signals.volume import VolumeSpikeDetector
from corpuskit.stats.correction import sidak
from corpuskit.stats.count_model import tail_sigma
from corpuskit.stats.threshold_search import smallest_reaching
from corpuskit.stats.thresholds import OPEN_SIGMA
from corpuskit.stats.windows import rolling_median_mad


class HourlyVolumeDetector(Detector):
    """Per-topic hourly bursts against the same hour on the previous ``window`` days.

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days, and the fewest baseline days needed to test an hour.
    min_baseline : float
        Smallest baseline median (records in that hour) for an hour to be testable.
    min_count : int
        Fewest records in the hour for a burst.
    min_multiplier : float
        Smallest ratio of the hour's count to its baseline median.
    """

    kind = VolumeSpikeDetector.kind     # its signals are volume spikes: that class declares the kind

    def __init__(self, window: int = 14, min_periods: int = 7, min_baseline: float = 3.0,
                 min_count: int = 10, min_multiplier: float = 2.0):
        self.window = window
        self.min_periods = min_periods
        self.min_baseline = min_baseline
        self.min_count = min_count
        self.min_multiplier = min_multiplier

    def score(self, hours: np.ndarray):
        """Sigma, baseline median and predictive ``(mean, var)`` per ``[topic, day, hour]``.

        Sigma is NaN where the hour is untestable or gated.
        """
        by_hour = hours.transpose(0, 2, 1)                      # [topics, 24, days]
        med, _, _ = rolling_median_mad(by_hour, self.window, self.min_periods)
        base = surge_baseline(by_hour, self.window)
        med, mu, var = med.transpose(0, 2, 1), base.mu.transpose(0, 2, 1), base.var.transpose(0, 2, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = hours / np.maximum(med, 1.0)
        testable = med >= self.min_baseline
        looks = np.broadcast_to(np.maximum(testable.sum(axis=2, keepdims=True), 1), hours.shape)
        ok = testable & (hours >= self.min_count) & (mult >= self.min_multiplier)
        sigma = np.full(hours.shape, np.nan)
        if ok.any():
            sigma[ok] = sidak(tail_sigma(hours[ok], mu[ok], var[ok]), looks[ok])
        return sigma, med, (mu, var), looks

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """One hourly track per topic that bursts on a day its daily volume does not spike."""
        hours = series.topic_hour_count
        if hours.size == 0:
            return []
        sigma, med, (mu, var), looks = self.score(hours)
        daily_sigma, _, _ = VolumeSpikeDetector().score(series.topic_count, 1.0)
        out = []
        for row in range(hours.shape[0]):
            day_sigma = np.fmax.reduce(sigma[row], axis=1)     # the strongest hour; NaN: none testable
            with np.errstate(invalid="ignore"):
                day_sigma[daily_sigma[row] >= OPEN_SIGMA] = np.nan
            if not np.any(day_sigma >= OPEN_SIGMA):
                continue
            out.append(self._track(series, row, hours[row], sigma[row], med[row], (mu[row], var[row]),
                                   looks[row], day_sigma))
        return out

    def _track(self, series, row, counts, sigma, med, predicted, looks, day_sigma) -> Track:
        tid = series.topics[row]
        name, label = series.topic_names[tid], series.topic_labels[tid]

        def peak_hour(d):
            finite = np.where(np.isfinite(sigma[d]), sigma[d], -np.inf)
            return int(np.argmax(finite))

        def first_burst_hour(d):
            above = np.flatnonzero(np.isfinite(sigma[d]) & (sigma[d] >= OPEN_SIGMA))
            return int(above[0]) if len(above) else None

        def threshold(d):
            """Records of the day up to the one that took the first bursting hour over."""
            h = first_burst_hour(d)
            if h is None:
                return None
            m = float(med[d, h])
            start = int(max(self.min_count, math.ceil(self.min_multiplier * max(m, 1.0)), math.floor(m) + 1))
            mu, var = predicted[0][d, h], predicted[1][d, h]
            current = int(counts[d, h])
            c = smallest_reaching(lambda c: float(sidak(tail_sigma(c, mu, var), looks[d, h])),
                                  OPEN_SIGMA, start, current, current)
            return int(counts[d, :h].sum()) + c

        def describe(d):
            h = peak_hour(d)
            baseline = round(float(med[d, h]), 2)
            current = int(counts[d, h])
            multiplier = round(current / max(baseline, 1.0), 2)
            hour = f"{series.days[d]}T{h:02d}:00:00Z"
            detail = {"baseline": baseline, "current": current, "multiplier": multiplier,
                      "windowDays": self.window, "series": "topic-hourly", "day": series.days[d],
                      "hour": hour, "scale": "hour"}
            headline = (f"Burst on {label}: {current} records in the hour from {h:02d}:00 UTC, "
                        f"{current / max(baseline, 1.0):.1f}x the usual {fmt_num(baseline)}")
            return detail, headline

        return Track(kind=self.kind, subject=f"topic-hour:{name}", sigma=day_sigma,
                     topic_row=lambda d, r=row: r, describe=describe, threshold_count=threshold,
                     evidence={"topic_id": tid})

