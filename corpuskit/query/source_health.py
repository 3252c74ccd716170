"""Per-source ingestion health, read: the ``source_health`` table joined with the records.

The collectors write the table (:mod:`corpuskit.ingest.collectors.health`); this read is
below the stages so that the analysis aggregates (``/api/v1/status``) and the HTTP layer
read it without importing ``ingest``.
"""
from __future__ import annotations


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
