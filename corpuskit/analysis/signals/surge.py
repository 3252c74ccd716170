"""The surge scorer: one count test behind every surge detector.

A surge is a count far above its baseline: a topic's, source's, entity's or
term's day against the days before (:mod:`.volume`), a name's day against a
baseline in which it was (almost) absent (:mod:`.novelty`), a topic's hour
against the same hour on the days before (:mod:`.hourly`). Each is the count
model of :mod:`corpuskit.stats.count_model` on the baseline windows of
:mod:`corpuskit.analysis.signals.series_scorer` (the previous ``window``
periods, newest first, as :func:`corpuskit.signals.detect` reads a daily
series), so the three detectors are ranges of one score:

* a name (entity or term) whose baseline holds at most ``max_baseline``
  mentions is in novelty's range (:func:`in_novelty_range`, the one boundary),
  above it in volume's;
* hourly bursts are the same test on hours, for topics busy enough to have an
  hourly baseline.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpuskit.analysis.signals.series_scorer import daily_plan
from corpuskit.stats.count_model import baseline_stats, predictive, tail_sigma
from corpuskit.stats.windows import lagged, rolling_sum


@dataclass
class SurgeBaseline:
    """Per row and period: the baseline's ``n``, winsorised ``mean`` and ``extra`` variance, and the
    count's predictive mean ``mu`` and variance ``var`` (see :mod:`corpuskit.stats.count_model`)."""

    n: np.ndarray
    mean: np.ndarray
    extra: np.ndarray
    mu: np.ndarray
    var: np.ndarray


def surge_baseline(counts: np.ndarray, window: int, rate_floor: float = 0.0, at=None) -> SurgeBaseline:
    """The baseline of every period of ``counts`` (``[..., periods]``): its previous ``window`` periods.

    ``at`` (a tuple of index arrays into ``counts``) restricts the baseline to
    those positions (the arrays are then 1-D, one value per position): entity
    and term series are many and novelty tests only a few of their days.
    """
    windows = lagged(counts, daily_plan(window, 0).lags(1))
    if at is not None:
        windows = windows[at]
    n, mean, extra = baseline_stats(windows)
    mu, var = predictive(n, mean, extra, rate_floor=rate_floor)
    return SurgeBaseline(n=n, mean=mean, extra=extra, mu=mu, var=var)


def surge_sigma(counts: np.ndarray, baseline: SurgeBaseline, testable: np.ndarray) -> np.ndarray:
    """Sigma of each count against its predictive where ``testable``; NaN elsewhere."""
    counts = np.asarray(counts, dtype=float)
    sigma = np.full(counts.shape, np.nan)
    if testable.any():
        sigma[testable] = tail_sigma(counts[testable], baseline.mu[testable], baseline.var[testable])
    return sigma


def baseline_total(counts: np.ndarray, window: int) -> np.ndarray:
    """Mentions (records) in the previous ``window`` periods of each period."""
    return rolling_sum(counts, window, lag=1)


def in_novelty_range(total: np.ndarray, max_baseline: int) -> np.ndarray:
    """Whether a name with ``total`` baseline mentions is new: the novelty/volume boundary."""
    return np.asarray(total) <= max_baseline
