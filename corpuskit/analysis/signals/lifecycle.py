"""Open, update and resolve: how a track's daily sigma scores become signals.

The rule, applied day by day along the replay:

* **open**: the first day a track's sigma score reaches ``OPEN_SIGMA`` opens
  an *episode*; its signal is detected at the record that crossed the
  threshold on that day (a track with a threshold count: the count kinds) or at
  the end of the day (the mean kinds), never later than the corpus clock;
* **update**: while the episode lasts, a higher sigma raises the signal's
  ``sigma_score``, ``severity``, ``detail`` and ``headline`` (they describe
  the episode's peak day); ``detected_at`` never changes;
* **resolve**: after ``QUIET_DAYS`` consecutive days below ``OPEN_SIGMA`` the
  episode ends; ``resolved_at`` is the end of the last quiet day. A later
  crossing opens a new episode, hence a new signal.

A signal's identity is its ``signal_key``, ``kind|topic|subject|start day``:
re-running detection updates the row with that key instead of adding one.
Every inserted signal appends a ``signal_events`` row ``new``; every real
change of severity, sigma, status, detail or headline appends ``updated``;
an unchanged rerun appends nothing. ``detail.event`` (the linked event, written after
the replay by :mod:`.linking`) is not the replay's: comparisons leave it out.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import numpy as np

from corpuskit.analysis.signals.evidence import crossing_time, evidence_entities
from corpuskit.analysis.signals.kinds import signal_kind
from corpuskit.analysis.signals.linking import without_event
from corpuskit.analysis.signals.naming import baseline_texts, burst_terms, subject_words, terms_suffix
from corpuskit.analysis.signals.phrases import phrase_window
from corpuskit.analysis.signals.quality import campaign_cap, quality_flags, signal_languages, signal_texts
from corpuskit.analysis.signals.track import fmt_num, fmt_score
from corpuskit.stats.thresholds import OPEN_SIGMA, QUIET_DAYS, severity_for


@dataclass
class Episode:
    """An open or finished run of a track above ``OPEN_SIGMA`` (days as ``YYYY-MM-DD``)."""

    track_key: str
    start: str
    peak_day: str
    peak_sigma: float
    last_above: str
    resolved_day: str | None = None

    def to_state(self) -> dict:
        return asdict(self)

    @classmethod
    def from_state(cls, state: dict) -> "Episode":
        return cls(**state)


def advance(track_key: str, sigma: np.ndarray, days: list, first: int, last: int,
            state: Episode | None, quiet_days: int = QUIET_DAYS,
            snapshot_at: int | None = None):
    """Run the open/resolve rule over day indices ``first..last`` (inclusive).

    Returns ``(episodes, open_episode, snapshot)``: the episodes touched
    (finished ones and the open one, in order), the episode still open after
    ``last`` (or ``None``), and the open episode as it stood after day
    ``snapshot_at`` (a copy, for resuming later).
    """
    touched: list[Episode] = []
    index = {d: i for i, d in enumerate(days)}
    snapshot = None
    if snapshot_at is not None and snapshot_at < first and state is not None:
        snapshot = Episode(**asdict(state))
    if state is not None:
        touched.append(state)
    for d in range(first, last + 1):
        s = sigma[d] if d < len(sigma) else math.nan
        above = bool(np.isfinite(s) and s >= OPEN_SIGMA)
        if state is None:
            if above:
                state = Episode(track_key, days[d], days[d], float(s), days[d])
                touched.append(state)
        elif above:
            state.last_above = days[d]
            if s > state.peak_sigma:
                state.peak_sigma, state.peak_day = float(s), days[d]
        elif d - index.get(state.last_above, d) >= quiet_days:
            state.resolved_day = days[d]
            state = None
        if snapshot_at is not None and d == snapshot_at:
            snapshot = Episode(**asdict(state)) if state is not None else None
    return touched, state, snapshot


#: The figures of a detail that :func:`peak_figures` keeps, in the order a headline prefers them.
PEAK_KEYS = ("current", "mentions", "after", "delta", "multiplier", "records", "hour", "scale", "weekStart",
             "authors", "lastDay", "dayRecords", "busiestDay", "busiestRecords")


def peak_figures(detail: dict, episode: Episode) -> dict:
    """The peak day's figures of an episode that peaked after its first day."""
    out = {"day": episode.peak_day, "sigma": round(float(episode.peak_sigma), 2)}
    out.update({k: detail[k] for k in PEAK_KEYS if k in detail})
    return out


def peak_phrase(peak: dict) -> str:
    """What a headline adds for a later peak: ``"; strongest on 2021-01-16 (21)"``, the figure that
    day's own. A phrase burst's score grows with its authors over its span, so its peak is stated as
    its busiest day with that day's records, and its window total in words
    (``"; busiest day 2021-08-16 (12 records; 33 in the 7 days 2021-08-15 to 2021-08-21)"``)."""
    if "busiestDay" in peak:
        window = phrase_window(peak["records"], peak["authors"], peak["weekStart"], peak["lastDay"])
        return f"; busiest day {peak['busiestDay']} ({peak['busiestRecords']} records; {window})"
    if "current" in peak and peak.get("scale") == "week":
        figure = f" ({fmt_num(peak['current'])} in the week from {peak['weekStart']})"
    elif "current" in peak:
        figure = f" ({fmt_num(peak['current'])})"
    elif "mentions" in peak:
        figure = f" ({peak['mentions']})"
    elif "after" in peak:
        figure = f" ({fmt_score(peak['after'])})"
    else:
        figure = ""
    return f"; strongest on {peak['day']}{figure}"


def end_of_day(day: str) -> str:
    return f"{day}T23:59:59Z"


def signal_row(conn, track, episode: Episode, series, now_iso: str, topic_names: dict,
               formats=()) -> dict:
    """The desired ``signals`` row for an episode (without evidence).

    The headline, detail and topic are those of the episode's first day, the day of
    ``detected_at`` (the signal's time stamp): a headline's figures are the stamp's. When the episode
    peaked later, ``detail.peak`` holds the peak day's figures and the headline says so
    (``"; strongest on 2021-01-16 (21)"``). The headline ends with the terms that name the burst
    (:mod:`~corpuskit.analysis.signals.naming`; ``formats``: the corpus's title formats, which
    name nothing; the stop words of the burst records' languages name nothing either), listed in
    ``detail.terms``.
    """
    d_start = series.day_index[episode.start]
    d_peak = series.day_index[episode.peak_day]
    t_row = track.topic_row(d_start)
    topic_id = series.topics[t_row] if t_row >= 0 else None
    detail, headline = track.describe(d_start)
    detail = dict(detail)
    if episode.peak_day != episode.start:
        peak_detail, _ = track.describe(d_peak)
        detail["peak"] = peak_figures(peak_detail, episode)
        headline += peak_phrase(detail["peak"])
    detail["peakDay"] = episode.peak_day
    detail["day"] = episode.start
    texts = signal_texts(conn, track, episode, detail)
    languages = signal_languages(conn, track, episode, detail)
    detail["quality"] = quality_flags(conn, track, episode, series, detail, rows=texts)
    first = signal_kind(track.kind).record_span(detail, episode.start, episode.peak_day).first
    exclude = subject_words(series.topic_labels.get(topic_id) if topic_id is not None else None,
                            series.entity_info.get(track.entity_id, ("",))[0] if track.entity_id else None,
                            track.evidence.get("term") or track.evidence.get("phrase"), track.source)
    detail["terms"] = burst_terms([t for t, _ in texts],
                                  baseline_texts(conn, track.evidence, first, int(detail.get("windowDays") or 21)),
                                  exclude, formats=formats, languages=languages)
    headline += terms_suffix(detail["terms"])
    crossed = crossing_time(conn, track.evidence, episode.start, track.threshold_count(d_start))
    detected = min(crossed or end_of_day(episode.start), now_iso)
    resolved = min(end_of_day(episode.resolved_day), now_iso) if episode.resolved_day else None
    sigma = round(float(episode.peak_sigma), 2)
    topic_name = topic_names.get(topic_id, "-") if topic_id is not None else "-"
    return {
        "signal_key": f"{track.kind}|{topic_name}|{track.subject}|{episode.start}",
        "kind": track.kind, "topic_id": topic_id, "entity_id": track.entity_id,
        "source": track.source, "sigma_score": sigma,
        "severity": campaign_cap(severity_for(sigma) or "low", detail["quality"]),
        "headline": headline, "detail": json.dumps(detail, sort_keys=True),
        "detected_at": detected, "status": "resolved" if episode.resolved_day else "open",
        "resolved_at": resolved,
    }


CHANGE_FIELDS = ("severity", "sigma_score", "headline", "detail", "status", "resolved_at")


def write_signals(corpus, rows: list[tuple[dict, object, Episode]], run_id: str, now_iso: str,
                  evidence_limit: int = 10, withdraw_missing: bool = False) -> dict:
    """Insert new signals, update changed ones, append their ``signal_events``.

    ``rows`` holds ``(row, track, episode)``. With ``withdraw_missing`` (a full
    replay), open signals whose key was not produced again are resolved at the
    corpus clock: they are no longer supported by the data. Returns counts.
    """
    conn = corpus.conn
    existing = {r["signal_key"]: r for r in conn.execute(
        "SELECT id, signal_key, severity, sigma_score, headline, detail, status, resolved_at "
        "FROM signals")}
    counts = {"new": 0, "updated": 0, "unchanged": 0, "withdrawn": 0}
    seen = set()
    for row, track, episode in sorted(rows, key=lambda item: (item[0]["detected_at"], item[0]["signal_key"])):
        key = row["signal_key"]
        seen.add(key)
        old = existing.get(key)
        if old is None:
            cur = conn.execute(
                "INSERT INTO signals(signal_key, kind, topic_id, entity_id, source, severity, sigma_score, "
                "headline, detail, detected_at, status, resolved_at, acknowledged, run_id, updated_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?)",
                (key, row["kind"], row["topic_id"], row["entity_id"], row["source"], row["severity"],
                 row["sigma_score"], row["headline"], row["detail"], row["detected_at"], row["status"],
                 row["resolved_at"], run_id, now_iso))
            signal_id = cur.lastrowid
            _write_evidence(conn, signal_id, row, track, episode, evidence_limit)
            conn.execute("INSERT INTO signal_events(signal_id, change, created_at) VALUES (?, 'new', ?)",
                         (signal_id, now_iso))
            counts["new"] += 1
            continue
        stored = dict(old, detail=without_event(old["detail"]))
        changed = [f for f in CHANGE_FIELDS if stored[f] != row[f]]
        if not changed:
            counts["unchanged"] += 1
            continue
        conn.execute(
            "UPDATE signals SET severity=?, sigma_score=?, headline=?, detail=?, status=?, resolved_at=?, "
            "run_id=?, updated_at=? WHERE id=?",
            (row["severity"], row["sigma_score"], row["headline"], row["detail"], row["status"],
             row["resolved_at"], run_id, now_iso, old["id"]))
        if "detail" in changed:
            _write_evidence(conn, old["id"], row, track, episode, evidence_limit)
        conn.execute("INSERT INTO signal_events(signal_id, change, created_at) VALUES (?, 'updated', ?)",
                     (old["id"], now_iso))
        counts["updated"] += 1
    if withdraw_missing:
        for key, old in sorted(existing.items()):
            if key in seen or old["status"] != "open":
                continue
            conn.execute("UPDATE signals SET status='resolved', resolved_at=?, run_id=?, updated_at=? "
                         "WHERE id=?", (now_iso, run_id, now_iso, old["id"]))
            conn.execute("INSERT INTO signal_events(signal_id, change, created_at) "
                         "VALUES (?, 'updated', ?)", (old["id"], now_iso))
            counts["withdrawn"] += 1
    return counts


def _write_evidence(conn, signal_id: int, row: dict, track, episode: Episode, limit: int) -> None:
    """Replace the record, entity and topic evidence of a signal (story evidence is kept)."""
    conn.execute("DELETE FROM signal_evidence WHERE signal_id = ? AND ref_kind IN ('record','entity','topic')",
                 (signal_id,))
    detail = json.loads(row["detail"])
    spec = signal_kind(track.kind)
    span = spec.record_span(detail, episode.start, episode.peak_day)
    records = spec.evidence_records(conn, track.evidence, span, detail, limit)
    entities = evidence_entities(conn, records, track.entity_id)
    refs = [("record", r) for r in records] + [("entity", e) for e in entities]
    if row["topic_id"] is not None:
        refs.append(("topic", row["topic_id"]))
    conn.executemany("INSERT OR IGNORE INTO signal_evidence(signal_id, ref_kind, ref_id) VALUES (?,?,?)",
                     [(signal_id, kind, ref) for kind, ref in refs])
