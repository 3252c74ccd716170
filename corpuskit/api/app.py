"""The root WSGI application: ``/v1`` (bearer) and ``/api/v1`` (keyed) on one Bottle app.

:func:`create_app` takes an open :class:`~corpuskit.Corpus` and returns the
app; it reads no environment and no arguments beyond its own (``server.py``'s
``main()`` does that). Every answer it gives is JSON (the signal stream
aside): unknown paths are 404, wrong methods 405, library validation errors
400, missing rows 404, and any other exception a logged 500 ``{"error": ...}``,
never Bottle's HTML page.
"""
from __future__ import annotations

import functools
import logging

import bottle

from corpuskit.api import pages
from corpuskit.api.bearer import routes as bearer_routes
from corpuskit.api.bearer.stream import DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_KEY, StreamGate
from corpuskit.api.hardening import install_hardening
from corpuskit.api.ids import prepare_secrets
from corpuskit.api.errors import JSON_TYPE, JsonError, encode_json, error_body
from corpuskit.api.keyed import routes as keyed_routes
from corpuskit.api.paging import SECRET_META_KEYS
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.store.api_keys import DEFAULT_KEY_PREFIX, key_prefix as checked_prefix
from corpuskit.store.limits import limit_store

log = logging.getLogger("corpuskit.api")

DEFAULT_HEARTBEAT_SECONDS = 30.0


def _status_message(err) -> str:
    status = err.status_code
    if status == 404:
        return "not found"
    if status == 405:
        return "method not allowed"
    if status >= 500:
        return "internal server error"
    body = err.body if isinstance(err.body, str) else ""
    return body or bottle.HTTP_CODES.get(status, "error")


def _error_handler(err) -> bytes:
    """Bottle's own errors (no route, wrong method, caught crashes) as JSON."""
    if err.status_code >= 500:
        log.error("internal error on %s %s: %s\n%s", bottle.request.method, bottle.request.path,
                  err.exception, err.traceback or "")
    bottle.response.content_type = JSON_TYPE + "; charset=utf-8"
    return error_body(err.status_code, _status_message(err))


def json_plugin(callback):
    """Wrap a route: dicts and lists become JSON; exceptions become JSON errors."""

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        try:
            out = callback(*args, **kwargs)
        except bottle.HTTPResponse:
            raise
        except ValidationError as exc:
            raise JsonError(400, str(exc)) from exc
        except NotFoundError as exc:
            raise JsonError(404, str(exc)) from exc
        except Exception:
            log.exception("internal error on %s %s", bottle.request.method, bottle.request.path)
            raise JsonError(500, "internal server error") from None
        if isinstance(out, (dict, list)):
            bottle.response.content_type = JSON_TYPE + "; charset=utf-8"
            return encode_json(out)
        return out

    return wrapper


#: Modules that handlers import on first use (they pull in scikit-learn, hdbscan and the text
#: normaliser's word lists): :func:`preload_handlers` imports them once, before workers fork.
HANDLER_MODULES = (
    "corpuskit.analysis.clusters", "corpuskit.analysis.snapshots", "corpuskit.analysis.trends",
    "corpuskit.analysis.observations", "corpuskit.analysis.entity_stats", "corpuskit.analysis.corpus_stats",
    "corpuskit.narrate.read", "corpuskit.search", "corpuskit.api.openapi.keyed", "corpuskit.api.openapi.bearer",
    "corpuskit.analysis.signals.shipped",     # the detectors the signal-kind registry loads on its first lookup
    "corpuskit.networks", "corpuskit.networks.summary",   # the coordination extension of both interfaces
)


def preload_handlers() -> None:
    """Import every module a handler imports lazily, so no worker's first request pays for it.

    ``server.py`` calls it before forking its workers, which then share the
    imported code. Without it, the first topic-detail request of each worker
    imported the clustering stack (7 s on a loaded 2-core machine).
    """
    import importlib

    for name in HANDLER_MODULES:
        importlib.import_module(name)


def create_app(corpus, heartbeat_seconds: float | None = None, *, cors_origins=(),
               upgrade_url: str | None = None, max_streams: int = DEFAULT_MAX_STREAMS,
               max_streams_per_key: int = DEFAULT_MAX_STREAMS_PER_KEY, key_prefix: str = DEFAULT_KEY_PREFIX,
               quantised_from: int | None = None) -> bottle.Bottle:
    """The WSGI app serving ``corpus`` under ``/v1`` and ``/api/v1``.

    ``heartbeat_seconds`` is the signal stream's heartbeat interval (None: 30).
    ``cors_origins``: browser origins allowed to call every endpoint (``"*"``
    for any; ``/api/v1/status`` allows any origin regardless). ``upgrade_url``:
    the absolute URL a 429 points to (see :func:`corpuskit.api.ratelimit.upgrade_url`).
    ``max_streams`` and ``max_streams_per_key`` cap the open signal streams of
    this process (see :class:`corpuskit.api.bearer.stream.StreamGate`).
    ``key_prefix``: what every API key starts with (a key without it is invalid).
    ``quantised_from``: vectors from which search uses the quantised index
    (default :data:`corpuskit.search.QUANTISED_FROM`).
    """
    if heartbeat_seconds is None:
        heartbeat_seconds = DEFAULT_HEARTBEAT_SECONDS
    if not heartbeat_seconds > 0:
        raise ValidationError(f"heartbeat interval must be positive, not {heartbeat_seconds!r}")
    if max_streams < 1 or max_streams_per_key < 1:
        raise ValidationError("stream limits must be at least 1")
    app = bottle.Bottle(catchall=True)
    app.uninstall("json")  # json_plugin encodes (compact, UTF-8, ensure_ascii=False)
    app.default_error_handler = _error_handler
    app.install(json_plugin)
    app.config["corpuskit.corpus"] = corpus
    app.config["corpuskit.heartbeat_seconds"] = float(heartbeat_seconds)
    app.config["corpuskit.upgrade_url"] = upgrade_url
    app.config["corpuskit.key_prefix"] = checked_prefix(key_prefix)
    app.config["corpuskit.quantised_from"] = quantised_from
    limit_store(corpus)  # open (and tie to this corpus) the rate-limit file before serving
    # the id and cursor secrets too: no request may have to write the corpus (and wait on a writer)
    prepare_secrets(corpus, *SECRET_META_KEYS)
    install_hardening(app, cors_origins)
    bearer_routes.install(app, corpus, heartbeat_seconds=float(heartbeat_seconds),
                          stream_gate=StreamGate(max_streams, max_streams_per_key))
    keyed_routes.install(app, corpus)
    pages.install(app, corpus)  # / and /docs, for people
    return app
