"""The rate-limit file: per-key request counters and last-use stamps, beside the corpus.

Every keyed request writes a counter. Kept in the corpus file, that write
queued behind any import or stage holding the corpus's write lock (for
minutes, then ``database is locked``). They live instead in their own small
SQLite file, ``<corpus>.limits.db`` (WAL, mode 0600), which only the limiter
writes: every server process opens the same file, so the counts stay exact
across processes, and no data write can block them. An in-memory corpus gets
a private temporary file, removed when the corpus is garbage-collected.

The file is tied to its corpus by a token stored in both (corpus meta
``limits_token``); a limits file left from another corpus (a rebuilt
``corpus.db``, whose key ids start again at 1) is emptied on first use.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import tempfile
import threading
import weakref
from pathlib import Path

from corpuskit.errors import StoreError

SUFFIX = ".limits.db"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rate_counters (
    key_id  INTEGER NOT NULL,
    window  TEXT NOT NULL,       -- 'm:YYYY-MM-DDTHH:MM' or 'd:YYYY-MM-DD'
    count   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, window)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS key_usage (
    key_id       INTEGER PRIMARY KEY,
    last_used_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS limits_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def limits_path(corpus_path) -> Path:
    """Where the rate-limit file of the corpus at ``corpus_path`` lives."""
    return Path(str(corpus_path) + SUFFIX)


def _driver():
    """``sqlite3``, or ``sqlean`` where the standard library's SQLite predates ``RETURNING`` (3.35)."""
    if sqlite3.sqlite_version_info >= (3, 35):
        return sqlite3
    import sqlean  # a base dependency; bundles a recent SQLite

    return sqlean


def _open(path: Path, timeout: float = 30.0):
    if not path.exists():
        # create it owner-only before SQLite does (its -wal and -shm files copy this mode)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise StoreError(f"cannot create the rate-limit file {path}: {exc}") from exc
    module = _driver()
    try:
        conn = module.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    except module.Error as exc:
        raise StoreError(f"cannot open the rate-limit file {path}: {exc}") from exc
    return conn


class LimitStore:
    """Per-thread connections to one rate-limit file (see the module docstring)."""

    def __init__(self, path: Path, token: str | None = None):
        self.path = Path(path)
        self._local = threading.local()
        conn = self.conn
        conn.executescript(_SCHEMA)
        if token is not None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT value FROM limits_meta WHERE key = 'corpus_token'").fetchone()
                if row is None or row[0] != token:
                    conn.execute("DELETE FROM rate_counters")
                    conn.execute("DELETE FROM key_usage")
                    conn.execute("INSERT OR REPLACE INTO limits_meta(key, value) VALUES ('corpus_token', ?)",
                                 (token,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    @property
    def conn(self):
        """This thread's connection (autocommit mode)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _open(self.path)
            self._local.conn = conn
        return conn

    def last_used(self) -> dict[int, str]:
        """``{key id: last_used_at}`` for every key that was ever counted."""
        return dict(self.conn.execute("SELECT key_id, last_used_at FROM key_usage").fetchall())


_stores: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_guard = threading.Lock()


def _corpus_token(corpus) -> str:
    token = corpus.get_meta("limits_token")
    if token is None:  # the first use of this corpus by a server: one small write
        try:
            corpus.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('limits_token', ?)",
                                (json.dumps(secrets.token_hex(16)),))
        except Exception as exc:  # sqlite3's or sqlean's OperationalError
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            raise StoreError(f"cannot prepare {corpus.path} for serving ({exc}): another process is "
                             "writing it; start the server again when it is done") from exc
        token = corpus.get_meta("limits_token")
    return str(token)


def limit_store(corpus) -> LimitStore:
    """The :class:`LimitStore` of ``corpus`` in this process (created on first use)."""
    store = _stores.get(corpus)
    if store is not None:
        return store
    with _guard:
        store = _stores.get(corpus)
        if store is None:
            if str(corpus.path) == ":memory:":
                folder = tempfile.mkdtemp(prefix="corpuskit-limits-")
                store = LimitStore(Path(folder) / ("memory" + SUFFIX))
                weakref.finalize(store, shutil.rmtree, folder, True)
            else:
                store = LimitStore(limits_path(corpus.path), token=_corpus_token(corpus))
            _stores[corpus] = store
    return store


# -- the counters: the rate limiter's statements (corpuskit.api.ratelimit applies the rule) ------------
# One statement counts the request in both windows, or in neither when either
# allowance is spent. A write statement in autocommit mode takes SQLite's write
# lock before it reads anything (as BEGIN IMMEDIATE does; busy waits are retried by
# the busy handler), and SQLite evaluates an INSERT ... SELECT that reads its own
# target table in full before writing, so both checks see the counters as they
# were before this request: check and count are one atomic step across every
# connection and process.
_COUNT_SQL = (
    "INSERT INTO rate_counters(key_id, window, count) "
    "SELECT ?1, w.column1, 1 FROM (VALUES (?2), (?3)) AS w "
    "WHERE coalesce((SELECT count FROM rate_counters WHERE key_id = ?1 AND window = ?3), 0) < ?5 "
    "AND coalesce((SELECT count FROM rate_counters WHERE key_id = ?1 AND window = ?2), 0) < ?4 "
    "ON CONFLICT(key_id, window) DO UPDATE SET count = count + 1 "
    "RETURNING window, count"
)
_USAGE_SQL = "SELECT window, count FROM rate_counters WHERE key_id = ? AND window IN (?, ?)"
_CLEANUP_SQL = "DELETE FROM rate_counters WHERE key_id = ? AND window NOT IN (?, ?)"
_STAMP_SQL = ("INSERT INTO key_usage(key_id, last_used_at) VALUES (?2, ?1) "
              "ON CONFLICT(key_id) DO UPDATE SET last_used_at = ?1 WHERE last_used_at <> ?1")


def _write(conn, lock, sql, args) -> list:
    """Run one write statement (under ``lock`` when given) and return the rows it returns."""
    if lock is None:
        return conn.execute(sql, args).fetchall()
    with lock:
        return conn.execute(sql, args).fetchall()


def count_request(conn, key_id: int, minute: str, day: str, per_minute: int, per_day: int,
                  lock=None) -> dict[str, int]:
    """Count one request of ``key_id`` in the windows named ``minute`` and ``day`` when neither
    counter has reached its allowance: ``{window: count}`` after counting, ``{}`` when refused
    (nothing counted). One statement, atomic across connections and processes (see above);
    ``lock`` (optional) is held around the write."""
    return dict(_write(conn, lock, _COUNT_SQL, (key_id, minute, day, per_minute, per_day)))


def drop_other_windows(conn, key_id: int, minute: str, day: str, lock=None) -> None:
    """Delete ``key_id``'s counters of every window but ``minute`` and ``day`` (finished ones)."""
    _write(conn, lock, _CLEANUP_SQL, (key_id, minute, day))


def stamp_use(conn, key_id: int, stamp: str, lock=None) -> None:
    """Record ``stamp`` (a stored timestamp) as ``key_id``'s last use (no write when it already is)."""
    _write(conn, lock, _STAMP_SQL, (stamp, key_id))


def window_counts(conn, key_id: int, minute: str, day: str) -> dict[str, int]:
    """``{window: count}`` of ``key_id``'s counters in the windows ``minute`` and ``day`` (absent: none)."""
    return dict(conn.execute(_USAGE_SQL, (key_id, minute, day)).fetchall())


def last_used(corpus) -> dict[int, str]:
    """``{key id: last_used_at}`` from the corpus's rate-limit file, without creating one."""
    if str(corpus.path) == ":memory:":
        store = _stores.get(corpus)
        return store.last_used() if store is not None else {}
    if corpus not in _stores and not limits_path(corpus.path).exists():
        return {}
    return limit_store(corpus).last_used()
