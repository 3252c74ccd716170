"""Distinctive terms of a subcorpus, and keyness between two subcorpora.

Terms are the vocabulary terms of :mod:`corpuskit.text.terms` (Unicode-aware words of the
analysis text, stop words, URL parts and social-media tokens removed; URLs, handles and emoji
removed before tokens are made; a record's HTML tags stripped first), folded as search and KWIC fold
(:func:`corpuskit.text.folding.search_fold`: ``straße`` is ``strasse``): single words and bigrams of
adjacent terms. Unigrams are tested against the unigram token totals, bigrams against the bigram
totals, with G² and Log Ratio from :mod:`corpuskit.stats.keyness`; the Benjamini-Hochberg
adjustment runs over every term tested (both lengths together). A term is tested when it occurs
at least ``min_freq`` times in the two sides together.

Texts are read in chunks (:func:`corpuskit.query.subsets.iter_texts`); only the term counts are
held in memory. Against the rest of the corpus, the corpus-wide counts analyse keeps
(:mod:`corpuskit.analysis.term_counts`) spare reading the rest's texts while they hold.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.query.subsets import as_ids, iter_texts
from corpuskit.analysis.term_tally import TermCounts, count_terms
from corpuskit.stats.keyness import (benjamini_hochberg, g2_p_value, keyness_table, log_likelihood,
                                     weighted_benjamini_hochberg)

#: Occurrences (both sides together) a term needs to be tested.
MIN_FREQ = 3
#: The columns of :func:`compare_terms`, in order.
COMPARE_COLUMNS = ("term", "freq_a", "freq_b", "G2", "log_ratio", "p", "p_adjusted", "direction")
#: The columns of :func:`distinctive_terms`, in order.
DISTINCTIVE_COLUMNS = ("term", "freq", "freq_rest", "G2", "log_ratio", "p", "p_adjusted")


def _check_n(n, name="n") -> int | None:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValidationError(f"{name} must be a positive integer, not {n!r}")
    return n


def _keyness(a: TermCounts, b: TermCounts, min_freq: int) -> pd.DataFrame:
    parts = []
    for attr, total_a, total_b in (("unigrams", a.totals[0], b.totals[0]), ("bigrams", a.totals[1], b.totals[1])):
        ca, cb = getattr(a, attr), getattr(b, attr)
        if total_a == 0 or total_b == 0:
            continue
        terms = sorted(t for t in set(ca) | set(cb) if ca[t] + cb[t] >= min_freq)
        if terms:
            table = keyness_table(terms, [ca[t] for t in terms], [cb[t] for t in terms], total_a, total_b)
            parts.append(table)
    if not parts:
        return keyness_table([], [], [], 1, 1)
    frame = pd.concat(parts, ignore_index=True)
    frame["p_adjusted"] = benjamini_hochberg(frame["p"].to_numpy())
    return frame.sort_values(["G2", "term"], ascending=[False, True], kind="mergesort").reset_index(drop=True)


def compare_terms(corpus, ids_a, ids_b, n: int | None = 20, min_freq: int = MIN_FREQ,
                  progress=None) -> pd.DataFrame:
    """Keyness of terms between the subcorpora ``ids_a`` and ``ids_b``: a DataFrame, most key first.

    Columns :data:`COMPARE_COLUMNS`: ``freq_a``/``freq_b`` the term's occurrences on each side,
    ``G2`` the log-likelihood, ``log_ratio`` the binary log of A's relative frequency over B's
    (positive: more in A), ``p`` from chi-squared(1), ``p_adjusted`` Benjamini-Hochberg over every
    term tested, ``direction`` ``"a"`` or ``"b"``. ``n`` keeps the ``n`` highest-G² terms of each
    side (None keeps all); rows are sorted by G², then term. Either side without terms gives an
    empty frame. ``progress``, when given, is called as the texts are read with the records read so
    far and the records to read (both sides).
    """
    n = _check_n(n)
    min_freq = _check_n(min_freq, "min_freq")
    ids_a, ids_b = as_ids(ids_a), as_ids(ids_b)
    total = len(ids_a) + len(ids_b)
    a = count_terms(corpus.conn, ids_a, progress and (lambda done, _: progress(done, total)))
    b = count_terms(corpus.conn, ids_b, progress and (lambda done, _: progress(len(ids_a) + done, total)))
    frame = _keyness(a, b, min_freq)
    if n is not None and len(frame):
        frame = frame[frame.groupby("direction").cumcount() < n].reset_index(drop=True)
    return frame[list(COMPARE_COLUMNS)]


def distinctive_terms(corpus, ids, n: int | None = 20, min_freq: int = MIN_FREQ, stored: bool = True,
                      progress=None) -> pd.DataFrame:
    """The terms the subcorpus ``ids`` uses more than the rest of the corpus, most key first.

    Columns :data:`DISTINCTIVE_COLUMNS`: ``freq`` in the subcorpus, ``freq_rest`` in every other
    record, ``G2``, ``log_ratio`` (positive), ``p`` and ``p_adjusted`` (Benjamini-Hochberg over
    every term tested, both directions). ``n`` keeps the first ``n`` (None: all).

    While the corpus-wide term counts analyse keeps hold (:mod:`.term_counts`; ``stored=False``
    never uses them), only the subcorpus's texts are read and the rest is the corpus minus the
    subcorpus: the same table as the live count, which otherwise makes one pass over the corpus in
    chunks and splits each record to its side. ``progress``, when given, is called as the texts are
    read with the records read so far and the records to read.
    """
    n = _check_n(n)
    min_freq = _check_n(min_freq, "min_freq")
    ids = as_ids(ids)
    frame = None
    if stored and len(ids):
        from corpuskit.analysis.term_counts import stored_terms

        kept = stored_terms(corpus.conn)
        if kept is not None:
            frame = _keyness_stored(count_terms(corpus.conn, ids, progress), kept, min_freq)
    if frame is None:
        mine, rest = TermCounts(), TermCounts()
        if len(ids):
            total, done = corpus.conn.execute("SELECT count(*) FROM records").fetchone()[0], 0
            for chunk in iter_texts(corpus.conn, None):
                chunk_ids = np.fromiter((r[0] for r in chunk), dtype=np.int64, count=len(chunk))
                pos = np.searchsorted(ids, chunk_ids)
                inside = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == chunk_ids)
                for row, flag in zip(chunk, inside.tolist()):
                    (mine if flag else rest).add(row[1], row[2])
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        frame = _keyness(mine, rest, min_freq)
    frame = frame[frame["direction"] == "a"].rename(columns={"freq_a": "freq", "freq_b": "freq_rest"})
    if n is not None:
        frame = frame.head(n)
    return frame[list(DISTINCTIVE_COLUMNS)].reset_index(drop=True)


def _keyness_stored(mine: TermCounts, corpus_terms, min_freq: int) -> pd.DataFrame:
    """:func:`_keyness` of ``mine`` against the rest (the stored corpus counts minus ``mine``), for
    the terms ``mine`` holds; their ``p_adjusted`` runs over every term tested, the terms absent from
    ``mine`` entering by their count alone (the stored histogram)."""
    corpus_counts = corpus_terms.counts(set(mine.unigrams) | set(mine.bigrams))
    parts, absent_p, absent_w = [], [], []
    for attr, total_a in (("unigrams", mine.totals[0]), ("bigrams", mine.totals[1])):
        ca = getattr(mine, attr)
        total_b = corpus_terms.tokens[attr] - total_a
        if total_a == 0 or total_b == 0:
            continue
        histogram = dict(corpus_terms.histogram[attr])
        terms = []
        for t in sorted(ca):
            count = corpus_counts[t]
            histogram[count] -= 1        # what is left counts the terms absent from the selection
            if count >= min_freq:
                terms.append(t)
        if terms:
            parts.append(keyness_table(terms, [ca[t] for t in terms], [corpus_counts[t] - ca[t] for t in terms],
                                       total_a, total_b))
        counts = np.array(sorted(c for c, k in histogram.items() if k and c >= min_freq), dtype=np.int64)
        if counts.size:
            absent_p.append(g2_p_value(np.atleast_1d(log_likelihood(np.zeros(counts.size), counts,
                                                                    total_a, total_b))))
            absent_w.append(np.array([histogram[int(c)] for c in counts], dtype=np.int64))
    if not parts:
        return keyness_table([], [], [], 1, 1)
    frame = pd.concat(parts, ignore_index=True)
    p = np.concatenate([frame["p"].to_numpy(), *absent_p])
    weight = np.concatenate([np.ones(len(frame), dtype=np.int64), *absent_w])
    frame["p_adjusted"] = weighted_benjamini_hochberg(p, weight)[:len(frame)]
    return frame.sort_values(["G2", "term"], ascending=[False, True], kind="mergesort").reset_index(drop=True)
