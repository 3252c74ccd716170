"""Who is calling the keyed interface: the API key in ``x-api-key`` or ``Authorization: Bearer``.

Rules, in order:

1. a corpus with no key at all (none ever created) answers 503
   'API access not configured' on every keyed endpoint;
2. no key in either header: 401 'API key required';
3. both headers carry a key and the two differ: 401 'Conflicting API keys in
   x-api-key and Authorization headers' (we never guess which one the client
   meant; the same key in both is fine);
4. a key that does not start with the configured prefix
   (``create_app(key_prefix=...)``, default ``ck_``), or is unknown or revoked, or an
   ``Authorization`` header that is not ``Bearer <key>``: 401
   'Invalid or missing API key'.

Every 401 carries ``WWW-Authenticate: Bearer realm="corpuskit"``.
"""
from __future__ import annotations

from corpuskit.api.auth import bearer_token, cached_lookup
from corpuskit.api.errors import JsonError, abort_json
from corpuskit.store.api_keys import DEFAULT_KEY_PREFIX, has_keys

NOT_CONFIGURED = "API access not configured"
KEY_REQUIRED = "API key required"
INVALID_KEY = "Invalid or missing API key"
CONFLICTING_KEYS = "Conflicting API keys in x-api-key and Authorization headers"
UNAUTHORIZED_HEADERS = {"WWW-Authenticate": 'Bearer realm="corpuskit"'}
_MAX_KEY_LENGTH = 256


def presented_key(request) -> str | None:
    """The key the client sent, or None when it sent none; 401 on a conflict or a malformed header."""
    header_key = request.get_header("x-api-key")
    header_key = header_key.strip() if header_key is not None else None
    authorization = request.get_header("Authorization")
    bearer = None
    if authorization is not None and authorization.strip():
        bearer = bearer_token(request)
        if bearer is None and not header_key:
            abort_json(401, INVALID_KEY, UNAUTHORIZED_HEADERS)
    if header_key and bearer and header_key != bearer:
        abort_json(401, CONFLICTING_KEYS, UNAUTHORIZED_HEADERS)
    return header_key or bearer or None


def require_key(corpus, request):
    """The caller's :class:`~corpuskit.store.api_keys.KeyInfo`, or the 503/401 JSON answer."""
    try:
        key = presented_key(request)
    except JsonError:
        _configured(corpus)
        raise
    if key is None:
        _configured(corpus)
        abort_json(401, KEY_REQUIRED, UNAUTHORIZED_HEADERS)
    info = None
    prefix = request.app.config.get("corpuskit.key_prefix", DEFAULT_KEY_PREFIX)
    if (len(key) <= _MAX_KEY_LENGTH and key.startswith(prefix)
            and key.isascii() and key.isprintable()):
        info = cached_lookup(corpus, key)
    if info is None:
        _configured(corpus)
        abort_json(401, INVALID_KEY, UNAUTHORIZED_HEADERS)
    return info  # a valid key: keys are configured, rule 1 holds without asking


def _configured(corpus) -> None:
    """Rule 1: 503 when the corpus has no key at all."""
    if not has_keys(corpus.conn):
        abort_json(503, NOT_CONFIGURED)
