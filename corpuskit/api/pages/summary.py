"""What the landing page says about the corpus: counts, span, sources, topics, runs, status.

:func:`corpus_summary` reads only aggregates and public names. It never
returns a key, a key prefix, a file path or a run's settings (an import's
settings hold the path of the file it read).
"""
from __future__ import annotations

from pathlib import Path

from corpuskit.analysis.corpus_stats import status
from corpuskit.ingest.collectors.health import source_health

#: Topics listed by name on the landing page (the rest are counted).
TOPICS_SHOWN = 12


def corpus_name(corpus) -> str:
    """The corpus's display name: the ``name`` meta value, else the file name without its suffix."""
    name = corpus.get_meta("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    if str(corpus.path) == ":memory:":
        return "in-memory corpus"
    return Path(corpus.path).stem or "corpus"


def _topics(conn, shown: int) -> tuple[int, list[dict]]:
    total = conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    rows = conn.execute(
        "SELECT t.name, t.display_name, t.active, "
        "(SELECT count(*) FROM topic_assignments ta WHERE ta.topic_id = t.id) AS n "
        "FROM topics t ORDER BY n DESC, t.name LIMIT ?", (shown,)).fetchall()
    return total, [{"name": name, "displayName": label, "active": bool(active), "recordCount": n}
                   for name, label, active, n in rows]


def _last_runs(conn) -> list[dict]:
    """The newest run of each stage, newest first."""
    rows = conn.execute(
        "SELECT r.stage, r.id, r.status, r.started_at, r.finished_at FROM runs r "
        "WHERE r.rowid = (SELECT r2.rowid FROM runs r2 WHERE r2.stage = r.stage "
        "                 ORDER BY r2.started_at DESC, r2.rowid DESC LIMIT 1) "
        "ORDER BY r.started_at DESC, r.stage").fetchall()
    return [{"stage": stage, "runId": run_id, "status": state, "startedAt": started,
             "finishedAt": finished} for stage, run_id, state, started, finished in rows]


def corpus_summary(corpus, topics_shown: int = TOPICS_SHOWN) -> dict:
    """The landing page's figures, by the corpus clock.

    ``{name, records, firstPublishedAt, lastPublishedAt, clock, clockMode,
    sources: [{source, recordCount, lastIngestedAt, healthy}], topicCount,
    topics: [{name, displayName, active, recordCount}] (the most assigned
    first, at most ``topics_shown``), entities, signals, stories, runs:
    [{stage, runId, status, startedAt, finishedAt}], status: <the
    /api/v1/status body>}``.
    """
    conn = corpus.conn
    first, last = conn.execute("SELECT min(published_at), max(published_at) FROM records").fetchone()
    topic_count, topics = _topics(conn, topics_shown)
    state = status(corpus)
    return {
        "name": corpus_name(corpus),
        "records": state["totalRecords"],
        "firstPublishedAt": first,
        "lastPublishedAt": last,
        "clock": state["checkedAt"],
        "clockMode": corpus.clock_mode,
        "sources": [{"source": s["source"], "recordCount": s["recordCount"],
                     "lastIngestedAt": s["lastIngestedAt"], "healthy": s["healthy"]}
                    for s in source_health(corpus)],
        "topicCount": topic_count,
        "topics": topics,
        "entities": conn.execute("SELECT count(*) FROM entities").fetchone()[0],
        "signals": conn.execute("SELECT count(*) FROM signals").fetchone()[0],
        "stories": conn.execute("SELECT count(*) FROM stories WHERE is_current = 1").fetchone()[0],
        "runs": _last_runs(conn),
        "status": state,
    }
