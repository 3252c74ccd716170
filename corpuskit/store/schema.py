"""Numbered schema migrations, tracked with ``PRAGMA user_version``; the corpus file's mark.

Migrations are the ``NNNN_name.sql`` files in ``store/migrations``; each runs
once, in number order, all pending ones in one transaction. A migration that
must compute in Python (a hash) has a step in ``_PYTHON_STEPS`` run right after
its SQL. A file whose ``user_version`` is above the newest migration was written
by a newer corpuskit and is refused.

A corpus file is marked: ``PRAGMA application_id`` is :data:`APPLICATION_ID`
and the ``meta`` table has a ``corpuskit`` row. An empty file is marked and
migrated; a file made by an older corpuskit (its tables, no mark) is marked;
any other non-empty SQLite file is refused with :class:`NotACorpusError`, so
corpuskit never adds its tables to another application's database.
"""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from functools import lru_cache
from importlib import resources

from corpuskit.errors import NotACorpusError, SchemaVersionError, StoreError

#: ``PRAGMA application_id`` of a corpus file: the ASCII bytes ``CKit``.
APPLICATION_ID = 0x434B6974
MARK_KEY = "corpuskit"
MARK = {"application": "corpuskit", "applicationId": APPLICATION_ID}
# the tables every corpuskit version since the first has: an unmarked file with
# them (and a user_version) is a corpus made before the mark existed
_CORE_TABLES = {"meta", "runs", "records", "api_keys"}

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@lru_cache(maxsize=1)
def migrations() -> list[tuple[int, str, str]]:
    """All migrations as ``(number, file name, sql)``, in order."""
    found = []
    for entry in resources.files("corpuskit.store").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _, _ in found]
    # applied in order, each once: 1, 2, ..., n (a missing number means a migration was lost)
    if numbers != list(range(1, len(numbers) + 1)):
        raise StoreError(f"migrations are not numbered 1..n: {numbers}")
    return found


def latest_version() -> int:
    """The schema version this corpuskit writes: the newest migration's number."""
    return migrations()[-1][0]


def inspect_file(conn, label: str = "corpus") -> str:
    """What the file behind ``conn`` is: ``"corpus"``, ``"unmarked"`` (older corpus) or ``"empty"``.

    Raises :class:`NotACorpusError` for another application's database and
    :class:`SchemaVersionError` for a corpus newer than this code.
    """
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    latest = latest_version()
    if app_id == APPLICATION_ID or app_id == 0:
        if version > latest:
            raise SchemaVersionError(
                f"{label} has schema version {version}, newer than this corpuskit supports "
                f"({latest}); upgrade corpuskit to open it"
            )
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'")}
    if app_id == APPLICATION_ID:
        return "corpus"
    if app_id == 0 and not tables and version == 0:
        return "empty"
    if app_id == 0 and version >= 1 and _CORE_TABLES <= tables:
        return "unmarked"
    shown = ", ".join(sorted(tables)[:8]) + (", ..." if len(tables) > 8 else "")
    owner = f"application_id {app_id:#x}" if app_id else "no application_id"
    raise NotACorpusError(
        f"{label} is not a corpuskit corpus: it is an SQLite database of another application "
        f"({owner}, user_version {version}, {len(tables)} table(s): {shown or 'none'}). "
        "corpuskit leaves it unchanged; give --db a new file name (or an empty file)"
    )


def migrate(conn, label: str = "corpus") -> int:
    """Check, mark and bring the corpus file behind ``conn`` up to the latest schema.

    Returns the schema version. Raises :class:`NotACorpusError` when the file
    is another application's database and :class:`SchemaVersionError` when it
    is newer than this code. Checking a current corpus takes no write lock.
    """
    latest = latest_version()
    kind = inspect_file(conn, label)
    if kind == "corpus" and conn.execute("PRAGMA user_version").fetchone()[0] == latest:
        return latest
    conn.execute("BEGIN IMMEDIATE")
    try:
        kind = inspect_file(conn, label)  # again, now that no other process can change it
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        for number, name, sql in migrations():
            if number <= current:
                continue
            try:
                for statement in _split(sql):
                    conn.execute(statement)
                step = _PYTHON_STEPS.get(number)
                if step is not None:
                    step(conn)
            except Exception as exc:
                raise StoreError(f"{label}: migration {name} failed: {exc}") from exc
            conn.execute(f"PRAGMA user_version = {number}")
        if kind != "corpus":
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                         (MARK_KEY, json.dumps(MARK, sort_keys=True)))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return latest


def migration_0007_content_hash(source: str, author: str, title: str, text: str, published_at: str) -> str:
    """The content key as migration 0007 writes it, frozen here.

    A copy of ``corpuskit.ingest.records.content_hash`` as it was when 0007 was
    written: a later change to the importer's key must not change what this
    migration writes into an old file (a test checks the two still agree).
    """
    key = "\x1f".join((source, author or "", title or "", text or "", published_at))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _rehash_content(conn) -> None:
    """0007: the content key now includes the author and the publication time."""
    conn.create_function("corpuskit_content_hash", 5, migration_0007_content_hash, deterministic=True)
    conn.execute("UPDATE records SET content_hash = "
                 "corpuskit_content_hash(source, author, title, content_text, published_at)")


def _index_records(conn) -> None:
    """0009: the full-text index of every record already stored."""
    from corpuskit.store.fulltext import sync

    sync(conn)


_KIND_CHECK = re.compile(r"\s+CHECK\s*\(\s*kind\s+IN\s*\([^)]*\)\s*\)", re.IGNORECASE)


def _free_signal_kinds(conn) -> None:
    """0015: ``signals.kind`` loses its CHECK of the shipped kinds (see the migration's comment).

    The table's SQL in ``sqlite_master`` is edited under ``writable_schema`` and the schema
    cookie bumped, as SQLite documents for removing a CHECK constraint; a defensive build refuses
    the edit and the file keeps the constraint.
    """
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'signals'").fetchone()
    if row is None or not _KIND_CHECK.search(row[0]):
        return
    cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'signals'",
                     (_KIND_CHECK.sub("", row[0], count=1),))
        conn.execute(f"PRAGMA schema_version = {cookie + 1}")
    except Exception as exc:            # sqlite3's or sqlean's error class, by the connection's driver
        if "may not be modified" not in str(exc):
            raise
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


def _index_cjk_pairs(conn) -> None:
    """0016: the records holding Chinese or Japanese text indexed again, their runs as character pairs."""
    from corpuskit.store.fulltext import TABLE, sync
    from corpuskit.text.unicode import CJK_RUN

    ids = [(rid,) for rid, title, text in conn.execute("SELECT id, title, content_text FROM records")
           if CJK_RUN.search(f"{title or ''} {text or ''}")]
    conn.executemany(f"DELETE FROM {TABLE} WHERE rowid = ?", ids)
    sync(conn)


_PYTHON_STEPS = {7: _rehash_content, 9: _index_records, 15: _free_signal_kinds, 16: _index_cjk_pairs}


def _split(sql: str) -> list[str]:
    """Split a migration file into statements.

    Our migrations keep ``--`` and ``;`` out of string literals, so comments
    can be dropped and statements split on semicolons; a piece that is not yet a
    complete statement (a trigger's ``BEGIN ... END`` body) takes the next one.
    """
    lines = [re.sub(r"--.*$", "", line) for line in sql.splitlines()]
    statements, pending = [], ""
    for piece in "\n".join(lines).split(";"):
        pending = f"{pending};{piece}" if pending else piece
        if sqlite3.complete_statement(pending + ";"):
            if pending.strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements
