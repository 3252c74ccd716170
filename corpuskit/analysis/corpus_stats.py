"""Corpus-level statistics: daily timelines, the topic distribution and the status check.

Every timeline is dense: one row per UTC day of the window that ends on the
corpus clock's day (``corpus.now()``), zeros included, oldest first. A record
counts on the day of its ``publishedAt``. A record belongs to a topic through
its topic assignments (``topic_assignments``), so a record assigned to two
topics counts in both topics' numbers. The daily counts are read from the counts analyse keeps
(:mod:`.record_counts`) while they hold, and counted live otherwise.
"""
from __future__ import annotations

from datetime import timedelta

from corpuskit.analysis.windows import check_days, topic_by_id, window_days
from corpuskit.clock import iso, utc
from corpuskit.errors import NotFoundError
from corpuskit.query import source_in_corpus, stored_day_source_counts, stored_topic_totals, topic_days

SCORE_DECIMALS = 4


def _rounded(value):
    return None if value is None else round(float(value), SCORE_DECIMALS)


def _day_source_counts(corpus, dates, source=None) -> list:
    """``[(day, source, records)]`` over ``dates`` (of ``source`` only, when given): from the counts
    analyse keeps (:mod:`.record_counts`) while they hold, else counted live."""
    rows = stored_day_source_counts(corpus.conn, dates[0], dates[-1], source)
    if rows is not None:
        return rows
    where, args = "day BETWEEN ? AND ?", [dates[0], dates[-1]]
    if source is not None:
        where += " AND source = ?"
        args.append(source)
    return corpus.conn.execute(f"SELECT day, source, count(*) FROM records WHERE {where} "
                               "GROUP BY day, source ORDER BY day, source", args).fetchall()


def global_timeline(corpus, days: int = 30) -> list[dict]:
    """Records per day over the last ``days`` days, with a per-source breakdown.

    Returns ``[{date, recordCount, sources: {kind: n}}]``, one row per day,
    oldest first. ``sources`` lists every source kind seen in the window
    (zero on the days it has no records), so each row has the same keys.
    """
    days = check_days(days)
    dates = window_days(corpus, days)
    rows = _day_source_counts(corpus, dates)
    kinds = sorted({r[1] for r in rows})
    per_day = {d: dict.fromkeys(kinds, 0) for d in dates}
    for day, source, n in rows:
        per_day[day][source] = n
    return [{"date": d, "recordCount": sum(per_day[d].values()), "sources": per_day[d]}
            for d in dates]


def source_timeline(corpus, source: str, days: int = 30) -> dict:
    """Records per day of one source kind: ``{sourceId, timeline: [{date, recordCount}]}``.

    Raises :class:`NotFoundError` when the corpus holds no record of ``source``
    (any source name, known kind or not).
    """
    days = check_days(days)
    if not source_in_corpus(corpus.conn, source):
        raise NotFoundError(f"Source not found: {source!r}")
    dates = window_days(corpus, days)
    counts = {day: n for day, _, n in _day_source_counts(corpus, dates, source)}
    return {"sourceId": source,
            "timeline": [{"date": d, "recordCount": counts.get(d, 0)} for d in dates]}


def sentiment_timeline(corpus, days: int = 7) -> dict:
    """Mean sentiment score per day: ``{timeline: [{date, avgScore, sources: {kind: avg}}]}``.

    Only records with a sentiment score count. A day with no scored record
    has ``avgScore`` null (no data is not the same as neutral) and an empty
    ``sources`` map; ``sources`` lists the kinds scored that day. Scores are
    rounded to 4 decimals.
    """
    days = check_days(days)
    dates = window_days(corpus, days)
    rows = corpus.conn.execute(
        "SELECT r.day, r.source, sum(e.sentiment_score), count(*) FROM records r "
        "JOIN enrichment e ON e.record_id = r.id WHERE r.day BETWEEN ? AND ? "
        "AND e.sentiment_score IS NOT NULL "
        "GROUP BY r.day, r.source ORDER BY r.day, r.source",
        (dates[0], dates[-1]),
    ).fetchall()
    sums = {d: [0.0, 0] for d in dates}
    sources = {d: {} for d in dates}
    for day, source, total, n in rows:
        sums[day][0] += total
        sums[day][1] += n
        sources[day][source] = _rounded(total / n)
    timeline = []
    for d in dates:
        total, n = sums[d]
        timeline.append({"date": d, "avgScore": _rounded(total / n) if n else None,
                         "sources": sources[d]})
    return {"timeline": timeline}


def topic_distribution(corpus) -> dict:
    """Records per topic: ``{topics: [{topicId, label, share, recordCount}], totalRecords}``.

    ``share`` is the topic's records over all records in the corpus (4
    decimals); because a record may carry several topics the shares can add up
    to more than 1, and records with no topic make them add up to less.
    Every topic is listed, most records first (ties by id).
    """
    total = corpus.count()
    stored = stored_topic_totals(corpus.conn)   # the counts analyse keeps, while they hold
    if stored is not None:
        rows = sorted(((tid, label, stored.get(tid, 0)) for tid, label in
                       corpus.conn.execute("SELECT id, display_name FROM topics")),
                      key=lambda r: (-r[2], r[0]))
    else:
        rows = corpus.conn.execute(
            "SELECT t.id, t.display_name, count(ta.record_id) AS n FROM topics t "
            "LEFT JOIN topic_assignments ta ON ta.topic_id = t.id GROUP BY t.id "
            "ORDER BY n DESC, t.id"
        ).fetchall()
    return {
        "topics": [{"topicId": tid, "label": label, "recordCount": n,
                    "share": round(n / total, SCORE_DECIMALS) if total else 0.0}
                   for tid, label, n in rows],
        "totalRecords": total,
    }


def topic_timeline(corpus, topic_id, days: int = 30) -> dict:
    """Records per day of one topic: ``{topicId, timeline: [{date, recordCount, share}]}``.

    ``share`` is the topic's records that day over all records that day (0
    on a day with no records). Raises :class:`NotFoundError` for an unknown id.
    """
    days = check_days(days)
    tid, _ = topic_by_id(corpus, topic_id)
    dates = window_days(corpus, days)
    topic_counts = topic_days(corpus.conn, tid, dates[0], dates[-1])
    all_counts: dict = {}
    for day, _, n in _day_source_counts(corpus, dates):
        all_counts[day] = all_counts.get(day, 0) + n
    timeline = []
    for d in dates:
        n, total = topic_counts.get(d, 0), all_counts.get(d, 0)
        timeline.append({"date": d, "recordCount": n,
                         "share": round(n / total, SCORE_DECIMALS) if total else 0.0})
    return {"topicId": tid, "timeline": timeline}


def source_ingestion(corpus) -> list[dict]:
    """Per source kind: ``[{source, recordCount, lastIngestion}]``, sorted by source.

    Read from :func:`corpuskit.query.source_health.source_health`, the one
    place that knows when each source was last ingested.
    """
    from corpuskit.query.source_health import source_health

    return [{"source": h["source"], "recordCount": h["recordCount"],
             "lastIngestion": h["lastIngestedAt"]} for h in source_health(corpus)]


def status(corpus) -> dict:
    """The public status check, by the corpus clock.

    ``{status: 'operational', totalRecords, records24h, activeTopics,
    signals48h, sources: [{source, lastIngestion}], checkedAt}``:
    ``records24h`` counts records published in the 24 hours up to the clock,
    ``signals48h`` signals detected in the 48 hours up to it, ``activeTopics``
    the topics marked active; ``checkedAt`` is the corpus clock.
    """
    now = utc(corpus.now())
    now_iso = iso(now)
    conn = corpus.conn
    records24h = conn.execute(
        "SELECT count(*) FROM records WHERE published_at > ? AND published_at <= ?",
        (iso(now - timedelta(hours=24)), now_iso),
    ).fetchone()[0]
    signals48h = conn.execute(
        "SELECT count(*) FROM signals WHERE detected_at > ? AND detected_at <= ?",
        (iso(now - timedelta(hours=48)), now_iso),
    ).fetchone()[0]
    active = conn.execute("SELECT count(*) FROM topics WHERE active = 1").fetchone()[0]
    return {
        "status": "operational",
        "totalRecords": corpus.count(),
        "records24h": records24h,
        "activeTopics": active,
        "signals48h": signals48h,
        "sources": [{"source": s["source"], "lastIngestion": s["lastIngestion"]}
                    for s in source_ingestion(corpus)],
        "checkedAt": now_iso,
    }
