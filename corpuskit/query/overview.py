"""A corpus at a glance: the counts, span, topics and newest runs a landing page shows.

Aggregates and public names only: no key, file path or run settings.
"""
from __future__ import annotations


def corpus_counts(conn) -> dict:
    """``{records_first, records_last, topics, entities, signals, stories}``: the first and last
    ``published_at`` and how many topics, entities, signals and current stories there are."""
    first, last = conn.execute("SELECT (SELECT min(published_at) FROM records), "
                               "(SELECT max(published_at) FROM records)").fetchone()
    return {"records_first": first, "records_last": last,
            "topics": conn.execute("SELECT count(*) FROM topics").fetchone()[0],
            "entities": conn.execute("SELECT count(*) FROM entities").fetchone()[0],
            "signals": conn.execute("SELECT count(*) FROM signals").fetchone()[0],
            "stories": conn.execute("SELECT count(*) FROM stories WHERE is_current = 1").fetchone()[0]}


def most_assigned_topics(conn, n: int) -> list:
    """The ``n`` topics with the most assigned records: ``(name, display_name, active, records)``,
    most first (ties: name)."""
    return conn.execute(
        "SELECT t.name, t.display_name, t.active, "
        "(SELECT count(*) FROM topic_assignments ta WHERE ta.topic_id = t.id) AS n "
        "FROM topics t ORDER BY n DESC, t.name LIMIT ?", (n,)).fetchall()


def last_runs(conn) -> list:
    """The newest run of each stage, newest first: ``(stage, id, status, started_at, finished_at)``."""
    return conn.execute(
        "SELECT r.stage, r.id, r.status, r.started_at, r.finished_at FROM runs r "
        "WHERE r.rowid = (SELECT r2.rowid FROM runs r2 WHERE r2.stage = r.stage "
        "                 ORDER BY r2.started_at DESC, r2.rowid DESC LIMIT 1) "
        "ORDER BY r.started_at DESC, r.stage").fetchall()


def record_facets(conn) -> dict:
    """What a record filter can choose from: ``{sources, languages, topics, first, last}``: the
    distinct sources and languages of the records (sorted; a record without a language is left
    out), every topic name (sorted) and the first and last ``published_at`` (None when empty).
    Each list is read from an index by jumping from one value to the next (one lookup per distinct
    value, not a scan of the index), so this stays fast on a million records."""
    # two sub-queries: each reads one end of the index, where min and max in one SELECT scan it
    first, last = conn.execute("SELECT (SELECT min(published_at) FROM records), "
                               "(SELECT max(published_at) FROM records)").fetchone()
    return {"sources": _distinct(conn, "source"), "languages": _distinct(conn, "language"),
            "topics": [r[0] for r in conn.execute("SELECT name FROM topics ORDER BY name")],
            "first": first, "last": last}


def _distinct(conn, column: str) -> list:
    """The distinct non-null values of an indexed ``records`` column, sorted: each the smallest value
    above the one before (a loose index scan)."""
    return [r[0] for r in conn.execute(
        f"WITH RECURSIVE v(x) AS (SELECT min({column}) FROM records UNION ALL "
        f"SELECT (SELECT min({column}) FROM records WHERE {column} > v.x) FROM v WHERE v.x IS NOT NULL) "
        "SELECT x FROM v WHERE x IS NOT NULL")]
