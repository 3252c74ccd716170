"""The keyed interface's answers (``/api/v1``): discourse, topics, signals, search, narratives, clusters.

Each function takes a corpus and already-validated arguments (stored
timestamp strings, integers), makes one read through :mod:`corpuskit.query`
(records through a :class:`~corpuskit.query.RecordFilter`) or the stage that
owns the table, and returns a dict in the exact shape of ``keyed-api-v1.md``
(the discourse item's shape is written as the SQLite ``json_object`` the read
layer renders each record with). Unknown topics raise :class:`NotFoundError`
with the spec's message. Narratives come from :mod:`corpuskit.narrate.read`; snapshots,
trends, entities, observations and the status from :mod:`corpuskit.analysis`.
"""
from __future__ import annotations

import json
from urllib.parse import urlencode

from corpuskit.api.response_cache import cached_page
from corpuskit.errors import NotFoundError
from corpuskit.query import Page, RecordFilter, TopicNotFound, topic_by_name, topic_rows
from corpuskit.query.records import discourse_json_page
from corpuskit.query.signals import recent_topic_signals, signal_offset_page
from corpuskit.query.topics import topic_volume

TOPIC_NOT_FOUND = "Topic not found"
RECENT_SIGNALS = 10


def pagination(total: int, limit: int, offset: int, returned: int) -> dict:
    """The offset-paging block ``{total, limit, offset, hasMore}``."""
    return {"total": total, "limit": limit, "offset": offset, "hasMore": offset + returned < total}


def envelope(page: Page, item=lambda row: row) -> dict:
    """``{data, pagination}`` of a :class:`~corpuskit.query.Page`, each row shaped by ``item``."""
    data = [item(row) for row in page.rows]
    return {"data": data, "pagination": pagination(page.total, page.limit, page.offset, len(data))}


def topic_row(corpus, name: str):
    """The ``topics`` row called ``name`` (case-sensitive); NotFoundError('Topic not found')."""
    try:
        return topic_by_name(corpus.conn, name)
    except TopicNotFound:
        raise NotFoundError(TOPIC_NOT_FOUND) from None


# -- discourse ----------------------------------------------------------------
def _discourse_page(corpus, source, topic, since, until, limit, offset, q=None) -> tuple[list[str], int]:
    """``(records as JSON texts, total)`` for one page, ``capturedAt`` descending (ties: id).

    Pages are remembered until the data changes (:func:`corpuskit.api.response_cache.cached_page`).
    """
    if topic is not None:
        topic_row(corpus, topic)  # an unknown topic is 404 even when nothing is cached
    key = ("discourse", source, topic, since, until, limit, offset, q and q.text)
    flt = RecordFilter(source=source, topic=topic, since=since, until=until, query=q, dates="captured")
    return cached_page(corpus.conn, key,
                       lambda: discourse_json_page(corpus.conn, flt, limit, offset))


def list_discourse(corpus, source: str | None = None, topic: str | None = None,
                   since: str | None = None, until: str | None = None,
                   limit: int = 50, offset: int = 0) -> dict:
    """Discourse records, ``capturedAt`` descending (ties: id descending): ``{data, pagination}``.

    A record's ``topic`` is its primary topic from enrichment, else the topic
    hint it was imported with; the ``topic`` filter matches that same value.
    ``since``/``until`` bound ``capturedAt`` inclusively.
    """
    items, total = _discourse_page(corpus, source, topic, since, until, limit, offset)
    return {"data": [json.loads(i) for i in items],
            "pagination": pagination(total, limit, offset, len(items))}


def discourse_json(corpus, source: str | None = None, topic: str | None = None,
                   since: str | None = None, until: str | None = None,
                   limit: int = 50, offset: int = 0, q=None) -> bytes:
    """:func:`list_discourse` already encoded as UTF-8 JSON (what the server sends); ``q`` a
    compiled query (:func:`corpuskit.query.compile_query`) or None."""
    items, total = _discourse_page(corpus, source, topic, since, until, limit, offset, q)
    page = json.dumps(pagination(total, limit, offset, len(items)), separators=(",", ":"))
    return ('{"data":[' + ",".join(items) + '],"pagination":' + page + "}").encode("utf-8")


# -- topics -------------------------------------------------------------------
def _topic_base(row) -> dict:
    return {
        "name": row["name"],
        "displayName": row["display_name"],
        "description": row["description"],
        "category": row["category"],
        "keywords": json.loads(row["keywords"] or "[]"),
    }


def list_topics(corpus, active: bool | None = True) -> dict:
    """``{topics, count}``: topics whose ``active`` flag equals ``active`` (all when None), by name."""
    topics = []
    for row in topic_rows(corpus.conn, active):
        item = _topic_base(row)
        item["subreddits"] = json.loads(row["subreddits"] or "[]")
        item["active"] = bool(row["active"])
        item["createdAt"] = row["created_at"]
        topics.append(item)
    return {"topics": topics, "count": len(topics)}


def topic_detail(corpus, name: str) -> dict:
    """One topic with its current narrative, recent signals, 30 days of snapshots,
    the latest run's clusters and its record volume per source (all time, most first)."""
    from corpuskit.analysis.clusters import latest_clusters
    from corpuskit.analysis.snapshots import get_snapshots
    from corpuskit.narrate.read import topic_current_narrative

    row = topic_row(corpus, name)
    conn = corpus.conn
    item = _topic_base(row)
    item["active"] = bool(row["active"])
    item["currentNarrative"] = topic_current_narrative(corpus, row["id"])
    signals = recent_topic_signals(conn, row["id"], RECENT_SIGNALS)
    item["recentSignals"] = [{"type": s[0], "severity": s[1], "headline": s[2], "detectedAt": s[3]}
                             for s in signals]
    item["snapshots"] = get_snapshots(corpus, name)["data"]  # the last 30 days by the corpus clock
    item["clusters"] = [
        {"clusterLabel": c["clusterLabel"], "recordCount": c["recordCount"], "topTerms": c["topTerms"],
         "summaryLabel": c["summaryLabel"], "createdAt": c["createdAt"]}
        for c in latest_clusters(corpus, topic=name, limit=50)
    ]
    item["volumeBySource"] = [{"source": s, "count": n} for s, n in topic_volume(conn, row["id"], name)]
    return item


# -- signals ------------------------------------------------------------------
#: ``(JSON key, column, conversion)`` of a keyed signal item, in the answer's order
_SIGNAL_FIELDS = (("id", "id", None), ("type", "kind", None), ("topic", "topic_name", None),
                  ("severity", "severity", None), ("headline", "headline", None),
                  ("detail", "detail", lambda v: json.loads(v or "{}")), ("detectedAt", "detected_at", None),
                  ("acknowledged", "acknowledged", bool), ("narrativeId", "narrative_id", None))


def signal_item(row) -> dict:
    """A signal as the keyed interface shows it (``type`` is the stored kind)."""
    return {key: (row[column] if convert is None else convert(row[column]))
            for key, column, convert in _SIGNAL_FIELDS}


def list_signals(corpus, topic: str | None = None, severity: str | None = None,
                 since: str | None = None, limit: int = 50, offset: int = 0) -> dict:
    """Signals of every kind, ``detectedAt`` descending (ties: id descending)."""
    topic_id = None if topic is None else topic_row(corpus, topic)["id"]
    rows, total = signal_offset_page(corpus.conn, topic_id=topic_id, severity=severity, since=since,
                                     limit=limit, offset=offset)
    return envelope(Page(rows, total, limit, offset), signal_item)


# -- search -------------------------------------------------------------------
def search_answer(hits) -> dict:
    """The ``/api/v1/search`` answer for a :class:`corpuskit.search.SearchHits`."""
    results = [{
        "id": str(h["id"]), "resultType": "record", "source": h["source"], "contentType": h["contentType"],
        "title": h["title"], "excerpt": h["excerpt"], "url": h["url"],
        "href": "/api/v1/discourse?" + urlencode({"source": h["source"], "since": h["capturedAt"],
                                                  "until": h["capturedAt"]}),
        "author": h["author"], "topic": h["topic"], "topicDisplayName": h["topicDisplayName"],
        "category": h["category"], "relevance": h["relevance"], "publishedAt": h["publishedAt"],
        "subreddit": h["subreddit"], "sentimentLabel": h["sentimentLabel"],
    } for h in hits.rows]
    return {"results": results, "query": hits.query, "totalMatched": hits.total_matched,
            "hasMore": hits.has_more, "embeddingMs": hits.embedding_ms, "searchMs": hits.search_ms}


def search_json(corpus, q: str, source: str | None = None, topic: str | None = None,
                days: int | None = None, limit: int = 20, min_relevance: float | None = None,
                quantised_from: int | None = None, mode: str = "semantic", query: str | None = None) -> dict:
    """:func:`corpuskit.search.search` shaped as the ``/api/v1/search`` answer."""
    from corpuskit.search import search

    return search_answer(search(corpus, q, source=source, topic=topic, days=days, limit=limit,
                                min_relevance=min_relevance, quantised_from=quantised_from,
                                mode=mode, query=query))


# -- narratives ---------------------------------------------------------------
def list_narratives(corpus, type: str | None = None, topic: str | None = None,
                    featured: bool | None = None, since=None, until=None,
                    limit: int = 20, offset: int = 0) -> dict:
    """``{data, pagination}`` of :func:`corpuskit.narrate.read.narrative_page`."""
    from corpuskit.narrate.read import narrative_page

    return envelope(narrative_page(corpus, type=type, topic=topic, featured=featured, since=since,
                                   until=until, limit=limit, offset=offset))


# -- observations -------------------------------------------------------------
def list_observations(corpus, type: str | None = None, severity: str | None = None,
                      since=None, limit: int = 50, offset: int = 0) -> dict:
    """``{data, pagination}`` of :func:`corpuskit.analysis.observations.observation_page`."""
    from corpuskit.analysis.observations import observation_page

    return envelope(observation_page(corpus, type=type, severity=severity, since=since,
                                     limit=limit, offset=offset))


# -- clusters -----------------------------------------------------------------
def list_clusters(corpus, topic: str | None = None, limit: int = 50) -> dict:
    """``{data, count}``: clusters of the most recent analysis run (``count`` = items returned)."""
    from corpuskit.analysis.clusters import latest_clusters

    if topic is not None:
        topic_row(corpus, topic)
    data = latest_clusters(corpus, topic=topic, limit=limit)
    return {"data": data, "count": len(data)}
