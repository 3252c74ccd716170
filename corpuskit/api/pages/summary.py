"""What the landing page says about the corpus: counts, span, sources, topics, runs, status.

:func:`corpus_summary` reads only aggregates and public names. It never
returns a key, a key prefix, a file path or a run's settings (an import's
settings hold the path of the file it read).
"""
from __future__ import annotations

from pathlib import Path

from corpuskit.analysis.corpus_stats import status
from corpuskit.ingest.collectors.health import source_health
from corpuskit.query.overview import corpus_counts, last_runs, most_assigned_topics

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


def _topics(conn, shown: int) -> list[dict]:
    return [{"name": name, "displayName": label, "active": bool(active), "recordCount": n}
            for name, label, active, n in most_assigned_topics(conn, shown)]


def _last_runs(conn) -> list[dict]:
    """The newest run of each stage, newest first."""
    return [{"stage": stage, "runId": run_id, "status": state, "startedAt": started,
             "finishedAt": finished} for stage, run_id, state, started, finished in last_runs(conn)]


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
    counts = corpus_counts(conn)
    state = status(corpus)
    return {
        "name": corpus_name(corpus),
        "records": state["totalRecords"],
        "firstPublishedAt": counts["records_first"],
        "lastPublishedAt": counts["records_last"],
        "clock": state["checkedAt"],
        "clockMode": corpus.clock_mode,
        "sources": [{"source": s["source"], "recordCount": s["recordCount"],
                     "lastIngestedAt": s["lastIngestedAt"], "healthy": s["healthy"]}
                    for s in source_health(corpus)],
        "topicCount": counts["topics"],
        "topics": _topics(conn, topics_shown),
        "entities": counts["entities"],
        "signals": counts["signals"],
        "stories": counts["stories"],
        "runs": _last_runs(conn),
        "status": state,
    }
