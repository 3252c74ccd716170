"""Numbered schema migrations, tracked with ``PRAGMA user_version``.

Migrations are the ``NNNN_name.sql`` files in ``store/migrations``; each runs
once, inside a transaction, in number order. A file whose ``user_version`` is
above the newest migration was written by a newer corpuskit and is refused.
"""
from __future__ import annotations

import re
from importlib import resources

from corpuskit.errors import SchemaVersionError, StoreError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """All migrations as ``(number, file name, sql)``, in order."""
    found = []
    for entry in resources.files("corpuskit.store").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise StoreError(f"migrations are not numbered 1..n: {numbers}")
    return found


def latest_version() -> int:
    """The schema version this corpuskit writes."""
    return len(migrations())


def migrate(conn, label: str = "corpus") -> int:
    """Bring ``conn`` up to the latest schema; return the version it is at.

    Raises :class:`SchemaVersionError` when the file is newer than this code.
    """
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    latest = latest_version()
    if current > latest:
        raise SchemaVersionError(
            f"{label} has schema version {current}, newer than this corpuskit supports "
            f"({latest}); upgrade corpuskit to open it"
        )
    for number, name, sql in migrations():
        if number <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        except Exception as exc:
            conn.execute("ROLLBACK")
            raise StoreError(f"{label}: migration {name} failed: {exc}") from exc
        conn.execute("COMMIT")
    return latest


def _split(sql: str) -> list[str]:
    """Split a migration file into statements.

    Our migrations keep ``--`` and ``;`` out of string literals, so comments
    can be dropped and statements split on semicolons.
    """
    lines = [re.sub(r"--.*$", "", line) for line in sql.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
