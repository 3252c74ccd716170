"""Counts of records by topic, source, sentiment and day, read from the tables analyse keeps.

``record_counts`` holds the records per published day, primary topic (or import hint), source and
sentiment label; ``topic_day_counts`` the topic assignments per topic and day (both written by
:func:`corpuskit.analysis.record_counts.build_record_counts`). They are stamped with the inputs they
were computed from (``meta`` key ``record_counts``): the newest record, enrichment and
topic-assignment row ids and the number of runs of the stages that write records, enrichment or
topics (every stage but ``analyse`` and ``narrate``). :func:`usable` compares that stamp with the
corpus as it is now; the readers here return None when it differs (or the tables were never built),
and the caller then counts live, so an answer is always the one the live count gives.
"""
from __future__ import annotations

import json

META_KEY = "record_counts"

STAMP_SQL = (
    "SELECT (SELECT max(id) FROM records), (SELECT max(record_id) FROM enrichment), "
    "(SELECT max(rowid) FROM topic_assignments), "
    "(SELECT count(*) FROM runs WHERE stage NOT IN ('analyse', 'narrate'))")


def inputs_stamp(conn) -> list:
    """What the stored counts are computed from, as a JSON-able list (see the module docstring)."""
    return list(conn.execute(STAMP_SQL).fetchone())


def stamp_holds(conn, meta_key: str, stamp_sql: str) -> bool:
    """Whether the ``stamp`` stored under ``meta_key`` equals the row ``stamp_sql`` (a ``SELECT``
    of sub-queries) gives now: one query. What a table kept by analyse checks before it is read."""
    row = conn.execute("SELECT (SELECT value FROM meta WHERE key = ?), " + stamp_sql[len("SELECT "):],
                       (meta_key,)).fetchone()
    if row[0] is None:
        return False
    try:
        stored = json.loads(row[0])
    except ValueError:
        return False
    return isinstance(stored, dict) and stored.get("stamp") == list(row[1:])


def usable(conn) -> bool:
    """Whether the stored counts describe the corpus as it is now (one query)."""
    return stamp_holds(conn, META_KEY, STAMP_SQL)


def stored_record_count(conn, topic=None, source=None, sentiment=None):
    """How many records match every filter given, from ``record_counts``; None when it is stale.

    ``topic`` is ``(topic id, topic name)``: records in it by the one membership rule
    (:data:`corpuskit.query.PRIMARY_TOPIC_RULE`); ``source`` a source kind; ``sentiment`` a
    sentiment label (only enriched records have one). Filters left None do not restrict. The
    count equals ``count(*)`` over ``records r LEFT JOIN enrichment e`` with the same conditions.
    """
    if not usable(conn):
        return None
    conditions, args = [], []
    if topic is not None:
        conditions.append("(topic_id = ? OR (topic_id = 0 AND topic_hint = ?))")
        args += [int(topic[0]), topic[1]]
    if source is not None:
        conditions.append("source = ?")
        args.append(source)
    if sentiment is not None:
        conditions.append("sentiment = ?")
        args.append(sentiment)
    where = (" WHERE " + " AND ".join(conditions)) if conditions else ""
    return int(conn.execute("SELECT total(records) FROM record_counts" + where, args).fetchone()[0])


def topic_days(conn, topic_id: int, first_day: str, last_day: str) -> dict:
    """day -> topic assignments of ``topic_id`` on records published that day (days with none left
    out), from ``first_day`` to ``last_day``: the stored counts while they hold, else counted live."""
    stored = stored_topic_days(conn, topic_id, first_day, last_day)
    if stored is not None:
        return stored
    return dict(conn.execute(
        "SELECT r.day, count(*) FROM topic_assignments ta JOIN records r ON r.id = ta.record_id "
        "WHERE ta.topic_id = ? AND r.day BETWEEN ? AND ? GROUP BY r.day",
        (int(topic_id), first_day, last_day)).fetchall())


def stored_topic_days(conn, topic_id: int, first_day: str, last_day: str):
    """day -> topic assignments of ``topic_id`` on records published that day, for the days from
    ``first_day`` to ``last_day`` (ISO dates, inclusive) that have any; None when the counts are stale."""
    if not usable(conn):
        return None
    return dict(conn.execute(
        "SELECT day, records FROM topic_day_counts WHERE topic_id = ? AND day BETWEEN ? AND ?",
        (int(topic_id), first_day, last_day)).fetchall())


def stored_day_source_counts(conn, first_day: str, last_day: str, source: str | None = None):
    """``[(day, source, records)]`` for the days from ``first_day`` to ``last_day`` (inclusive) that
    have records (of ``source`` only, when given), sorted; None when the counts are stale."""
    if not usable(conn):
        return None
    where, args = "day BETWEEN ? AND ?", [first_day, last_day]
    if source is not None:
        where += " AND source = ?"
        args.append(source)
    return [(day, src, int(n)) for day, src, n in conn.execute(
        f"SELECT day, source, sum(records) FROM record_counts WHERE {where} GROUP BY day, source "
        "ORDER BY day, source", args)]


def stored_topic_totals(conn):
    """topic id -> topic assignments over every day (topics with none left out); None when stale."""
    if not usable(conn):
        return None
    return {tid: int(n) for tid, n in conn.execute(
        "SELECT topic_id, sum(records) FROM topic_day_counts GROUP BY topic_id")}
