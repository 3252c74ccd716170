"""``/v1`` handlers for sources, stats, arcs and streams; each takes the corpus, then its path parameters.

Routed by :data:`corpuskit.api.bearer.routes.ROUTES` (the signal stream by
:func:`corpuskit.api.bearer.routes.install`, which gives it its heartbeat and gate).
"""
from __future__ import annotations

import bottle

from corpuskit.analysis import corpus_stats, entity_stats
from corpuskit.api import params
from corpuskit.api.bearer import queries, shapes
from corpuskit.api.bearer.request import SENTIMENT_DAYS_DEFAULT, SENTIMENT_LIVE_DAYS, TRENDING_DEFAULT, \
    TRENDING_MAX, days, limit, need, paged
from corpuskit.api.bearer.stream import signal_stream
from corpuskit.api.coordination import coordination_groups
from corpuskit.api.errors import abort_json
from corpuskit.api.ids import encode_id
from corpuskit.errors import NotFoundError
from corpuskit.ingest.collectors import health as source_health_module
from corpuskit.narrate import read as narrate_read
from corpuskit.query import EntityNotFound, entity_row


# -- sources and stats ----------------------------------------------------------
def sources(corpus):
    rows = source_health_module.source_health(corpus)
    return {"sources": [{"id": r["source"], "recordCount": r["recordCount"],
                         "lastIngestedAt": r["lastIngestedAt"], "healthy": r["healthy"]} for r in rows]}


def global_timeline(corpus):
    return {"timeline": corpus_stats.global_timeline(corpus, days())}


def source_timeline(corpus, source):
    window = days()
    try:
        return corpus_stats.source_timeline(corpus, source, window)
    except NotFoundError:
        abort_json(404, "source not found")


def sentiment_timeline(corpus):
    window = min(days(SENTIMENT_DAYS_DEFAULT), SENTIMENT_LIVE_DAYS)
    return corpus_stats.sentiment_timeline(corpus, window)


def trending(corpus):
    n = params.int_param("n", TRENDING_DEFAULT, minimum=1, maximum=TRENDING_MAX)
    found = entity_stats.trending_entities(corpus, n)
    rows = found["entities"] if isinstance(found, dict) else found
    out = []
    for r in rows:
        try:
            entity = entity_row(corpus.conn, int(r["id"]))
        except EntityNotFound:
            continue
        out.append({"id": encode_id(corpus, "ent", entity["id"]), "name": r["name"], "type": r["type"],
                    "mentionCount": r["mentionCount"], "growthFactor": r["growthFactor"],
                    "recentMentions": r["recentMentions"], "canonicalPath": shapes.entity_path(entity["slug"])})
    return {"entities": out}


def topic_distribution(corpus):
    data = corpus_stats.topic_distribution(corpus)
    return {"topics": [{"id": encode_id(corpus, "top", t["topicId"]), "label": t["label"],
                        "share": t["share"], "recordCount": t["recordCount"]} for t in data["topics"]],
            "totalRecords": data["totalRecords"]}


def topic_timeline(corpus, tid):
    window = days()
    topic_id = need(corpus, "top", tid, "topic")
    try:
        data = corpus_stats.topic_timeline(corpus, topic_id, window)
    except NotFoundError:
        abort_json(404, "topic not found")
    return {"topicId": encode_id(corpus, "top", topic_id), "timeline": data["timeline"]}


# -- arcs -----------------------------------------------------------------------
def arcs(corpus):
    size = limit()
    return paged(corpus, "arcs", {}, 2, lambda after: queries.arc_page(corpus.conn, after, size),
                 lambda r: [r["last_updated_at"], r["id"]], lambda r: shapes.arc_item(corpus, r), size)


def arc(corpus, slug):
    if len(slug) > 300:
        abort_json(404, "arc not found")
    try:
        data = narrate_read.arc_detail(corpus, slug)
    except NotFoundError:
        abort_json(404, "arc not found")
    data = dict(data, id=encode_id(corpus, "arc", data["id"]))
    data["stories"] = [dict(s, id=encode_id(corpus, "sto", s["id"])) for s in data["stories"]]
    return data


# -- streams --------------------------------------------------------------------
def stream_signals(corpus, heartbeat_seconds, gate):
    """The live signal stream (``install`` binds the heartbeat and the gate of open streams)."""
    return signal_stream(corpus, bottle.request, bottle.response, heartbeat_seconds,
                         gate=gate, key_id=bottle.request.environ["corpuskit.key_id"])


def stream_stories(corpus):
    abort_json(501, "the story stream is reserved for a future release and not implemented")


# -- coordination (extension) ------------------------------------------------------
def coordination(corpus):
    """The coordinated groups, largest first: ``{groups, total, limit, offset, settings}``."""
    size, offset = limit(), params.int_param("offset", 0, minimum=0)
    found = coordination_groups(corpus, size, offset, lambda r: encode_id(corpus, "rec", r))
    return {"groups": found["groups"], "total": found["total"], "limit": size, "offset": offset,
            "settings": found["settings"]}
