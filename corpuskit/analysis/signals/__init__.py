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
stopped; :mod:`.linking` then links the signals whose episodes share their records
into events, and :mod:`.coordinated` marks the signals whose records are mostly one coordinated
group's posts.

Each kind's class declares what the rest of corpuskit does differently for it (names,
sign, prose, evidence); :mod:`.kinds` registers it (the shipped ones are listed in
:mod:`.shipped`) and everything else asks the registry.
"""
from __future__ import annotations

import importlib

from corpuskit.analysis.signals.detector import Detector
from corpuskit.analysis.signals.evidence import get_signal_evidence
from corpuskit.analysis.signals.kinds import kind_names, register, signal_kind
from corpuskit.analysis.signals.linking import LINK_SHARE, LINK_WINDOW_DAYS, check_link_settings, link_signals
from corpuskit.stats.thresholds import severity_for, thresholds

# The detectors, the series and the replay import the statistics and text stack (SciPy, scikit-learn):
# they load on first use, so that importing the kind registry (the HTTP layer, the narrate stage) stays light.
_LAZY = {"VolumeSpikeDetector": ".volume", "HourlyVolumeDetector": ".hourly", "SentimentShiftDetector": ".sentiment",
         "NoveltyDetector": ".novelty", "DivergenceDetector": ".divergence", "SignalReplay": ".replay",
         "default_detectors": ".replay", "DailySeries": ".series", "load_series": ".series"}

__all__ = ["detect_signals", "link_signals", "get_signal_evidence", "SignalReplay", "Detector", "VolumeSpikeDetector",
           "HourlyVolumeDetector",
           "SentimentShiftDetector", "NoveltyDetector", "DivergenceDetector", "DailySeries",
           "load_series", "default_detectors", "severity_for", "thresholds", "register", "signal_kind",
           "kind_names"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect_signals(corpus, run_id: str, progress: bool = False, detectors=None,
                   quiet_days: int | None = None, evidence_limit: int = 10,
                   incremental: bool = True, link_share: float = LINK_SHARE,
                   link_window_days: int = LINK_WINDOW_DAYS) -> dict:
    """Replay every detector up to the corpus clock, store the signals, and link them into events.

    Writes ``signals``, ``signal_evidence`` and ``signal_events`` in one
    transaction and returns a summary (mode ``full`` or ``resume``, counts of
    new, updated, unchanged and withdrawn signals, by kind and severity, and
    ``events``: the :func:`~.linking.link_signals` counts over every stored signal,
    with ``link_share`` and ``link_window_days`` as its ``share`` and ``window_days``; and
    ``coordination``: the :func:`~.coordinated.mark_coordinated` counts).
    See :class:`SignalReplay` for the other parameters.
    """
    from corpuskit.analysis.signals.coordinated import mark_coordinated
    from corpuskit.analysis.signals.replay import SignalReplay
    from corpuskit.stats.thresholds import QUIET_DAYS

    check_link_settings(link_share, link_window_days)
    replay = SignalReplay(detectors=detectors,
                          quiet_days=QUIET_DAYS if quiet_days is None else quiet_days,
                          evidence_limit=evidence_limit, incremental=incremental)
    with corpus.transaction():
        summary = replay.run(corpus, run_id, progress=progress)
        summary["events"] = link_signals(corpus, share=link_share, window_days=link_window_days)
        summary["coordination"] = mark_coordinated(corpus)
        return summary
