"""Looking things up by name: one function and one error per kind."""
from __future__ import annotations

from corpuskit.errors import NotFoundError, ValidationError


class TopicNotFound(NotFoundError, ValidationError):
    """No topic has the name asked for.

    It is both a :class:`NotFoundError` (a lookup missed) and a
    :class:`ValidationError` (a filter named a topic the corpus does not have),
    so callers that catch either keep working.
    """

    def __init__(self, name, known: list[str]):
        listed = ", ".join(known) if known else "none (run enrich first)"
        super().__init__(f"Topic not found: unknown topic {name!r}; topics are: {listed}")
        self.name = name


def topic_names(conn) -> list[str]:
    """Every topic name, sorted."""
    return [r[0] for r in conn.execute("SELECT name FROM topics ORDER BY name")]


def topic_by_name(conn, name):
    """The ``topics`` row called ``name`` (case-sensitive); :class:`TopicNotFound` when none is."""
    row = conn.execute("SELECT * FROM topics WHERE name = ?", (str(name),)).fetchone()
    if row is None:
        raise TopicNotFound(name, topic_names(conn))
    return row


def topic_rows(conn, active: bool | None = None) -> list:
    """``topics`` rows whose ``active`` flag equals ``active`` (every topic when None), by name."""
    sql, args = "SELECT * FROM topics", []
    if active is not None:
        sql += " WHERE active = ?"
        args.append(1 if active else 0)
    return conn.execute(sql + " ORDER BY name", args).fetchall()
