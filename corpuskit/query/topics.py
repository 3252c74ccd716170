"""Topics as the HTTP interfaces list them: a keyset page by id, one topic's figures, its most
confident records and its volume by source.

Lookups by name are :func:`corpuskit.query.topic_by_name` and :func:`corpuskit.query.topic_rows`.
"""
from __future__ import annotations

from corpuskit.query.where import Where

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
_RECORD_COLUMNS = ("SELECT r.id, r.source, r.title, r.url, r.published_at, e.sentiment_score, "
                   "e.sentiment_label, CASE WHEN coalesce(r.title, '') = '' THEN substr(r.content_text, 1, 2000) "
                   "END AS text_head FROM records r ")
_TIES_BY_RECORDS = 2000   # from this many equally confident records, read records newest first


def topic_page(conn, after=None, limit: int = 20):
    """``(rows, total)`` of topics by id: ``(id, name, display_name, keywords, record_count,
    last_activity)``; ``record_count`` counts the topic's assignments."""
    total = conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    where = Where()
    if after is not None:
        where.add("t.id > ?", after[0])
    rows = conn.execute(f"{_TOPIC_LIST}{where.sql()} ORDER BY t.id LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total


def topic_list_row(conn, topic_id: int):
    """One topic as :func:`topic_page` lists it, or None."""
    return conn.execute(f"{_TOPIC_LIST} WHERE t.id = ?", (topic_id,)).fetchone()


def topic_exists(conn, topic_id: int) -> bool:
    """Whether the corpus has a topic with this id."""
    return conn.execute("SELECT 1 FROM topics WHERE id = ?", (topic_id,)).fetchone() is not None


def topic_story_count(conn, topic_id: int) -> int:
    """How many current stories are about the topic."""
    return conn.execute("SELECT count(*) FROM stories WHERE topic_id = ? AND is_current = 1",
                        (topic_id,)).fetchone()[0]


def topic_sample_records(conn, topic_id: int, n: int = 5):
    """The topic's ``n`` most confident records (newest first among equals): ``(id, source, title,
    url, published_at, sentiment_score, sentiment_label)``.

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


def topic_volume(conn, topic_id: int, name: str) -> list:
    """``[(source, records)]`` of a topic under :data:`corpuskit.query.PRIMARY_TOPIC_RULE`, most first
    (ties: source).

    The rule's two halves are disjoint and each is read through an index (the
    topic's enrichment rows; the records whose import named it, with no
    enriched topic) rather than by scanning every record.
    """
    volume: dict = {}
    for source, n in conn.execute(
            "SELECT r.source, count(*) FROM enrichment e JOIN records r ON r.id = e.record_id "
            "WHERE e.topic_id = ? GROUP BY r.source", (topic_id,)):
        volume[source] = n
    for source, n in conn.execute(
            "SELECT r.source, count(*) FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
            "WHERE r.topic = ? AND e.topic_id IS NULL GROUP BY r.source", (name,)):
        volume[source] = volume.get(source, 0) + n
    return sorted(volume.items(), key=lambda v: (-v[1], v[0]))
