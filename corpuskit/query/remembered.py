"""Counts remembered until the corpus data change, and the data version that says when they do.

A paged list answers its ``total`` on every page; counting a filtered join on
every request costs more than the page itself. :func:`cached_total` keeps each
count per process, keyed by the query and :func:`data_version`, a stamp read from
a few cheap queries: which corpus, the newest id of records (records are only
added) and the number of runs and of running runs (every stage, in any process,
writes its output inside ``Corpus.run_stage``, which writes a run row when it
starts and marks it when it ends). While a run is in progress nothing is
remembered, so a count is never older than the data. The HTTP layer keeps its
remembered pages and answers on the same stamp (:mod:`corpuskit.api.response_cache`).
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
_stamps: dict = {}   # id(connection) -> (connection, sqlite data_version, total_changes, stamp)
_lock = threading.Lock()


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


def cached_rows(conn, sql: str, args=()) -> list:
    """Every row ``sql`` answers, as a list of tuples, remembered until :func:`data_version` changes
    (a small grouped count such as records per day; the caller must not change the list)."""
    version = data_version(conn)
    if version is None:
        return [tuple(r) for r in conn.execute(sql, args)]
    key = ("rows", sql, tuple(args), version)
    rows = _totals.get(key)
    if rows is None:
        rows = [tuple(r) for r in conn.execute(sql, args)]
        with _lock:
            if len(_totals) >= _MAX_ENTRIES:
                _totals.clear()
            _totals[key] = rows
    return rows


def clear() -> None:
    """Forget every remembered count and stamp (tests)."""
    with _lock:
        _totals.clear()
        _stamps.clear()
