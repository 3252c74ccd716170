"""Read each exported table as rows of stored values, in the order of its declared columns.

:func:`table_rows` answers one table of :data:`~corpuskit.ingest.export_columns.COLUMNS`
for a :class:`~corpuskit.query.RecordFilter`: a cursor of tuples whose values
are as SQLite holds them (timestamps as ISO 8601 text, booleans as 0/1, lists
and objects as JSON text); :mod:`corpuskit.ingest.export` types them for each
format. A row that names a record is kept when the record is in the filtered
set (see ``TABLE_NOTES``). Rows stream from the cursor: nothing holds a whole
table in memory.
"""
from __future__ import annotations

import json

from corpuskit.errors import ValidationError
from corpuskit.ingest.export_columns import COLUMNS, NETWORK_ENDS, columns
from corpuskit.narrate.attribution import quoted_text
from corpuskit.narrate.citations import MARKER
from corpuskit.narrate.sentences import squash
from corpuskit.query import RecordFilter, TopicNotFound, topic_by_name
from corpuskit.query.record_filter import bound_timestamp


def record_columns(conn) -> frozenset:
    """The columns of the corpus's ``records`` table (the optional ones are exported when present)."""
    return frozenset(r[1] for r in conn.execute("PRAGMA table_info(records)"))


def latest_cluster_run(conn) -> str | None:
    """The run id of the most recent clustering run (None before any)."""
    row = conn.execute("SELECT run_id FROM clusters ORDER BY id DESC LIMIT 1").fetchone()
    return row[0] if row else None


class _Scope:
    """The filtered record set as a SQL condition on a record-id column."""

    def __init__(self, conn, flt: RecordFilter):
        self.filtered = bool(flt)
        self.sql, self.args = flt.record_ids_sql(conn) if self.filtered else ("", [])
        self.flt = flt

    def on(self, column: str, joiner: str = " WHERE ") -> tuple[str, list]:
        """``(" WHERE column IN (...)", args)``, or ``("", [])`` without a filter."""
        if not self.filtered:
            return "", []
        return f"{joiner}{column} IN ({self.sql})", list(self.args)


_ENTITY_LIST = ("CASE WHEN e.record_id IS NULL THEN NULL ELSE (SELECT json_group_array({col}) FROM ("
                "SELECT en.id AS id, en.name AS name FROM mentions m JOIN entities en ON en.id = m.entity_id "
                "WHERE m.record_id = r.id ORDER BY m.mention_count DESC, en.name, en.id)) END")
_SECONDARY = ("(SELECT ta.{col} FROM topic_assignments ta WHERE ta.record_id = r.id "
              "AND e.topic_id IS NOT NULL AND ta.topic_id != e.topic_id "
              "ORDER BY ta.confidence DESC, ta.topic_id LIMIT 1)")


def _records(conn, scope: _Scope, present):
    optional = [c.sql_column for c in columns("records", present) if c.sql_column]
    run = latest_cluster_run(conn)
    where = scope.flt.where(conn)
    sql = (
        "SELECT r.id, r.source, r.source_id, r.title, r.content_text, r.url, r.author, r.published_at, "
        "r.subreddit, r.language, r.content_type, r.captured_at, r.topic, r.metadata, "
        + "".join(f"r.{col}, " for col in optional)
        + "e.sentiment_score, e.sentiment_label, e.topic_id, t.name, "
        "(SELECT ta.confidence FROM topic_assignments ta WHERE ta.record_id = r.id AND ta.topic_id = e.topic_id), "
        + _SECONDARY.format(col="topic_id") + ", "
        "(SELECT name FROM topics WHERE id = " + _SECONDARY.format(col="topic_id") + "), "
        + _SECONDARY.format(col="confidence") + ", cl.cluster_id, "
        + _ENTITY_LIST.format(col="id") + ", " + _ENTITY_LIST.format(col="name")
        + " FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
        "LEFT JOIN topics t ON t.id = e.topic_id "
        "LEFT JOIN (SELECT cm.record_id AS record_id, min(cm.cluster_id) AS cluster_id FROM cluster_members cm "
        "JOIN clusters c ON c.id = cm.cluster_id WHERE c.run_id = ? GROUP BY cm.record_id) cl "
        "ON cl.record_id = r.id" + where.sql() + " ORDER BY r.published_at, r.id")
    return conn.execute(sql, [run] + list(where.args))


def _topic_assignments(conn, scope: _Scope, present):
    cond, args = scope.on("ta.record_id")
    return conn.execute(
        "SELECT ta.record_id, ta.topic_id, ta.confidence, row_number() OVER (PARTITION BY ta.record_id "
        "ORDER BY ta.confidence DESC, ta.topic_id), coalesce(ta.topic_id = e.topic_id, 0) "
        "FROM topic_assignments ta LEFT JOIN enrichment e ON e.record_id = ta.record_id"
        + cond + " ORDER BY ta.record_id, ta.confidence DESC, ta.topic_id", args)


def _topics(conn, scope, present):
    return conn.execute("SELECT id, name, display_name, description, category, keywords, active, discovered, "
                        "created_at FROM topics ORDER BY id")


def _entities(conn, scope, present):
    return conn.execute("SELECT id, slug, name, type, mention_count, first_seen, last_seen FROM entities "
                        "ORDER BY id")


def _mentions(conn, scope: _Scope, present):
    cond, args = scope.on("record_id")
    return conn.execute("SELECT record_id, entity_id, surface, mention_count, positions FROM mentions"
                        + cond + " ORDER BY record_id, entity_id", args)


def _entity_merges(conn, scope, present):
    return conn.execute("SELECT origin_id, origin_name, origin_type, entity_id, reason, mentions FROM entity_merges "
                        "ORDER BY origin_id, entity_id")


def _hashtags(conn, scope, present):
    return conn.execute("SELECT tag, written, records, first_seen, last_seen, entities FROM hashtags ORDER BY tag")


def _clusters(conn, scope, present):
    return conn.execute(
        "SELECT id, run_id, topic_id, cluster_label, lineage_id, record_count, top_terms, summary_label, "
        "json_extract(metadata, '$.silhouetteScore'), created_at FROM clusters WHERE run_id = ? ORDER BY id",
        (latest_cluster_run(conn),))


def _cluster_members(conn, scope: _Scope, present):
    cond, args = scope.on("cm.record_id", " AND ")
    return conn.execute("SELECT cm.cluster_id, cm.record_id FROM cluster_members cm JOIN clusters c "
                        "ON c.id = cm.cluster_id WHERE c.run_id = ?" + cond
                        + " ORDER BY cm.cluster_id, cm.record_id", [latest_cluster_run(conn)] + args)


def _kept_signals(scope: _Scope) -> tuple[str, list]:
    """A condition on ``s.id``: signals with an evidence record in the filtered set."""
    cond, args = scope.on("ref_id", " AND ")
    if not cond:
        return "", []
    return (" WHERE s.id IN (SELECT signal_id FROM signal_evidence WHERE ref_kind = 'record'" + cond + ")",
            args)


def _signals(conn, scope: _Scope, present):
    cond, args = _kept_signals(scope)
    return conn.execute(
        "SELECT s.id, s.kind, s.topic_id, s.entity_id, s.source, s.severity, s.sigma_score, s.headline, "
        "s.detail, s.detected_at, s.status, s.resolved_at, s.acknowledged, s.narrative_id, s.run_id "
        "FROM signals s" + cond + " ORDER BY s.id", args)


def _signal_evidence(conn, scope: _Scope, present):
    kept, args = _kept_signals(scope)
    sql = ("SELECT ev.signal_id, ev.ref_kind, "
           + ", ".join(f"CASE WHEN ev.ref_kind = '{kind}' THEN ev.ref_id END"
                       for kind in ("record", "entity", "topic", "story"))
           + " FROM signal_evidence ev JOIN signals s ON s.id = ev.signal_id" + kept)
    if scope.filtered:
        record_cond, record_args = scope.on("ev.ref_id", "")
        sql += f" AND (ev.ref_kind != 'record' OR {record_cond})"
        args += record_args
    return conn.execute(sql + " ORDER BY ev.signal_id, ev.ref_kind, ev.ref_id", args)


def _stories(conn, scope: _Scope, present):
    cond, args = scope.on("record_id", " WHERE ")
    where = f" WHERE id IN (SELECT story_id FROM story_citations{cond})" if cond else ""
    return conn.execute(
        "SELECT id, story_key, version, is_current, kind, slug, headline, lede, body, topic_id, entity_id, "
        "trigger_signal_id, signal_severity, publish_at, generated_at, run_id FROM stories"
        + where + " ORDER BY id", args)


def cited_sentences(body: str) -> dict[int, tuple[int, str]]:
    """``{ordinal: (sentence index, sentence)}``: for each ``[n]`` marker of a story body, the
    0-based position among the body's cited sentences (reading order) of the first sentence it
    follows, and that sentence without the marker (whitespace collapsed)."""
    out: dict[int, tuple[int, str]] = {}
    index = 0
    for paragraph in (p for p in body.split("\n\n") if p.strip()):
        parts = MARKER.split(paragraph)
        for sentence, n in zip(parts[0::2], parts[1::2]):
            out.setdefault(int(n), (index, squash(sentence)))
            index += 1
    return out


def _story_citations(conn, scope: _Scope, present):
    cond, args = scope.on("c.record_id")
    rows = conn.execute(
        "SELECT c.story_id, c.record_id, c.ordinal, s.body, c.confidence, c.inferred, c.credibility "
        "FROM story_citations c JOIN stories s ON s.id = c.story_id" + cond
        + " ORDER BY c.story_id, c.ordinal", args)
    story, sentences = None, {}
    for sid, rid, ordinal, body, confidence, inferred, credibility in rows:
        if sid != story:
            story, sentences = sid, cited_sentences(body)
        index, quote = sentences.get(ordinal, (None, None))
        words = None if quote is None else quoted_text(quote)
        yield sid, rid, ordinal, index, quote, words, confidence, inferred, credibility


def _snapshots(conn, scope: _Scope, present):
    flt = scope.flt
    args: list = []
    sql = ("SELECT topic_id, date, total_records, volume_by_source, sentiment_positive, sentiment_neutral, "
           "sentiment_negative, avg_sentiment, platform_count, top_entities, signal_count FROM snapshots "
           "WHERE 1 = 1")
    if flt.topic is not None:
        try:
            tid = topic_by_name(conn, flt.topic)["id"]
        except TopicNotFound:          # a topic only import hints name has no snapshots
            tid = None
        sql += " AND topic_id = ?" if tid is not None else " AND 0"
        args += [tid] if tid is not None else []
    for bound, op in ((flt.since, ">="), (flt.until, "<=")):
        if bound is not None:
            sql += f" AND date {op} ?"
            args.append(bound_timestamp(bound, "since" if op == ">=" else "until")[:10])
    return conn.execute(sql + " ORDER BY topic_id, date", args)


def _codes(conn, scope: _Scope, present):
    cond, args = scope.on("c.record_id", " WHERE ")
    return conn.execute("SELECT s.name, c.record_id, c.coder, c.variable, c.value, c.note, c.coded_at "
                        "FROM codes c JOIN samples s ON s.id = c.sample_id" + cond
                        + " ORDER BY s.name, c.record_id, c.variable, c.coder", args)


def _gold(conn, scope: _Scope, present):
    cond, args = scope.on("g.record_id", " WHERE ")
    return conn.execute("SELECT s.name, g.record_id, g.variable, g.value, g.method, g.decided_by, g.detail, "
                        "g.decided_at FROM gold g JOIN samples s ON s.id = g.sample_id" + cond
                        + " ORDER BY s.name, g.record_id, g.variable", args)


def _coordination(conn, scope: _Scope, present):
    from corpuskit.networks import coordination

    groups = coordination(conn, rfilter=scope.flt)
    for row in groups.itertuples(index=False):
        yield (row.group, row.author, row.records, row.shared, row.first, row.last,
               json.dumps(row.evidence, ensure_ascii=False))


def _network(kind: str):
    def read(conn, scope: _Scope, present):
        from corpuskit.networks import network

        edges = network(conn, kind, rfilter=scope.flt).edges
        return edges[["source", "target", "weight", "first", "last", "records"]].itertuples(index=False, name=None)
    return read


_READERS = {"records": _records, "topics": _topics, "topic_assignments": _topic_assignments,
            "entities": _entities, "mentions": _mentions, "entity_merges": _entity_merges,
            "hashtags": _hashtags, "clusters": _clusters,
            "cluster_members": _cluster_members, "signals": _signals, "signal_evidence": _signal_evidence,
            "stories": _stories, "story_citations": _story_citations, "snapshots": _snapshots,
            "codes": _codes, "gold": _gold, "coordination": _coordination,
            **{f"network_{kind}": _network(kind) for kind in NETWORK_ENDS}}
assert set(_READERS) == set(COLUMNS)


def table_rows(conn, table: str, flt: RecordFilter | None = None, present=None):
    """The rows of ``table`` (tuples in the order of ``columns(table, present)``) for ``flt``."""
    if table not in _READERS:
        raise ValidationError(f"table must be one of {', '.join(COLUMNS)}, not {table!r}")
    flt = flt or RecordFilter()
    present = record_columns(conn) if present is None else present
    return _READERS[table](conn, _Scope(conn, flt), present)
