"""Signals: the one signal filter, the lists both HTTP interfaces and the DataFrames read, evidence and events.

:func:`signal_where` is every filter a signal list takes (the kinds an interface serves, a kind,
severity, status, topic and a detection window). Sort orders: ``detected_at`` desc then ``id`` desc
(the DataFrame: ascending); the feed puts open signals first. Which stored kinds an interface serves
and what it calls them is the interface's business: callers pass ``kinds``.
"""
from __future__ import annotations

from corpuskit.query.where import Where


def signal_where(kinds=None, kind=None, severity=None, status=None, topic_id=None,
                 since=None, until=None) -> Where:
    """The conditions over ``signals s``: ``kinds`` (stored kinds, any of them), ``kind`` (one
    stored kind), ``severity``, ``status``, ``topic_id``, and ``since``/``until`` (stored
    timestamps bounding ``detected_at`` inclusively); None means no condition."""
    where = Where()
    if kinds is not None:
        kinds = tuple(kinds)
        where.add(f"s.kind IN ({', '.join('?' * len(kinds))})", *kinds)
    for column, value in (("s.kind", kind), ("s.severity", severity), ("s.status", status),
                          ("s.topic_id", topic_id)):
        where.equal(column, value)
    return where.bound("s.detected_at", "since", since).bound("s.detected_at", "until", until)


def signal_page(conn, kinds=None, kind=None, severity=None, status=None, after=None, limit: int = 20):
    """``(rows, total)`` of signals (every column), newest first, as a keyset page."""
    where = signal_where(kinds, kind, severity, status)
    total = conn.execute(f"SELECT count(*) FROM signals s{where.sql()}", where.args).fetchone()[0]
    if after is not None:
        where.add("(s.detected_at < ? OR (s.detected_at = ? AND s.id < ?))", after[0], after[0], after[1])
    rows = conn.execute(
        f"SELECT s.* FROM signals s{where.sql()} ORDER BY s.detected_at DESC, s.id DESC LIMIT ?",
        where.args + [limit + 1],
    ).fetchall()
    return rows, total


def signal_offset_page(conn, topic_id=None, severity=None, since=None, limit: int = 50, offset: int = 0):
    """``(rows, total)``: signals of every kind with their topic's name (``topic_name``), newest
    first, as an offset page."""
    where = signal_where(severity=severity, topic_id=topic_id, since=since)
    clause, args = where.sql(), where.args
    total = conn.execute("SELECT count(*) FROM signals s" + clause, args).fetchone()[0]
    rows = conn.execute(
        "SELECT s.*, t.name AS topic_name FROM signals s LEFT JOIN topics t ON t.id = s.topic_id"
        + clause + " ORDER BY s.detected_at DESC, s.id DESC LIMIT ? OFFSET ?",
        args + [limit, offset],
    ).fetchall()
    return rows, total


def signal_rows(conn, kind=None, severity=None, status=None, topic_id=None, since=None, until=None) -> list:
    """Signals for the DataFrame view, oldest detection first: ``(id, kind, topic name, entity name,
    source, severity, sigma_score, headline, detail, detected_at, status, resolved_at, acknowledged,
    narrative_id, run_id, signal_key)``."""
    where = signal_where(kind=kind, severity=severity, status=status, topic_id=topic_id,
                         since=since, until=until)
    sql = ("SELECT s.id, s.kind, t.name, en.name, s.source, s.severity, s.sigma_score, s.headline, "
           "s.detail, s.detected_at, s.status, s.resolved_at, s.acknowledged, s.narrative_id, s.run_id, "
           "s.signal_key FROM signals s LEFT JOIN topics t ON t.id = s.topic_id "
           "LEFT JOIN entities en ON en.id = s.entity_id")
    return [tuple(r) for r in conn.execute(sql + where.sql() + " ORDER BY s.detected_at, s.id", where.args)]


def signal_feed(conn, kinds, limit: int):
    """The newest signals of ``kinds``, open ones first, with their topic's name and display name
    (``topic_slug``, ``topic_label``)."""
    where = signal_where(kinds)
    return conn.execute(
        "SELECT s.*, t.name AS topic_slug, t.display_name AS topic_label FROM signals s "
        f"LEFT JOIN topics t ON t.id = s.topic_id{where.sql()} "
        "ORDER BY (s.status = 'open') DESC, s.detected_at DESC, s.id DESC LIMIT ?", where.args + [limit],
    ).fetchall()


def recent_topic_signals(conn, topic_id: int, n: int) -> list:
    """A topic's ``n`` newest signals: ``(kind, severity, headline, detected_at)``."""
    return conn.execute(
        "SELECT kind, severity, headline, detected_at FROM signals WHERE topic_id = ? "
        "ORDER BY detected_at DESC, id DESC LIMIT ?", (topic_id, n),
    ).fetchall()


def signal_evidence_rows(conn, signal_id: int) -> dict:
    """A signal's stored evidence per kind: ``records`` ``(id, source, sentiment_score)`` newest
    first; ``entities`` ``(id, name, type)``, ``topics`` ``(id, display_name)`` and ``stories``
    ``(id, headline)`` by id."""
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
    """The newest signal event's id (0 when there is none)."""
    return conn.execute("SELECT coalesce(max(id), 0) FROM signal_events").fetchone()[0]


def signal_events_after(conn, after: int, limit: int = 500) -> list:
    """Up to ``limit`` signal events after event ``after``, oldest first: ``(event_id, id, kind,
    severity, sigma_score, detected_at)`` of the signal each event is about."""
    return conn.execute(
        "SELECT ev.id AS event_id, s.id, s.kind, s.severity, s.sigma_score, s.detected_at "
        "FROM signal_events ev JOIN signals s ON s.id = ev.signal_id WHERE ev.id > ? "
        "ORDER BY ev.id LIMIT ?", (after, limit)).fetchall()
