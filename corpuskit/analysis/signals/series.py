"""Daily series per topic, per source, per topic and source, and per entity.

Everything the detectors test is built here from the enrichment tables, as
dense ``[rows, days]`` numpy arrays over every UTC day from the first loaded
day to the corpus clock's day (days without records are zeros, so a quiet day
counts as a quiet day and not as a missing one):

* ``topic_count``, ``topic_sum``, ``topic_sq``: records per primary topic
  (``enrichment.topic_id``) per day, and the sum and sum of squares of their
  sentiment scores;
* ``ts_count``, ``ts_sum``, ``ts_sq``: the same per topic and source
  (``[topics, sources, days]``), for the divergence detector;
* ``topic_hour_count``: records per primary topic per UTC hour
  (``[topics, days, 24]``), for the hourly burst detector;
* ``source_count``: records per source per day (every enriched record);
* ``entity_count``: records mentioning each entity per day, and
  ``entity_topic`` the topic most of those records belong to that day.

The detectors test each day ``t`` against a baseline of the days *before*
``t`` (the windows of :mod:`corpuskit.stats.windows`). Nothing at day ``t``
reads a day after ``t``, which is what makes the day-by-day replay in
:mod:`corpuskit.analysis.signals.replay` equal to a live run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
import pandas as pd

from corpuskit.enrich.topic_terms import inline_label


def day_range(first: str, last: str) -> list[str]:
    """Every ``YYYY-MM-DD`` from ``first`` to ``last`` inclusive."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]


def shift_day(day: str, days: int) -> str:
    """``day`` moved by ``days`` (negative: earlier)."""
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


@dataclass
class DailySeries:
    """Dense daily series over ``days`` (see the module docstring for the arrays)."""

    days: list
    topics: list                      # topic ids, row order of the topic arrays
    topic_names: dict                 # id -> name
    topic_labels: dict                # id -> display name
    sources: list                     # source kinds, row order of the source arrays
    entities: list                    # entity ids, row order of the entity arrays
    entity_info: dict                 # id -> (name, slug, type)
    topic_count: np.ndarray
    topic_sum: np.ndarray
    topic_sq: np.ndarray
    ts_count: np.ndarray
    ts_sum: np.ndarray
    ts_sq: np.ndarray
    source_count: np.ndarray
    source_topic: np.ndarray          # dominant topic row per source and day (-1: none)
    entity_count: np.ndarray
    entity_topic: np.ndarray          # dominant topic row per entity and day (-1: none)
    terms: list = field(default_factory=list)                  # proper-noun phrases (see terms.py)
    term_count: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    term_topic: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=int))
    topic_hour_count: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 24)))
    phrase_index: object = None       # the phrases' records (phrases.PhraseIndex), set by the replay
    day_index: dict = field(default_factory=dict)
    # records with a sentiment score per topic (and source) and day: the n of a sentiment mean; a
    # record in a language the scorer does not cover has none (default: every record is scored)
    topic_scored: np.ndarray | None = None
    ts_scored: np.ndarray | None = None

    def __post_init__(self):
        self.day_index = {d: i for i, d in enumerate(self.days)}
        if self.topic_scored is None:
            self.topic_scored = self.topic_count
        if self.ts_scored is None:
            self.ts_scored = self.ts_count


def load_series(corpus, first_day: str | None = None, last_day: str | None = None,
                min_entity_count: int = 1, terms: bool = False) -> DailySeries:
    """Build the daily series from ``first_day`` (default: the first record's day) to
    ``last_day`` (default: the corpus clock's day).

    Only enriched records count. Entities whose busiest day has fewer than
    ``min_entity_count`` records are left out (no detector could fire on them).
    With ``terms``, also count the proper-noun phrases of
    :mod:`~corpuskit.analysis.signals.terms` that are not known entity names.
    """
    conn = corpus.conn
    if last_day is None:
        last_day = corpus.now().date().isoformat()
    if first_day is None:
        row = conn.execute("SELECT min(r.day) FROM records r JOIN enrichment e "
                           "ON e.record_id = r.id").fetchone()
        first_day = row[0] or last_day
    first_day = min(first_day, last_day)
    days = day_range(first_day, last_day)
    n_days = len(days)

    topic_rows = conn.execute("SELECT id, name, display_name FROM topics ORDER BY id").fetchall()
    topics = [r[0] for r in topic_rows]
    topic_names = {r[0]: r[1] for r in topic_rows}
    topic_labels = {r[0]: inline_label(r[2]) for r in topic_rows}  # as the label reads in a headline
    t_index = {t: i for i, t in enumerate(topics)}

    # every series is summed over the rows streamed ROWS_BATCH at a time, in the query's order
    # (np.add.at adds in order: the sums equal one pass over every row); what is kept of each
    # record is its id, day and topic row (16 bytes), never a frame of the loaded records
    span = (first_day, last_day)
    sources = [r[0] for r in conn.execute(
        "SELECT DISTINCT r.source FROM records r JOIN enrichment e ON e.record_id = r.id "
        "WHERE r.day >= ? AND r.day <= ? ORDER BY r.source", span)]
    s_index = {s: i for i, s in enumerate(sources)}
    n_t, n_s = len(topics), len(sources)
    d_index = {d: i for i, d in enumerate(days)}
    source_count = np.zeros((n_s, n_days))
    ts_count = np.zeros((n_t, n_s, n_days))
    ts_sum = np.zeros((n_t, n_s, n_days))
    ts_sq = np.zeros((n_t, n_s, n_days))
    ts_scored = np.zeros((n_t, n_s, n_days))
    topic_hour_count = np.zeros((n_t, n_days, 24))
    rec_id, rec_d, rec_t = [], [], []
    cursor = conn.execute(
        "SELECT r.id, r.day, r.source, e.topic_id, e.sentiment_score, "
        "CAST(substr(r.published_at, 12, 2) AS INTEGER) FROM records r "
        "JOIN enrichment e ON e.record_id = r.id WHERE r.day >= ? AND r.day <= ?", span)
    while rows := cursor.fetchmany(ROWS_BATCH):
        dd = np.fromiter((d_index[r[1]] for r in rows), dtype=np.int64, count=len(rows))
        ss = np.fromiter((s_index[r[2]] for r in rows), dtype=np.int64, count=len(rows))
        tt = np.fromiter((t_index.get(r[3], -1) for r in rows), dtype=np.int64, count=len(rows))
        rec_id.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        rec_d.append(dd.astype(np.int32))
        rec_t.append(tt.astype(np.int32))
        np.add.at(source_count, (ss, dd), 1)
        topical = tt >= 0
        ts_sent = np.array([rows[i][4] for i in np.flatnonzero(topical)], dtype=float)
        hours = np.array([rows[i][5] for i in np.flatnonzero(topical)], dtype=np.int64)
        tt, ss, dd = tt[topical], ss[topical], dd[topical]
        scored = ~np.isnan(ts_sent)  # NULL: the scorer does not cover the record's language
        ts_sent = np.where(scored, ts_sent, 0.0)
        np.add.at(ts_count, (tt, ss, dd), 1)
        np.add.at(ts_scored, (tt, ss, dd), scored.astype(float))
        np.add.at(ts_sum, (tt, ss, dd), ts_sent)
        np.add.at(ts_sq, (tt, ss, dd), ts_sent ** 2)
        np.add.at(topic_hour_count, (tt, dd, np.clip(hours, 0, 23)), 1)
    source_topic = _dominant(ts_count.transpose(1, 0, 2))
    ids = np.concatenate(rec_id) if rec_id else np.zeros(0, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    loaded = LoadedRecords(ids[order], (np.concatenate(rec_d) if rec_d else np.zeros(0, np.int32))[order],
                           (np.concatenate(rec_t) if rec_t else np.zeros(0, np.int32))[order])
    del rec_id, rec_d, rec_t, ids, order

    entities: list = []
    entity_count = np.zeros((0, n_days))
    entity_topic = np.zeros((0, n_days), dtype=int)
    entity_info: dict = {}
    # (entity, topic row + 1, day) -> records mentioning the entity, summed batch by batch
    width = (n_t + 1) * n_days
    totals = pd.Series(dtype=np.int64)
    cursor = conn.execute(
        "SELECT m.record_id, m.entity_id FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE r.day >= ? AND r.day <= ?", span)
    while rows := cursor.fetchmany(ROWS_BATCH):
        rid = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        eid = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        pos, here = loaded.find(rid)
        keys = eid[here] * width + (loaded.t[pos] + 1).astype(np.int64) * n_days + loaded.d[pos]
        values, counts = np.unique(keys, return_counts=True)
        totals = totals.add(pd.Series(counts, index=values), fill_value=0).astype(np.int64)
    if len(totals):
        keys = totals.index.to_numpy(np.int64)
        ee, rest = np.divmod(keys, width)
        t1, dd = np.divmod(rest, n_days)
        n = totals.to_numpy()
        per_day = pd.Series(n).groupby([ee, dd]).sum()
        busiest = per_day.groupby(level=0).max()
        entities = sorted(int(e) for e in busiest[busiest >= min_entity_count].index)
        if entities:
            e_index = {e: i for i, e in enumerate(entities)}
            kept = np.isin(ee, entities)
            rows_e = np.array([e_index[int(e)] for e in ee[kept]], dtype=np.int64)
            entity_count = np.zeros((len(entities), n_days))
            np.add.at(entity_count, (rows_e, dd[kept]), n[kept])
            topical_m = t1[kept] >= 1
            e_rows, e_topics = rows_e[topical_m], t1[kept][topical_m] - 1
            e_days, e_n = dd[kept][topical_m], n[kept][topical_m]
            # each entity's dominant topic per day, ENTITY_BLOCK entities at a time: the dense
            # (entity, topic, day) counts grew with the entities (63 MiB at 300,000 records)
            entity_topic = np.full((len(entities), n_days), -1, dtype=int)
            for lo in range(0, len(entities), ENTITY_BLOCK):
                block = min(ENTITY_BLOCK, len(entities) - lo)
                sel = (e_rows >= lo) & (e_rows < lo + block)
                et = np.zeros((block, n_t, n_days))
                np.add.at(et, (e_rows[sel] - lo, e_topics[sel], e_days[sel]), e_n[sel])
                entity_topic[lo:lo + block] = _dominant(et)
            for chunk_start in range(0, len(entities), 900):
                chunk = entities[chunk_start:chunk_start + 900]
                marks = ",".join("?" * len(chunk))
                for r in conn.execute(f"SELECT id, name, slug, type FROM entities WHERE id IN ({marks})",
                                      chunk):
                    entity_info[r[0]] = (r[1], r[2], r[3])

    term_list, term_count, term_topic = [], np.zeros((0, n_days)), np.zeros((0, n_days), dtype=int)
    if terms:
        from corpuskit.analysis.signals.terms import term_counts

        known = {r[0].lower() for r in conn.execute("SELECT name FROM entities")}
        known |= {r[0].lower() for r in conn.execute("SELECT alias_key FROM entity_aliases")}
        term_list, term_count, term_topic = term_counts(conn, loaded, n_days, n_t, min_entity_count, known)

    return DailySeries(
        terms=term_list, term_count=term_count, term_topic=term_topic,
        days=days, topics=topics, topic_names=topic_names, topic_labels=topic_labels,
        sources=sources, entities=entities, entity_info=entity_info,
        topic_count=ts_count.sum(axis=1), topic_sum=ts_sum.sum(axis=1), topic_sq=ts_sq.sum(axis=1),
        ts_count=ts_count, ts_sum=ts_sum, ts_sq=ts_sq, topic_hour_count=topic_hour_count,
        topic_scored=ts_scored.sum(axis=1), ts_scored=ts_scored,
        source_count=source_count, source_topic=source_topic,
        entity_count=entity_count, entity_topic=entity_topic,
    )


#: rows of the records and mentions queries read at a time
ROWS_BATCH = 50_000
#: entities whose per-topic daily counts are held at once while finding their dominant topic
ENTITY_BLOCK = 128


@dataclass
class LoadedRecords:
    """The loaded records' ids (sorted) with each one's day index ``d`` and topic row ``t`` (-1: none)."""

    ids: np.ndarray
    d: np.ndarray
    t: np.ndarray

    def find(self, record_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(positions, found)``: the positions of the loaded ones among ``record_ids`` (the mask)."""
        pos = np.searchsorted(self.ids, record_ids)
        pos = np.minimum(pos, max(len(self.ids) - 1, 0))
        found = (self.ids[pos] == record_ids) if len(self.ids) else np.zeros(len(record_ids), dtype=bool)
        return pos[found], found


def _dominant(counts: np.ndarray) -> np.ndarray:
    """Index of the largest count along axis 1 (ties: lowest index); -1 where all are zero."""
    if counts.shape[1] == 0:
        return np.full((counts.shape[0], counts.shape[2]), -1, dtype=int)
    best = counts.argmax(axis=1)
    return np.where(counts.max(axis=1) > 0, best, -1)

