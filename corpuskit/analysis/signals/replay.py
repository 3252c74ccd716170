"""Day-by-day replay of the detectors up to the corpus clock, resumable.

Every detector's statistic on day ``t`` reads only days up to ``t`` (the
baselines end the day before), so scoring all days at once and then walking
the open/resolve rule of :mod:`~corpuskit.analysis.signals.lifecycle` forward
one day at a time gives exactly the signals a live run would have raised,
each at its own date.

Resuming: after a run, the replay state is kept in the corpus ``meta`` table
under ``signals_replay_state``: the last *complete* day replayed (the day
before the corpus clock's day, which may still be growing), a fingerprint of
every day up to it (records, sentiment, topics, mentions), the detector
settings, and each track's open episode at that day. The next run resumes
the day after, loading only the days its baselines and open episodes need;
it falls back to a full replay when the fingerprint or the settings differ
(records added to a past day, re-enrichment, new thresholds).
"""
from __future__ import annotations

import hashlib
from collections import Counter

from corpuskit.analysis.clusters import corpus_formats
from corpuskit.analysis.signals.detector import Detector
from corpuskit.analysis.signals.divergence import DivergenceDetector
from corpuskit.analysis.signals.hourly import HourlyVolumeDetector
from corpuskit.analysis.signals.lifecycle import Episode, advance, signal_row, write_signals
from corpuskit.analysis.signals.novelty import NoveltyDetector
from corpuskit.analysis.signals.phrases import build_index, excluded_phrases, names_an_event
from corpuskit.analysis.signals.sentiment import SentimentShiftDetector
from corpuskit.analysis.signals.series import load_series, shift_day
from corpuskit.analysis.signals.volume import VolumeSpikeDetector
from corpuskit.clock import iso
from corpuskit.stats.thresholds import QUIET_DAYS, thresholds

STATE_KEY = "signals_replay_state"


def default_detectors() -> list:
    """One detector of each kind with its default parameters."""
    return [VolumeSpikeDetector(), HourlyVolumeDetector(), SentimentShiftDetector(), NoveltyDetector(),
            DivergenceDetector()]


def detector_settings(detectors) -> dict:
    """The settings of a list of detectors (``{"kind/Class": params}``), for runs and fingerprints.

    Keyed by kind and class: two detectors may share a kind (the daily and the hourly
    volume detectors are both ``volume_spike``), and each one's parameters must reach the settings.
    """
    out: dict = {}
    for d in detectors:
        key = f"{d.kind}/{type(d).__name__}"
        if key in out:
            raise ValueError(f"two detectors of the same class in one run: {key}")
        out[key] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(vars(d).items())
                    if not k.endswith("_")}
    return dict(sorted(out.items()))


def day_fingerprint(corpus, through: str) -> str:
    """Hash of everything the detectors read for the days up to ``through``."""
    conn = corpus.conn
    h = hashlib.sha256()
    for row in conn.execute(
            "SELECT r.day, count(*), sum(r.id), round(total(e.sentiment_score), 6), total(coalesce(e.topic_id, 0)), "
            "group_concat(DISTINCT r.source) FROM records r JOIN enrichment e ON e.record_id = r.id "
            "WHERE r.day <= ? GROUP BY r.day ORDER BY r.day", (through,)):
        h.update(repr(tuple(row)).encode())
    for row in conn.execute(
            "SELECT r.day, count(*), total(m.entity_id) FROM mentions m JOIN records r ON r.id = m.record_id "
            "WHERE r.day <= ? GROUP BY r.day ORDER BY r.day", (through,)):
        h.update(repr(tuple(row)).encode())
    for row in conn.execute("SELECT id, name, display_name FROM topics ORDER BY id"):
        h.update(repr(tuple(row)).encode())
    return h.hexdigest()


class SignalReplay:
    """Replay every detector over the corpus's daily series and store the signals.

    Parameters
    ----------
    detectors : list, optional
        Detector objects (each with ``kind`` and ``tracks(series)``; a
        :class:`~corpuskit.analysis.signals.detector.Detector` also sees the
        others, see its ``tracks``); by default
        one of each kind with default parameters.
    quiet_days : int
        Consecutive days below ``OPEN_SIGMA`` that resolve a signal.
    evidence_limit : int
        Records kept as evidence per signal.
    incremental : bool
        Resume from the stored replay state when it is still valid.
    """

    def __init__(self, detectors=None, quiet_days: int = QUIET_DAYS, evidence_limit: int = 10,
                 incremental: bool = True):
        self.detectors = detectors
        self.quiet_days = quiet_days
        self.evidence_limit = evidence_limit
        self.incremental = incremental

    def settings(self) -> dict:
        """Everything that changes the output: detectors, thresholds, lifecycle."""
        detectors = self.detectors if self.detectors is not None else default_detectors()
        return {"detectors": detector_settings(detectors), "thresholds": thresholds(),
                "quietDays": self.quiet_days, "evidenceLimit": self.evidence_limit}

    def run(self, corpus, run_id: str, progress: bool = False) -> dict:
        """Replay up to the corpus clock and write signals; returns a summary dict."""
        detectors = self.detectors if self.detectors is not None else default_detectors()
        conn = corpus.conn
        now = corpus.now()
        now_iso, clock_day = iso(now), now.date().isoformat()
        first_day = conn.execute("SELECT min(r.day) FROM records r JOIN enrichment e "
                                 "ON e.record_id = r.id WHERE r.day <= ?", (clock_day,)).fetchone()[0]
        settings = self.settings()
        self.mode_ = "full"
        if first_day is None:
            self.summary_ = {"mode": "empty", "signals": 0, "new": 0, "updated": 0, "unchanged": 0,
                             "withdrawn": 0, "byKind": {}, "bySeverity": {}}
            return self.summary_
        through = shift_day(clock_day, -1)
        state = corpus.get_meta(STATE_KEY) if self.incremental else None
        open_states: dict = {}
        resume_day = first_day
        if (state and state.get("settings") == settings and state.get("through")
                and first_day <= state["through"] < clock_day
                and state.get("fingerprint") == day_fingerprint(corpus, state["through"])):
            self.mode_ = "resume"
            resume_day = shift_day(state["through"], 1)
            open_states = {k: Episode.from_state(v) for k, v in state.get("open", {}).items()}
        lookback = max(max(getattr(d, "lookback", getattr(d, "window", 0)) for d in detectors)
                       + max(max(getattr(d, "after_days", (1,))) for d in detectors) + 1, 1)
        load_from = first_day
        if self.mode_ == "resume":
            earliest = min([resume_day] + [e.start for e in open_states.values()])
            load_from = max(first_day, shift_day(earliest, -lookback))
        series = load_series(corpus, load_from, clock_day,
                             min_entity_count=min(getattr(d, "min_count", 1) for d in detectors),
                             terms=any(getattr(d, "terms", False) for d in detectors))
        phrasing = next((d for d in detectors if getattr(d, "phrases", False)), None)
        if phrasing is not None:
            # a full run streams every enriched record up to the clock (the threshold is calibrated on
            # the whole corpus's null); a resumed one reads only the days its spans need, with the
            # threshold of the run it resumes
            stored = state.get("phraseCalibration") if self.mode_ == "resume" else None
            series.phrase_index = build_index(
                conn, clock_day, excluded_phrases(conn, series.terms), corpus_formats(conn),
                floor_share=phrasing.phrase_floor_share, window=phrasing.window, span=phrasing.phrase_span,
                since=load_from if stored else None, calibration=stored)
        days = series.days
        tracks = {}
        for detector in detectors:
            found = (detector.tracks(series, peers=detectors) if isinstance(detector, Detector)
                     else detector.tracks(series))
            for track in found:
                tracks[track.key] = track
        if any(key not in tracks for key in open_states):
            # an open episode's track no longer scores: the data moved under it; start over
            corpus.set_meta(STATE_KEY, None)
            return self.run(corpus, run_id, progress=progress)
        first = series.day_index[resume_day]
        last = len(days) - 1
        through_index = series.day_index.get(through, first - 1)
        rows, new_open = [], {}
        formats = corpus_formats(conn) if tracks else []
        iterator = sorted(tracks.items())
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc="signals", unit="series")
        for key, track in iterator:
            touched, _, snapshot = advance(key, track.sigma, days, first, last, open_states.get(key),
                                           quiet_days=self.quiet_days, snapshot_at=through_index)
            if snapshot is not None:
                new_open[key] = snapshot.to_state()
            for episode in touched:
                row = signal_row(conn, track, episode, series, now_iso, series.topic_names, formats)
                if names_an_event(row):
                    rows.append((row, track, episode))
        counts = write_signals(corpus, rows, run_id, now_iso, evidence_limit=self.evidence_limit,
                               withdraw_missing=self.mode_ == "full")
        if through >= first_day:
            calibration = next((d.phrase_calibration_ for d in detectors
                                if getattr(d, "phrase_calibration_", None)), None)
            corpus.set_meta(STATE_KEY, {"through": through, "settings": settings, "open": new_open,
                                        "fingerprint": day_fingerprint(corpus, through),
                                        "phraseCalibration": calibration})
        corpus.set_meta("signals_replayed_through", clock_day)
        kinds = Counter(r[0]["kind"] for r in rows)
        severities = Counter(r[0]["severity"] for r in rows)
        self.summary_ = {"mode": self.mode_, "replayedFrom": resume_day, "replayedThrough": clock_day,
                         "loadedFrom": load_from, "series": len(tracks), "signals": len(rows),
                         **counts, "byKind": dict(sorted(kinds.items())),
                         "bySeverity": dict(sorted(severities.items()))}
        return self.summary_
