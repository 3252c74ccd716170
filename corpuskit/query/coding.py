"""Reads for validation: the records a sample is drawn from, samples by name, codes, gold values,
and corpuskit's own labels for the records of a sample.

The writes belong to :mod:`corpuskit.validate`; a sample is looked up by name in
:mod:`corpuskit.query.lookups`, and every filter turned into SQL for validation is here.
"""
from __future__ import annotations

from corpuskit.errors import ValidationError
from corpuskit.query.lookups import SampleNotFound, sample_names, sample_row
from corpuskit.query.record_filter import RecordFilter
from corpuskit.query.values import LABEL_KINDS
from corpuskit.query.where import Where



def sampling_frame(conn, flt: RecordFilter | None = None):
    """The records a sample may draw from, by id: ``(id, source, topic, sentiment, published_at)``,
    those ``flt`` (a :class:`~corpuskit.query.RecordFilter`) selects, every record without one."""
    where = (flt or RecordFilter()).where(conn)
    sql = ("SELECT r.id, r.source, coalesce(t.name, r.topic), e.sentiment_label, r.published_at "
           "FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
           "LEFT JOIN topics t ON t.id = e.topic_id")
    return [tuple(r) for r in conn.execute(sql + where.sql() + " ORDER BY r.id", where.args)]


def missing_records(conn, ids) -> list[int]:
    """Those of ``ids`` that are not records of the corpus, sorted."""
    wanted = sorted({int(i) for i in ids})
    found = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        found.update(r[0] for r in conn.execute(
            f"SELECT id FROM records WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return [i for i in wanted if i not in found]


def sample_members(conn, sample_id: int) -> list:
    """A sample's records in drawing order: ``(position, record_id, stratum, title, content_text)``."""
    return [tuple(r) for r in conn.execute(
        "SELECT s.position, s.record_id, s.stratum, r.title, r.content_text FROM sample_records s "
        "JOIN records r ON r.id = s.record_id WHERE s.sample_id = ? ORDER BY s.position", (sample_id,))]


def code_rows(conn, sample_id: int | None = None) -> list:
    """Codes ``(sample, record_id, coder, variable, value, note, coded_at)``, by sample, record,
    variable, coder; every sample's when ``sample_id`` is None."""
    where = Where().equal("c.sample_id", sample_id)
    return [tuple(r) for r in conn.execute(
        "SELECT s.name, c.record_id, c.coder, c.variable, c.value, c.note, c.coded_at FROM codes c "
        "JOIN samples s ON s.id = c.sample_id" + where.sql()
        + " ORDER BY s.name, c.record_id, c.variable, c.coder", where.args)]


def gold_rows(conn, sample_id: int | None = None, variable: str | None = None) -> list:
    """Gold values ``(sample, record_id, variable, value, method, decided_by, detail, decided_at)``."""
    where = Where().equal("g.sample_id", sample_id).equal("g.variable", variable)
    return [tuple(r) for r in conn.execute(
        "SELECT s.name, g.record_id, g.variable, g.value, g.method, g.decided_by, g.detail, "
        "g.decided_at FROM gold g JOIN samples s ON s.id = g.sample_id" + where.sql()
        + " ORDER BY s.name, g.record_id, g.variable", where.args)]


def automatic_labels(conn, sample_id: int, kind: str) -> dict:
    """corpuskit's label per record of a sample: its sentiment label, its primary topic's name
    (``""`` for none), or the type of the entity it mentions most (``"none"`` when it names none);
    a record never enriched is left out."""
    if kind == "sentiment":
        sql = ("SELECT s.record_id, e.sentiment_label FROM sample_records s "
               "JOIN enrichment e ON e.record_id = s.record_id WHERE s.sample_id = ?")
        return {r[0]: r[1] for r in conn.execute(sql, (sample_id,))}
    if kind == "topic":
        sql = ("SELECT s.record_id, coalesce(t.name, '') FROM sample_records s "
               "JOIN enrichment e ON e.record_id = s.record_id "
               "LEFT JOIN topics t ON t.id = e.topic_id WHERE s.sample_id = ?")
        return {r[0]: r[1] for r in conn.execute(sql, (sample_id,))}
    if kind == "entities":
        sql = ("SELECT s.record_id, coalesce((SELECT en.type FROM mentions m JOIN entities en "
               "ON en.id = m.entity_id WHERE m.record_id = s.record_id "
               "ORDER BY m.mention_count DESC, en.name, en.id LIMIT 1), 'none') FROM sample_records s "
               "JOIN enrichment e ON e.record_id = s.record_id WHERE s.sample_id = ?")
        return {r[0]: r[1] for r in conn.execute(sql, (sample_id,))}
    raise ValidationError(f"kind must be one of {', '.join(LABEL_KINDS)}, not {kind!r}")


def label_counts(conn, kind: str) -> dict:
    """How many enriched records of the whole corpus carry each automatic label (as
    :func:`automatic_labels` defines it for ``kind``)."""
    if kind == "sentiment":
        sql = "SELECT sentiment_label, count(*) FROM enrichment GROUP BY 1"
    elif kind == "topic":
        sql = ("SELECT coalesce(t.name, ''), count(*) FROM enrichment e "
               "LEFT JOIN topics t ON t.id = e.topic_id GROUP BY 1")
    elif kind == "entities":
        sql = ("SELECT coalesce((SELECT en.type FROM mentions m JOIN entities en ON en.id = m.entity_id "
               "WHERE m.record_id = e.record_id ORDER BY m.mention_count DESC, en.name, en.id LIMIT 1), "
               "'none'), count(*) FROM enrichment e GROUP BY 1")
    else:
        raise ValidationError(f"kind must be one of {', '.join(LABEL_KINDS)}, not {kind!r}")
    return {r[0]: r[1] for r in conn.execute(sql)}


__all__ = ["SampleNotFound", "automatic_labels",
           "code_rows", "gold_rows", "label_counts", "missing_records", "sample_members", "sample_names",
           "sample_row", "sampling_frame"]
