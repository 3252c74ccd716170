"""The keyed interface, ``/api/v1``: routes, parameter rules and the key + rate-limit gate.

:func:`install` registers every endpoint of ``keyed-api-v1.md`` on the app
built by :func:`corpuskit.api.app.create_app`, plus the two OpenAPI
documents (``/v1/openapi.json`` and ``/api/v1/openapi.json``, served without
a key). Handlers validate parameters with :mod:`corpuskit.api.params` (a
limit above its maximum is clamped; a non-integer or negative number, an
unknown enum value or a malformed date is 400), call one library function and
return its dict.

Every keyed request passes :func:`keyed`: key check
(:mod:`corpuskit.api.keyed.access`), then one count against the key's
allowance (:func:`corpuskit.api.ratelimit.check_and_count`), then the
handler. Every answer after the count, errors included, carries the
``RateLimit-*`` headers.
"""
from __future__ import annotations

import functools
import logging

import bottle

from corpuskit.api import ratelimit
from corpuskit.api.errors import JsonError
from corpuskit.api.keyed import handlers
from corpuskit.api.keyed.access import require_key
from corpuskit.api.response_cache import remembered_answer
from corpuskit.errors import NotFoundError, ValidationError

log = logging.getLogger("corpuskit.api.keyed")

PREFIX = "/api/v1"


def keyed(corpus, callback, remember: bool = False):
    """Wrap a handler with the key check and the rate-limit count.

    ``remember``: the answer depends only on the data and the request, so it
    is kept until the data change (:func:`corpuskit.api.response_cache.remembered_answer`).
    """

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        key_info = require_key(corpus, bottle.request)
        headers = ratelimit.check_and_count(corpus, key_info, request=bottle.request)
        try:
            if remember:
                out = remembered_answer(corpus, lambda: callback(*args, **kwargs))
            else:
                out = callback(*args, **kwargs)
        except bottle.HTTPResponse as answer:
            error = answer
        except NotFoundError as exc:
            error = JsonError(404, str(exc))
        except ValidationError as exc:
            error = JsonError(400, str(exc))
        except Exception:
            log.exception("internal error on %s %s", bottle.request.method, bottle.request.path)
            error = JsonError(500, "internal server error")
        else:
            for name, value in headers.items():
                bottle.response.set_header(name, value)
            return out
        for name, value in headers.items():
            error.set_header(name, value)
        raise error

    return wrapper


def install(app, corpus) -> None:
    """Register ``/api/v1/*`` and the two OpenAPI document routes on ``app``."""
    from corpuskit.api.openapi import document_bytes

    def openapi_route(interface):
        def serve():
            bottle.response.content_type = "application/json; charset=utf-8"
            bottle.response.set_header("Cache-Control", "public, max-age=300")
            return document_bytes(interface)
        return serve

    app.route("/v1/openapi.json", "GET", openapi_route("bearer"))
    app.route(PREFIX + "/openapi.json", "GET", openapi_route("keyed"))
    app.route(PREFIX + "/status", "GET", functools.partial(handlers.status, corpus))

    # (path, handler, remembered until the data change); discourse keeps its own page cache
    # (it answers pre-encoded bytes) and search embeds each query afresh
    routes = [
        ("/narratives", handlers.narratives, True),
        ("/narratives/<slug:re:[\\s\\S]+>", handlers.narrative, True),
        ("/topics", handlers.topics, True),
        ("/topics/<name:re:[\\s\\S]+>", handlers.topic, True),
        ("/discourse", handlers.discourse, False),
        ("/search", handlers.search, False),
        ("/signals", handlers.signals, True),
        ("/entities", handlers.entities, True),
        ("/entities/<name:re:[\\s\\S]+>", handlers.entity, True),
        ("/snapshots", handlers.snapshots, True),
        ("/trends", handlers.trends, True),
        ("/compare", handlers.compare, True),
        ("/observations", handlers.observations, True),
        ("/clusters", handlers.clusters, True),
        ("/coordination", handlers.coordination, True),
    ]
    for path, handler, remember in routes:
        app.route(PREFIX + path, "GET", keyed(corpus, functools.partial(handler, corpus), remember))

