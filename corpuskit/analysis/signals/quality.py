"""Quality flags on every signal: when a spike may be an artefact.

Each stored signal's detail carries ``quality``::

    {"baselineDays": 21, "corpusEdge": false,
     "gap": {"inBaseline": [], "onDay": []},
     "duplicateShare": 0.04, "recordsChecked": 57}

* ``baselineDays``: corpus days available before the signal's day inside the
  detector's window (``windowDays``). ``corpusEdge`` is true when that is
  fewer than the window: the baseline is short (the detectors do not test a
  day at all below their ``min_periods``, so the very edge gives no signal
  rather than a false one).
* ``gap``: ingestion gaps, days on which a source that usually has records
  (a median of at least ``GAP_MIN_MEDIAN`` a day over the window) had none,
  listed as ``{"source", "day"}`` for the baseline window and for the
  signal's day. A gap in the baseline lowers it (a later spike looks bigger);
  a gap on the day can fake a drop or shift.
* ``duplicateShare``: the share of the records behind the signal (the
  series' records on the signal's day, at most ``DUPLICATE_SAMPLE``) whose
  text is a near-duplicate of another one's (same words once URLs, handles,
  case, punctuation and numbers are set aside): a retweet or spam flood.
  ``recordsChecked`` says how many were looked at.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from corpuskit.analysis.signals.evidence import _series_filter
from corpuskit.analysis.signals.series import shift_day

GAP_MIN_MEDIAN = 5.0
DUPLICATE_SAMPLE = 2000
_URL = re.compile(r"https?://\S+|www\.\S+|@\w+|\brt\b", re.IGNORECASE)
_NON_WORD = re.compile(r"[^a-z]+")


def near_duplicate_key(text: str) -> str:
    """The words of a text that survive URLs, handles, "RT", case, digits and punctuation."""
    text = _URL.sub(" ", (text or "").lower())
    return " ".join(_NON_WORD.sub(" ", text).split())


def duplicate_share(texts: list[str]) -> float:
    """Share of texts whose :func:`near_duplicate_key` is shared with another text (empty keys aside)."""
    keys = [near_duplicate_key(t) for t in texts]
    keys = [k for k in keys if k]
    if not keys:
        return 0.0
    counts = Counter(keys)
    return round(sum(c for c in counts.values() if c > 1) / len(keys), 3)


def ingestion_gaps(series, d: int, window: int) -> tuple[list, list]:
    """``(in_baseline, on_day)`` gaps: ``{"source", "day"}`` where a usual source had no records."""
    counts = series.source_count
    lo = max(0, d - window)
    in_base, on_day = [], []
    if counts.size == 0 or d - lo < 1:
        return in_base, on_day
    base = counts[:, lo:d]
    usual = np.median(base, axis=1) >= GAP_MIN_MEDIAN
    for row in np.flatnonzero(usual):
        source = series.sources[row]
        for j in np.flatnonzero(base[row] == 0):
            in_base.append({"source": source, "day": series.days[lo + j]})
        if counts[row, d] == 0:
            on_day.append({"source": source, "day": series.days[d]})
    return in_base, on_day


def quality_flags(conn, track, episode, series, detail: dict) -> dict:
    """The ``quality`` object of a signal (see the module docstring)."""
    window = int(detail.get("windowDays") or 21)
    d = series.day_index[episode.start]
    baseline_days = int(min(window, d))
    in_base, on_day = ingestion_gaps(series, d, window)
    texts = _texts(conn, track, episode, detail)
    return {"baselineDays": baseline_days, "corpusEdge": baseline_days < window,
            "gap": {"inBaseline": in_base, "onDay": on_day},
            "duplicateShare": duplicate_share(texts), "recordsChecked": len(texts)}


def _texts(conn, track, episode, detail: dict) -> list[str]:
    """Texts of the records behind the signal on its day (hour for an hourly burst)."""
    evidence = dict(track.evidence)
    if track.kind in ("sentiment_shift", "divergence"):
        k = int(detail.get("afterDays", 1))
        first, last = shift_day(episode.peak_day, -(k - 1)), episode.peak_day
    else:
        first = last = episode.start
    joins, where, args = _series_filter(evidence)
    if detail.get("hour") and track.kind == "volume_spike":
        start = detail["hour"]
        rows = conn.execute(
            f"SELECT r.title, r.content_text FROM records r {joins} WHERE {where} "
            "AND r.published_at BETWEEN ? AND ? ORDER BY r.published_at, r.id LIMIT ?",
            (*args, start, f"{start[:13]}:59:59.999999Z", DUPLICATE_SAMPLE)).fetchall()
    else:
        rows = conn.execute(
            f"SELECT r.title, r.content_text FROM records r {joins} WHERE {where} "
            "AND r.day BETWEEN ? AND ? ORDER BY r.published_at, r.id LIMIT ?",
            (*args, first, last, DUPLICATE_SAMPLE)).fetchall()
    return [f"{r[0] or ''} {r[1] or ''}" for r in rows]
