"""Who is calling: bearer-token authentication for ``/v1``.

:func:`authenticate` answers the caller's :class:`~corpuskit.store.api_keys.KeyInfo`
or stops the request with 401 JSON. A successful lookup is cached for
:data:`CACHE_SECONDS` per key hash, so a revoked key stops working within that
time on every server thread; unknown keys are never cached.
"""
from __future__ import annotations

import hashlib
import threading
import time

from corpuskit.api import ratelimit
from corpuskit.api.errors import abort_json
from corpuskit.store.api_keys import lookup_key

CACHE_SECONDS = 2.0
_MAX_KEY_LENGTH = 256
_cache: dict = {}
_cache_lock = threading.Lock()

UNAUTHORIZED_HEADERS = {"WWW-Authenticate": 'Bearer realm="corpuskit"'}


def bearer_token(request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None when absent or malformed."""
    header = request.get_header("Authorization")
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token or len(token) > _MAX_KEY_LENGTH:
        return None
    if not token.isascii() or not token.isprintable():
        return None
    return token


def cached_lookup(corpus, token: str):
    """``lookup_key`` with a short positive cache (see :data:`CACHE_SECONDS`)."""
    digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
    cache_key = (id(corpus), digest)
    now = time.monotonic()
    hit = _cache.get(cache_key)
    if hit is not None and hit[0] > now:
        return hit[1]
    info = lookup_key(corpus.conn, token)
    with _cache_lock:
        if info is None:
            _cache.pop(cache_key, None)
        else:
            if len(_cache) > 10_000:
                _cache.clear()
            _cache[cache_key] = (now + CACHE_SECONDS, info)
    return info


def clear_cache() -> None:
    """Forget every cached key (tests, key revocation in-process)."""
    with _cache_lock:
        _cache.clear()


def authenticate(corpus, request):
    """The caller's key for a ``/v1`` request, or 401 JSON.

    Missing, malformed, unknown and revoked keys all answer 401 with a
    ``WWW-Authenticate: Bearer`` header.
    """
    header = request.get_header("Authorization")
    if not header:
        abort_json(401, "missing Authorization: Bearer <key> header", UNAUTHORIZED_HEADERS)
    token = bearer_token(request)
    if token is None:
        abort_json(401, "malformed Authorization header; expected 'Bearer <key>'", UNAUTHORIZED_HEADERS)
    info = cached_lookup(corpus, token)
    if info is None:
        abort_json(401, "unknown or revoked API key", UNAUTHORIZED_HEADERS)
    return info


def rate_limit_headers(corpus, key_info, request=None) -> dict:
    """Count the request against the key's allowance.

    Returns headers to add to the answer; the limiter raises a 429 JSON error
    when the allowance is spent.
    """
    return ratelimit.check_and_count(corpus, key_info, request=request) or {}
