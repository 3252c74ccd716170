"""One handler per keyed endpoint: validate the query, call the library, return the dict.

The bounds live in the constants below; the OpenAPI document
(:mod:`corpuskit.api.openapi.keyed`) is built from the same constants, so the
document and the code cannot drift apart.
"""
from __future__ import annotations

import logging
import bottle

from corpuskit.api import params
from corpuskit.api.errors import JSON_TYPE, abort_json
from corpuskit.api.coordination import coordination_groups
from corpuskit.api.keyed import queries
from corpuskit.api.response_cache import remembered_answer
from corpuskit.errors import NotFoundError, StageNotRunError, ValidationError
from corpuskit.search import MODES
from corpuskit.query import (OBSERVATION_TYPES, SEVERITIES, STORY_KINDS, EntityNotFound, StoryNotFound,
                             entities_named, entity_hashtags, source_in_corpus)

log = logging.getLogger("corpuskit.api.keyed")

#: Source kinds accepted by the ``source`` filter (the spec's fuller variant, plus gdelt).
KEYED_SOURCES = ("reddit", "bluesky", "news", "hackernews", "arxiv", "youtube", "twitter", "gdelt")
NARRATIVE_TYPES = STORY_KINDS

#: ``limit`` (default, maximum) per endpoint, section 8.2 of the spec.
PAGE_LIMITS = {
    "narratives": (20, 50),
    "discourse": (50, 100),
    "search": (20, 50),
    "signals": (50, 100),
    "entities": (50, 200),
    "observations": (50, 100),
    "clusters": (50, 100),
    "coordination": (20, 50),
}
Q_MIN, Q_MAX = 3, 500
SEARCH_QUERY_MAX = 1000         # ``query=`` filter of /api/v1/search (extension)
SEARCH_DAYS_MAX = 3650          # not in the spec: ten years, clamped
TRENDS_DAYS = (30, 365)         # default, maximum (maximum not in the spec: clamped)
COMPARE_DAYS = (30, 90)
COMPARE_TOPICS = (2, 5)
SNAPSHOT_DEFAULT_DAYS = 30
SNAPSHOT_MAX_DAYS = 366         # not in the spec: a longer from..to range is 400
TOPIC_MAX_LENGTH = 200
ENTITY_NOT_FOUND = "Entity not found"
NARRATIVE_NOT_FOUND = "Narrative not found"


def _limit(section: str) -> int:
    default, maximum = PAGE_LIMITS[section]
    return params.int_param("limit", default, minimum=1, maximum=maximum)


def _offset() -> int:
    return params.int_param("offset", 0, minimum=0)


def _known_topic(corpus, name: str | None) -> str | None:
    if name is not None:
        queries.topic_row(corpus, name)
    return name


def _since_until(since_name: str = "since", until_name: str = "until"):
    return params.time_range(since_name, until_name)


# -- status (no key) -------------------------------------------------------------
def status(corpus):
    """``GET /api/v1/status``: real figures by the corpus clock; no key needed.

    Remembered until the data change, like the keyed answers: it counts every record.
    """
    from corpuskit.analysis.corpus_stats import status as corpus_status

    return remembered_answer(corpus, lambda: corpus_status(corpus))


# -- narratives ----------------------------------------------------------------
def narratives(corpus):
    kind = params.enum_param("type", NARRATIVE_TYPES)
    topic = _known_topic(corpus, params.string_param("topic", max_len=TOPIC_MAX_LENGTH))
    featured = params.bool_param("featured")
    since, until = _since_until()
    limit, offset = _limit("narratives"), _offset()
    return queries.list_narratives(corpus, type=kind, topic=topic, featured=featured, since=since,
                           until=until, limit=limit, offset=offset)


def narrative(corpus, slug):
    from corpuskit.narrate.read import narrative_detail

    try:
        return narrative_detail(corpus, slug)
    except StoryNotFound:
        abort_json(404, NARRATIVE_NOT_FOUND)


# -- topics ----------------------------------------------------------------------
def topics(corpus):
    return queries.list_topics(corpus, active=params.bool_param("active", True))


def topic(corpus, name):
    return queries.topic_detail(corpus, name)


# -- discourse -------------------------------------------------------------------
def discourse(corpus):
    source = params.source_param("source", KEYED_SOURCES, lambda s: source_in_corpus(corpus.conn, s))
    topic = _known_topic(corpus, params.string_param("topic", max_len=TOPIC_MAX_LENGTH))
    since, until = _since_until()
    q = params.query_param("q")
    body = queries.discourse_json(corpus, source=source, topic=topic, since=since, until=until,
                                  limit=_limit("discourse"), offset=_offset(), q=q)
    bottle.response.content_type = JSON_TYPE + "; charset=utf-8"
    return body


# -- search ----------------------------------------------------------------------
def search(corpus):
    q = params.string_param("q", max_len=Q_MAX)
    if q is None:
        abort_json(400, "q parameter is required")
    if len(q) < Q_MIN:
        abort_json(400, f"q must be between {Q_MIN} and {Q_MAX} characters")
    source = params.source_param("source", KEYED_SOURCES, lambda s: source_in_corpus(corpus.conn, s))
    topic = _known_topic(corpus, params.string_param("topic", max_len=TOPIC_MAX_LENGTH))
    days = params.int_param("days", None, minimum=1, maximum=SEARCH_DAYS_MAX)
    limit = _limit("search")
    mode = params.enum_param("mode", MODES)
    text_query = params.string_param("query", max_len=SEARCH_QUERY_MAX)
    extensions = {k: v for k, v in (("mode", mode), ("query", text_query)) if v is not None}
    try:
        return queries.search_json(corpus, q, source=source, topic=topic, days=days, limit=limit,
                                   quantised_from=bottle.request.app.config.get("corpuskit.quantised_from"),
                                   **extensions)
    except ValidationError as exc:
        abort_json(400, str(exc))
    except NotFoundError:
        abort_json(404, queries.TOPIC_NOT_FOUND)
    except StageNotRunError as exc:
        abort_json(503, str(exc))
    except Exception:
        log.exception("search failed for q=%r", q[:80])
        abort_json(500, "Search failed")


# -- signals ---------------------------------------------------------------------
def signals(corpus):
    topic = params.string_param("topic", max_len=TOPIC_MAX_LENGTH)
    severity = params.enum_param("severity", SEVERITIES)
    since = params.timestamp_param("since")
    return queries.list_signals(corpus, topic=topic, severity=severity, since=since,
                                limit=_limit("signals"), offset=_offset())


# -- entities --------------------------------------------------------------------
def entities(corpus):
    from corpuskit.analysis.entity_stats import entity_ranking

    topic = _known_topic(corpus, params.string_param("topic", max_len=TOPIC_MAX_LENGTH))
    since = params.timestamp_param("since")
    limit = _limit("entities")
    return entity_ranking(corpus, topic=topic, since=since, limit=limit)


def entity(corpus, name):
    from corpuskit.analysis.entity_stats import entity_profile

    try:
        profile = entity_profile(corpus, name)
    except EntityNotFound:
        abort_json(404, ENTITY_NOT_FOUND)
    # extension (docs/api.md): the hashtags that resolve to the entity, most records first
    ids = [m[0] for m in entities_named(corpus.conn, str(name))]
    profile["hashtags"] = [{"tag": t, "written": w, "records": n} for t, w, n in entity_hashtags(corpus.conn, ids)]
    return profile


# -- snapshots, trends, compare ----------------------------------------------------
def snapshots(corpus):
    from corpuskit.analysis.snapshots import get_snapshots, resolve_range

    name = params.string_param("topic", max_len=TOPIC_MAX_LENGTH)
    if name is None:
        abort_json(400, "topic parameter is required")
    _known_topic(corpus, name)
    first, last = resolve_range(corpus, params.date_param("from"), params.date_param("to"),
                                default_days=SNAPSHOT_DEFAULT_DAYS)
    span = (last - first).days + 1
    if span > SNAPSHOT_MAX_DAYS:
        abort_json(400, f"the from..to range is {span} days; at most {SNAPSHOT_MAX_DAYS} are served")
    return get_snapshots(corpus, name, date_from=first.isoformat(), date_to=last.isoformat())


def trends(corpus):
    from corpuskit.analysis.trends import volume_trend

    name = params.string_param("topic", max_len=TOPIC_MAX_LENGTH)
    if name is None:
        abort_json(400, "topic parameter is required")
    _known_topic(corpus, name)
    days = params.int_param("days", TRENDS_DAYS[0], minimum=1, maximum=TRENDS_DAYS[1])
    return volume_trend(corpus, name, days=days)


def compare(corpus):
    from corpuskit.analysis.trends import compare_topics

    raw = params.string_param("topics", max_len=(TOPIC_MAX_LENGTH + 1) * COMPARE_TOPICS[1])
    if raw is None:
        abort_json(400, "topics parameter is required")
    names = []
    for part in raw.split(","):
        part = part.strip()
        if part and part not in names:
            names.append(part)
    low, high = COMPARE_TOPICS
    if not low <= len(names) <= high:
        abort_json(400, f"topics must name {low} to {high} different topics, comma-separated; "
                        f"got {len(names)}")
    for name in names:
        _known_topic(corpus, name)
    days = params.int_param("days", COMPARE_DAYS[0], minimum=1, maximum=COMPARE_DAYS[1])
    return compare_topics(corpus, names, days=days)


# -- observations, clusters ---------------------------------------------------------
def observations(corpus):
    kind = params.enum_param("type", OBSERVATION_TYPES)
    severity = params.enum_param("severity", SEVERITIES)
    since = params.timestamp_param("since")
    limit, offset = _limit("observations"), _offset()
    return queries.list_observations(corpus, type=kind, severity=severity, since=since, limit=limit,
                             offset=offset)


def clusters(corpus):
    topic = params.string_param("topic", max_len=TOPIC_MAX_LENGTH)
    return queries.list_clusters(corpus, topic=topic, limit=_limit("clusters"))


# -- coordination (extension) -------------------------------------------------------------
def coordination(corpus):
    """``GET /api/v1/coordination`` (extension): the coordinated groups, largest first, paged by group."""
    limit, offset = _limit("coordination"), _offset()
    found = coordination_groups(corpus, limit, offset, str)
    return {"data": found["groups"], "settings": found["settings"],
            "pagination": {"total": found["total"], "limit": limit, "offset": offset,
                           "hasMore": offset + limit < found["total"]}}
