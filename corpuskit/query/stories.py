"""Stories and arcs: the one story filter, and the keyset pages ``/v1`` lists them by.

:func:`story_where` is every filter a story list takes (current versions, topic, entity, kind,
featured, a period's key, a time window); the narration read functions
(:mod:`corpuskit.narrate.read`), the DataFrames and ``/v1`` build their lists on it. Sort orders:
stories ``publish_at`` desc then ``id`` desc; arcs ``last_updated_at`` desc then ``id`` desc (see
:mod:`corpuskit.query.records` for the keyset convention).
"""
from __future__ import annotations

from corpuskit.errors import ValidationError
from corpuskit.query.values import STORY_KINDS
from corpuskit.query.where import Where

_STORY_LIST = (
    "SELECT s.id, s.slug, s.headline, s.publish_at, t.name AS beat, s.signal_severity, s.read_min "
    "FROM stories s LEFT JOIN topics t ON t.id = s.topic_id"
)


def story_where(topic_id=None, entity_id=None, since=None, until=None, kind=None, topic=None,
                featured=None, time_column: str = "publish_at", current: bool = True,
                key_prefix: str | None = None) -> Where:
    """The conditions over ``stories s`` (with ``topics t`` joined when ``topic``, a topic name, is given).

    ``current`` keeps current versions only; ``topic_id``/``entity_id`` the story's subject;
    ``kind`` one of :data:`~corpuskit.query.STORY_KINDS` (else :class:`ValidationError`);
    ``featured`` True or False; ``key_prefix`` stories whose key starts with it (a period's
    stories); ``since``/``until`` stored timestamps bounding ``time_column`` inclusively.
    """
    where = Where(*(["s.is_current = 1"] if current else []))
    where.equal("s.topic_id", None if topic_id is None else int(topic_id))
    where.equal("s.entity_id", None if entity_id is None else int(entity_id))
    where.equal("t.name", topic)
    if kind is not None:
        if kind not in STORY_KINDS:
            raise ValidationError(f"unknown narrative type {kind!r}; expected one of {', '.join(STORY_KINDS)}")
        where.equal("s.kind", kind)
    where.equal("s.featured", None if featured is None else (1 if featured else 0))
    if key_prefix is not None:
        where.add("s.story_key LIKE ? ESCAPE '\\'",
                  key_prefix.replace("_", "\\_").replace("%", "\\%") + "%")
    where.bound(f"s.{time_column}", "since", since).bound(f"s.{time_column}", "until", until)
    return where


def story_count(conn, topic_id=None, entity_id=None, since=None, until=None) -> int:
    """How many current stories :func:`story_page` lists under these filters."""
    where = story_where(topic_id, entity_id, since, until)
    return conn.execute(f"SELECT count(*) FROM stories s{where.sql()}", where.args).fetchone()[0]


def story_page(conn, topic_id=None, entity_id=None, since=None, until=None, after=None, limit: int = 20):
    """``(rows, total)`` of current stories, newest ``publish_at`` first."""
    total = story_count(conn, topic_id, entity_id, since, until)
    where = story_where(topic_id, entity_id, since, until)
    if after is not None:
        where.add("(s.publish_at < ? OR (s.publish_at = ? AND s.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(f"{_STORY_LIST}{where.sql()} ORDER BY s.publish_at DESC, s.id DESC LIMIT ?",
                        where.args + [limit + 1]).fetchall()
    return rows, total


def story_rows(conn, kind=None, current: bool = True, key_prefix: str | None = None) -> list:
    """Stories for the DataFrame view, newest ``publish_at`` first: ``(id, slug, kind, version,
    is_current, headline, lede, topic name, entity name, signal_severity, trigger_signal_id,
    featured, citations, source_count, read_min, publish_at, generated_at)``."""
    where = story_where(kind=kind, current=current, key_prefix=key_prefix)
    sql = ("SELECT s.id, s.slug, s.kind, s.version, s.is_current, s.headline, s.lede, t.name, en.name, "
           "s.signal_severity, s.trigger_signal_id, s.featured, "
           "(SELECT count(*) FROM story_citations c WHERE c.story_id = s.id), s.source_count, "
           "s.read_min, s.publish_at, s.generated_at FROM stories s "
           "LEFT JOIN topics t ON t.id = s.topic_id LEFT JOIN entities en ON en.id = s.entity_id")
    return [tuple(r) for r in conn.execute(sql + where.sql() + " ORDER BY s.publish_at DESC, s.id DESC",
                                           where.args)]


def arc_page(conn, after=None, limit: int = 20):
    """``(rows, total)`` of arcs, most recently updated first."""
    total = conn.execute("SELECT count(*) FROM arcs").fetchone()[0]
    where = Where()
    if after is not None:
        where.add("(a.last_updated_at < ? OR (a.last_updated_at = ? AND a.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(f"SELECT a.* FROM arcs a{where.sql()} ORDER BY a.last_updated_at DESC, a.id DESC "
                        "LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total
