"""Per-source ingestion health: what ``/v1/sources`` and ``/api/v1/status`` show.

The ``source_health`` table holds one row per collected source: when it was
last attempted, when it last added records, and whether the last attempt
worked (with the reason when it did not). The collectors write it here;
:func:`~corpuskit.query.source_health.source_health` reads it (joined with the
records, so every source that has records is listed, collected or not) and is
re-exported from this module.
"""
from __future__ import annotations

from corpuskit.clock import iso
from corpuskit.query.source_health import source_health  # noqa: F401 - read beside the writers


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
