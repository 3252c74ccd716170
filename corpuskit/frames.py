"""DataFrame views of a corpus's derived tables: what the ``Corpus`` read methods return.

Each function takes a :class:`~corpuskit.Corpus` and returns a pandas
DataFrame (or, for one entity or one story, a dict holding DataFrames). They
read through :mod:`corpuskit.query` and reuse the analysis and narration
read functions the HTTP layer serves from (``corpuskit.analysis``,
``corpuskit.narrate.read``), so a notebook and ``/api/v1`` see the same
numbers. Column meanings are documented on the
``Corpus`` methods and in ``docs/api.md`` ("The DataFrame API").

Filter values are checked here: a value outside its allowed set, a malformed
timestamp or an unknown topic raises :class:`~corpuskit.errors.ValidationError`
naming what is allowed; looking up one thing that does not exist (a signal id,
an entity, a story slug) raises the read layer's error for that kind
(:class:`~corpuskit.query.SignalNotFound`, :class:`~corpuskit.query.EntityNotFound`,
:class:`~corpuskit.query.StoryNotFound`), each a :class:`~corpuskit.errors.NotFoundError`.
"""
from __future__ import annotations

import json

import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.query import (ENTITY_NAMES, ENTITY_TYPES, SEVERITIES, SIGNAL_STATUSES,
                             STORY_KINDS, EntityNotFound, topic_by_name, topic_rows)
from corpuskit.query import entity_id as lookup_entity_id
from corpuskit.query import story_version_by_slug
from corpuskit.query.entities import entity_mention_ranking, hashtag_day_counts, hashtag_ranking
from corpuskit.query.record_filter import RecordFilter, bound_timestamp
from corpuskit.query.signals import signal_rows
from corpuskit.query.stories import story_rows


# -- argument checks ------------------------------------------------------------
def choice(value, name: str, allowed, aliases=None):
    """``value`` if it is one of ``allowed`` (``None`` passes), else ValidationError."""
    if value is None:
        return None
    value = (aliases or {}).get(value, value)
    if value not in allowed:
        raise ValidationError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def timestamp(value, name: str) -> str | None:
    """A bound (``since``/``until``) as a stored ISO timestamp string; ``None`` passes."""
    return bound_timestamp(value, name)


def topic_id(corpus, name) -> int | None:
    """The id of the topic called ``name`` (``None`` passes); :class:`~corpuskit.query.TopicNotFound`
    (a ValidationError naming the topics) when there is none."""
    return None if name is None else topic_by_name(corpus.conn, name)["id"]


def _limit(value):
    from corpuskit.analysis.windows import check_int

    return None if value is None else check_int(value, "limit", 1)


def _times(frame: pd.DataFrame, *columns) -> pd.DataFrame:
    for col in columns:
        frame[col] = pd.to_datetime(frame[col], utc=True)
    return frame


def _query(corpus, sql: str, args=()) -> pd.DataFrame:
    cur = corpus.conn.execute(sql, list(args))
    return pd.DataFrame([tuple(r) for r in cur.fetchall()], columns=[d[0] for d in cur.description])


# -- records ----------------------------------------------------------------------
RECORD_COLUMNS = ["id", "source", "sourceId", "contentType", "title", "contentText", "url", "author",
                  "publishedAt", "capturedAt", "subreddit", "language", "topic", "metadata",
                  "sentimentScore", "sentimentLabel", "entities",
                  "likes", "reposts", "replies", "quotes", "views", "replyTo", "quoteOf",
                  "repostOf", "isRepost"]
_ENGAGEMENT_COUNTS = ["likes", "reposts", "replies", "quotes", "views"]



def records(corpus, source=None, topic=None, since=None, until=None, q=None, newest_first=False,
            limit=None, offset=0, ids=None) -> pd.DataFrame:
    """Records with their primary topic, sentiment and entity names (see ``Corpus.records``).

    ``q`` is a query-language text (:func:`corpuskit.query.compile_query`); ``newest_first`` turns the
    order round; ``limit``/``offset`` page it; ``ids`` keeps those record ids only. The records are
    the :class:`~corpuskit.query.RecordFilter` of the filters.
    """
    where = RecordFilter(source=source, topic=topic, since=since, until=until, query=q,
                         ids=ids).where(corpus.conn)
    sql = (
        "SELECT r.id, r.source, r.source_id, r.content_type, r.title, r.content_text, r.url, "
        "r.author, r.published_at, r.captured_at, r.subreddit, r.language, "
        "coalesce(t.name, r.topic), r.metadata, e.sentiment_score, e.sentiment_label, "
        + ENTITY_NAMES + ", r.likes, r.reposts, r.replies, r.quotes, r.views, r.reply_to, "
        "r.quote_of, r.repost_of, r.is_repost FROM records r "
        "LEFT JOIN enrichment e ON e.record_id = r.id "
        "LEFT JOIN topics t ON t.id = e.topic_id"
    )
    sql += where.sql() + (" ORDER BY r.published_at DESC, r.id DESC" if newest_first
                          else " ORDER BY r.published_at, r.id")
    args = list(where.args)
    limit = _limit(limit)
    from corpuskit.analysis.windows import check_int

    offset = check_int(offset, "offset", 0)
    if limit is not None or offset:
        sql += " LIMIT ? OFFSET ?"
        args += [-1 if limit is None else limit, offset]
    rows = corpus.conn.execute(sql, args).fetchall()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=RECORD_COLUMNS)
    frame["metadata"] = frame["metadata"].map(json.loads)
    frame["entities"] = frame["entities"].map(lambda v: json.loads(v) if isinstance(v, (str, bytes)) else None)
    for name in _ENGAGEMENT_COUNTS:   # whole numbers with gaps: pandas' nullable integer
        frame[name] = frame[name].astype("Int64")
    frame["isRepost"] = frame["isRepost"].astype(bool)
    frame = _times(frame, "publishedAt", "capturedAt")
    from corpuskit.store.runs import enrich_settings

    frame.attrs["sentimentScorer"] = enrich_settings(corpus.conn).get("scorer")   # names plot labels
    return frame


# -- topics -------------------------------------------------------------------------
def topics(corpus, level: float = 0.95) -> pd.DataFrame:
    """Every topic with its record counts and share of the records (see ``Corpus.topics``)."""
    from corpuskit.analysis.uncertainty import add_share

    listed = [{"name": r["name"], "displayName": r["display_name"], "description": r["description"],
               "category": r["category"], "keywords": json.loads(r["keywords"] or "[]"),
               "subreddits": json.loads(r["subreddits"] or "[]"), "active": bool(r["active"]),
               "createdAt": r["created_at"]} for r in topic_rows(corpus.conn)]
    frame = pd.DataFrame(listed, columns=["name", "displayName", "description", "category", "keywords",
                                          "subreddits", "active", "createdAt"])
    extra = _query(corpus, (
        "SELECT t.name, t.id, t.discovered, "
        "(SELECT count(*) FROM enrichment e WHERE e.topic_id = t.id) AS recordCount, "
        "(SELECT count(*) FROM topic_assignments ta WHERE ta.topic_id = t.id) AS assignedCount "
        "FROM topics t"))
    frame = frame.merge(extra, on="name", how="left")
    frame["discovered"] = frame["discovered"].astype(bool)
    frame = frame[["id", "name", "displayName", "description", "category", "keywords", "subreddits",
                   "active", "discovered", "recordCount", "assignedCount", "createdAt"]]
    frame = frame.sort_values("name", kind="stable").reset_index(drop=True)
    total = corpus.conn.execute("SELECT count(*) FROM records").fetchone()[0]
    add_share(frame, "share", frame["recordCount"].to_numpy(), [total] * len(frame), level)
    return _times(frame, "createdAt")


def topics_over_time(corpus, freq="M", terms=5, since=None, until=None, level: float = 0.95) -> pd.DataFrame:
    """Each topic's records, share and within-period terms per period (see ``Corpus.topics_over_time``)."""
    from corpuskit.analysis.topic_periods import topics_over_time as per_period

    return per_period(corpus.conn, freq=freq, terms=terms, since=since, until=until, level=level)


def topic_document_matrix(corpus, active_only: bool = True) -> pd.DataFrame:
    """Record x topic confidences (see ``Corpus.topic_document_matrix``)."""
    from corpuskit.analysis.topic_periods import topic_document_matrix as matrix

    return matrix(corpus.conn, active_only=active_only)


# -- signals ---------------------------------------------------------------------------
SIGNAL_COLUMNS = ["id", "kind", "topic", "entity", "source", "severity", "sigmaScore", "headline",
                  "detail", "detectedAt", "status", "resolvedAt", "acknowledged", "narrativeId",
                  "runId", "event"]


def signals(corpus, kind=None, topic=None, severity=None, status=None, since=None,
            until=None) -> pd.DataFrame:
    """Signals of every kind, oldest detection first (see ``Corpus.signals``)."""
    from corpuskit.analysis.signals.kinds import SIGNAL_KINDS, V1_KINDS
    from corpuskit.analysis.signals.linking import event_id

    kind = choice(kind, "kind", SIGNAL_KINDS, V1_KINDS)      # a kind's /v1 name (velocity) names it too
    severity = choice(severity, "severity", SEVERITIES)
    status = choice(status, "status", SIGNAL_STATUSES)
    rows = signal_rows(corpus.conn, kind=kind, severity=severity, status=status,
                       topic_id=topic_id(corpus, topic), since=timestamp(since, "since"),
                       until=timestamp(until, "until"))
    frame = pd.DataFrame(rows, columns=SIGNAL_COLUMNS)
    frame["detail"] = frame["detail"].map(json.loads)
    frame["event"] = [event_id(d, k) for d, k in zip(frame["detail"], frame["event"])]
    frame["acknowledged"] = frame["acknowledged"].astype(bool)
    return _times(frame, "detectedAt", "resolvedAt")


def signal_evidence(corpus, signal_id) -> pd.DataFrame:
    """One row per piece of a signal's evidence (see ``Corpus.signal_evidence``)."""
    from corpuskit.analysis.signals.evidence import get_signal_evidence
    from corpuskit.analysis.windows import check_int

    evidence = get_signal_evidence(corpus, check_int(signal_id, "signal_id", 1))
    titles = {}
    ids = [r["id"] for r in evidence["records"]]
    if ids:
        titles = dict(corpus.conn.execute(
            f"SELECT id, CASE WHEN title != '' THEN title ELSE substr(content_text, 1, 200) END "
            f"FROM records WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall())
    rows = [{"kind": "record", "id": r["id"], "label": titles.get(r["id"], ""), "source": r["source"],
             "sentimentScore": r["sentimentScore"], "entityType": None} for r in evidence["records"]]
    rows += [{"kind": "entity", "id": e["id"], "label": e["name"], "source": None,
              "sentimentScore": None, "entityType": e["type"]} for e in evidence["entities"]]
    rows += [{"kind": "topic", "id": t["id"], "label": t["label"], "source": None,
              "sentimentScore": None, "entityType": None} for t in evidence["topics"]]
    rows += [{"kind": "story", "id": s["id"], "label": s["headline"], "source": None,
              "sentimentScore": None, "entityType": None} for s in evidence["stories"]]
    return pd.DataFrame(rows, columns=["kind", "id", "label", "source", "sentimentScore", "entityType"])


# -- clusters --------------------------------------------------------------------------------
def clusters(corpus, topic=None, run=None) -> pd.DataFrame:
    """Clusters of one clustering run, largest first (see ``Corpus.clusters``)."""
    from corpuskit.analysis.clusters import latest_run

    tid = topic_id(corpus, topic)
    if run is None:
        run = latest_run(corpus)
    elif corpus.conn.execute("SELECT 1 FROM clusters WHERE run_id = ? LIMIT 1", (run,)).fetchone() is None:
        known = [r[0] for r in corpus.conn.execute("SELECT DISTINCT run_id FROM clusters ORDER BY run_id")]
        raise ValidationError(f"no clusters from run {run!r}; runs with clusters: "
                              f"{', '.join(known) or 'none (run analyse first)'}")
    columns = ["id", "runId", "topic", "clusterLabel", "lineageId", "recordCount", "topTerms",
               "summaryLabel", "silhouette", "x", "y", "metadata", "createdAt"]
    if run is None:
        return _times(pd.DataFrame(columns=columns), "createdAt")
    sql = ("SELECT c.id, c.run_id, t.name, c.cluster_label, c.lineage_id, c.record_count, c.top_terms, "
           "c.summary_label, c.metadata, c.created_at FROM clusters c JOIN topics t ON t.id = c.topic_id "
           "WHERE c.run_id = ?")
    args = [run]
    if tid is not None:
        sql += " AND c.topic_id = ?"
        args.append(tid)
    rows = corpus.conn.execute(sql + " ORDER BY c.record_count DESC, t.name, c.cluster_label", args)
    items = []
    for r in rows:
        meta = json.loads(r[8])
        items.append((r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7],
                      meta.get("silhouetteScore"), meta.get("x"), meta.get("y"), meta, r[9]))
    return _times(pd.DataFrame(items, columns=columns), "createdAt")


def cluster_points(corpus, topic, run=None) -> pd.DataFrame:
    """Every record of a topic on the clustering's 2-D map (see ``Corpus.cluster_points``)."""
    from corpuskit.analysis.clusters import cluster_points as points

    topic_id(corpus, topic)
    return points(corpus, topic, run_id=run)


# -- entities and mentions -------------------------------------------------------------------------
def entity_id(corpus, key, name: str = "entity") -> int:
    """The id of an entity given its name, slug, alias or id; :class:`~corpuskit.query.EntityNotFound`
    when none matches."""
    if key is None or not str(key).strip():
        raise ValidationError(f"{name} is required")
    return lookup_entity_id(corpus.conn, key)


def entities(corpus, type=None, since=None, limit=None) -> pd.DataFrame:
    """Entities ranked by mentions (see ``Corpus.entities``)."""
    from corpuskit.analysis.entity_stats import entity_list_rows

    type = choice(type, "type", ENTITY_TYPES)
    limit = _limit(limit)
    ranked = entity_mention_ranking(corpus.conn, type=type, since=timestamp(since, "since"), limit=limit)
    counts = {r[0]: (r[1], r[2]) for r in ranked}
    items = entity_list_rows(corpus, [r[0] for r in ranked])
    seen = dict(corpus.conn.execute(
        f"SELECT id, first_seen || '|' || last_seen FROM entities WHERE id IN "
        f"({','.join('?' * len(counts))})", list(counts)).fetchall()) if counts else {}
    rows = []
    for item in items:
        first, _, last = (seen.get(item["id"]) or "|").partition("|")
        mentions, recs = counts[item["id"]]
        rows.append({"id": item["id"], "name": item["name"], "type": item["type"], "slug": item["slug"],
                     "mentions": int(mentions), "records": int(recs),
                     "mentionCount": item["mentionCount"], "recentMentions": item["recentMentions"],
                     "growthFactor": item["growthFactor"], "firstSeen": first or None,
                     "lastSeen": last or None})
    frame = pd.DataFrame(rows, columns=["id", "name", "type", "slug", "mentions", "records", "mentionCount",
                                        "recentMentions", "growthFactor", "firstSeen", "lastSeen"])
    return _times(frame, "firstSeen", "lastSeen")


def entity_profile(corpus, key, level: float = 0.95) -> dict:
    """One entity's profile, with its mention trend as a DataFrame (see ``Corpus.entity_profile``)."""
    from corpuskit.analysis.entity_stats import entity_detail, sentiment_weeks
    from corpuskit.analysis.entity_stats import entity_profile as keyed_profile
    from corpuskit.analysis.uncertainty import add_count_interval, add_mean_interval

    eid = entity_id(corpus, key)
    detail = entity_detail(corpus, eid)
    profile = keyed_profile(corpus, detail["name"])
    trend = pd.DataFrame(profile["mentionTrend"][::-1], columns=["day", "mentions"])
    trend["day"] = pd.to_datetime(trend["day"], utc=True)
    add_count_interval(trend, "mentions", level)
    weeks = pd.DataFrame(detail["sentimentTrend"], columns=["weekStart", "avgScore", "sampleSize"])
    scores = sentiment_weeks(corpus, eid)
    sd = [pd.Series(scores.get(w, []), dtype=float).std(ddof=1) for w in weeks["weekStart"]]
    add_mean_interval(weeks, "avgScore", weeks["sampleSize"].to_numpy(), sd, level)
    weeks["weekStart"] = pd.to_datetime(weeks["weekStart"], utc=True)
    out = {k: v for k, v in detail.items() if k != "sentimentTrend"}
    out.update({"types": profile["types"], "firstSeen": profile["firstSeen"],
                "lastSeen": profile["lastSeen"], "beats": profile["beats"],
                "narrative": profile["narrative"], "mentionTrend": trend, "sentimentTrend": weeks})
    return out


def mentions(corpus, entity=None) -> pd.DataFrame:
    """Entity mentions, one row per (record, entity) (see ``Corpus.mentions``)."""
    sql = ("SELECT m.record_id, m.entity_id, en.name, en.type, m.surface, m.mention_count, "
           "r.source, r.published_at FROM mentions m JOIN entities en ON en.id = m.entity_id "
           "JOIN records r ON r.id = m.record_id")
    args = []
    if entity is not None:
        try:
            eid = entity_id(corpus, entity)
        except EntityNotFound:
            raise ValidationError(f"unknown entity {entity!r}") from None
        sql += " WHERE m.entity_id = ?"
        args.append(eid)
    rows = corpus.conn.execute(sql + " ORDER BY r.published_at, m.record_id, m.entity_id", args)
    frame = pd.DataFrame([tuple(r) for r in rows], columns=[
        "recordId", "entityId", "entity", "entityType", "surface", "mentionCount", "source",
        "publishedAt"])
    return _times(frame, "publishedAt")


def entity_aliases(corpus, key) -> pd.DataFrame:
    """Every surface form of one entity with its count (see ``Corpus.entity_aliases``)."""
    from corpuskit.enrich.resolve import entity_aliases as surface_forms

    rows = surface_forms(corpus.conn, entity_id(corpus, key))
    return pd.DataFrame(rows, columns=["surface", "mentions", "name", "type", "reason"])


def hashtags(corpus, since=None, limit=None) -> pd.DataFrame:
    """Hashtags, most records first (see ``Corpus.hashtags``)."""
    limit = _limit(limit)
    ranked = hashtag_ranking(corpus.conn, since=timestamp(since, "since"), limit=limit)
    rows = [(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in ranked]
    frame = pd.DataFrame(rows, columns=["tag", "written", "records", "firstSeen", "lastSeen", "entities"])
    return _times(frame, "firstSeen", "lastSeen")


def hashtag_days(corpus, tags, since=None, until=None) -> pd.DataFrame:
    """Records per UTC day carrying each of ``tags``: ``tag, day, records`` (days with none left out)."""
    rows = hashtag_day_counts(corpus.conn, tags, since=timestamp(since, "since"),
                              until=timestamp(until, "until"))
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["tag", "day", "records"])
    frame["day"] = pd.to_datetime(frame["day"], utc=True)
    return frame


# -- stories -------------------------------------------------------------------------------------
STORY_COLUMNS = ["id", "slug", "kind", "version", "isCurrent", "headline", "lede", "topic", "entity",
                 "signalSeverity", "triggerSignalId", "featured", "citationCount", "sourceCount",
                 "readMin", "publishAt", "generatedAt"]


def stories(corpus, kind=None, current=True, period=None) -> pd.DataFrame:
    """Stories, newest ``publishAt`` first (see ``Corpus.stories``)."""
    kind = choice(kind, "kind", STORY_KINDS)
    if not isinstance(current, bool):
        raise ValidationError(f"current must be True or False, not {current!r}")
    prefix = None
    if period is not None:
        # imported only here: the narrate pipeline loads scikit-learn (seconds on a first call)
        from corpuskit.narrate.periods import parse_period
        from corpuskit.narrate.pipeline import period_key

        prefix = period_key(parse_period(period), "")
    frame = pd.DataFrame(story_rows(corpus.conn, kind=kind, current=current, key_prefix=prefix),
                         columns=STORY_COLUMNS)
    for col in ("isCurrent", "featured"):
        frame[col] = frame[col].astype(bool)
    return _times(frame, "publishAt", "generatedAt")


def story(corpus, slug) -> dict:
    """One story by any of its slugs, with its citations as a DataFrame (see ``Corpus.story``)."""
    from corpuskit.narrate.read import narrative_detail, story_sources

    if not isinstance(slug, str) or not slug.strip():
        raise ValidationError(f"slug must be a non-empty string, not {slug!r}")
    detail = narrative_detail(corpus, slug.strip())
    row = corpus.conn.execute("SELECT id, lede, publish_at, is_current FROM stories WHERE id = ?",
                              (story_version_by_slug(corpus.conn, detail["slug"]),)).fetchone()
    sources = story_sources(corpus, row[0])
    citations = pd.DataFrame(sources["sources"], columns=[
        "recordId", "kind", "title", "url", "sentimentScore", "inferred", "confidence",
        "credibilityScore"]).rename(columns={"kind": "source"})
    citations.insert(0, "ordinal", range(1, len(citations) + 1))
    from corpuskit.narrate.citations import trace_body

    current = corpus.conn.execute(
        "SELECT c.slug FROM stories s JOIN stories c ON c.story_key = s.story_key AND c.is_current = 1 "
        "WHERE s.id = ?", (row[0],)).fetchone()
    texts = dict(corpus.conn.execute(
        "SELECT c.ordinal, r.content_text FROM story_citations c JOIN records r ON r.id = c.record_id "
        "WHERE c.story_id = ?", (row[0],)).fetchall())
    framing = [f["text"] for f in detail["metadata"].get("framing", [])]
    out = {"id": row[0], "slug": detail["slug"], "kind": detail["type"], "version": detail["version"],
           "isCurrent": bool(row[3]), "currentSlug": current[0] if current else detail["slug"],
           "untraced": trace_body(detail["content"], texts, framing),
           "headline": detail["headline"], "lede": row[1],
           "body": detail["content"], "topic": detail["topic"], "entity": detail["entityName"],
           "signalSeverity": detail["signalSeverity"], "triggerSignal": detail["triggerSignal"],
           "publishAt": row[2], "generatedAt": detail["generatedAt"], "metadata": detail["metadata"],
           "versions": pd.DataFrame(detail["versions"], columns=["slug", "version", "generatedAt"]),
           "citations": citations,
           "externalCitations": sources["externalCitations"]}
    return out


def arcs(corpus) -> pd.DataFrame:
    """Arcs with their stories, most recently updated first (see ``Corpus.arcs``)."""
    from corpuskit.narrate.read import arc_detail, list_arcs

    kinds = dict(corpus.conn.execute("SELECT id, kind FROM stories").fetchall())
    rows = []
    for item in list_arcs(corpus)["items"]:
        stories_ = arc_detail(corpus, item["slug"])["stories"]
        rows.append({**item, "stories": [{**s, "kind": kinds.get(s["id"])} for s in stories_]})
    frame = pd.DataFrame(rows, columns=["id", "slug", "title", "arcStatus", "storyCount", "lastUpdatedAt",
                                        "stories"])
    return _times(frame, "lastUpdatedAt")


# -- snapshots, trends, comparison, observations, runs ---------------------------------------------
SNAPSHOT_COLUMNS = ["topic", "date", "totalRecords", "volumeBySource", "sentimentPositive",
                    "sentimentNeutral", "sentimentNegative", "avgSentiment", "platformCount",
                    "topEntities", "signalCount"]


def _snapshot_frame(rows: list[dict], topic: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=SNAPSHOT_COLUMNS)
    frame.insert(0, "topic", topic)
    frame["avgSentiment"] = frame.pop("avgSentimentScore").astype(float)
    return frame[SNAPSHOT_COLUMNS]


def snapshots(corpus, topic=None, since=None, until=None, level: float = 0.95) -> pd.DataFrame:
    """Daily snapshot rows per topic, dense over the window (see ``Corpus.snapshots``)."""
    from corpuskit.analysis.snapshots import resolve_range, snapshot_rows
    from corpuskit.analysis.uncertainty import snapshot_intervals

    tid = topic_id(corpus, topic)
    if since is None and until is None:
        first = corpus.conn.execute("SELECT min(day) FROM records").fetchone()[0]
        since = first
    first, last = resolve_range(corpus, since, until)
    names = ([(tid, str(topic))] if tid is not None else
             corpus.conn.execute("SELECT id, name FROM topics ORDER BY name").fetchall())
    frames = [_snapshot_frame(snapshot_rows(corpus, t, first.isoformat(), last.isoformat()), name)
              for t, name in names]
    frame = (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SNAPSHOT_COLUMNS))
    frame["date"] = pd.to_datetime(frame["date"], utc=True)
    return snapshot_intervals(corpus.conn, frame, level)


def trends(corpus, topic, days=30, level: float = 0.95) -> pd.DataFrame:
    """One topic's records per day over the last ``days`` days (see ``Corpus.trends``)."""
    from corpuskit.analysis.trends import volume_trend
    from corpuskit.analysis.uncertainty import add_count_interval

    if topic is None:
        raise ValidationError("topic is required")
    topic_id(corpus, topic)
    trend = volume_trend(corpus, str(topic), days=days)
    frame = pd.DataFrame(trend["volume"], columns=["day", "count"])
    frame.insert(0, "topic", trend["topic"])
    frame["day"] = pd.to_datetime(frame["day"], utc=True)
    return add_count_interval(frame, "count", level)


def compare(corpus, topic_names, days=30, level: float = 0.95) -> pd.DataFrame:
    """2 to 5 topics' daily snapshot rows stacked, one per topic and day (see ``Corpus.compare``)."""
    from corpuskit.analysis.trends import _topic_list, compare_topics
    from corpuskit.analysis.uncertainty import snapshot_intervals

    for name in _topic_list(topic_names):
        topic_id(corpus, name)
    answer = compare_topics(corpus, topic_names, days=days)
    frames = [_snapshot_frame(rows, name) for name, rows in answer["comparison"].items()]
    frame = pd.concat(frames, ignore_index=True)
    frame["date"] = pd.to_datetime(frame["date"], utc=True)
    return snapshot_intervals(corpus.conn, frame, level)


def compare_tests(corpus, topic_names, days=30, level: float = 0.95) -> pd.DataFrame:
    """Each pair of 2 to 5 topics over the last ``days`` days, per measure, with a test
    (see ``Corpus.compare_tests``)."""
    from corpuskit.analysis.changes import topic_pairs
    from corpuskit.analysis.trends import COMPARE_MAX_DAYS, _topic_list
    from corpuskit.analysis.windows import check_int, window_days

    names = _topic_list(topic_names)
    pairs = [(topic_id(corpus, name), name) for name in names]
    dates = window_days(corpus, min(check_int(days, "days", 1), COMPARE_MAX_DAYS))
    return topic_pairs(corpus.conn, pairs, dates[0], dates[-1], level)


def week_over_week(corpus, topic=None, since=None, until=None, level: float = 0.95) -> pd.DataFrame:
    """Each topic's ISO weeks against the week before, per measure, with a test
    (see ``Corpus.week_over_week``)."""
    from corpuskit.analysis.changes import WEEKLY_COLUMNS
    from corpuskit.analysis.changes import week_over_week as weekly
    from corpuskit.analysis.snapshots import resolve_range

    tid = topic_id(corpus, topic)
    if since is None and until is None:
        since = corpus.conn.execute("SELECT min(day) FROM records").fetchone()[0]
        if since is None:
            return pd.DataFrame(columns=WEEKLY_COLUMNS)
    first, last = resolve_range(corpus, since, until)
    names = ([(tid, str(topic))] if tid is not None else
             [tuple(r) for r in corpus.conn.execute("SELECT id, name FROM topics ORDER BY name")])
    return weekly(corpus.conn, names, first, last, level)


def observations(corpus, type=None, severity=None, since=None) -> pd.DataFrame:
    """Cross-topic observations, newest first (see ``Corpus.observations``)."""
    from corpuskit.analysis.observations import LIST_MAX, observation_page

    rows, offset = [], 0
    while True:
        page = observation_page(corpus, type=type, severity=severity, since=since,
                                limit=LIST_MAX, offset=offset)
        rows += page.rows
        offset += len(page.rows)
        if not page.has_more or not page.rows:
            break
    from corpuskit.analysis.changes import observation_test

    frame = pd.DataFrame(rows, columns=["observedAt", "type", "severity", "headline", "detail"])
    frame["topic"] = frame["detail"].map(lambda d: d.get("topic") if isinstance(d, dict) else None)
    tests = [observation_test(d) for d in frame["detail"]]
    frame["test"] = pd.Series([t for t, _ in tests], index=frame.index, dtype=object)
    frame["p_value"] = pd.Series([p for _, p in tests], index=frame.index, dtype=float)
    return _times(frame, "observedAt")


def runs(corpus, stage=None) -> pd.DataFrame:
    """Every stage run, oldest first (see ``Corpus.runs``)."""
    sql, args = ("SELECT id, stage, status, settings, model, started_at AS startedAt, "
                 "finished_at AS finishedAt FROM runs"), []
    if stage is not None:
        sql += " WHERE stage = ?"
        args.append(str(stage))
    frame = _query(corpus, sql + " ORDER BY started_at, rowid", args)
    frame["settings"] = frame["settings"].map(json.loads)
    return _times(frame, "startedAt", "finishedAt")
