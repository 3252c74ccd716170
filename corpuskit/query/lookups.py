"""Looking things up by name: one function and one error per kind."""
from __future__ import annotations

import json

import re

from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.query.name_keys import alias_key, entity_slug, normalise_story_slug


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
    return _named_row(conn, "topics", name, lambda: TopicNotFound(name, topic_names(conn)))


def _named_row(conn, table: str, name, missing):
    """The row of ``table`` (a fixed table name, never input) called ``name``; raises ``missing()`` when none is."""
    row = conn.execute(f"SELECT * FROM {table} WHERE name = ?", (str(name),)).fetchone()
    if row is None:
        raise missing()
    return row


def topic_rows(conn, active: bool | None = None) -> list:
    """``topics`` rows whose ``active`` flag equals ``active`` (every topic when None), by name."""
    sql, args = "SELECT * FROM topics", []
    if active is not None:
        sql += " WHERE active = ?"
        args.append(1 if active else 0)
    return conn.execute(sql + " ORDER BY name", args).fetchall()


class EntityNotFound(NotFoundError):
    """No entity has the key, name or id asked for."""

    def __init__(self, key):
        super().__init__(f"Entity not found: {key!r}")
        self.key = key


class StoryNotFound(NotFoundError):
    """No story has the slug or id asked for (the keyed interface calls stories narratives)."""

    def __init__(self, key):
        super().__init__(f"Narrative not found: no story has slug or id {key!r}")
        self.key = key


class SignalNotFound(NotFoundError):
    """No signal has the id asked for."""

    def __init__(self, signal_id):
        super().__init__(f"Signal not found: signal {signal_id!r}")
        self.signal_id = signal_id


_TRAILING_ID = re.compile(r"^(.*?)-(\d+)$")


def _entity_with_id(conn, text: str):
    try:
        entity_id = int(text)
    except (OverflowError, ValueError):   # non-ASCII digits such as '²'
        return None
    if not -2**63 <= entity_id < 2**63:   # past SQLite's integer range: names no entity
        return None
    return conn.execute("SELECT id FROM entities WHERE id = ?", (entity_id,)).fetchone()


def resolve_entity_key(conn, key: str) -> tuple[int, bool]:
    """Resolve an entity key to ``(entity_id, is_canonical)``.

    Accepted, in this order: the canonical slug (``openai``: canonical); a
    legacy numeric id (``42``); a slug with a trailing id (``openai-42``, the
    id wins even when the slug part is stale); any alias spelling
    (``OpenAI``, ``@openai``). Only the first is canonical: the HTTP layer
    answers the others with a 301 to the canonical slug's path.
    Raises :class:`EntityNotFound` when nothing matches.
    """
    text = (key or "").strip()
    if not text:
        raise EntityNotFound(key)
    row = conn.execute("SELECT id FROM entities WHERE slug = ?", (text,)).fetchone()
    if row:
        merged = merged_into(conn, row[0])
        return (merged, False) if merged is not None else (int(row[0]), True)
    match = _TRAILING_ID.match(text)
    row = ((_entity_with_id(conn, text) if text.isdigit() else None)
           or (_entity_with_id(conn, match.group(2)) if match else None)
           or conn.execute("SELECT id FROM entities WHERE slug = ?", (entity_slug(text),)).fetchone()
           or conn.execute("SELECT entity_id FROM entity_aliases WHERE alias_key = ?",
                           (alias_key(text),)).fetchone())
    if row:
        merged = merged_into(conn, row[0])
        return (int(row[0]) if merged is None else merged), False
    raise EntityNotFound(key)


def merged_into(conn, entity_id):
    """The entity an extracted entity was merged into by resolution (the most mentioned when a
    hashtag names several), or None when it stands as itself or names no thing."""
    row = conn.execute("SELECT g.entity_id FROM entity_merges g JOIN entities e ON e.id = g.entity_id "
                       "WHERE g.origin_id = ? ORDER BY e.mention_count DESC, e.id LIMIT 1",
                       (entity_id,)).fetchone()
    return int(row[0]) if row else None


def entity_id(conn, key) -> int:
    """The id of an entity given its exact name (the most mentioned one when names are shared),
    or any key :func:`resolve_entity_key` accepts; :class:`EntityNotFound` when none matches."""
    row = conn.execute("SELECT id FROM entities WHERE name = ? ORDER BY mention_count DESC, id LIMIT 1",
                       (str(key),)).fetchone()
    if row:
        return merged_into(conn, row[0]) or row[0]
    return resolve_entity_key(conn, str(key))[0]


def record_hashtags(conn, record_id) -> list[str]:
    """The hashtags a record carries, as first written in it (without ``#``), sorted by tag."""
    rows = conn.execute("SELECT written FROM record_hashtags WHERE record_id = ? ORDER BY tag",
                        (int(record_id),)).fetchall()
    return [r[0] for r in rows]


def entity_hashtags(conn, entity_ids, limit: int = 20) -> list[tuple[str, str, int]]:
    """``(tag, written, records)`` of the hashtags that resolve to any of ``entity_ids``
    (``hashtags.entities`` holds their slugs), most records first, at most ``limit``."""
    ids = [int(i) for i in entity_ids]
    if not ids:
        return []
    rows = conn.execute(
        "SELECT DISTINCT h.tag, h.written, h.records FROM hashtags h, json_each(h.entities) j "
        "JOIN entities e ON e.slug = j.value WHERE e.id IN (SELECT value FROM json_each(?)) "
        "ORDER BY h.records DESC, h.tag LIMIT ?", (json.dumps(ids), int(limit))).fetchall()
    return [(r[0], r[1], int(r[2])) for r in rows]


def entity_row(conn, entity_id):
    """The ``entities`` row with id ``entity_id``; :class:`EntityNotFound` when there is none."""
    row = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
    if row is None:
        raise EntityNotFound(entity_id)
    return row


def entities_named(conn, name: str) -> list:
    """``(id, name, type, first_seen, last_seen)`` of every entity whose canonical name or one of
    whose alias surface forms is exactly ``name``, by id; :class:`EntityNotFound` when none is."""
    rows = conn.execute(
        "SELECT id, name, type, first_seen, last_seen FROM entities WHERE name = ? OR id IN "
        "(SELECT entity_id FROM entity_aliases WHERE surface = ?) ORDER BY id",
        (name, name)).fetchall()
    if not rows:
        raise EntityNotFound(name)
    return rows


def resolve_story_slug(conn, slug: str) -> tuple[int, str, bool]:
    """Resolve any slug ever used to ``(current story id, canonical slug, is_canonical)``.

    ``is_canonical`` is True only when ``slug`` is exactly the current
    version's slug; otherwise the caller should redirect (301) to the
    canonical slug. Raises :class:`StoryNotFound` when no story ever had it.
    """
    if not isinstance(slug, str) or not slug.strip():
        raise StoryNotFound(slug)
    row = conn.execute("SELECT story_key FROM story_slugs WHERE slug = ?", (slug,)).fetchone()
    if row is None:
        row = conn.execute("SELECT story_key FROM story_slugs WHERE slug = ?",
                           (normalise_story_slug(slug),)).fetchone()
    if row is None:
        raise StoryNotFound(slug)
    current = conn.execute(
        "SELECT id, slug FROM stories WHERE story_key = ? AND is_current = 1", (row[0],)
    ).fetchone()
    if current is None:
        raise StoryNotFound(slug)
    return current[0], current[1], current[1] == slug


def story_version_by_slug(conn, slug: str) -> int:
    """The id of the story version whose own slug is ``slug``, else of the current version of the
    story any other spelling names (:func:`resolve_story_slug`); :class:`StoryNotFound` when none."""
    row = conn.execute("SELECT id FROM stories WHERE slug = ?", (slug,)).fetchone()
    return row[0] if row else resolve_story_slug(conn, slug)[0]


def parse_story_id(value) -> int:
    """``value`` as a story id; :class:`StoryNotFound` when it is not an integer."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise StoryNotFound(value) from None


def signal_row(conn, signal_id):
    """The ``signals`` row with id ``signal_id``; :class:`SignalNotFound` when there is none."""
    row = conn.execute("SELECT * FROM signals WHERE id = ?", (signal_id,)).fetchone()
    if row is None:
        raise SignalNotFound(signal_id)
    return row


class SampleNotFound(NotFoundError, ValidationError):
    """No sample has the name asked for (names the samples there are)."""

    def __init__(self, name, known: list[str]):
        listed = ", ".join(known) if known else "none (draw one with corpus.sample(..., name=...))"
        super().__init__(f"Sample not found: {name!r}; samples are: {listed}")
        self.name = name


def sample_names(conn) -> list[str]:
    """Every sample's name, sorted."""
    return [r[0] for r in conn.execute("SELECT name FROM samples ORDER BY name")]


def sample_row(conn, name):
    """The ``samples`` row called ``name``; :class:`SampleNotFound` when there is none."""
    return _named_row(conn, "samples", name, lambda: SampleNotFound(name, sample_names(conn)))


def source_in_corpus(conn, name) -> bool:
    """Whether any record has source ``name`` (one index probe; any string is safe to ask about)."""
    if not isinstance(name, str) or not name:
        return False
    return conn.execute("SELECT 1 FROM records WHERE source = ? LIMIT 1", (name,)).fetchone() is not None
