"""Daily snapshots: one row per topic per UTC day, rewritten only when its inputs change.

A snapshot row holds what the keyed interface shows for a topic's day
(``/api/v1/snapshots``): totalRecords, volumeBySource, the sentiment label
counts and mean score, platformCount, the day's top entities and the number of
signals detected that day. A record counts in every topic it is assigned to,
on the day of its ``publishedAt``; a signal on the day of its ``detectedAt``.

The aggregate queries walk the ``records_day`` index (day and id only) and
join by record id, so the wide record rows are never read.

Incremental rule: each (topic, day) row stores ``input_hash``, a digest of the
aggregated inputs the row is made from (per-source and per-label counts, score
sums, the top entities with their names and types, the signal count).
:func:`build_snapshots` first finds the days whose inputs may have changed
(cheap fingerprints, :mod:`corpuskit.analysis.snapshot_changes`), aggregates
only those days in three grouped queries, then writes only the rows whose
digest changed and deletes the rows whose day has no inputs any more; an
unchanged row keeps the run id that wrote it.
Days with no records and no signals are not stored; :func:`get_snapshots`
returns them as zero rows so every window is dense.
"""
from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta

from corpuskit.analysis.windows import (MAX_DAYS, clock_day, day_range, parse_day,
                                        topic_id_by_name)
from corpuskit.errors import ValidationError

TOP_ENTITIES = 5
SCORE_DECIMALS = 6
DEFAULT_DAYS = 30

_RECORD_SQL = """
SELECT ta.topic_id, r.day, r.source, e.sentiment_label, count(*), count(e.sentiment_score),
       total(e.sentiment_score)
FROM records r INDEXED BY records_day
CROSS JOIN topic_assignments ta ON ta.record_id = r.id
LEFT JOIN enrichment e ON e.record_id = r.id
WHERE {where}
GROUP BY ta.topic_id, r.day, r.source, e.sentiment_label
ORDER BY ta.topic_id, r.day, r.source, e.sentiment_label
"""

_ENTITY_SQL = """
SELECT topic_id, day, name, type, n FROM (
    SELECT x.topic_id, x.day, en.name, en.type, x.n,
           row_number() OVER (PARTITION BY x.topic_id, x.day
                              ORDER BY x.n DESC, en.name, en.type, en.id) AS rank
    FROM (
        SELECT ta.topic_id, r.day, m.entity_id, sum(m.mention_count) AS n
        FROM records r INDEXED BY records_day
        CROSS JOIN mentions m ON m.record_id = r.id
        JOIN topic_assignments ta ON ta.record_id = m.record_id
        WHERE {where}
        GROUP BY ta.topic_id, r.day, m.entity_id
    ) x JOIN entities en ON en.id = x.entity_id
) WHERE rank <= {top}
ORDER BY topic_id, day, rank
"""

_SIGNAL_SQL = """
SELECT topic_id, substr(detected_at, 1, 10), count(*) FROM signals
WHERE topic_id IS NOT NULL GROUP BY 1, 2
"""

_COLUMNS = ("topic_id", "date", "total_records", "volume_by_source", "sentiment_positive",
            "sentiment_neutral", "sentiment_negative", "avg_sentiment", "platform_count",
            "top_entities", "signal_count", "input_hash", "run_id")


def _empty_day() -> dict:
    return {"volume": {}, "labels": {"positive": 0, "neutral": 0, "negative": 0},
            "scored": 0, "score_sum": 0.0, "entities": [], "signals": 0}


def _aggregate(conn, only_days=None) -> dict:
    """(topic_id, day) -> the day's aggregated inputs, for every day or only ``only_days``."""
    if only_days is None:
        where, args = "r.day IS NOT NULL", ()
    else:
        where, args = "r.day IN (SELECT value FROM json_each(?))", (json.dumps(sorted(only_days)),)
    days: dict[tuple, dict] = {}
    for topic_id, day, source, label, n, scored, score_sum in conn.execute(
            _RECORD_SQL.format(where=where), args):
        agg = days.setdefault((topic_id, day), _empty_day())
        agg["volume"][source] = agg["volume"].get(source, 0) + n
        if label is not None:
            agg["labels"][label] += scored
            agg["scored"] += scored
            agg["score_sum"] += score_sum
    for topic_id, day, name, etype, n in conn.execute(
            _ENTITY_SQL.format(where=where, top=TOP_ENTITIES), args):
        days.setdefault((topic_id, day), _empty_day())["entities"].append(
            {"name": name, "mentions": n, "type": etype})
    for topic_id, day, n in conn.execute(_SIGNAL_SQL):
        if only_days is None or day in only_days:
            days.setdefault((topic_id, day), _empty_day())["signals"] = n
    return days


def _row(topic_id: int, day: str, agg: dict) -> tuple:
    """The stored columns (without input_hash and run_id) for one topic and day."""
    avg = round(agg["score_sum"] / agg["scored"], SCORE_DECIMALS) if agg["scored"] else None
    volume = dict(sorted(agg["volume"].items()))
    return (
        topic_id, day, sum(volume.values()), json.dumps(volume, sort_keys=True),
        agg["labels"]["positive"], agg["labels"]["neutral"], agg["labels"]["negative"], avg,
        len(volume), json.dumps(agg["entities"], sort_keys=True), agg["signals"],
    )


def _digest(row: tuple) -> str:
    return hashlib.sha256(json.dumps(row, separators=(",", ":")).encode("utf-8")).hexdigest()[:32]


def build_snapshots(corpus, run_id: str, progress: bool = False, full: bool = False) -> dict:
    """Bring the ``snapshots`` table up to date.

    Only the days whose inputs changed since the last build are aggregated
    again (see :mod:`corpuskit.analysis.snapshot_changes`; ``full=True``
    aggregates every day), and of those only the rows whose ``input_hash``
    changed are written. Returns ``{written, unchanged, deleted,
    daysRecomputed}``. Writes happen in one transaction (joined when the
    caller already holds one).
    """
    from tqdm.auto import tqdm

    from corpuskit.analysis.snapshot_changes import ChangeTracker

    conn = corpus.conn
    tracker = ChangeTracker().fit(corpus)
    stored = {(t, d): (h, n) for t, d, h, n in conn.execute(
        "SELECT topic_id, date, input_hash, signal_count FROM snapshots")}
    if full or tracker.dirty_days_ is None:
        only_days = None
    else:
        signals = {(t, d): n for t, d, n in conn.execute(_SIGNAL_SQL)}
        only_days = set(tracker.dirty_days_)
        only_days |= {d for key, (_, n) in stored.items() if signals.get(key, 0) != n
                      for d in [key[1]]}
        only_days |= {d for (t, d) in signals if (t, d) not in stored}
    days = _aggregate(conn, only_days)
    changed = []
    for key in tqdm(sorted(days), desc="snapshots", unit="day", disable=not progress):
        row = _row(key[0], key[1], days[key])
        digest = _digest(row)
        if stored.get(key, (None,))[0] != digest:
            changed.append(row + (digest, run_id))
    gone = sorted(k for k in stored if k not in days and (only_days is None or k[1] in only_days))
    with corpus.transaction():
        conn.executemany(
            f"INSERT OR REPLACE INTO snapshots ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(_COLUMNS))})", changed)
        conn.executemany("DELETE FROM snapshots WHERE topic_id = ? AND date = ?", gone)
        tracker.save(corpus)
    recomputed = len({d for _, d in days}) if only_days is None else len(only_days)
    return {"written": len(changed), "unchanged": len(stored) - len(gone) - sum(
        1 for row in changed if (row[0], row[1]) in stored), "deleted": len(gone),
        "daysRecomputed": recomputed}


def format_score(value) -> str | None:
    """A mean sentiment score as the string-encoded decimal the keyed API shows (4 places)."""
    return None if value is None else f"{value:.4f}"


def _api_row(day: str, row) -> dict:
    if row is None:
        return {"date": day, "totalRecords": 0, "volumeBySource": {}, "sentimentPositive": 0,
                "sentimentNeutral": 0, "sentimentNegative": 0, "avgSentimentScore": None,
                "platformCount": 0, "topEntities": [], "signalCount": 0}
    return {
        "date": day,
        "totalRecords": row["total_records"],
        "volumeBySource": json.loads(row["volume_by_source"]),
        "sentimentPositive": row["sentiment_positive"],
        "sentimentNeutral": row["sentiment_neutral"],
        "sentimentNegative": row["sentiment_negative"],
        "avgSentimentScore": format_score(row["avg_sentiment"]),
        "platformCount": row["platform_count"],
        "topEntities": json.loads(row["top_entities"]),
        "signalCount": row["signal_count"],
    }


def snapshot_rows(corpus, topic_id: int, first: str, last: str) -> list[dict]:
    """Dense snapshot rows of one topic from day ``first`` to ``last`` inclusive, oldest first."""
    stored = {r["date"]: r for r in corpus.conn.execute(
        "SELECT * FROM snapshots WHERE topic_id = ? AND date BETWEEN ? AND ?",
        (topic_id, first, last))}
    return [_api_row(d, stored.get(d)) for d in day_range(parse_day(first, "from"),
                                                          parse_day(last, "to"))]


def resolve_range(corpus, date_from=None, date_to=None, default_days: int = DEFAULT_DAYS):
    """``(first, last)`` dates of a window: defaults to ``default_days`` ending on the clock's day.

    Only ``from`` given: up to the clock's day. Only ``to`` given: the
    ``default_days`` days ending on it. :class:`ValidationError` when a date is
    malformed, when from is after to, or when the range exceeds the library's bound.
    """
    last = parse_day(date_to, "to") if date_to not in (None, "") else None
    first = parse_day(date_from, "from") if date_from not in (None, "") else None
    if last is None:
        last = clock_day(corpus) if first is None or first <= clock_day(corpus) else first
    if first is None:  # near year 1 the window starts at the calendar's first day
        first = last - timedelta(days=min(default_days - 1, (last - date.min).days))
    if first > last:
        raise ValidationError(f"from ({first}) must not be after to ({last})")
    if (last - first).days + 1 > MAX_DAYS:
        raise ValidationError(f"date range longer than {MAX_DAYS} days")
    return first, last


def get_snapshots(corpus, topic_name: str, date_from=None, date_to=None) -> dict:
    """Snapshots of a topic: ``{topic, days, data: [row]}`` with one row per day, oldest first.

    ``date_from``/``date_to`` are ``YYYY-MM-DD`` (inclusive); both default to
    the last 30 days by the corpus clock (see :func:`resolve_range`). A row:
    ``date, totalRecords, volumeBySource, sentimentPositive, sentimentNeutral,
    sentimentNegative, avgSentimentScore`` (string with 4 decimals, null when no
    record that day has a score), ``platformCount, topEntities [{name,
    mentions, type}]`` (top 5 by mentions), ``signalCount``. Days with nothing
    are zero rows. Raises :class:`NotFoundError` for an unknown topic.
    """
    topic_id, name = topic_id_by_name(corpus, topic_name)
    first, last = resolve_range(corpus, date_from, date_to)
    data = snapshot_rows(corpus, topic_id, first.isoformat(), last.isoformat())
    return {"topic": name, "days": len(data), "data": data}
