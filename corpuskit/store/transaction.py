"""One helper for every write: all of it or none of it."""
from __future__ import annotations

from contextlib import contextmanager

from corpuskit.store.connection import busy_error


@contextmanager
def transaction(conn, immediate: bool = True):
    """Run the block in a transaction on ``conn`` (autocommit mode connection).

    Commits on success, rolls back on any exception. Nested use joins the
    outer transaction, so a stage made of several writers is still atomic.
    When another process holds the write lock for longer than the
    connection's busy timeout, raises :class:`CorpusBusyError`.
    """
    if conn.in_transaction:
        yield conn
        return
    try:
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except Exception as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise busy_error(_file_of(conn), _timeout_of(conn)) from exc
        raise
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def _file_of(conn) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return (row[2] if row is not None else "") or "(in memory)"


def _timeout_of(conn) -> float:
    return conn.execute("PRAGMA busy_timeout").fetchone()[0] / 1000
