"""Evidence of a signal (the records, entities and topics that made it) and its live firing time.

Record evidence per kind (at most ``limit`` records, deterministic order):

* volume_spike: the series' records on the first day of the episode, in the
  order they arrived (the records that made it fire); for an hourly burst
  (detail ``hour``), the records of that hour; for a weekly surge (detail
  ``scale`` ``week``), the records of its seven days;
* novelty: the records mentioning the entity that day, in arrival order; for a phrase (detail
  ``subjectKind`` ``phrase``), the records writing it from its fresh start through the day it fired;
* sentiment_shift: the topic's records in the after window of the peak day,
  the most extreme in the direction of the shift first;
* divergence: the same for each source of the pair, half the records each.

Entity evidence: the entity of an entity signal first, then the entities
most mentioned by the evidence records (up to ``entity_limit``). Topic
evidence: the signal's topic.
"""
from __future__ import annotations

from corpuskit.analysis.signals.series import shift_day
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


def evidence_records(conn, kind: str, evidence: dict, start_day: str, peak_day: str,
                     detail: dict, limit: int = 10) -> list[int]:
    """Ids of the records backing a signal (see the module docstring)."""
    if kind == "volume_spike" and detail.get("hour"):
        joins, where, args = _series_filter(evidence)
        start = detail["hour"]
        end = f"{start[:13]}:59:59.999999Z"
        rows = conn.execute(
            f"SELECT r.id FROM records r {joins} WHERE {where} AND r.published_at BETWEEN ? AND ? "
            "ORDER BY r.published_at, r.id LIMIT ?", (*args, start, end, limit)).fetchall()
        return [r[0] for r in rows]
    if kind in ("volume_spike", "novelty"):
        joins, where, args = _series_filter(evidence)
        first = detail.get("weekStart", start_day) if detail.get("scale") == "week" else start_day
        rows = conn.execute(
            f"SELECT r.id FROM records r {joins} WHERE {where} AND r.day BETWEEN ? AND ? "
            "ORDER BY r.published_at, r.id LIMIT ?", (*args, first, start_day, limit)).fetchall()
        return [r[0] for r in rows]
    k = int(detail.get("afterDays", 1))
    first = shift_day(peak_day, -(k - 1))
    if kind == "sentiment_shift":
        order = "e.sentiment_score ASC" if detail.get("direction") == "negative" else "e.sentiment_score DESC"
        rows = conn.execute(
            "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id "
            "WHERE +e.topic_id = ? AND r.day BETWEEN ? AND ? AND e.sentiment_score IS NOT NULL "
            f"ORDER BY {order}, r.published_at, r.id "
            "LIMIT ?", (evidence["topic_id"], first, peak_day, limit)).fetchall()
        return [r[0] for r in rows]
    out: list[int] = []
    half = max(1, limit // 2)
    for source, after, before in ((detail.get("sourceA"), detail.get("afterA"), detail.get("beforeA")),
                                  (detail.get("sourceB"), detail.get("afterB"), detail.get("beforeB"))):
        falling = before is not None and after is not None and after < before
        order = "e.sentiment_score ASC" if falling else "e.sentiment_score DESC"
        rows = conn.execute(
            "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id "
            "WHERE +e.topic_id = ? AND +r.source = ? AND r.day BETWEEN ? AND ? "
            f"AND e.sentiment_score IS NOT NULL ORDER BY {order}, r.published_at, r.id LIMIT ?",
            (evidence["topic_id"], source, first, peak_day, half)).fetchall()
        out += [r[0] for r in rows]
    return out


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
