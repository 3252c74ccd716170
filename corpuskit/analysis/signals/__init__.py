"""Signals: statistical detectors over daily series, replayed day by day.

Four kinds, one module each (each states its baseline window, test and sigma):
:mod:`.volume` (``volume_spike``, ``velocity`` in ``/v1``; hourly bursts of busy
topics in :mod:`.hourly`), :mod:`.sentiment`
(``sentiment_shift``), :mod:`.novelty` and :mod:`.divergence`, each a
:class:`~.detector.Detector`; volume, hourly bursts and novelty are ranges of
the one surge scorer (:mod:`.surge`). The statistics they run live in
:mod:`corpuskit.stats`. Severity comes from the thresholds in
:mod:`corpuskit.stats.thresholds`; the open/update/resolve rule and the
change log for the stream are in :mod:`.lifecycle`; :mod:`.replay` walks the
series day by day up to the corpus clock and resumes where the last run
stopped.
"""
from __future__ import annotations

from corpuskit.analysis.signals.detector import Detector
from corpuskit.analysis.signals.divergence import DivergenceDetector
from corpuskit.analysis.signals.evidence import get_signal_evidence
from corpuskit.analysis.signals.hourly import HourlyVolumeDetector
from corpuskit.analysis.signals.novelty import NoveltyDetector
from corpuskit.analysis.signals.replay import SignalReplay, default_detectors
from corpuskit.analysis.signals.sentiment import SentimentShiftDetector
from corpuskit.analysis.signals.series import DailySeries, load_series
from corpuskit.analysis.signals.volume import VolumeSpikeDetector
from corpuskit.stats.thresholds import severity_for, thresholds

__all__ = ["detect_signals", "get_signal_evidence", "SignalReplay", "Detector", "VolumeSpikeDetector",
           "HourlyVolumeDetector",
           "SentimentShiftDetector", "NoveltyDetector", "DivergenceDetector", "DailySeries",
           "load_series", "default_detectors", "severity_for", "thresholds"]


def detect_signals(corpus, run_id: str, progress: bool = False, detectors=None,
                   quiet_days: int | None = None, evidence_limit: int = 10,
                   incremental: bool = True) -> dict:
    """Replay every detector up to the corpus clock and store the signals.

    Writes ``signals``, ``signal_evidence`` and ``signal_events`` in one
    transaction and returns a summary (mode ``full`` or ``resume``, counts of
    new, updated, unchanged and withdrawn signals, by kind and severity).
    See :class:`SignalReplay` for the parameters.
    """
    from corpuskit.stats.thresholds import QUIET_DAYS

    replay = SignalReplay(detectors=detectors,
                          quiet_days=QUIET_DAYS if quiet_days is None else quiet_days,
                          evidence_limit=evidence_limit, incremental=incremental)
    with corpus.transaction():
        return replay.run(corpus, run_id, progress=progress)
