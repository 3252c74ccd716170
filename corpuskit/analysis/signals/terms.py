"""Candidate terms for novelty: proper-noun phrases written in the records.

A *term* is a run of two or three capitalised words (``Kestrel Robotics``,
``Elena Varga``), without a leading stop word (``In Cape Canaveral`` gives
``Cape Canaveral``) or a possessive. Terms catch names the entity extractor
does not know; a term that is already a known entity name is left to the
entity series.
"""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_PHRASE = re.compile(r"\b[A-Z][a-z]+(?:[ \-][A-Z][a-z]+){1,3}\b")


def term_slug(term: str) -> str:
    """The slug a term's signals are keyed by (``Kestrel Robotics`` -> ``kestrel-robotics``)."""
    return term.lower().replace(" ", "-")


def proper_phrases(text: str) -> set[str]:
    """The proper-noun phrases of ``text`` (two or three words, see the module docstring)."""
    out = set()
    for match in _PHRASE.finditer(text or ""):
        words = re.split(r"[ ]", match.group(0))
        while words and words[0].lower() in ENGLISH_STOP_WORDS:
            words = words[1:]
        if 2 <= len(words) <= 3:
            out.add(" ".join(words))
    return out


def term_counts(conn, loaded, n_days: int, n_topics: int, min_count: int,
                known: set[str]) -> tuple[list, np.ndarray, np.ndarray]:
    """``(terms, counts [terms, days], dominant topic row [terms, days])``.

    ``loaded`` holds the records' ids, day indexes ``d`` and topic rows ``t``
    (:class:`~corpuskit.analysis.signals.series.LoadedRecords`). Only terms whose
    busiest day has ``min_count`` records and that are not in ``known``
    (lower-cased entity names) are kept. The texts are read 5,000 at a time and only
    the counts per (term, day, topic row) are kept, never a row per phrase.
    """
    empty = ([], np.zeros((0, n_days)), np.zeros((0, n_days), dtype=int))
    if not len(loaded.ids):
        return empty
    hits: Counter = Counter()
    ids = loaded.ids.tolist()
    for start in range(0, len(ids), 5000):
        chunk = ids[start:start + 5000]
        where = dict(zip(chunk, zip(loaded.d[start:start + 5000].tolist(), loaded.t[start:start + 5000].tolist())))
        for rid, title, text in conn.execute(
                "SELECT id, title, content_text FROM records WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(chunk),)):
            d, t = where[rid]
            for phrase in proper_phrases(f"{title}. {text}"):
                if phrase.lower() not in known:
                    hits[phrase, d, t] += 1
    if not hits:
        return empty
    per_day: Counter = Counter()
    for (term, d, _), n in hits.items():
        per_day[term, d] += n
    busiest: dict = {}
    for (term, _), n in per_day.items():
        busiest[term] = max(busiest.get(term, 0), n)
    terms = sorted(t for t, n in busiest.items() if n >= min_count)
    if not terms:
        return empty
    index = {t: i for i, t in enumerate(terms)}
    counts = np.zeros((len(terms), n_days))
    by_topic = np.zeros((len(terms), n_topics + 1, n_days))
    for (term, d, t), n in hits.items():
        i = index.get(term)
        if i is None:
            continue
        counts[i, d] += n
        if t >= 0:
            by_topic[i, t, d] += n
    best = by_topic[:, :n_topics, :].argmax(axis=1) if n_topics else np.zeros((len(terms), n_days), int)
    dominant = np.where(by_topic[:, :n_topics, :].max(axis=1) > 0, best, -1) if n_topics else best - 1
    return terms, counts, dominant
