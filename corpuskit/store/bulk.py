"""Bulk loads: a table's secondary indexes dropped for a large insert and rebuilt after it.

Inserting many rows into a table with several indexes updates every index row by row,
most of them in random order (content key, source id, times); building an index once
over the finished table is one sort. :func:`deferred_indexes` drops the table's
secondary indexes (never its primary key or the automatic indexes of its constraints),
runs the block, and recreates each index from the DDL stored in ``sqlite_master``.
It must run inside the caller's transaction: SQLite's schema changes are
transactional, so a failure anywhere (the insert, a unique index that no longer
holds when it is rebuilt) rolls back to the file as it was, every index present.
"""
from __future__ import annotations

from contextlib import contextmanager


def secondary_indexes(conn, table: str, schema: str = "main") -> list[tuple[str, str]]:
    """``(name, CREATE statement)`` of ``table``'s indexes that were created by a statement, by name."""
    return [(name, sql) for name, sql in conn.execute(
        f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'index' AND tbl_name = ? "
        "AND sql IS NOT NULL ORDER BY name", (table,))]


@contextmanager
def deferred_indexes(conn, table: str, schema: str = "main"):
    """Drop ``table``'s secondary indexes for the block and recreate them after it.

    Raises ``RuntimeError`` outside a transaction (the drop would otherwise commit
    on its own). Yields the names of the indexes dropped.
    """
    if not conn.in_transaction:
        raise RuntimeError("deferred_indexes needs an open transaction (all or nothing)")
    indexes = secondary_indexes(conn, table, schema)
    for name, _ in indexes:
        conn.execute(f'DROP INDEX {schema}."{name}"')
    yield [name for name, _ in indexes]
    for _, sql in indexes:
        conn.execute(sql)
