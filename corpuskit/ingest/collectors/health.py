"""Per-source ingestion health: what ``/v1/sources`` and ``/api/v1/status`` show.

The ``source_health`` table holds one row per collected source: when it was
last attempted, when it last added records, and whether the last attempt
worked (with the reason when it did not). :func:`source_health` joins it with
the records so every source that has records is listed, collected or not.
"""
from __future__ import annotations

from corpuskit.clock import iso


def record_attempt(conn, source: str, when) -> None:
    """Note that ``source`` is being collected at ``when`` (a datetime)."""
    conn.execute(
        "INSERT INTO source_health(source, last_attempt_at) VALUES (?, ?) "
        "ON CONFLICT(source) DO UPDATE SET last_attempt_at = excluded.last_attempt_at",
        (source, iso(when)),
    )


def record_success(conn, source: str, when, added: int) -> None:
    """Mark ``source`` healthy; ``last_ingested_at`` moves only when records were added."""
    stamp = iso(when)
    conn.execute(
        "INSERT INTO source_health(source, last_attempt_at, last_ingested_at, healthy, reason) "
        "VALUES (?, ?, ?, 1, '') ON CONFLICT(source) DO UPDATE SET "
        "last_attempt_at = excluded.last_attempt_at, healthy = 1, reason = '', "
        "last_ingested_at = COALESCE(excluded.last_ingested_at, source_health.last_ingested_at)",
        (source, stamp, stamp if added > 0 else None),
    )


def record_failure(conn, source: str, when, reason: str) -> None:
    """Mark ``source`` unhealthy with ``reason``."""
    conn.execute(
        "INSERT INTO source_health(source, last_attempt_at, healthy, reason) VALUES (?, ?, 0, ?) "
        "ON CONFLICT(source) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, "
        "healthy = 0, reason = excluded.reason",
        (source, iso(when), reason[:500]),
    )


def source_health(corpus) -> list[dict]:
    """Health of every source that has records or has been collected, sorted by source.

    Each item: ``{source, recordCount, lastIngestedAt, lastAttemptAt, healthy, reason}``.
    A source with records that was never collected (imported files, the demo)
    is healthy and its ``lastIngestedAt`` is its newest ``capturedAt``.
    """
    conn = corpus.conn
    counts = {row[0]: (row[1], row[2]) for row in conn.execute(
        "SELECT source, count(*), max(captured_at) FROM records GROUP BY source")}
    health = {row[0]: row[1:] for row in conn.execute(
        "SELECT source, last_ingested_at, last_attempt_at, healthy, reason FROM source_health")}
    items = []
    for source in sorted(set(counts) | set(health)):
        count, newest = counts.get(source, (0, None))
        if source in health:
            ingested, attempted, healthy, reason = health[source]
            ingested = ingested or newest
        else:
            ingested, attempted, healthy, reason = newest, None, 1, ""
        items.append({
            "source": source,
            "recordCount": int(count),
            "lastIngestedAt": ingested,
            "lastAttemptAt": attempted,
            "healthy": bool(healthy),
            "reason": reason or "",
        })
    return items
