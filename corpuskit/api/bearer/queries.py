"""SQL for the ``/v1`` lists: keyset pages, totals and small lookups.

Every list function takes ``after`` (the sort key of the previous page's last
row, or None) and ``limit``, and fetches ``limit + 1`` rows so the caller
knows whether a next page exists. Sort orders (all ending in a unique id, so
keysets are total orders):

- records: ``published_at`` desc, ``id`` desc
- record entity mentions: ``mention_count`` desc, ``entity_id`` asc
- stories (current versions only): ``publish_at`` desc, ``id`` desc
- signals: ``detected_at`` desc, ``id`` desc
- topics: ``id`` asc
- entities: ``mention_count`` desc, ``id`` asc; the slug drain: ``slug`` asc
- arcs: ``last_updated_at`` desc, ``id`` desc
"""
from __future__ import annotations

import json

from corpuskit.analysis.signals.kinds import STORED_TO_V1, V1_KINDS, sql_names
from corpuskit.api.rowsets import fetch_rows
from corpuskit.api.response_cache import cached_total
from corpuskit.query import Where, stored_record_count

# /v1 signal kind -> stored kind, and back: the registered kinds that declare a /v1 name (live views of
# corpuskit.analysis.signals.kinds; a kind without one, as sentiment_shift, is not served there).
V1_SIGNAL_KINDS = V1_KINDS
STORED_TO_V1_KIND = STORED_TO_V1
SITEMAP_PAGE_SIZE = 500


# -- records ------------------------------------------------------------------
_RECORD_COLUMNS = ("SELECT r.id, r.source, r.title, r.url, r.published_at, e.sentiment_score, "
                   "e.sentiment_label FROM records r ")


def record_page(conn, source=None, sentiment=None, since=None, until=None, after=None, limit=20, q=None):
    """``(rows, total)`` of records, newest first; ``q`` a query (:func:`corpuskit.query.compile_query`)."""
    where = Where().text_query(q)
    join = "LEFT JOIN enrichment e ON e.record_id = r.id"
    if sentiment is not None:
        join = "JOIN enrichment e ON e.record_id = r.id"
        where.add("e.sentiment_label = ?", sentiment)
    if source is not None:
        where.add("r.source = ?", source)
    if since is not None:
        where.add("r.published_at >= ?", since)
    if until is not None:
        where.add("r.published_at <= ?", until)
    count_join = "" if sentiment is None else join   # a LEFT JOIN on a key never changes the count
    total = None
    if q is None and since is None and until is None:
        # the counts analyse keeps cover the source and sentiment filters (None while they are stale)
        total = stored_record_count(conn, source=source, sentiment=sentiment)
    if total is None:
        total = cached_total(conn, f"SELECT count(*) FROM records r {count_join}{where.sql()}", where.args)
    if after is not None:
        where.add("(r.published_at < ? OR (r.published_at = ? AND r.id < ?))", after[0], after[0], after[1])
    rows = fetch_rows(conn, _RECORD_LIST,
                      f"FROM records r {join}{where.sql()} ORDER BY r.published_at DESC, r.id DESC LIMIT ?",
                      where.args + [limit + 1], order_key=_newest_first)
    return rows, total


_RECORD_LIST = (("id", "r.id", False), ("source", "r.source", False), ("title", "r.title", False),
                ("url", "r.url", False), ("published_at", "r.published_at", False),
                ("sentiment_score", "e.sentiment_score", True), ("sentiment_label", "e.sentiment_label", False))


def _newest_first(row):
    return row["published_at"], row["id"]


def record_row(conn, record_id: int):
    """One record with its enrichment, or None."""
    return conn.execute(
        "SELECT r.*, e.sentiment_score, e.sentiment_label FROM records r "
        "LEFT JOIN enrichment e ON e.record_id = r.id WHERE r.id = ?", (record_id,)
    ).fetchone()


def record_exists(conn, record_id: int) -> bool:
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


def mention_page(conn, record_id: int, after=None, limit=20):
    """``(rows, total)`` of a record's entity mentions, most mentioned first."""
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
    return conn.execute(
        "SELECT t.id, t.display_name, t.name, ta.confidence FROM topic_assignments ta "
        "JOIN topics t ON t.id = ta.topic_id WHERE ta.record_id = ? ORDER BY ta.confidence DESC, t.id",
        (record_id,),
    ).fetchall()


# -- stories --------------------------------------------------------------------
_STORY_LIST = (
    "SELECT s.id, s.slug, s.headline, s.publish_at, t.name AS beat, s.signal_severity, s.read_min "
    "FROM stories s LEFT JOIN topics t ON t.id = s.topic_id"
)


def _story_clauses(topic_id=None, entity_id=None, since=None, until=None):
    where = Where("s.is_current = 1")
    for column, value in (("s.topic_id = ?", topic_id), ("s.entity_id = ?", entity_id),
                          ("s.publish_at >= ?", since), ("s.publish_at <= ?", until)):
        if value is not None:
            where.add(column, value)
    return where


def story_count(conn, topic_id=None, entity_id=None, since=None, until=None) -> int:
    where = _story_clauses(topic_id, entity_id, since, until)
    return conn.execute(f"SELECT count(*) FROM stories s{where.sql()}", where.args).fetchone()[0]


def story_page(conn, topic_id=None, entity_id=None, since=None, until=None, after=None, limit=20):
    """``(rows, total)`` of current stories, newest ``publish_at`` first."""
    total = story_count(conn, topic_id, entity_id, since, until)
    where = _story_clauses(topic_id, entity_id, since, until)
    if after is not None:
        where.add("(s.publish_at < ? OR (s.publish_at = ? AND s.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(f"{_STORY_LIST}{where.sql()} ORDER BY s.publish_at DESC, s.id DESC LIMIT ?",
                        where.args + [limit + 1]).fetchall()
    return rows, total


# -- signals --------------------------------------------------------------------
def _signal_served() -> str:
    """The signal is of a kind ``/v1`` serves."""
    return f"s.kind IN ({sql_names(V1_SIGNAL_KINDS.values())})"


def signal_page(conn, kind=None, severity=None, status=None, after=None, limit=20):
    """``(rows, total)`` of signals served by ``/v1``, newest first."""
    where = Where(_signal_served())
    for column, value in (("s.kind = ?", V1_SIGNAL_KINDS.get(kind) if kind else None),
                          ("s.severity = ?", severity), ("s.status = ?", status)):
        if value is not None:
            where.add(column, value)
    total = conn.execute(f"SELECT count(*) FROM signals s{where.sql()}", where.args).fetchone()[0]
    if after is not None:
        where.add("(s.detected_at < ? OR (s.detected_at = ? AND s.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(
        f"SELECT s.* FROM signals s{where.sql()} ORDER BY s.detected_at DESC, s.id DESC LIMIT ?",
        where.args + [limit + 1],
    ).fetchall()
    return rows, total


def signal_feed(conn, limit: int):
    """The newest served signals, open ones first."""
    return conn.execute(
        "SELECT s.*, t.name AS topic_slug, t.display_name AS topic_label FROM signals s "
        f"LEFT JOIN topics t ON t.id = s.topic_id WHERE {_signal_served()} "
        "ORDER BY (s.status = 'open') DESC, s.detected_at DESC, s.id DESC LIMIT ?", (limit,),
    ).fetchall()


def signal_evidence(conn, signal_id: int) -> dict:
    """Evidence rows per kind: records, entities, topics, stories."""
    records = conn.execute(
        "SELECT r.id, r.source, e.sentiment_score FROM signal_evidence ev JOIN records r ON r.id = ev.ref_id "
        "LEFT JOIN enrichment e ON e.record_id = r.id WHERE ev.signal_id = ? AND ev.ref_kind = 'record' "
        "ORDER BY r.published_at DESC, r.id DESC", (signal_id,)).fetchall()
    entities = conn.execute(
        "SELECT en.id, en.name, en.type FROM signal_evidence ev JOIN entities en ON en.id = ev.ref_id "
        "WHERE ev.signal_id = ? AND ev.ref_kind = 'entity' ORDER BY en.id", (signal_id,)).fetchall()
    topics = conn.execute(
        "SELECT t.id, t.display_name FROM signal_evidence ev JOIN topics t ON t.id = ev.ref_id "
        "WHERE ev.signal_id = ? AND ev.ref_kind = 'topic' ORDER BY t.id", (signal_id,)).fetchall()
    stories = conn.execute(
        "SELECT s.id, s.headline FROM signal_evidence ev JOIN stories s ON s.id = ev.ref_id "
        "WHERE ev.signal_id = ? AND ev.ref_kind = 'story' ORDER BY s.id", (signal_id,)).fetchall()
    return {"records": records, "entities": entities, "topics": topics, "stories": stories}


def last_signal_event(conn) -> int:
    return conn.execute("SELECT coalesce(max(id), 0) FROM signal_events").fetchone()[0]


# -- topics ---------------------------------------------------------------------
_TOPIC_LIST = (
    "SELECT t.id, t.name, t.display_name, t.keywords, "
    "(SELECT count(*) FROM topic_assignments ta WHERE ta.topic_id = t.id) AS record_count, "
    # newest first through the published_at index, stopping at the first record of the topic
    # (a max() over the topic's join grew with the corpus: 150 ms at 20,000 records, 0.3 ms so)
    # (a topic without records is not searched for)
    "CASE WHEN EXISTS (SELECT 1 FROM topic_assignments t0 WHERE t0.topic_id = t.id) THEN "
    "(SELECT r.published_at FROM records r WHERE EXISTS (SELECT 1 FROM topic_assignments ta "
    " WHERE ta.record_id = r.id AND ta.topic_id = t.id) ORDER BY r.published_at DESC LIMIT 1) END AS last_activity "
    "FROM topics t"
)


def topic_page(conn, after=None, limit=20):
    total = conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    where = Where()
    if after is not None:
        where.add("t.id > ?", after[0])
    rows = conn.execute(f"{_TOPIC_LIST}{where.sql()} ORDER BY t.id LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total


def topic_row(conn, topic_id: int):
    return conn.execute(f"{_TOPIC_LIST} WHERE t.id = ?", (topic_id,)).fetchone()


def topic_exists(conn, topic_id: int) -> bool:
    return conn.execute("SELECT 1 FROM topics WHERE id = ?", (topic_id,)).fetchone() is not None


def topic_story_count(conn, topic_id: int) -> int:
    return conn.execute("SELECT count(*) FROM stories WHERE topic_id = ? AND is_current = 1",
                        (topic_id,)).fetchone()[0]


_TIES_BY_RECORDS = 2000   # from this many equally confident records, read records newest first


def topic_sample_records(conn, topic_id: int, n: int = 5):
    """The topic's ``n`` most confident records (newest first among equals).

    Many records share the top confidence (1.0 for thousands of a topic's records at scale), and
    ordering them by date would read every one. So the records more confident than the ``n``-th
    come first (fewer than ``n``, through the confidence index), then those as confident as it,
    newest first: with many of them, found by walking the records newest first (through the
    ``published_at`` index) until enough are in the topic at that confidence.
    """
    top = [c for (c,) in conn.execute("SELECT confidence FROM topic_assignments WHERE topic_id = ? "
                                      "ORDER BY confidence DESC LIMIT ?", (topic_id, n))]
    if not top:
        return []
    cut = top[-1]
    above = conn.execute(
        f"{_RECORD_COLUMNS}JOIN topic_assignments ta ON ta.record_id = r.id "
        "LEFT JOIN enrichment e ON e.record_id = r.id WHERE ta.topic_id = ? AND ta.confidence > ? "
        "ORDER BY ta.confidence DESC, r.published_at DESC, r.id DESC", (topic_id, cut)).fetchall()
    ties = conn.execute("SELECT count(*) FROM topic_assignments WHERE topic_id = ? AND confidence = ?",
                        (topic_id, cut)).fetchone()[0]
    join = "CROSS JOIN" if ties >= _TIES_BY_RECORDS else "JOIN"
    level = conn.execute(
        f"{_RECORD_COLUMNS}{join} topic_assignments ta ON ta.record_id = r.id AND ta.topic_id = ? "
        "AND ta.confidence = ? LEFT JOIN enrichment e ON e.record_id = r.id "
        "ORDER BY r.published_at DESC, r.id DESC LIMIT ?", (topic_id, cut, n - len(above))).fetchall()
    return above + level


# -- entities -------------------------------------------------------------------
_PUBLIC_ENTITY = "en.mention_count > 0"


def entity_page(conn, type=None, after=None, limit=20):
    """``(rows, total)`` of public entities (mentioned at least once), most mentioned first."""
    where = Where(_PUBLIC_ENTITY)
    if type is not None:
        where.add("en.type = ?", type)
    total = conn.execute(f"SELECT count(*) FROM entities en{where.sql()}", where.args).fetchone()[0]
    if after is not None:
        where.add("(en.mention_count < ? OR (en.mention_count = ? AND en.id > ?))", after[0], after[0], after[1])
    rows = conn.execute(f"SELECT en.* FROM entities en{where.sql()} "
                        "ORDER BY en.mention_count DESC, en.id LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total


def entity_slug_page(conn, after=None, limit=500):
    where = Where(_PUBLIC_ENTITY)
    if after is not None:
        where.add("en.slug > ?", after[0])
    return conn.execute(f"SELECT en.id, en.slug FROM entities en{where.sql()} ORDER BY en.slug LIMIT ?",
                        where.args + [limit + 1]).fetchall()


def entity_sitemap_pages(conn, page_size: int = SITEMAP_PAGE_SIZE):
    """``(pages, total)``: the slug-ordered public entities cut into pages of ``page_size``."""
    rows = conn.execute(
        f"SELECT (row_number() OVER (ORDER BY en.slug) - 1) / ? AS page, en.updated_at "
        f"FROM entities en WHERE {_PUBLIC_ENTITY}", (page_size,)).fetchall()
    pages: dict[int, list] = {}
    for page, updated in rows:
        entry = pages.setdefault(page, [0, None])
        entry[0] += 1
        if updated is not None and (entry[1] is None or updated > entry[1]):
            entry[1] = updated
    return [(p + 1, n, newest) for p, (n, newest) in sorted(pages.items())], len(rows)


# -- arcs -----------------------------------------------------------------------
def arc_page(conn, after=None, limit=20):
    total = conn.execute("SELECT count(*) FROM arcs").fetchone()[0]
    where = Where()
    if after is not None:
        where.add("(a.last_updated_at < ? OR (a.last_updated_at = ? AND a.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(f"SELECT a.* FROM arcs a{where.sql()} ORDER BY a.last_updated_at DESC, a.id DESC "
                        "LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total


def json_field(text, default):
    """Decode a stored JSON column, falling back to ``default`` on NULL or bad JSON."""
    if text is None:
        return default
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default
