"""Opaque keyset cursors and the paged envelope ``{items, nextCursor, total}``.

A cursor carries the sort key of the last row of a page and a fingerprint of
the endpoint and its filters, signed with a per-corpus secret. The next page
starts strictly after that key, so rows added meanwhile never shift a page,
and a cursor that was altered, belongs to other filters or another corpus
answers 400.
"""
from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json

from corpuskit.api.errors import abort_json
from corpuskit.api.ids import _SECRET_META_KEY as _ID_SECRET_KEY, corpus_secret

_CURSOR_SECRET_KEY = "api_cursor_secret"
#: The meta rows holding the secrets of the API (ids, then cursors).
SECRET_META_KEYS = (_ID_SECRET_KEY, _CURSOR_SECRET_KEY)
MAX_CURSOR_LENGTH = 1024


def fingerprint(scope: str, filters: dict) -> str:
    """A short digest of an endpoint name and its (normalised) filters."""
    try:
        return _fingerprint(scope, tuple(filters.items()))
    except TypeError:  # an unhashable filter value
        return _digest(scope, filters)


@functools.lru_cache(maxsize=4096)
def _fingerprint(scope: str, items: tuple) -> str:
    return _digest(scope, dict(items))


def _digest(scope: str, filters: dict) -> str:
    text = json.dumps([scope, filters], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _sign(corpus, body: bytes) -> str:
    digest = hmac.new(corpus_secret(corpus, _CURSOR_SECRET_KEY), body, hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def encode_cursor(corpus, scope: str, filters: dict, key) -> str:
    """The cursor that continues after sort key ``key`` (a list of JSON scalars)."""
    body = json.dumps({"f": fingerprint(scope, filters), "k": list(key)},
                      separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return base64.urlsafe_b64encode(body).decode("ascii").rstrip("=") + "." + _sign(corpus, body)


def decode_cursor(corpus, scope: str, filters: dict, cursor: str | None, arity: int):
    """The sort key a cursor continues after, None without a cursor; 400 when it is not valid here."""
    if cursor is None:
        return None
    if len(cursor) > MAX_CURSOR_LENGTH or cursor.count(".") != 1:
        abort_json(400, "invalid cursor")
    data, signature = cursor.split(".")
    try:
        body = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        abort_json(400, "invalid cursor")
    if not hmac.compare_digest(signature.encode("ascii", "replace"), _sign(corpus, body).encode("ascii")):
        abort_json(400, "invalid cursor")
    try:
        payload = json.loads(body)
    except ValueError:
        abort_json(400, "invalid cursor")
    if payload.get("f") != fingerprint(scope, filters):
        abort_json(400, "cursor does not belong to this endpoint and these filters")
    key = payload.get("k")
    if not isinstance(key, list) or len(key) != arity:
        abort_json(400, "invalid cursor")
    return key


def page_envelope(corpus, scope: str, filters: dict, rows: list, limit: int, total: int | None,
                  sort_key, shape) -> dict:
    """Build ``{items, nextCursor, total}`` from up to ``limit + 1`` fetched rows.

    ``sort_key(row)`` gives the row's keyset key; ``shape(row)`` its JSON item.
    ``total`` None leaves it out (the slug drain has no total).
    """
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(corpus, scope, filters, sort_key(rows[-1])) if more and rows else None
    envelope = {"items": [shape(r) for r in rows], "nextCursor": next_cursor}
    if total is not None:
        envelope["total"] = total
    return envelope
