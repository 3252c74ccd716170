"""List totals (``count(*)``) and pages remembered until the corpus data changes.

A paged list answers its ``total`` on every page; counting a filtered join on
every request costs more than the page itself. :func:`cached_total` keeps each
count per process, and :func:`cached_page` a rendered page, keyed by the query
and a data version read from a few cheap queries: which corpus, the newest id of
records (records are only added) and the number of runs and of running runs
(every stage, in any process, writes its output inside ``Corpus.run_stage``,
which writes a run row when it starts and marks it when it ends). While a run
is in progress nothing is cached, so an answer is never older than the data.
"""
from __future__ import annotations

import threading

# records are only ever added (no stage deletes one), so the newest id tells a change; counting them
# would scan a million rows
_VERSION_SQL = ("SELECT (SELECT max(id) FROM records), "
                "(SELECT count(*) FROM runs), (SELECT count(*) FROM runs WHERE status = 'running'), "
                # which corpus: its file, and its API id secret (set on first use), which also tells
                # apart in-memory corpora and a file rebuilt at the same path
                "(SELECT file FROM pragma_database_list WHERE name = 'main'), "
                "(SELECT substr(value, 2, 16) FROM meta WHERE key = 'api_id_secret')")
_MAX_ENTRIES = 4096
_totals: dict = {}
_lock = threading.Lock()


_stamps: dict = {}   # id(connection) -> (connection, sqlite data_version, total_changes, stamp)


def data_version(conn) -> tuple | None:
    """A stamp that changes whenever records or any stage's output change; None while a stage runs.

    Each connection reuses its last stamp while SQLite's ``PRAGMA data_version`` (which
    changes when another connection commits) and the connection's own ``total_changes`` are as they
    were: then nothing can have changed.
    """
    seen = conn.execute("PRAGMA data_version").fetchone()[0]
    changes = conn.total_changes
    cached = _stamps.get(id(conn))
    if cached is not None and cached[0] is conn and cached[1] == seen and cached[2] == changes:
        return cached[3]
    newest, runs, running, file, token = conn.execute(_VERSION_SQL).fetchone()
    stamp = None if running else (newest, runs, file, token)
    with _lock:
        if len(_stamps) >= _MAX_ENTRIES:
            _stamps.clear()
        _stamps[id(conn)] = (conn, seen, conn.total_changes, stamp)
    return stamp


def cached_total(conn, sql: str, args=()) -> int:
    """The single integer ``sql`` answers (a ``count(*)``), remembered until :func:`data_version` changes."""
    version = data_version(conn)
    if version is None:
        return conn.execute(sql, args).fetchone()[0]
    key = (sql, tuple(args), version)
    total = _totals.get(key)
    if total is None:
        total = conn.execute(sql, args).fetchone()[0]
        with _lock:
            if len(_totals) >= _MAX_ENTRIES:
                _totals.clear()
            _totals[key] = total
    return total


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
    with _lock:
        _totals.clear()
        _pages.clear()
        _stamps.clear()
        _inflight.clear()
