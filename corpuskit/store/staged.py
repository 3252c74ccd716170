"""Long stages that hold the write lock only for their last second.

``analyse`` and ``narrate`` read much of the corpus and write a few tables.
Run in one write transaction, they would keep every other writer (an import,
``keys create``) waiting for as long as they compute. :func:`staged_writes`
runs such a stage against private ``TEMP`` copies of the tables it writes,
inside one read transaction (so it sees one consistent snapshot and takes no
write lock), and then applies only what it changed, in one short
``BEGIN IMMEDIATE`` transaction: rows that are gone are deleted, new or
changed rows are upserted by primary key. A failure anywhere leaves the file
as it was; a row that another process changed meanwhile in a table the stage
did not touch is never reverted, because only the stage's own changes are
applied.

Unqualified table names resolve to ``temp`` before ``main`` in SQLite, so the
stage's code needs no change: it reads and writes ``clusters`` as before and
gets the private copy. Foreign keys between staged tables (and their cascades)
are kept in the copies; keys to tables that are not staged are checked when
the changes are applied.
"""
from __future__ import annotations

import re
from contextlib import contextmanager

from corpuskit.store.bulk import secondary_indexes
from corpuskit.store.transaction import transaction

_PREFIX = "_staged_"
_CLAUSE = (r"(?:\s+ON\s+(?:DELETE|UPDATE)\s+(?:SET\s+NULL|SET\s+DEFAULT|CASCADE|RESTRICT|NO\s+ACTION)"
           r"|\s+(?:NOT\s+)?DEFERRABLE(?:\s+INITIALLY\s+(?:DEFERRED|IMMEDIATE))?)*")
_TARGET = r"REFERENCES\s+[\"`\[]?(\w+)[\"`\]]?\s*(?:\([^)]*\))?" + _CLAUSE
_REFERENCE = re.compile(r"\s+" + _TARGET, re.IGNORECASE)
_TABLE_FOREIGN_KEY = re.compile(r",\s*(?:CONSTRAINT\s+\w+\s+)?FOREIGN\s+KEY\s*\([^)]*\)\s+" + _TARGET,
                                re.IGNORECASE)


def _temp_ddl(sql: str, staged: set[str]) -> str:
    """``CREATE TABLE`` text of a main table, rewritten as a TEMP table.

    References to tables that are staged too are kept (the copies then
    cascade among themselves); references to other tables are dropped, as a
    temp table can only refer to temp tables.
    """
    def keep_staged(match):
        return match.group(0) if match.group(1).lower() in staged else ""

    sql = _TABLE_FOREIGN_KEY.sub(keep_staged, sql)
    sql = _REFERENCE.sub(keep_staged, sql)
    return re.sub(r"^\s*CREATE\s+TABLE\s+", "CREATE TEMP TABLE ", sql, count=1, flags=re.IGNORECASE)


def _temp_index_ddl(sql: str) -> str:
    return re.sub(r"^\s*CREATE\s+(UNIQUE\s+)?INDEX\s+", lambda m: f"CREATE {m.group(1) or ''}INDEX temp.",
                  sql, count=1, flags=re.IGNORECASE)


def _columns(conn, table: str) -> tuple[list[str], list[str]]:
    rows = conn.execute(f'PRAGMA main.table_info("{table}")').fetchall()
    columns = [r[1] for r in rows]
    key = [r[1] for r in sorted((r for r in rows if r[5]), key=lambda r: r[5])]
    return columns, key


def _quoted(names) -> str:
    return ", ".join(f'"{n}"' for n in names)


def _drop_copies(conn, tables) -> None:
    for table in reversed(tables):  # tables that refer to others first: a drop is checked like a delete
        for name in (table, _PREFIX + "gone_" + table, _PREFIX + "new_" + table):
            conn.execute(f'DROP TABLE IF EXISTS temp."{name}"')


@contextmanager
def staged_writes(conn, tables):
    """Run the block's writes to ``tables`` on private copies; apply the changes in one short transaction.

    ``conn`` must not be in a transaction already (the block's own
    ``transaction()`` calls then join the read transaction this opens). Every
    table must have a declared primary key. Writes to any other table inside
    the block would take the write lock for the rest of the block: stage every
    table the block writes. Raises :class:`CorpusBusyError` when another writer
    holds the lock for longer than the busy timeout at the end.
    """
    tables = list(dict.fromkeys(tables))
    staged = {t.lower() for t in tables}
    if conn.in_transaction:
        raise RuntimeError("staged_writes needs a connection outside any transaction")
    schema = {}
    for table in tables:
        columns, key = _columns(conn, table)
        if not columns:
            raise ValueError(f"no table {table!r} in the corpus")
        if not key:
            raise ValueError(f"table {table!r} has no primary key: its changes cannot be staged")
        schema[table] = columns, key
    try:
        conn.execute("BEGIN")  # deferred: a read snapshot from the first read on, no write lock
        for table in tables:
            sql = conn.execute("SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?",
                               (table,)).fetchone()[0]
            conn.execute(_temp_ddl(sql, staged))
            for _, index_sql in secondary_indexes(conn, table):
                conn.execute(_temp_index_ddl(index_sql))
            conn.execute(f'INSERT INTO temp."{table}" SELECT * FROM main."{table}"')
        _copy_sequences(conn, tables)
        yield conn
        for table in tables:  # the stage's changes, against the snapshot it started from
            columns, key = schema[table]
            conn.execute(f'CREATE TEMP TABLE "{_PREFIX}gone_{table}" AS SELECT {_quoted(key)} '
                         f'FROM main."{table}" EXCEPT SELECT {_quoted(key)} FROM temp."{table}"')
            conn.execute(f'CREATE TEMP TABLE "{_PREFIX}new_{table}" AS SELECT {_quoted(columns)} '
                         f'FROM temp."{table}" EXCEPT SELECT {_quoted(columns)} FROM main."{table}"')
        conn.execute("COMMIT")
        with transaction(conn):
            conn.execute("PRAGMA defer_foreign_keys = ON")
            for table in reversed(tables):
                _, key = schema[table]
                conn.execute(f'DELETE FROM main."{table}" WHERE ({_quoted(key)}) IN '
                             f'(SELECT {_quoted(key)} FROM temp."{_PREFIX}gone_{table}")')
            for table in tables:
                columns, key = schema[table]
                rest = [c for c in columns if c not in key]
                action = ("DO UPDATE SET " + ", ".join(f'"{c}" = excluded."{c}"' for c in rest)
                          if rest else "DO NOTHING")
                conn.execute(f'INSERT INTO main."{table}" ({_quoted(columns)}) SELECT {_quoted(columns)} '
                             f'FROM temp."{_PREFIX}new_{table}" WHERE true ON CONFLICT ({_quoted(key)}) {action}')
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        _drop_copies(conn, tables)


def _copy_sequences(conn, tables) -> None:
    """AUTOINCREMENT tables: the copies go on from the file's counter, so no id is ever handed out twice."""
    has_main = conn.execute("SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'").fetchone()
    has_temp = conn.execute("SELECT 1 FROM temp.sqlite_master WHERE name = 'sqlite_sequence'").fetchone()
    if not (has_main and has_temp):
        return
    for table in tables:
        row = conn.execute("SELECT seq FROM main.sqlite_sequence WHERE name = ?", (table,)).fetchone()
        if row is None:
            continue
        conn.execute("DELETE FROM temp.sqlite_sequence WHERE name = ?", (table,))
        conn.execute("INSERT INTO temp.sqlite_sequence(name, seq) VALUES (?, ?)", (table, row[0]))
