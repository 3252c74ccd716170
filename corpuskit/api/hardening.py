"""Request guards and CORS headers every route shares, installed as Bottle hooks.

- **Header bytes.** WSGI hands headers over as latin-1 text and Bottle decodes
  the ones a handler reads as UTF-8, so a byte sequence that is not UTF-8 in
  ``Authorization``, ``x-api-key``, ``Last-Event-ID`` or ``Origin`` used to
  end in a 500. It now answers 400 ``{"error": "the X header is not valid UTF-8"}``
  before any handler runs.
- **CORS.** ``/api/v1/status`` (public, no key) answers every origin with
  ``Access-Control-Allow-Origin: *``. Other endpoints answer the origins given
  to :func:`install_hardening` (``server.py --cors ORIGIN``; ``*`` for any):
  the allowed origin is echoed with ``Vary: Origin`` and the rate-limit
  headers are exposed to scripts, and an ``OPTIONS`` preflight answers 204
  with the methods (GET) and request headers (``Authorization``,
  ``x-api-key``, ``Last-Event-ID``) allowed. Without ``--cors`` no other
  endpoint sends CORS headers and ``OPTIONS`` stays 405.
"""
from __future__ import annotations

import bottle

from corpuskit.api.errors import abort_json

#: Headers a handler reads, by WSGI environ name and the name shown in errors.
CHECKED_HEADERS = {
    "HTTP_AUTHORIZATION": "Authorization",
    "HTTP_X_API_KEY": "x-api-key",
    "HTTP_LAST_EVENT_ID": "Last-Event-ID",
    "HTTP_ORIGIN": "Origin",
}
PUBLIC_CORS_PATHS = frozenset({"/api/v1/status"})
EXPOSED_HEADERS = ("RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, "
                   "Retry-After")
ALLOWED_REQUEST_HEADERS = "Authorization, x-api-key, Last-Event-ID, Content-Type"
PREFLIGHT_MAX_AGE = "600"


def check_header_bytes(environ) -> None:
    """400 JSON when a header the API reads is not valid UTF-8."""
    for key, label in CHECKED_HEADERS.items():
        value = environ.get(key)
        if value is None or value.isascii():
            continue
        try:
            value.encode("latin-1").decode("utf-8")
        except UnicodeError:
            abort_json(400, f"the {label} header is not valid UTF-8")


def _origin_allowed(origin: str | None, origins: tuple) -> str | None:
    """The ``Access-Control-Allow-Origin`` value for ``origin``, or None."""
    if not origins or origin is None:
        return None
    if "*" in origins:
        return "*"
    return origin if origin in origins else None


def install_hardening(app: bottle.Bottle, cors_origins=()) -> None:
    """Add the header check and the CORS headers (see the module docstring) to ``app``."""
    origins = tuple(o.rstrip("/") if o != "*" else o for o in cors_origins)

    def before_request():
        check_header_bytes(bottle.request.environ)

    def after_request():
        if bottle.request.path in PUBLIC_CORS_PATHS:
            bottle.response.set_header("Access-Control-Allow-Origin", "*")
            return
        allow = _origin_allowed(bottle.request.environ.get("HTTP_ORIGIN"), origins)
        if allow is None:
            return
        bottle.response.set_header("Access-Control-Allow-Origin", allow)
        bottle.response.set_header("Access-Control-Expose-Headers", EXPOSED_HEADERS)
        if allow != "*":
            bottle.response.add_header("Vary", "Origin")

    app.add_hook("before_request", before_request)
    app.add_hook("after_request", after_request)
    if origins:
        def preflight(path):
            allow = _origin_allowed(bottle.request.environ.get("HTTP_ORIGIN"), origins)
            bottle.response.status = 204
            if allow is not None:
                bottle.response.set_header("Access-Control-Allow-Methods", "GET, OPTIONS")
                bottle.response.set_header("Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS)
                bottle.response.set_header("Access-Control-Max-Age", PREFLIGHT_MAX_AGE)
            return b""

        app.route("/<path:path>", "OPTIONS", preflight)
