"""Pages and answers remembered until the corpus data changes.

:func:`cached_page` keeps a rendered page and :func:`remembered_answer` a whole GET
answer per process, keyed by the request and the data version
(:func:`corpuskit.query.remembered.data_version`: which corpus, the newest record
id, the number of runs and of running runs). While a run is in progress nothing
is kept, so an answer is never older than the data. Remembered list totals are
the read layer's (:func:`corpuskit.query.remembered.cached_total`).
"""
from __future__ import annotations

import threading

from corpuskit.query import remembered
from corpuskit.query.remembered import data_version

_lock = threading.Lock()


_pages: dict = {}
_MAX_PAGES = 256


_inflight: dict = {}  # full key -> the lock its one computing thread holds


def cached_page(conn, key: tuple, compute):
    """``compute()`` (a rendered page), remembered per ``key`` until :func:`data_version` changes.

    One thread per process computes a missing page; threads asking for the same page meanwhile
    wait for its answer instead of computing it too (16 connections opening a cold endpoint that
    takes 0.3 s at a million records used to cost 16 computations fighting for the GIL, and
    every one of them timed out).
    """
    version = data_version(conn)
    if version is None:
        return compute()
    full_key = (key, version)
    page = _pages.get(full_key)
    if page is not None:
        return page
    with _lock:
        gate = _inflight.setdefault(full_key, threading.Lock())
    try:
        with gate:
            page = _pages.get(full_key)
            if page is None:
                page = compute()
                with _lock:
                    if len(_pages) >= _MAX_PAGES:
                        _pages.clear()
                    _pages[full_key] = page
    finally:
        with _lock:
            if _inflight.get(full_key) is gate and not gate.locked():
                del _inflight[full_key]
    return page


def remembered_answer(corpus, compute):
    """``compute()`` for the current GET request, remembered per path and query string.

    The answer is kept until :func:`data_version` changes, and for at most the
    corpus clock's minute (a corpus on the wall clock moves its "last N days"
    windows with time). Errors are not remembered. Used by every list,
    aggregate and detail endpoint whose answer depends on nothing but the
    data and the request (not on the key).
    """
    import bottle

    from corpuskit.clock import iso

    request = bottle.request
    key = ("answer", request.path, request.query_string, iso(corpus.now())[:16])
    return cached_page(corpus.conn, key, compute)


def clear() -> None:
    """Forget every remembered total and page (tests)."""
    remembered.clear()
    with _lock:
        _pages.clear()
        _inflight.clear()
