"""Topics through time: each topic's records, share and distinctive terms per period, and the
document-topic confidences.

:func:`topics_over_time` cuts the enriched records into calendar periods (``freq``: ``D`` day,
``W`` week starting Monday, ``M`` month, ``Q`` quarter, ``Y`` year; UTC) and gives, for every
active topic and every period, the records whose primary topic it is (``count``), the period's
enriched records (``total``), the share ``count / total`` with its Wilson interval
(:func:`corpuskit.stats.intervals.wilson_interval`) and the topic's most distinctive terms
*within the period*: the terms its records in that period use more than the period's other
records, ranked by log-likelihood G² (:func:`corpuskit.stats.keyness.keyness_table`), kept when
the topic's records use them at least ``MIN_TERM_COUNT`` times, then made distinct as the topics'
own terms are (no word twice; a phrase in place of its words). So a topic's terms in June and in
December each say what set it apart then, not what sets it apart over the whole corpus.

Terms come from :func:`corpuskit.text.term_analyzer` (words and adjacent-word bigrams, no URL
parts, stop words or numbers). A text repeated word for word or with small edits (a group of near
duplicates, :mod:`corpuskit.text.near_duplicates`) counts once per period, so a copy-paste flood
does not name a period's topic; title formats the corpus uses ("Ask HN", and rarer ones of the same
shape such as "Offer HN") are never terms (:func:`corpuskit.enrich.topic_terms.format_prefixes`).

:func:`topic_document_matrix` gives the stored confidences of every record for every topic (0
where a record was not assigned to the topic), for a researcher's own model.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from corpuskit.analysis.uncertainty import DEFAULT_LEVEL, add_share
from corpuskit.enrich.topic_terms import distinct_terms, format_prefixes
from corpuskit.errors import ValidationError
from corpuskit.query.record_filter import RecordFilter
from corpuskit.stats.keyness import keyness_table

#: the period lengths :func:`topics_over_time` accepts, as pandas period codes
FREQUENCIES = {"D": "D", "W": "W-SUN", "M": "M", "Q": "Q", "Y": "Y"}
#: a period term must occur at least this often in the topic's records of the period
MIN_TERM_COUNT = 2
#: the most key terms of a topic-period from which its ``terms`` are made distinct (a bigram
#: stands for its words, no word twice: :func:`corpuskit.enrich.topic_terms.distinct_terms`)
CANDIDATES = 40
#: the columns of :func:`topics_over_time`, in order
PERIOD_COLUMNS = ["period", "topic", "label", "count", "total", "share", "share_low", "share_high",
                  "terms"]



def _check(freq, terms: int) -> str:
    if freq not in FREQUENCIES:
        raise ValidationError(f"freq must be one of {', '.join(FREQUENCIES)}, not {freq!r}")
    if isinstance(terms, bool) or not isinstance(terms, (int, np.integer)) or terms < 0:
        raise ValidationError(f"terms must be a whole number of 0 or more, not {terms!r}")
    return FREQUENCIES[freq]


def _rows(conn, since, until):
    where = RecordFilter(since=since, until=until).where(conn)
    where.add("r.published_at IS NOT NULL")
    return conn.execute("SELECT r.id, r.published_at, e.topic_id, r.title, r.content_text FROM records r "
                        "JOIN enrichment e ON e.record_id = r.id" + where.sql()
                        + " ORDER BY r.published_at, r.id", list(where.args)).fetchall()


def _term_counts(texts):
    """A records x terms count matrix (CSR) and the terms, or ``(None, [])`` when no text has one."""
    from sklearn.feature_extraction.text import CountVectorizer

    from corpuskit.text import term_analyzer

    try:
        vec = CountVectorizer(analyzer=term_analyzer((1, 2)), min_df=1)
        matrix = vec.fit_transform(texts)
    except ValueError:   # every text empty of terms
        return None, []
    return matrix.tocsr(), list(vec.get_feature_names_out())


def _first_copies(texts, periods) -> np.ndarray:
    """True for the first record of each (period, group of near-duplicate texts): later copies in the
    same period, word for word or with small edits (:func:`corpuskit.text.near_duplicates.near_duplicate_groups`),
    are left out of the term counts."""
    from corpuskit.text.near_duplicates import near_duplicate_groups

    groups = near_duplicate_groups(texts)
    seen: set = set()
    keep = np.zeros(len(texts), dtype=bool)
    for i, (group, period) in enumerate(zip(groups.tolist(), periods)):
        if (period, group) not in seen:
            seen.add((period, group))
            keep[i] = True
    return keep


def _excluded_terms(texts, vocab) -> np.ndarray:
    """Mask of the terms that are a title format's words (``ask hn``, ``ask``, ``hn``)."""
    words = set()
    for prefix in format_prefixes(texts):
        words.update(prefix.split())
    return np.array([bool(words) and set(t.split()) <= words for t in vocab], dtype=bool)


def _period_terms(counts, vocab, excluded, in_topic, rest, n) -> list[str]:
    a = np.asarray(counts[in_topic].sum(axis=0)).ravel()
    b = np.asarray(counts[rest].sum(axis=0)).ravel()
    total_a, total_b = a.sum(), b.sum()
    if total_a <= 0 or total_b <= 0:
        # the topic is all the period holds, or holds no terms: rank by frequency alone
        order = sorted(np.flatnonzero((a >= MIN_TERM_COUNT) & ~excluded), key=lambda j: (-a[j], vocab[j]))
        return distinct_terms([vocab[j] for j in order[:CANDIDATES]], n, {vocab[j]: a[j] for j in order})
    use = np.flatnonzero((a >= MIN_TERM_COUNT) & ~excluded)
    if not use.size:
        return []
    table = keyness_table([vocab[j] for j in use], a[use], b[use], total_a, total_b)
    table = table[table["direction"] == "a"].head(CANDIDATES)
    return distinct_terms(table["term"].tolist(), n, dict(zip(table["term"], table["freq_a"])))


def topics_over_time(conn, freq: str = "M", terms: int = 5, since=None, until=None,
                     level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Each active topic's records, share and distinctive terms per period (see the module docstring).

    ``since``/``until`` (any timestamp form, inclusive, as :class:`~corpuskit.query.RecordFilter`)
    bound the records read.
    Returns :data:`PERIOD_COLUMNS`: ``period`` (the period's first instant, UTC), ``topic`` (name),
    ``label`` (display name), ``count``, ``total``, ``share, share_low, share_high`` and ``terms``
    (a list of at most ``terms`` terms, most distinctive first). Every active topic has a row in
    every period from the first to the last record's, with a count of 0 where it had none; rows
    are sorted by period, then topic name.
    """
    code = _check(freq, terms)
    from corpuskit.enrich.base import record_text

    topic_rows = conn.execute(
        "SELECT id, name, display_name FROM topics WHERE active = 1 ORDER BY name").fetchall()
    rows = _rows(conn, since, until)
    if not rows or not topic_rows:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            PERIOD_COLUMNS, ("datetime64[ns, UTC]", object, object, "int64", "int64", float, float,
                             float, object))})
    stamps = pd.to_datetime([r["published_at"] for r in rows], utc=True, format="ISO8601")
    periods = stamps.tz_localize(None).to_period(code)
    topic_of = np.array([-1 if r["topic_id"] is None else r["topic_id"] for r in rows], dtype=np.int64)
    texts = [record_text(r["title"], r["content_text"]) for r in rows]
    counts = vocab = excluded = None
    if terms:
        keep = _first_copies(texts, periods)
        counts, vocab = _term_counts(texts)
        if counts is not None:
            excluded = _excluded_terms([r["title"] or "" for r in rows], vocab)
    codes = np.asarray(periods.asi8)
    out = []
    for period in pd.period_range(periods.min(), periods.max(), freq=code):
        in_period = codes == period.ordinal
        total = int(in_period.sum())
        for t in topic_rows:
            member = in_period & (topic_of == t["id"])
            found: list = []
            if counts is not None and member.any():
                found = _period_terms(counts, vocab, excluded, member & keep, in_period & keep & ~member,
                                      terms)
            out.append({"period": period.start_time.tz_localize("UTC"), "topic": t["name"],
                        "label": t["display_name"], "count": int(member.sum()), "total": total,
                        "terms": found})
    frame = pd.DataFrame(out)
    add_share(frame, "share", frame["count"].to_numpy(), frame["total"].to_numpy(), level)
    return frame[PERIOD_COLUMNS]


def topic_document_matrix(conn, active_only: bool = True) -> pd.DataFrame:
    """Every enriched record's confidence for every topic: a DataFrame indexed by record id
    (``record``), one column per topic name (sorted), 0.0 where the record was not assigned to the
    topic. ``active_only`` (default) leaves out retired topics."""
    topics = conn.execute("SELECT id, name FROM topics" + (" WHERE active = 1" if active_only else "")
                          + " ORDER BY name").fetchall()
    names = [t["name"] for t in topics]
    column = {t["id"]: i for i, t in enumerate(topics)}
    records = [r[0] for r in conn.execute("SELECT record_id FROM enrichment ORDER BY record_id")]
    row = {rid: i for i, rid in enumerate(records)}
    values = np.zeros((len(records), len(names)))
    for rid, tid, conf in conn.execute("SELECT record_id, topic_id, confidence FROM topic_assignments"):
        if tid in column and rid in row:
            values[row[rid], column[tid]] = conf
    return pd.DataFrame(values, index=pd.Index(records, name="record", dtype="int64"), columns=names)
