"""Record counts by day, topic, source and sentiment, kept in tables by analyse.

The topic, source and sentiment filters of the record lists (``/api/v1/discourse?topic=``,
``/v1/records?source=&sentiment=``) and a topic's daily volume (``/api/v1/trends``) need counts over
every record they select: seconds at a million records when counted on request.
:func:`build_record_counts`, run at the end of every ``analyse``, writes them to ``record_counts``
(records per published day, primary topic or import hint, source and sentiment label) and
``topic_day_counts`` (topic assignments per topic and day), stamped with their inputs (see
:mod:`corpuskit.query.stored_counts`, which reads them and says when they still hold).

A new day imported and enriched since the last build changes only the days of the new records:
those days are counted again (``updated``). Anything else (an older record enriched again, a
record or assignment of an older record added or removed) counts every day again (``rebuilt``).
"""
from __future__ import annotations

import json

from corpuskit.query.stored_counts import META_KEY, inputs_stamp

_RECORD_ROWS = (
    "SELECT r.day, coalesce(e.topic_id, 0), CASE WHEN e.topic_id IS NULL THEN coalesce(r.topic, '') "
    "ELSE '' END, r.source, coalesce(e.sentiment_label, ''), count(*) "
    "FROM records r LEFT JOIN enrichment e ON e.record_id = r.id{where} GROUP BY 1, 2, 3, 4, 5")
_TOPIC_ROWS = ("SELECT ta.topic_id, r.day, count(*) FROM records r "
               "JOIN topic_assignments ta ON ta.record_id = r.id{where} GROUP BY 1, 2")


def _state(conn) -> dict:
    """What an incremental update needs to know of the inputs it starts from."""
    last = conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]
    return {
        "records": last,
        "counts": _old_counts(conn, last),
        "assignments": conn.execute("SELECT coalesce(max(rowid), 0) FROM topic_assignments").fetchone()[0],
        "runs": conn.execute("SELECT coalesce(max(rowid), 0) FROM runs").fetchone()[0],
    }


def _old_counts(conn, last: int) -> list:
    """Records, enrichment rows and topic assignments of the records with id up to ``last``."""
    return [conn.execute(f"SELECT count(*) FROM {table} WHERE {key} <= ?", (last,)).fetchone()[0]
            for table, key in (("records", "id"), ("enrichment", "record_id"),
                               ("topic_assignments", "record_id"))]


def _appended_only(conn, before: dict) -> bool:
    """Whether the inputs changed only by records newer than the last build (and their rows).

    The records up to the last build's newest are as many as then, and so are their enrichment rows
    and topic assignments; none of their enrichment rows was written by a run started since, and no
    topic assignment added since belongs to one of them.
    """
    last = before["records"]
    if _old_counts(conn, last) != before["counts"]:
        return False
    if conn.execute("SELECT 1 FROM enrichment WHERE record_id <= ? AND run_id IN "
                    "(SELECT id FROM runs WHERE rowid > ?) LIMIT 1", (last, before["runs"])).fetchone():
        return False
    return conn.execute("SELECT 1 FROM topic_assignments WHERE rowid > ? AND record_id <= ? LIMIT 1",
                        (before["assignments"], last)).fetchone() is None


def build_record_counts(corpus) -> dict:
    """Bring ``record_counts`` and ``topic_day_counts`` up to date; returns ``{rows, rebuilt, days}``.

    Call inside the analyse stage (it writes those tables and ``meta``). Nothing is done while the
    inputs are unchanged; ``days`` is how many days were counted again (every day on a rebuild).
    """
    conn = corpus.conn
    stamp = inputs_stamp(conn)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    previous = json.loads(row[0]) if row else None
    if not isinstance(previous, dict) or "stamp" not in previous or "state" not in previous:
        previous = None
    if previous is not None and previous["stamp"] == stamp:
        days = 0
        rebuilt = False
    elif previous is not None and _appended_only(conn, previous["state"]):
        new_days = [d for (d,) in conn.execute("SELECT DISTINCT day FROM records WHERE id > ? ORDER BY day",
                                               (previous["state"]["records"],))]
        for i in range(0, len(new_days), 500):
            batch = new_days[i:i + 500]
            marks = ",".join("?" * len(batch))
            conn.execute(f"DELETE FROM record_counts WHERE day IN ({marks})", batch)
            conn.execute(f"DELETE FROM topic_day_counts WHERE day IN ({marks})", batch)
            where = f" WHERE r.day IN ({marks})"
            _insert(conn, where, batch)
        days, rebuilt = len(new_days), False
    else:
        conn.execute("DELETE FROM record_counts")
        conn.execute("DELETE FROM topic_day_counts")
        _insert(conn, "", [])
        days = conn.execute("SELECT count(DISTINCT day) FROM record_counts").fetchone()[0]
        rebuilt = True
    if previous is None or previous["stamp"] != stamp:
        corpus.set_meta(META_KEY, {"stamp": stamp, "state": _state(conn)})
    n = conn.execute("SELECT count(*) FROM record_counts").fetchone()[0]
    return {"rows": n, "rebuilt": rebuilt, "days": days}


def _insert(conn, where: str, args: list) -> None:
    conn.execute("INSERT INTO record_counts(day, topic_id, topic_hint, source, sentiment, records) "
                 + _RECORD_ROWS.format(where=where), args)
    conn.execute("INSERT INTO topic_day_counts(topic_id, day, records) " + _TOPIC_ROWS.format(where=where),
                 args)
