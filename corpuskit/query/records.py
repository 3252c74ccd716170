"""Records for the HTTP interfaces: pages of a :class:`~corpuskit.query.RecordFilter`, one record and its parts.

Two pages over the same filter:

- :func:`record_page`: a keyset page, ``published_at`` desc then ``id`` desc (``/v1/records``);
- :func:`record_json_page`: an offset page, ``captured_at`` desc then ``id`` desc, each record
  rendered by SQLite itself as the JSON text of an expression the caller passes (``/api/v1/discourse``,
  whose shape only :mod:`corpuskit.api` writes), so a page is one query and no per-row Python work.

Totals come from the counts analyse keeps when the filter is one they cover, else from a count
remembered until the data change (:func:`corpuskit.query.remembered.cached_total`).

Every keyset list here and in the other read modules takes ``after`` (the sort key of the previous
page's last row, or None) and ``limit``, and fetches ``limit + 1`` rows so the caller knows whether a
next page exists; every sort order ends in a unique id, so keysets are total orders.
"""
from __future__ import annotations

import json

from corpuskit.query.record_filter import RECORDS_FROM, RecordFilter
from corpuskit.query.remembered import cached_total
from corpuskit.query.rowsets import fetch_rows
from corpuskit.query.stored_counts import stored_record_count
from corpuskit.query.where import Where

#: The columns of a :func:`record_page` row: ``(name, SQL expression, is a real number)``.
RECORD_LIST = (("id", "r.id", False), ("source", "r.source", False), ("title", "r.title", False),
               ("url", "r.url", False), ("published_at", "r.published_at", False),
               ("sentiment_score", "e.sentiment_score", True), ("sentiment_label", "e.sentiment_label", False),
               ("text_head", "CASE WHEN coalesce(r.title, '') = '' THEN substr(r.content_text, 1, 2000) END", False))
#: What :func:`record_json_page`'s item expression may read: the record ``r``, its enrichment ``e``
#: and its primary topic ``t``.
RECORD_JSON_FROM = RECORDS_FROM + " LEFT JOIN topics t ON t.id = e.topic_id"


def record_total(conn, flt: RecordFilter, where: Where | None = None) -> int:
    """How many records ``flt`` selects (``where``: its conditions, when already built).

    Read from the counts analyse keeps when ``flt`` sets only source, topic and sentiment and
    they are current; else counted (over ``records r`` alone when no condition reads the
    enrichment) and remembered until the data change.
    """
    where = flt.where(conn) if where is None else where
    total = None
    if flt.counts_stored:
        topic = None if flt.topic is None else (flt.topic_id(conn), str(flt.topic))
        total = stored_record_count(conn, topic=topic, source=flt.source, sentiment=flt.sentiment)
    if total is None:
        source = RECORDS_FROM if flt.reads_enrichment else "records r"
        total = cached_total(conn, f"SELECT count(*) FROM {source}{where.sql()}", where.args)
    return total


def _newest_first(row):
    return row["published_at"], row["id"]


def record_page(conn, flt: RecordFilter, after=None, limit: int = 20):
    """``(rows, total)``: the records ``flt`` selects, newest ``published_at`` first (ties: id),
    as dicts of :data:`RECORD_LIST`."""
    where = flt.where(conn)
    total = record_total(conn, flt, where)
    if after is not None:
        where.add("(r.published_at < ? OR (r.published_at = ? AND r.id < ?))", after[0], after[0], after[1])
    rows = fetch_rows(conn, RECORD_LIST,
                      f"FROM {RECORDS_FROM}{where.sql()} ORDER BY r.published_at DESC, r.id DESC LIMIT ?",
                      where.args + [limit + 1], order_key=_newest_first)
    return rows, total


def record_json_page(conn, flt: RecordFilter, item: str, limit: int, offset: int) -> tuple[list[str], int]:
    """``(records as JSON texts, total)`` for one page of ``flt``, ``captured_at`` descending (ties:
    id descending); each text is the SQL expression ``item`` over :data:`RECORD_JSON_FROM`."""
    where = flt.where(conn)
    clause, args = where.sql(), where.args
    total = record_total(conn, flt, where)
    order = " ORDER BY r.captured_at DESC, r.id DESC LIMIT ? OFFSET ?"
    source = " FROM " + RECORD_JSON_FROM
    # The whole page in one row (one SQLite step, see corpuskit.query.rowsets), with the
    # sort keys beside it: SQLite aggregates a subquery in its order in practice but
    # does not promise to, so the order is checked and the page re-read row by row
    # in the (never yet seen) case it is not.
    joined, keys = conn.execute(
        "SELECT group_concat(item, char(30)), json_group_array(json_array(captured_at, id)) FROM ("
        "SELECT " + item + " AS item, r.captured_at AS captured_at, r.id AS id"
        + source + clause + order + ")", args + [limit, offset]).fetchone()
    keys = [tuple(k) for k in json.loads(keys)]
    if all(a > b for a, b in zip(keys, keys[1:])):
        return (joined.split("\x1e") if joined else []), total
    rows = conn.execute("SELECT " + item + source + clause + order, args + [limit, offset]).fetchall()
    return [r[0] for r in rows], total


def record_row(conn, record_id: int):
    """One record with its enrichment's sentiment, or None."""
    return conn.execute(
        "SELECT r.*, e.sentiment_score, e.sentiment_label FROM records r "
        "LEFT JOIN enrichment e ON e.record_id = r.id WHERE r.id = ?", (record_id,)
    ).fetchone()


def record_exists(conn, record_id: int) -> bool:
    """Whether the corpus has a record with this id."""
    return conn.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone() is not None


def record_embedding(conn, record_id: int):
    """``(blob, model name, dimensions)`` of a record's vector, or None when it has none."""
    row = conn.execute("SELECT embedding FROM record_vectors WHERE record_id = ?", (record_id,)).fetchone()
    if row is None:
        return None
    model = conn.execute(
        "SELECT kind, dimensions FROM models WHERE dimensions IS NOT NULL "
        "ORDER BY (name = 'embedder') DESC, created_at DESC LIMIT 1"
    ).fetchone()
    return row[0], (model[0] if model else None), (model[1] if model else None)


def mention_page(conn, record_id: int, after=None, limit: int = 20):
    """``(rows, total)`` of a record's entity mentions, ``mention_count`` desc then ``entity_id``."""
    total = conn.execute("SELECT count(*) FROM mentions WHERE record_id = ?", (record_id,)).fetchone()[0]
    where = Where().add("m.record_id = ?", record_id)
    if after is not None:
        where.add("(m.mention_count < ? OR (m.mention_count = ? AND m.entity_id > ?))", after[0], after[0], after[1])
    rows = conn.execute(
        "SELECT m.entity_id, en.name, en.type, m.mention_count, m.positions FROM mentions m "
        f"JOIN entities en ON en.id = m.entity_id{where.sql()} "
        "ORDER BY m.mention_count DESC, m.entity_id LIMIT ?", where.args + [limit + 1],
    ).fetchall()
    return rows, total


def record_topics(conn, record_id: int):
    """A record's topic assignments ``(id, display_name, name, confidence)``, most confident first."""
    return conn.execute(
        "SELECT t.id, t.display_name, t.name, ta.confidence FROM topic_assignments ta "
        "JOIN topics t ON t.id = ta.topic_id WHERE ta.record_id = ? ORDER BY ta.confidence DESC, t.id",
        (record_id,),
    ).fetchall()


# Each record of /api/v1/discourse is shaped into JSON by SQLite itself (json_object), so a page of
# records costs one query and no per-row Python work: the hot path of that endpoint. ``topic`` is the
# primary topic from enrichment, else the import hint; ``analysis`` is null until the record is
# enriched, and its ``sentiment`` null for a record in a language the scorer does not cover
# (docs/languages.md).
DISCOURSE_ITEM = """json_object(
    'id', CAST(r.id AS TEXT), 'source', r.source, 'contentType', r.content_type,
    'sourceId', r.source_id, 'title', r.title, 'contentText', r.content_text, 'url', r.url,
    'author', r.author, 'publishedAt', r.published_at, 'capturedAt', r.captured_at,
    'topic', coalesce(t.name, r.topic), 'subreddit', r.subreddit, 'language', r.language,
    'analysis', CASE WHEN e.record_id IS NULL THEN NULL ELSE json_object(
        'sentiment', CASE WHEN e.sentiment_score IS NULL THEN NULL
                     ELSE json_object('label', e.sentiment_label, 'score', e.sentiment_score) END,
        'themes', json(coalesce(e.themes, '[]')),
        'entities', (SELECT json_group_array(json_object('text', m.surface, 'type', en.type)
                                             ORDER BY m.mention_count DESC, en.name, en.id)
                     FROM mentions m JOIN entities en ON en.id = m.entity_id
                     WHERE m.record_id = r.id)) END)"""


def discourse_json_page(conn, flt: RecordFilter, limit: int, offset: int) -> tuple[list[str], int]:
    """``(records as /api/v1/discourse JSON texts, total)`` for one page of ``flt`` (see
    :func:`record_json_page`)."""
    return record_json_page(conn, flt, DISCOURSE_ITEM, limit, offset)
