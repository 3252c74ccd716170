"""Volume trends of one topic and side-by-side comparison of several.

Windows are whole UTC days ending on the corpus clock's day, oldest first.
"""
from __future__ import annotations

from corpuskit.analysis.snapshots import snapshot_rows
from corpuskit.analysis.windows import MAX_DAYS, check_int, topic_id_by_name, window_days
from corpuskit.errors import ValidationError
from corpuskit.query import topic_days

COMPARE_MIN_TOPICS = 2
COMPARE_MAX_TOPICS = 5
COMPARE_MAX_DAYS = 90


def volume_trend(corpus, topic_name: str, days: int = 30) -> dict:
    """Records per day of a topic: ``{topic, days, volume: [{day, count}], externalTrends}``.

    ``volume`` has one entry per day of the window, zeros included, oldest
    first, counted from the topic assignments: read from the counts analyse keeps
    (:mod:`.record_counts`) while they hold, else live (no analysis run needed).
    ``externalTrends`` is always an empty list: it is reserved for trend series
    from outside sources (search interest and the like), which an offline
    corpus does not have. Raises :class:`NotFoundError` for an unknown topic
    and :class:`ValidationError` for ``days`` outside 1..3660.
    """
    days = check_int(days, "days", 1, MAX_DAYS)
    topic_id, name = topic_id_by_name(corpus, topic_name)
    dates = window_days(corpus, days)
    counts = topic_days(corpus.conn, topic_id, dates[0], dates[-1])
    return {"topic": name, "days": days,
            "volume": [{"day": d, "count": counts.get(d, 0)} for d in dates],
            "externalTrends": []}


def _topic_list(topic_names) -> list[str]:
    if topic_names is None:
        raise ValidationError("topics is required")
    if isinstance(topic_names, str):
        topic_names = topic_names.split(",")
    names = []
    for raw in topic_names:
        name = str(raw).strip()
        if name and name not in names:
            names.append(name)
    if not COMPARE_MIN_TOPICS <= len(names) <= COMPARE_MAX_TOPICS:
        raise ValidationError(
            f"topics must name {COMPARE_MIN_TOPICS} to {COMPARE_MAX_TOPICS} distinct topics, "
            f"got {len(names)}")
    return names


def compare_topics(corpus, topic_names, days: int = 30) -> dict:
    """Daily snapshot rows of 2 to 5 topics side by side.

    ``topic_names`` is a list or a comma-separated string (repeats are
    dropped). Returns ``{topics: [{name, displayName, category}], days,
    comparison: {name: [row]}}`` where each row is a snapshot row (see
    :func:`corpuskit.analysis.snapshots.get_snapshots`: date, totalRecords and
    the other snapshot fields), one per day, oldest first. ``days`` above 90
    is clamped to 90. :class:`ValidationError` for fewer than 2 or more than 5
    topics or ``days`` < 1; :class:`NotFoundError` for an unknown topic.
    """
    names = _topic_list(topic_names)
    days = min(check_int(days, "days", 1), COMPARE_MAX_DAYS)
    dates = window_days(corpus, days)
    topics, comparison = [], {}
    for requested in names:
        topic_id, name = topic_id_by_name(corpus, requested)
        row = corpus.conn.execute("SELECT display_name, category FROM topics WHERE id = ?",
                                  (topic_id,)).fetchone()
        topics.append({"name": name, "displayName": row[0], "category": row[1]})
        comparison[name] = snapshot_rows(corpus, topic_id, dates[0], dates[-1])
    return {"topics": topics, "days": days, "comparison": comparison}
