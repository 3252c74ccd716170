"""Candidate terms for novelty: proper-noun phrases written in the records.

A *term* is a run of two or three capitalised words (``Kestrel Robotics``,
``Elena Varga``), without a leading stop word (``In Cape Canaveral`` gives
``Cape Canaveral``) or a possessive. Terms catch names the entity extractor
does not know; a term that is already a known entity name is left to the
entity series.
"""
from __future__ import annotations

import re

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


def term_counts(conn, frame: pd.DataFrame, n_days: int, n_topics: int, min_count: int,
                known: set[str]) -> tuple[list, np.ndarray, np.ndarray]:
    """``(terms, counts [terms, days], dominant topic row [terms, days])``.

    ``frame`` has ``record_id, d, t`` (day and topic rows). Only terms whose
    busiest day has ``min_count`` records and that are not in ``known``
    (lower-cased entity names) are kept.
    """
    empty = ([], np.zeros((0, n_days)), np.zeros((0, n_days), dtype=int))
    if frame.empty:
        return empty
    rows = []
    ids = frame["record_id"].tolist()
    for start in range(0, len(ids), 5000):
        chunk = ",".join(map(str, ids[start:start + 5000]))
        for rid, title, text in conn.execute(
                f"SELECT id, title, content_text FROM records WHERE id IN ({chunk})"):
            for phrase in proper_phrases(f"{title}. {text}"):
                if phrase.lower() not in known:
                    rows.append((rid, phrase))
    if not rows:
        return empty
    hits = pd.DataFrame(rows, columns=["record_id", "term"]).merge(
        frame[["record_id", "d", "t"]], on="record_id")
    busiest = hits.groupby(["term", "d"]).size().groupby(level=0).max()
    terms = sorted(busiest[busiest >= min_count].index)
    if not terms:
        return empty
    index = {t: i for i, t in enumerate(terms)}
    kept = hits[hits["term"].isin(index)]
    rr = kept["term"].map(index).to_numpy()
    counts = np.zeros((len(terms), n_days))
    np.add.at(counts, (rr, kept["d"].to_numpy()), 1)
    by_topic = np.zeros((len(terms), n_topics + 1, n_days))
    topical = kept["t"].to_numpy() >= 0
    np.add.at(by_topic, (rr[topical], kept["t"].to_numpy()[topical], kept["d"].to_numpy()[topical]), 1)
    best = by_topic[:, :n_topics, :].argmax(axis=1) if n_topics else np.zeros((len(terms), n_days), int)
    dominant = np.where(by_topic[:, :n_topics, :].max(axis=1) > 0, best, -1) if n_topics else best - 1
    return terms, counts, dominant
