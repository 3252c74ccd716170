"""One helper for every write: all of it or none of it."""
from __future__ import annotations

from contextlib import contextmanager



@contextmanager
def transaction(conn, immediate: bool = True):
    """Run the block in a transaction on ``conn`` (autocommit mode connection).

    Commits on success, rolls back on any exception. Nested use joins the
    outer transaction, so a stage made of several writers is still atomic.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")
