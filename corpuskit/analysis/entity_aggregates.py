"""Per-entity sums over every mention, kept in a table by analyse and read by the entity answers.

The entity list, detail and trending answers (:mod:`.entity_stats`) need, for
each entity, numbers over *all* its mentions: the total, the distinct sources
and mentions per source, the topic with most mentions, the sentiment labels of
the mentioning records. Computed on request they read every mention of the
corpus (seconds at a million records). :func:`build_entity_aggregates`, run at
the end of every ``analyse``, writes them to ``entity_aggregates`` with a stamp
of the inputs they were computed from (``meta`` key ``entity_aggregates``):
the newest record, mention and topic-assignment row ids, the number of runs of
the stages that write records, mentions, topics or sentiment (every stage but
``analyse`` and ``narrate``), and the topics' display names.

:func:`usable` says whether the stored rows still describe the corpus: the
stamp of the inputs now equals the stored one. Otherwise (an import or enrich
since, or mentions written by hand) the readers compute live, so an answer is
always the one the live computation gives. The windowed numbers (mentions in
the last 7 and 35 days, the sentiment trend) move with the corpus clock and are
always computed live; they read only the weeks they cover.
"""
from __future__ import annotations

import json

_STAMP_SQL = (
    "SELECT (SELECT max(id) FROM records), (SELECT max(rowid) FROM mentions), "
    "(SELECT max(rowid) FROM topic_assignments), "
    "(SELECT count(*) FROM runs WHERE stage NOT IN ('analyse', 'narrate')), "
    "(SELECT group_concat(id || char(31) || display_name, char(30)) FROM "
    "(SELECT id, display_name FROM topics ORDER BY id))")
META_KEY = "entity_aggregates"


def inputs_stamp(conn) -> list:
    """What the aggregates are computed from, as a JSON-able list (see the module docstring)."""
    return list(conn.execute(_STAMP_SQL).fetchone())


def usable(corpus) -> bool:
    """Whether ``entity_aggregates`` holds the sums of the corpus as it is now."""
    conn = corpus.conn
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is None:
        return False
    try:
        stored = json.loads(row[0])
    except ValueError:
        return False
    return stored == inputs_stamp(conn)


def build_entity_aggregates(corpus) -> dict:
    """Rewrite ``entity_aggregates`` when its inputs changed; returns ``{entities, rebuilt}``.

    Call inside the analyse stage (it writes ``entity_aggregates`` and ``meta``).
    The sums are those :mod:`.entity_stats` computes on request, one grouped
    pass over the mentions for each.
    """
    conn = corpus.conn
    stamp = inputs_stamp(conn)
    if usable(corpus):
        n = conn.execute("SELECT count(*) FROM entity_aggregates").fetchone()[0]
        return {"entities": n, "rebuilt": False}
    rows: dict = {}
    for eid, total in conn.execute(
            "SELECT entity_id, sum(mention_count) FROM mentions GROUP BY entity_id"):
        rows[eid] = [int(total), [], None, []]
    for eid, _source, n in conn.execute(
            "SELECT m.entity_id, r.source, sum(m.mention_count) FROM mentions m "
            "JOIN records r ON r.id = m.record_id GROUP BY m.entity_id, r.source "
            "ORDER BY m.entity_id, r.source"):
        if eid in rows:
            rows[eid][1].append(n)
    best: dict = {}
    for eid, label, n in conn.execute(
            "SELECT m.entity_id, t.display_name, sum(m.mention_count) FROM mentions m "
            "JOIN topic_assignments ta ON ta.record_id = m.record_id "
            "JOIN topics t ON t.id = ta.topic_id GROUP BY m.entity_id, t.id"):
        if eid not in best or (-n, label) < (-best[eid][1], best[eid][0]):
            best[eid] = (label, n)
    for eid, (label, _) in best.items():
        if eid in rows:
            rows[eid][2] = label
    for eid, label, n in conn.execute(
            "SELECT m.entity_id, e.sentiment_label, count(*) FROM mentions m "
            "LEFT JOIN enrichment e ON e.record_id = m.record_id "
            "GROUP BY m.entity_id, e.sentiment_label ORDER BY m.entity_id, e.sentiment_label"):
        if eid in rows:
            rows[eid][3].append([label, n])
    conn.execute("DELETE FROM entity_aggregates")
    conn.executemany(
        "INSERT INTO entity_aggregates(entity_id, mentions, sources, top_topic, by_source, by_label) "
        "VALUES (?,?,?,?,?,?)",
        ((eid, total, len(per_source), topic, json.dumps(per_source), json.dumps(labels))
         for eid, (total, per_source, topic, labels) in sorted(rows.items())))
    corpus.set_meta(META_KEY, stamp)
    return {"entities": len(rows), "rebuilt": True}


def _in(ids) -> str:
    return ",".join("?" * len(ids))


def stored_totals(corpus, entity_ids=None) -> dict:
    """entity id -> total mentions, for the ids given (every mentioned entity when None)."""
    if entity_ids is None:
        return dict(corpus.conn.execute("SELECT entity_id, mentions FROM entity_aggregates"))
    out = {}
    ids = list(entity_ids)
    for i in range(0, len(ids), 500):
        batch = ids[i:i + 500]
        out.update(corpus.conn.execute(
            f"SELECT entity_id, mentions FROM entity_aggregates WHERE entity_id IN ({_in(batch)})", batch))
    return out


def stored_lede_parts(corpus, entity_ids) -> tuple[dict, dict]:
    """(entity id -> distinct sources, entity id -> top topic display name), as ``_lede_parts`` gives."""
    sources, top_topic = {}, {}
    ids = list(entity_ids)
    for i in range(0, len(ids), 500):
        batch = ids[i:i + 500]
        for eid, n, topic in corpus.conn.execute(
                f"SELECT entity_id, sources, top_topic FROM entity_aggregates "
                f"WHERE entity_id IN ({_in(batch)})", batch):
            if n:
                sources[eid] = n
            if topic is not None:
                top_topic[eid] = topic
    return sources, top_topic


def stored_detail(corpus, entity_id: int):
    """``(mentions per source, [[label, records]])`` of one entity, or None when it has no mention."""
    row = corpus.conn.execute("SELECT by_source, by_label FROM entity_aggregates WHERE entity_id = ?",
                              (entity_id,)).fetchone()
    if row is None:
        return None
    return json.loads(row[0]), json.loads(row[1])


def stored_above(corpus, etype: str, mentions: int) -> int:
    """How many entities of ``etype`` have more than ``mentions`` mentions."""
    return corpus.conn.execute(
        "SELECT count(*) FROM entity_aggregates a JOIN entities en ON en.id = a.entity_id "
        "WHERE en.type = ? AND a.mentions > ?", (etype, mentions)).fetchone()[0]
