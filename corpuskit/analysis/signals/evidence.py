"""Evidence of a signal (the records, entities and topics that made it) and its live firing time.

Record evidence (at most ``limit`` records, deterministic order) is the kind's
(:meth:`~corpuskit.analysis.signals.detector.Detector.evidence_records`): by default the
series' records behind the episode (:func:`series_records`: its first day, week or hour, in
the order they arrived: the records that made it fire); a mean kind orders the records of
its after window by its own rule (see its module).

Entity evidence: the entity of an entity signal first, then the entities
most mentioned by the evidence records (up to ``entity_limit``). Topic
evidence: the signal's topic.
"""
from __future__ import annotations

from corpuskit.query import signal_row
from corpuskit.query.record_filter import series_filter as _series_filter  # the series' records


def crossing_time(conn, evidence: dict, day: str, k: int) -> str | None:
    """``published_at`` of the ``k``-th record of the series on ``day`` (the one that crossed)."""
    if k is None or k < 1:
        return None
    joins, where, args = _series_filter(evidence)
    row = conn.execute(
        f"SELECT r.published_at FROM records r {joins} WHERE {where} AND r.day = ? "
        "ORDER BY r.published_at, r.id LIMIT 1 OFFSET ?", (*args, day, k - 1)).fetchone()
    return row[0] if row else None


def series_records(conn, evidence: dict, span, limit: int) -> list[int]:
    """Ids of the series' records in ``span`` (a :class:`~.detector.RecordSpan`: its hour, else its
    days), in the order they arrived, at most ``limit``."""
    return [r[0] for r in series_rows(conn, evidence, span, "r.id", limit)]


def series_rows(conn, evidence: dict, span, columns: str, limit: int) -> list:
    """``columns`` of the series' records in ``span``, in the order they arrived, at most ``limit``."""
    joins, where, args = _series_filter(evidence)
    if span.hour:
        return conn.execute(
            f"SELECT {columns} FROM records r {joins} WHERE {where} AND r.published_at BETWEEN ? AND ? "
            "ORDER BY r.published_at, r.id LIMIT ?", (*args, span.hour, hour_end(span.hour), limit)).fetchall()
    return conn.execute(
        f"SELECT {columns} FROM records r {joins} WHERE {where} AND r.day BETWEEN ? AND ? "
        "ORDER BY r.published_at, r.id LIMIT ?", (*args, span.first, span.last, limit)).fetchall()


def hour_end(hour: str) -> str:
    """The last instant of the hour starting at ``hour`` (``YYYY-MM-DDTHH:...``)."""
    return f"{hour[:13]}:59:59.999999Z"


def evidence_entities(conn, record_ids: list[int], entity_id: int | None = None,
                      limit: int = 5) -> list[int]:
    """The signal's own entity first, then the entities most mentioned by ``record_ids``."""
    out = [entity_id] if entity_id is not None else []
    if record_ids:
        marks = ",".join("?" * len(record_ids))
        rows = conn.execute(
            f"SELECT entity_id, count(*) AS n FROM mentions WHERE record_id IN ({marks}) "
            "GROUP BY entity_id ORDER BY n DESC, entity_id LIMIT ?", (*record_ids, limit + 1)).fetchall()
        out += [r[0] for r in rows if r[0] != entity_id]
    return out[:limit]


def get_signal_evidence(corpus, signal_id: int) -> dict:
    """Evidence of one signal in the ``/v1`` shape (integer ids; the HTTP layer prefixes them).

    ``{signalId, records: [{id, source, sentimentScore}], entities: [{id, name, type}],
    topics: [{id, label}], stories: [{id, headline}]}``; the signal's own entity
    comes first. Raises
    :class:`~corpuskit.query.SignalNotFound` for an unknown signal.
    """
    conn = corpus.conn
    signal_row(conn, signal_id)
    records = [{"id": r[0], "source": r[1], "sentimentScore": r[2]} for r in conn.execute(
        "SELECT r.id, r.source, e.sentiment_score FROM signal_evidence se "
        "JOIN records r ON r.id = se.ref_id LEFT JOIN enrichment e ON e.record_id = r.id "
        "WHERE se.signal_id = ? AND se.ref_kind = 'record' ORDER BY r.published_at, r.id",
        (signal_id,))]
    entities = [{"id": r[0], "name": r[1], "type": r[2]} for r in conn.execute(
        "SELECT en.id, en.name, en.type FROM signal_evidence se JOIN entities en ON en.id = se.ref_id "
        "JOIN signals s ON s.id = se.signal_id WHERE se.signal_id = ? AND se.ref_kind = 'entity' "
        "ORDER BY en.id IS s.entity_id DESC, en.mention_count DESC, en.id",
        (signal_id,))]
    topics = [{"id": r[0], "label": r[1]} for r in conn.execute(
        "SELECT t.id, t.display_name FROM signal_evidence se JOIN topics t ON t.id = se.ref_id "
        "WHERE se.signal_id = ? AND se.ref_kind = 'topic' ORDER BY t.id", (signal_id,))]
    stories = [{"id": r[0], "headline": r[1]} for r in conn.execute(
        "SELECT s.id, s.headline FROM signal_evidence se JOIN stories s ON s.id = se.ref_id "
        "WHERE se.signal_id = ? AND se.ref_kind = 'story' ORDER BY s.id", (signal_id,))]
    return {"signalId": signal_id, "records": records, "entities": entities, "topics": topics,
            "stories": stories}
