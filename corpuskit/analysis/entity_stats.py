"""Entity aggregates and profiles, for both interfaces.

Definitions used throughout (all windows from the corpus clock ``now``):

* **mentions** of an entity: the sum of ``mentions.mention_count`` (occurrences)
  over the records that mention it; a mention happens at its record's
  ``publishedAt``.
* **recentMentions**: mentions published in ``(now - 7 days, now]``.
* **baselineMentions**: mentions published in the 28 days before that,
  ``(now - 35 days, now - 7 days]``.
* **growthFactor**: the recent weekly rate over the baseline weekly rate,
  add-one smoothed so an entity with no baseline does not divide by zero::

      growthFactor = (recentMentions + 1) / (baselineMentions * 7 / 28 + 1)

  1.0 means "as usual" (and is what an entity with no mentions at all gets);
  an entity that goes from nothing to 9 mentions in a week scores 10.0.
  Rounded to 4 decimals.
* **sourceDiversity**: the number of distinct source kinds of the mentions and
  their Herfindahl index, the sum of squared per-source shares of mentions
  (1.0 = one source only, 1/k = spread evenly over k sources, 0.0 = no mentions).
* **prominenceRank.withinType**: 1 + the number of entities of the same type
  with strictly more mentions (ties share a rank); ``sampleSize`` is the
  number of entities of that type.
* **sentimentDistribution** counts the *records* mentioning the entity by
  sentiment label; ``unknown`` counts those not scored yet.

Integer ids are returned; the HTTP layer turns them into opaque ids.
"""
from __future__ import annotations

from datetime import date, timedelta

from corpuskit.analysis import entity_aggregates as aggregates
from corpuskit.analysis.signals.kinds import new_entity_kinds, sql_names
from corpuskit.analysis.windows import (check_int, clock_day, day_range, parse_since,
                                        topic_id_by_name)
from corpuskit.clock import iso, utc
from corpuskit.errors import ValidationError
from corpuskit.query import EntityNotFound, entities_named

RECENT_DAYS = 7
BASELINE_DAYS = 28
TREND_DAYS = 30
SENTIMENT_WEEKS = 12
RANKING_MAX = 1000
_CHUNK = 500


def growth_factor(recent: int, baseline: int) -> float:
    """``(recent + 1) / (baseline * 7 / 28 + 1)``, rounded to 4 decimals."""
    return round((recent + 1) / (baseline * RECENT_DAYS / BASELINE_DAYS + 1), 4)


def herfindahl(counts) -> float:
    """Sum of squared shares of ``counts`` (0.0 when they add up to nothing)."""
    total = sum(counts)
    if total <= 0:
        return 0.0
    return round(sum((c / total) ** 2 for c in counts), 4)


def _windows(corpus) -> tuple[str, str, str]:
    now = utc(corpus.now())
    return (iso(now), iso(now - timedelta(days=RECENT_DAYS)),
            iso(now - timedelta(days=RECENT_DAYS + BASELINE_DAYS)))


def _chunks(ids):
    ids = list(ids)
    for i in range(0, len(ids), _CHUNK):
        yield ids[i:i + _CHUNK]


def _in(ids) -> str:
    return ",".join("?" * len(ids))


def _window_sums(corpus, entity_ids=None, stored: bool | None = None) -> dict:
    """entity id -> (total, recent, baseline) mentions; every mentioned entity when ids is None.

    The totals read ``mentions`` alone (or the sums analyse stored, see
    :mod:`.entity_aggregates`); only the records of the two windows (found
    through the ``published_at`` index) are joined, so the cost grows with the
    last five weeks, not with the whole corpus. The records come first (CROSS
    JOIN) and their mentions are read by record, the entity ids only filtering
    them (the unary ``+``): SQLite otherwise reads every mention of each entity
    asked for, all of the corpus's for the most mentioned ones.
    """
    now, recent_start, base_start = _windows(corpus)
    totals_sql = "SELECT entity_id, sum(mention_count) FROM mentions"
    windows_sql = ("SELECT m.entity_id, "
                   "total(CASE WHEN r.published_at > ? THEN m.mention_count END), "
                   "total(CASE WHEN r.published_at <= ? THEN m.mention_count END) "
                   "FROM records r CROSS JOIN mentions m ON m.record_id = r.id "
                   "WHERE r.published_at > ? AND r.published_at <= ?")
    window_args = [recent_start, recent_start, base_start, now]
    out = {}
    if stored is None:   # the totals analyse stored, while they still hold
        stored = aggregates.usable(corpus)
    batches = [None] if entity_ids is None else list(_chunks(entity_ids))
    for batch in batches:
        ids = [] if batch is None else batch
        where = f" WHERE entity_id IN ({_in(batch)})" if batch is not None else ""
        totals = (aggregates.stored_totals(corpus, batch).items() if stored else
                  corpus.conn.execute(totals_sql + where + " GROUP BY entity_id", ids))
        for eid, total in totals:
            out[eid] = [int(total), 0, 0]
        and_in = f" AND +m.entity_id IN ({_in(batch)})" if batch is not None else ""
        for eid, recent, baseline in corpus.conn.execute(windows_sql + and_in + " GROUP BY m.entity_id",
                                                         window_args + ids):
            if eid in out:
                out[eid][1:] = [int(recent), int(baseline)]
    return {eid: tuple(v) for eid, v in out.items()}


def _lede_parts(corpus, entity_ids, stored: bool | None = None) -> tuple[dict, dict]:
    """(entity id -> distinct sources, entity id -> display name of its most-mentioned topic)."""
    if aggregates.usable(corpus) if stored is None else stored:
        return aggregates.stored_lede_parts(corpus, entity_ids)
    sources, top_topic = {}, {}
    for batch in _chunks(entity_ids):
        for eid, n in corpus.conn.execute(
                f"SELECT m.entity_id, count(DISTINCT r.source) FROM mentions m "
                f"JOIN records r ON r.id = m.record_id WHERE m.entity_id IN ({_in(batch)}) "
                f"GROUP BY m.entity_id", batch):
            sources[eid] = n
        best = {}
        for eid, label, n in corpus.conn.execute(
                f"SELECT m.entity_id, t.display_name, sum(m.mention_count) FROM mentions m "
                f"JOIN topic_assignments ta ON ta.record_id = m.record_id "
                f"JOIN topics t ON t.id = ta.topic_id WHERE m.entity_id IN ({_in(batch)}) "
                f"GROUP BY m.entity_id, t.id", batch):
            if eid not in best or (-n, label) < (-best[eid][1], best[eid][0]):
                best[eid] = (label, n)
        top_topic.update({eid: label for eid, (label, _) in best.items()})
    return sources, top_topic


def lede(name: str, etype: str, mentions: int, sources: int, topic: str | None) -> str:
    """One sentence describing an entity from its numbers."""
    if mentions == 0:
        return f"{name} ({etype}) has no recorded mentions."
    times = "1 time" if mentions == 1 else f"{mentions:,} times"
    across = "1 source" if sources == 1 else f"{sources} sources"
    tail = f", mostly on {topic}." if topic else "."
    return f"{name} ({etype}) was mentioned {times} across {across}{tail}"


def _entity_rows(corpus, entity_ids) -> dict:
    rows = {}
    for batch in _chunks(entity_ids):
        for r in corpus.conn.execute(
                f"SELECT id, name, type, slug FROM entities WHERE id IN ({_in(batch)})", batch):
            rows[r[0]] = (r[1], r[2], r[3])
    return rows


def entity_list_rows(corpus, entity_ids, stored: bool | None = None) -> list[dict]:
    """List-item fields for a page of entity ids, in the order given, in a few queries.

    Each item: ``id, name, type, slug, lede, mentionCount,
    recentMentions, growthFactor``. Ids that do not exist are left out.
    ``stored``: whether the sums analyse keeps still hold (checked when None).
    """
    ids = []
    for raw in entity_ids:
        key = int(raw)
        if key not in ids:
            ids.append(key)
    base = _entity_rows(corpus, ids)
    ids = [i for i in ids if i in base]
    if stored is None:
        stored = aggregates.usable(corpus)
    sums = _window_sums(corpus, ids, stored)
    sources, top_topic = _lede_parts(corpus, ids, stored)
    items = []
    for eid in ids:
        name, etype, slug = base[eid]
        total, recent, baseline = sums.get(eid, (0, 0, 0))
        items.append({
            "id": eid, "name": name, "type": etype, "slug": slug,
            "lede": lede(name, etype, total, sources.get(eid, 0), top_topic.get(eid)),
            "mentionCount": total, "recentMentions": recent,
            "growthFactor": growth_factor(recent, baseline),
        })
    return items


def sentiment_weeks(corpus, eid: int) -> dict[str, list]:
    """The sentiment scores of the records mentioning entity ``eid``, by ISO week (Monday
    ``weekStart``), over the last ``SENTIMENT_WEEKS`` weeks to the clock's day (scored records only:
    a language the scorer does not cover has none)."""
    last_day = clock_day(corpus)
    first_week = last_day - timedelta(days=last_day.weekday()) - timedelta(weeks=SENTIMENT_WEEKS - 1)
    weeks: dict[str, list] = {}
    for day, score in corpus.conn.execute(
            "SELECT r.day, e.sentiment_score FROM mentions m JOIN records r ON r.id = m.record_id "
            "JOIN enrichment e ON e.record_id = m.record_id "
            "WHERE m.entity_id = ? AND r.day BETWEEN ? AND ? AND e.sentiment_score IS NOT NULL "
            "ORDER BY r.day, r.id",
            (eid, first_week.isoformat(), last_day.isoformat())):
        d = date.fromisoformat(day)
        start = (d - timedelta(days=d.weekday())).isoformat()
        weeks.setdefault(start, []).append(score)
    return weeks


def entity_detail(corpus, entity_id) -> dict:
    """Everything the ``/v1`` entity detail shows for one entity id.

    The list-item fields plus ``baselineMentions``, ``sentimentDistribution``
    ``{positive, neutral, negative, unknown}``, ``sentimentTrend`` (ISO weeks,
    Monday ``weekStart``, the last 12 weeks up to the clock's week that have a
    scored record, oldest first: ``{weekStart, avgScore, sampleSize}``),
    ``prominenceRank {withinType, sampleSize}``, ``noveltyActive`` (an open
    novelty signal names the entity, as its subject or in its evidence) and
    ``sourceDiversity {distinctSources, herfindahlIndex}``; see the module
    docstring for the definitions. :class:`~corpuskit.query.EntityNotFound` for an unknown id.
    """
    try:
        eid = int(entity_id)
    except (TypeError, ValueError):
        raise EntityNotFound(entity_id) from None
    holds = aggregates.usable(corpus)   # checked once for every part of the answer
    items = entity_list_rows(corpus, [eid], holds)
    if not items:
        raise EntityNotFound(entity_id)
    out = items[0]
    conn = corpus.conn
    out["baselineMentions"] = _window_sums(corpus, [eid], holds).get(eid, (0, 0, 0))[2]
    # sums over every mention of the entity: from the table analyse keeps, while it holds
    stored = aggregates.stored_detail(corpus, eid) if holds else False
    if stored is None:   # the table holds, and the entity has no mention
        stored = ([], [])

    dist = {"positive": 0, "neutral": 0, "negative": 0, "unknown": 0}
    by_label = stored[1] if stored else conn.execute(
        "SELECT e.sentiment_label, count(*) FROM mentions m "
        "LEFT JOIN enrichment e ON e.record_id = m.record_id WHERE m.entity_id = ? "
        "GROUP BY e.sentiment_label", (eid,))
    for label, n in by_label:
        dist[label or "unknown"] += n
    out["sentimentDistribution"] = dist

    weeks = sentiment_weeks(corpus, eid)
    out["sentimentTrend"] = [
        {"weekStart": w, "avgScore": round(sum(s) / len(s), 4), "sampleSize": len(s)}
        for w, s in sorted(weeks.items())]

    sample = conn.execute("SELECT count(*) FROM entities WHERE type = ?", (out["type"],)).fetchone()[0]
    above = aggregates.stored_above(corpus, out["type"], out["mentionCount"]) if stored else conn.execute(
        "SELECT count(*) FROM (SELECT m.entity_id, sum(m.mention_count) AS s FROM mentions m "
        "JOIN entities en ON en.id = m.entity_id WHERE en.type = ? GROUP BY m.entity_id) "
        "WHERE s > ?", (out["type"], out["mentionCount"])).fetchone()[0]
    out["prominenceRank"] = {"withinType": above + 1, "sampleSize": sample}

    out["noveltyActive"] = conn.execute(
        f"SELECT 1 FROM signals s WHERE s.kind IN ({sql_names(new_entity_kinds())}) AND s.status = 'open' AND "
        "(s.entity_id = ? OR EXISTS (SELECT 1 FROM signal_evidence ev WHERE ev.signal_id = s.id "
        "AND ev.ref_kind = 'entity' AND ev.ref_id = ?)) LIMIT 1", (eid, eid)).fetchone() is not None

    per_source = stored[0] if stored else [n for _, n in conn.execute(
        "SELECT r.source, sum(m.mention_count) FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE m.entity_id = ? GROUP BY r.source ORDER BY r.source", (eid,))]
    out["sourceDiversity"] = {"distinctSources": len(per_source),
                              "herfindahlIndex": herfindahl(per_source)}
    return out


def trending_entities(corpus, n: int = 10) -> dict:
    """The ``n`` entities growing fastest: ``{entities: [{id, name, type, mentionCount,
    growthFactor, recentMentions, slug}]}`` (the HTTP layer turns the slug into a path).

    Ranked by growthFactor, then recentMentions, then mentionCount (all
    descending), then id. Only entities with at least one recent mention are
    listed, so the list can be shorter than ``n``. :class:`ValidationError`
    for ``n`` outside 1..1000.
    """
    n = check_int(n, "n", 1, RANKING_MAX)
    sums = _window_sums(corpus)
    ranked = sorted(
        ((growth_factor(recent, baseline), recent, total, eid)
         for eid, (total, recent, baseline) in sums.items() if recent > 0),
        key=lambda t: (-t[0], -t[1], -t[2], t[3]))[:n]
    base = _entity_rows(corpus, [t[3] for t in ranked])
    return {"entities": [
        {"id": eid, "name": base[eid][0], "type": base[eid][1], "mentionCount": total,
         "growthFactor": growth, "recentMentions": recent,
         "slug": base[eid][2]}
        for growth, recent, total, eid in ranked]}


def entity_ranking(corpus, topic: str | None = None, since=None, limit: int = 50) -> dict:
    """Entities ranked by mentions since a time: ``{data: [{name, mentions, types}], count,
    params: {topic, since}}``.

    Entities sharing a name (for example an org and a product) are one row
    whose ``types`` lists both. ``since`` (any timestamp form) defaults to 7
    days before the corpus clock; ``topic`` (a topic name) restricts to records
    assigned to it. Ties are broken by name. :class:`NotFoundError` for an
    unknown topic, :class:`ValidationError` for a bad ``since`` or ``limit``
    outside 1..1000.
    """
    limit = check_int(limit, "limit", 1, RANKING_MAX)
    since_iso = parse_since(since, utc(corpus.now()) - timedelta(days=RECENT_DAYS))
    args: list = []
    join = ""
    topic_name = None
    if topic not in (None, ""):
        topic_id, topic_name = topic_id_by_name(corpus, topic)
        join = "JOIN topic_assignments ta ON ta.record_id = m.record_id AND ta.topic_id = ? "
        args.append(topic_id)
    rows = corpus.conn.execute(
        # records first (CROSS JOIN fixes the order): the since-window through the published_at
        # index, then their mentions; SQLite otherwise scans every mention in the corpus
        "SELECT en.name, sum(m.mention_count) AS n, group_concat(DISTINCT en.type) "
        "FROM records r CROSS JOIN mentions m ON m.record_id = r.id "
        "JOIN entities en ON en.id = m.entity_id " + join +
        "WHERE r.published_at >= ? GROUP BY en.name ORDER BY n DESC, en.name LIMIT ?",
        args + [since_iso, limit]).fetchall()
    data = [{"name": name, "mentions": int(n), "types": sorted(types.split(","))}
            for name, n, types in rows]
    return {"data": data, "count": len(data), "params": {"topic": topic_name, "since": since_iso}}


def entity_profile(corpus, name: str) -> dict:
    """The keyed interface's entity profile for a case-sensitive name.

    ``name`` matches an entity's canonical name or one of its alias surface
    forms exactly; every matching entity is folded into one profile (``types``
    lists their types, ``type`` and ``name`` are the most-mentioned one's).
    Returns ``{name, type, types, totalMentions, firstSeen, lastSeen, beats,
    narrative, mentionTrend}``: ``beats`` are the topic names of the records
    that mention it, most mentions first; ``narrative`` is the current entity
    narrative ``{headline, content, slug, generatedAt}`` or None;
    ``mentionTrend`` is ``[{day, mentions}]`` for the 30 days ending on the
    clock's day, newest first, zeros included. :class:`~corpuskit.query.EntityNotFound` when
    nothing matches.
    """
    if name is None or not str(name):
        raise ValidationError("entity name is required")
    matches = entities_named(corpus.conn, str(name))
    ids = [m[0] for m in matches]
    conn = corpus.conn
    marks = _in(ids)
    holds = aggregates.usable(corpus)   # the sums over every mention, kept by analyse
    totals = aggregates.stored_totals(corpus, ids) if holds else dict(conn.execute(
        f"SELECT entity_id, sum(mention_count) FROM mentions WHERE entity_id IN ({marks}) "
        f"GROUP BY entity_id", ids).fetchall())
    primary = min(matches, key=lambda m: (-totals.get(m[0], 0), m[0]))
    first, last = conn.execute(
        f"SELECT min(r.published_at), max(r.published_at) FROM mentions m "
        f"JOIN records r ON r.id = m.record_id WHERE m.entity_id IN ({marks})", ids).fetchone()
    if first is None:
        first = min((m[3] for m in matches if m[3]), default=None)
        last = max((m[4] for m in matches if m[4]), default=None)
    beats = aggregates.stored_beats(corpus, ids) if holds else [row[0] for row in conn.execute(
        f"SELECT t.name, sum(m.mention_count) AS n FROM mentions m "
        f"JOIN topic_assignments ta ON ta.record_id = m.record_id JOIN topics t ON t.id = ta.topic_id "
        f"WHERE m.entity_id IN ({marks}) GROUP BY t.id ORDER BY n DESC, t.name", ids)]
    story = conn.execute(
        f"SELECT headline, body, slug, generated_at FROM stories WHERE kind = 'entity_narrative' "
        f"AND is_current = 1 AND entity_id IN ({marks}) ORDER BY generated_at DESC, id DESC LIMIT 1",
        ids).fetchone()
    narrative = None if story is None else {
        "headline": story[0], "content": story[1], "slug": story[2], "generatedAt": story[3]}
    last_day = clock_day(corpus)
    days = day_range(last_day - timedelta(days=TREND_DAYS - 1), last_day)
    per_day = dict(conn.execute(
        f"SELECT r.day, sum(m.mention_count) FROM mentions m JOIN records r ON r.id = m.record_id "
        f"WHERE m.entity_id IN ({marks}) AND r.day BETWEEN ? AND ? GROUP BY r.day",
        ids + [days[0], days[-1]]).fetchall())
    return {
        "name": primary[1],
        "type": primary[2],
        "types": sorted({m[2] for m in matches}),
        "totalMentions": int(sum(totals.values())),
        "firstSeen": first,
        "lastSeen": last,
        "beats": beats,
        "narrative": narrative,
        "mentionTrend": [{"day": d, "mentions": int(per_day.get(d, 0))} for d in reversed(days)],
    }
