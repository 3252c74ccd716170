"""The ``/v1`` request helpers: parameter bounds, paging, ids in the path and in filters.

Handlers in :mod:`~corpuskit.api.bearer.records`, :mod:`~corpuskit.api.bearer.catalog`
and :mod:`~corpuskit.api.bearer.aggregates` read their parameters through these
functions; the bounds are re-exported by :mod:`corpuskit.api.bearer.routes`, where
the OpenAPI builder (:mod:`corpuskit.api.openapi.bearer`) reads them.
"""
from __future__ import annotations

from corpuskit.api import params
from corpuskit.api.errors import abort_json, json_response
from corpuskit.api.ids import decode_id
from corpuskit.api.paging import decode_cursor, page_envelope
from corpuskit.query import SENTIMENT_LABELS, SIGNAL_STATUSES

LIMIT_DEFAULT, LIMIT_MAX = 20, 100
FEED_DEFAULT, FEED_MAX = 10, 50
SLUGS_DEFAULT, SLUGS_MAX = 500, 5000
DAYS_DEFAULT, DAYS_MAX = 30, 365
SENTIMENT_DAYS_DEFAULT, SENTIMENT_LIVE_DAYS = 7, 30
TRENDING_DEFAULT, TRENDING_MAX = 10, 50
SENTIMENTS = SENTIMENT_LABELS
STATUSES = SIGNAL_STATUSES


def limit(default=LIMIT_DEFAULT, maximum=LIMIT_MAX):
    """The ``limit`` parameter (clamped to ``maximum``)."""
    return params.int_param("limit", default, minimum=1, maximum=maximum)


def cursor():
    """The raw ``cursor`` parameter, or None."""
    return params.string_param("cursor", max_len=1024)


def days(default=DAYS_DEFAULT, maximum=DAYS_MAX):
    """The ``days`` window of a timeline."""
    return params.int_param("days", default, minimum=1, maximum=maximum)


def paged(corpus, scope, filters, arity, fetch, sort_key, shape, size):
    """One keyset page: decode the cursor, ``fetch(after)`` the rows and total, wrap them."""
    after = decode_cursor(corpus, scope, filters, cursor(), arity)
    rows, total = fetch(after)
    return page_envelope(corpus, scope, filters, rows, size, total, sort_key, shape)


def need(corpus, kind, text, what):
    """The row id of the public id ``text`` in the path; 404 ``"<what> not found"`` if it is not one."""
    value = decode_id(corpus, kind, text)
    if value is None:
        abort_json(404, f"{what} not found")
    return value


def filter_id(corpus, name, kind):
    """``(row id, text)`` of the id filter ``name``, ``(None, None)`` without one; 400 if malformed."""
    text = params.string_param(name, max_len=64)
    if text is None:
        return None, None
    value = decode_id(corpus, kind, text)
    if value is None:
        abort_json(400, f"parameter {name!r} is not a valid {kind}_ identifier")
    return value, text


def redirect(location):
    """Answer 301 to ``location`` (a slug that is not the canonical one)."""
    raise json_response({"location": location}, status=301, headers={"Location": location})
