"""Every ``/v1`` endpoint of ``bearer-api-v1.md``: a route table over thin handlers.

Each request passes :func:`bearer`: it authenticates (``Authorization: Bearer``),
counts the request against the key's allowance, then runs the handler, which
validates its parameters (``corpuskit.api.params`` via
:mod:`corpuskit.api.bearer.request`), calls one read function and shapes the
JSON. The handlers live in :mod:`~corpuskit.api.bearer.records` (records,
stories), :mod:`~corpuskit.api.bearer.catalog` (signals, topics, entities) and
:mod:`~corpuskit.api.bearer.aggregates` (sources, stats, arcs, streams); each
takes the corpus, then its path parameters. Unknown or malformed ids are 404;
see ``docs/api.md`` for every choice the spec leaves open.
"""
from __future__ import annotations

import functools

import bottle

from corpuskit.api.auth import authenticate, rate_limit_headers
from corpuskit.api.bearer import aggregates, catalog, records
# the parameter bounds and enums, read here by the OpenAPI builder (corpuskit.api.openapi.bearer)
from corpuskit.api.bearer.request import (DAYS_DEFAULT, DAYS_MAX, FEED_DEFAULT, FEED_MAX,  # noqa: F401
                                          LIMIT_DEFAULT, LIMIT_MAX, SENTIMENT_DAYS_DEFAULT, SENTIMENT_LIVE_DAYS,
                                          SENTIMENTS, SLUGS_DEFAULT, SLUGS_MAX, STATUSES, TRENDING_DEFAULT,
                                          TRENDING_MAX)
from corpuskit.api.bearer.stream import StreamGate
from corpuskit.api.errors import abort_json
from corpuskit.api.response_cache import remembered_answer
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.query import ENTITY_TYPES, SEVERITIES  # noqa: F401 - read by the OpenAPI builder too

#: ``(path, handler, remembered until the data change)``, in registration order: Bottle tries the
#: dynamic routes in this order, so ``/v1/stories/lead``, ``/count`` and ``/by-slug/<slug>`` come
#: before ``/v1/stories/<sid>``, and the entity sitemap, slugs and by-slug before ``/v1/entities/<eid>``.
#: ``/v1/stream/signals`` is added by :func:`install` (it takes the heartbeat and the stream gate).
ROUTES = [
    ("/v1/records", records.records, False),
    ("/v1/records/<rid>", records.record, False),
    ("/v1/records/<rid>/embedding", records.record_embedding, False),
    ("/v1/records/<rid>/entities", records.record_entities, False),
    ("/v1/records/<rid>/topics", records.record_topics, False),
    ("/v1/stories/lead", records.lead_story, True),
    ("/v1/stories/count", records.story_count, True),
    ("/v1/stories/by-slug/<slug>", records.story_by_slug, False),
    ("/v1/stories/by-topic/<tid>", records.stories_by_topic, True),
    ("/v1/stories/by-entity/<eid>", records.stories_by_entity, True),
    ("/v1/stories", records.stories, True),
    ("/v1/stories/<sid>", records.story, False),
    ("/v1/stories/<sid>/versions", records.story_versions, False),
    ("/v1/stories/<sid>/sources", records.story_sources, False),
    ("/v1/signals", catalog.signals, True),
    ("/v1/signals/feed", catalog.signal_feed, True),
    ("/v1/signals/<sid>", catalog.signal, False),
    ("/v1/signals/<sid>/evidence", catalog.signal_evidence, False),
    ("/v1/topics", catalog.topics, True),
    ("/v1/topics/<tid>", catalog.topic, True),
    ("/v1/entities", catalog.entities, True),
    ("/v1/entities/sitemap-pages", catalog.entity_sitemap, True),
    ("/v1/entities/slugs", catalog.entity_slugs, True),
    ("/v1/entities/by-slug/<key>", catalog.entity_by_slug, True),
    ("/v1/entities/<eid>", catalog.entity, True),
    ("/v1/sources", aggregates.sources, True),
    ("/v1/stats/global/timeline", aggregates.global_timeline, True),
    ("/v1/stats/sources/<source>/timeline", aggregates.source_timeline, True),
    ("/v1/stats/sentiment/timeline", aggregates.sentiment_timeline, True),
    ("/v1/stats/entities/trending", aggregates.trending, True),
    ("/v1/stats/topics/distribution", aggregates.topic_distribution, True),
    ("/v1/stats/topics/<tid>/timeline", aggregates.topic_timeline, True),
    ("/v1/arcs", aggregates.arcs, True),
    ("/v1/arcs/<slug>", aggregates.arc, True),
    ("/v1/stream/stories", aggregates.stream_stories, False),
    ("/v1/coordination", aggregates.coordination, True),
]


def bearer(corpus, handler, remember: bool = False):
    """Wrap ``handler`` with the key check and the rate-limit count.

    The ``RateLimit-*`` headers go on the response before the handler runs, and
    onto an error answer (``bottle.HTTPResponse``) where it lacks them. A
    ``NotFoundError`` is 404 and a ``ValidationError`` 400; any other error is
    left to the app. ``remember``: the answer depends only on the data and the
    request, so it is kept until the data change
    (:func:`corpuskit.api.response_cache.remembered_answer`).
    """
    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        key = authenticate(corpus, bottle.request)
        bottle.request.environ["corpuskit.key_id"] = key.id
        headers = rate_limit_headers(corpus, key, bottle.request)
        for name, value in headers.items():
            bottle.response.set_header(name, value)
        try:
            try:
                if remember:
                    return remembered_answer(corpus, lambda: handler(*args, **kwargs))
                return handler(*args, **kwargs)
            except NotFoundError as exc:
                abort_json(404, str(exc))
            except ValidationError as exc:
                abort_json(400, str(exc))
        except bottle.HTTPResponse as answer:
            for name, value in headers.items():
                if name not in answer.headers:
                    answer.set_header(name, value)
            raise

    return wrapper


def install(app: bottle.Bottle, corpus, heartbeat_seconds: float = 30.0,
            stream_gate: StreamGate | None = None) -> None:
    """Add the ``/v1`` routes for ``corpus`` to ``app``; ``stream_gate`` caps the open signal streams."""
    stream_gate = stream_gate if stream_gate is not None else StreamGate()
    for path, handler, remember in ROUTES:
        app.route(path, "GET", bearer(corpus, functools.partial(handler, corpus), remember))
    stream = functools.partial(aggregates.stream_signals, corpus, heartbeat_seconds, stream_gate)
    app.route("/v1/stream/signals", "GET", bearer(corpus, stream))
