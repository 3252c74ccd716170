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
* ``distinctAuthors``: how many different authors wrote those records
  (``None`` when the corpus holds no authors).
* ``campaign``: a possible campaign rather than a crowd: the records come from
  at most ``CAMPAIGN_MAX_AUTHORS`` distinct authors (with at least
  ``CAMPAIGN_MIN_RECORDS`` records checked), or at least
  ``CAMPAIGN_DUPLICATE_SHARE`` of them are near-duplicates (counting only texts of at
  least ``CAMPAIGN_MIN_WORDS`` distinct words: a copied message, not a short
  reply or a bare link). ``campaignReason``
  lists which (``"fewAuthors"``, ``"nearDuplicates"``). A campaign's severity
  is capped at ``CAMPAIGN_SEVERITY`` (:func:`campaign_cap`): severity counts
  voices, not only records.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from corpuskit.analysis.signals.evidence import series_rows
from corpuskit.analysis.signals.kinds import signal_kind

GAP_MIN_MEDIAN = 5.0
DUPLICATE_SAMPLE = 2000
CAMPAIGN_MAX_AUTHORS = 3
CAMPAIGN_MIN_RECORDS = 5
CAMPAIGN_DUPLICATE_SHARE = 0.5
CAMPAIGN_MIN_WORDS = 3
CAMPAIGN_SEVERITY = "low"
_SEVERITY_ORDER = ("low", "medium", "high")
_URL = re.compile(r"https?://\S+|www\.\S+|@\w+|\brt\b", re.IGNORECASE)
_NON_WORD = re.compile(r"[^a-z]+")


def near_duplicate_key(text: str) -> str:
    """The words of a text that survive URLs, handles, "RT", case, digits and punctuation."""
    text = _URL.sub(" ", (text or "").lower())
    return " ".join(_NON_WORD.sub(" ", text).split())


def duplicate_share(texts: list[str], min_words: int = 1) -> float:
    """Share of texts whose :func:`near_duplicate_key` is shared with another text (keys of fewer than
    ``min_words`` distinct words aside: empty ones by default)."""
    keys = [near_duplicate_key(t) for t in texts]
    keys = [k for k in keys if len(set(k.split())) >= min_words]
    if not keys:
        return 0.0
    counts = Counter(keys)
    return round(sum(c for c in counts.values() if c > 1) / len(keys), 3)


def campaign_reasons(n_records: int, authors: int | None, dup_share: float) -> list[str]:
    """Why a signal's records look like a campaign (empty: they look like a crowd)."""
    reasons = []
    if authors is not None and n_records >= CAMPAIGN_MIN_RECORDS and authors <= CAMPAIGN_MAX_AUTHORS:
        reasons.append("fewAuthors")
    if n_records >= CAMPAIGN_MIN_RECORDS and dup_share >= CAMPAIGN_DUPLICATE_SHARE:
        reasons.append("nearDuplicates")
    return reasons


def campaign_cap(severity: str, quality: dict) -> str:
    """``severity`` capped at :data:`CAMPAIGN_SEVERITY` when ``quality`` flags a possible campaign."""
    if not quality.get("campaign"):
        return severity
    return min(severity, CAMPAIGN_SEVERITY, key=_SEVERITY_ORDER.index)


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


def quality_flags(conn, track, episode, series, detail: dict, rows=None) -> dict:
    """The ``quality`` object of a signal (see the module docstring); ``rows`` are its
    :func:`signal_texts` when the caller has read them already."""
    window = int(detail.get("windowDays") or 21)
    d = series.day_index[episode.start]
    baseline_days = int(min(window, d))
    in_base, on_day = ingestion_gaps(series, d, window)
    rows = signal_texts(conn, track, episode, detail) if rows is None else rows
    texts = [text for text, _ in rows]
    named = {author for _, author in rows if author}
    authors = len(named) if named else None
    share = duplicate_share(texts)
    reasons = campaign_reasons(len(texts), authors, duplicate_share(texts, CAMPAIGN_MIN_WORDS))
    return {"baselineDays": baseline_days, "corpusEdge": baseline_days < window,
            "gap": {"inBaseline": in_base, "onDay": on_day},
            "duplicateShare": share, "recordsChecked": len(texts),
            "distinctAuthors": authors, "campaign": bool(reasons), "campaignReason": reasons}


def signal_texts(conn, track, episode, detail: dict) -> list[tuple[str, str]]:
    """``(text, author)`` of the records behind the signal: its kind's record span (its day, the hour
    of an hourly burst, the seven days of a weekly surge, a mean's after window)."""
    span = signal_kind(track.kind).record_span(detail, episode.start, episode.peak_day)
    rows = series_rows(conn, track.evidence, span, "r.title, r.content_text, r.author", DUPLICATE_SAMPLE)
    return [(f"{r[0] or ''} {r[1] or ''}", r[2] or "") for r in rows]


def signal_languages(conn, track, episode, detail: dict) -> tuple[str, ...]:
    """The languages of the records :func:`signal_texts` reads (sorted; no language left out)."""
    span = signal_kind(track.kind).record_span(detail, episode.start, episode.peak_day)
    rows = series_rows(conn, track.evidence, span, "r.language", DUPLICATE_SAMPLE)
    return tuple(sorted({r[0] for r in rows if r[0]}))
