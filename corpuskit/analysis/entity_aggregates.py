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

from corpuskit.query.stored_counts import stamp_holds

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
    """Whether ``entity_aggregates`` holds the sums of the corpus as it is now (one query)."""
    return stamp_holds(corpus.conn, META_KEY, _STAMP_SQL)


def _state(conn) -> dict:
    """What an incremental update needs to know of the inputs it starts from."""
    m_max, m_count = conn.execute("SELECT max(rowid), count(*) FROM mentions").fetchone()
    a_max, a_count = conn.execute("SELECT max(rowid), count(*) FROM topic_assignments").fetchone()
    return {"mentions": [m_max or 0, m_count], "assignments": [a_max or 0, a_count],
            "records": conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]}


def _appended_only(conn, before: dict, stamp: list, stored_stamp: list) -> bool:
    """Whether the inputs changed only by rows added for records newer than the last build.

    Then the sums of every entity are the stored ones plus those of the new rows.
    A mention or topic assignment row is never updated in place (enrich deletes a
    record's rows and inserts new ones), so: no row of the last build is gone, no
    new row belongs to an older record, and the topics' names are the same.
    """
    if stored_stamp[4] != stamp[4]:
        return False
    for table, key in (("mentions", "mentions"), ("topic_assignments", "assignments")):
        old_max, old_count = before[key]
        kept = conn.execute(f"SELECT count(*) FROM {table} WHERE rowid <= ?", (old_max,)).fetchone()[0]
        if kept != old_count:
            return False
        if conn.execute(f"SELECT 1 FROM {table} WHERE rowid > ? AND record_id <= ? LIMIT 1",
                        (old_max, before["records"])).fetchone():
            return False
    return True


def _sums(conn, after_rowid: int = 0) -> dict:
    """entity id -> [total, {source: n}, {label: records}, {topic id: n}] over the mention rows
    with rowid above ``after_rowid`` (every one by default)."""
    rows: dict = {}
    for eid, total in conn.execute(
            "SELECT entity_id, sum(mention_count) FROM mentions WHERE rowid > ? GROUP BY entity_id",
            (after_rowid,)):
        rows[eid] = [int(total), {}, {}, {}]
    for eid, source, n in conn.execute(
            "SELECT m.entity_id, r.source, sum(m.mention_count) FROM mentions m "
            "JOIN records r ON r.id = m.record_id WHERE m.rowid > ? GROUP BY m.entity_id, r.source",
            (after_rowid,)):
        rows[eid][1][source] = int(n)
    for eid, label, n in conn.execute(
            "SELECT m.entity_id, e.sentiment_label, count(*) FROM mentions m "
            "LEFT JOIN enrichment e ON e.record_id = m.record_id WHERE m.rowid > ? "
            "GROUP BY m.entity_id, e.sentiment_label", (after_rowid,)):
        rows[eid][2][label or ""] = n
    for eid, topic_id, n in conn.execute(
            "SELECT m.entity_id, ta.topic_id, sum(m.mention_count) FROM mentions m "
            "JOIN topic_assignments ta ON ta.record_id = m.record_id "
            "JOIN topics t ON t.id = ta.topic_id WHERE m.rowid > ? GROUP BY m.entity_id, ta.topic_id",
            (after_rowid,)):
        rows[eid][3][str(topic_id)] = int(n)
    return rows


def _add(into: dict, more: dict) -> None:
    for key, n in more.items():
        into[key] = into.get(key, 0) + n


def _top_topic(by_topic: dict, names: dict):
    """The display name of the topic with most mentions; ties go to the smaller name (as live)."""
    best = None
    for topic_id, n in by_topic.items():
        label = names[int(topic_id)]
        if best is None or (-n, label) < (-best[1], best[0]):
            best = (label, n)
    return None if best is None else best[0]


def build_entity_aggregates(corpus) -> dict:
    """Bring ``entity_aggregates`` up to date; returns ``{entities, rebuilt, updated}``.

    Call inside the analyse stage (it writes ``entity_aggregates`` and ``meta``).
    Nothing is done while the inputs are unchanged. When they changed only by
    rows for new records (:func:`_appended_only`: a new day imported and
    enriched), the new rows' sums are added to the entities they mention
    (``updated``); otherwise every entity is computed again (``rebuilt``), one
    grouped pass over the mentions per sum.
    """
    conn = corpus.conn
    stamp = inputs_stamp(conn)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    previous = json.loads(row[0]) if row else None
    if not isinstance(previous, dict) or "stamp" not in previous:
        previous = None
    if previous is not None and previous["stamp"] == stamp:
        n = conn.execute("SELECT count(*) FROM entity_aggregates").fetchone()[0]
        return {"entities": n, "rebuilt": False, "updated": 0}
    names = dict(conn.execute("SELECT id, display_name FROM topics"))
    if previous is not None and _appended_only(conn, previous["state"], stamp, previous["stamp"]):
        changed = _sums(conn, previous["state"]["mentions"][0])
        for eid, (total, by_source, by_label, by_topic) in changed.items():
            old = conn.execute("SELECT mentions, by_source, by_label, by_topic FROM entity_aggregates "
                               "WHERE entity_id = ?", (eid,)).fetchone()
            if old is not None:
                total += old[0]
                for sums, stored in ((by_source, old[1]), (by_label, old[2]), (by_topic, old[3])):
                    _add(sums, json.loads(stored))
            changed[eid] = [total, by_source, by_label, by_topic]
        rebuilt, rows = False, changed
    else:
        conn.execute("DELETE FROM entity_aggregates")
        rebuilt, rows = True, _sums(conn)
    conn.executemany(
        "INSERT OR REPLACE INTO entity_aggregates(entity_id, mentions, sources, top_topic, by_source, "
        "by_label, by_topic) VALUES (?,?,?,?,?,?,?)",
        ((eid, total, len(by_source), _top_topic(by_topic, names), json.dumps(by_source, sort_keys=True),
          json.dumps(by_label, sort_keys=True), json.dumps(by_topic, sort_keys=True))
         for eid, (total, by_source, by_label, by_topic) in sorted(rows.items())))
    corpus.set_meta(META_KEY, {"stamp": stamp, "state": _state(conn)})
    n = conn.execute("SELECT count(*) FROM entity_aggregates").fetchone()[0]
    return {"entities": n, "rebuilt": rebuilt, "updated": 0 if rebuilt else len(rows)}


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


def stored_beats(corpus, entity_ids) -> list[str]:
    """The names of the topics of the records mentioning any of ``entity_ids``, most mentions first
    (ties: name), as the keyed entity profile lists its ``beats``."""
    ids = list(entity_ids)
    by_topic: dict = {}
    for i in range(0, len(ids), 500):
        batch = ids[i:i + 500]
        for (stored,) in corpus.conn.execute(
                f"SELECT by_topic FROM entity_aggregates WHERE entity_id IN ({_in(batch)})", batch):
            _add(by_topic, json.loads(stored))
    names = dict(corpus.conn.execute("SELECT id, name FROM topics"))
    return [name for _, name in sorted((-n, names[int(tid)]) for tid, n in by_topic.items())]


def stored_detail(corpus, entity_id: int):
    """``([mentions per source, in source name order], [(label or None, records)])`` of one entity,
    or None when it has no mention."""
    row = corpus.conn.execute("SELECT by_source, by_label FROM entity_aggregates WHERE entity_id = ?",
                              (entity_id,)).fetchone()
    if row is None:
        return None
    by_source, by_label = json.loads(row[0]), json.loads(row[1])
    return ([n for _, n in sorted(by_source.items())],
            [(label or None, n) for label, n in sorted(by_label.items())])


def stored_above(corpus, etype: str, mentions: int) -> int:
    """How many entities of ``etype`` have more than ``mentions`` mentions."""
    return corpus.conn.execute(
        "SELECT count(*) FROM entity_aggregates a JOIN entities en ON en.id = a.entity_id "
        "WHERE en.type = ? AND a.mentions > ?", (etype, mentions)).fetchone()[0]
