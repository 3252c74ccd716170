"""Entities and hashtags as lists: the public entities by mentions, their slugs and sitemap pages,
and the rankings of entities and hashtags by the records that carry them.

A public entity is one mentioned at least once. Sort orders: entities ``mention_count`` desc then
``id``; the slug drain ``slug`` asc. Lookups of one entity are in :mod:`corpuskit.query.lookups`.
"""
from __future__ import annotations

import json

from corpuskit.query.where import Where

_PUBLIC_ENTITY = "en.mention_count > 0"


def entity_page(conn, type=None, after=None, limit: int = 20):
    """``(rows, total)`` of public entities (every column), most mentioned first."""
    where = Where(_PUBLIC_ENTITY).equal("en.type", type)
    total = conn.execute(f"SELECT count(*) FROM entities en{where.sql()}", where.args).fetchone()[0]
    if after is not None:
        where.add("(en.mention_count < ? OR (en.mention_count = ? AND en.id > ?))", after[0], after[0], after[1])
    rows = conn.execute(f"SELECT en.* FROM entities en{where.sql()} "
                        "ORDER BY en.mention_count DESC, en.id LIMIT ?", where.args + [limit + 1]).fetchall()
    return rows, total


def entity_slug_page(conn, after=None, limit: int = 500):
    """``(id, slug)`` of public entities by slug, a keyset page."""
    where = Where(_PUBLIC_ENTITY)
    if after is not None:
        where.add("en.slug > ?", after[0])
    return conn.execute(f"SELECT en.id, en.slug FROM entities en{where.sql()} ORDER BY en.slug LIMIT ?",
                        where.args + [limit + 1]).fetchall()


def entity_sitemap_pages(conn, page_size: int):
    """``(pages, total)``: the slug-ordered public entities cut into pages of ``page_size``, each
    ``(page number from 1, entities, newest updated_at)``."""
    rows = conn.execute(
        f"SELECT (row_number() OVER (ORDER BY en.slug) - 1) / ? AS page, en.updated_at "
        f"FROM entities en WHERE {_PUBLIC_ENTITY}", (page_size,)).fetchall()
    pages: dict[int, list] = {}
    for page, updated in rows:
        entry = pages.setdefault(page, [0, None])
        entry[0] += 1
        if updated is not None and (entry[1] is None or updated > entry[1]):
            entry[1] = updated
    return [(p + 1, n, newest) for p, (n, newest) in sorted(pages.items())], len(rows)


def _ranked(conn, head: str, where: Where, tail: str, limit) -> list:
    """Rows of ``head`` + ``where`` + ``tail`` (grouping and order), the first ``limit`` when given."""
    args = where.args
    sql = head + where.sql() + tail
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return conn.execute(sql, args).fetchall()


def entity_mention_ranking(conn, type=None, since=None, limit=None) -> list:
    """``(entity id, mentions, records)`` by mentions in records published from ``since`` (a stored
    timestamp), most first (ties: id); ``type`` an entity type."""
    where = Where().equal("en.type", type).bound("r.published_at", "since", since)
    return _ranked(conn, "SELECT en.id, sum(m.mention_count) AS n, count(*) AS k FROM mentions m "
                         "JOIN entities en ON en.id = m.entity_id JOIN records r ON r.id = m.record_id",
                   where, " GROUP BY en.id ORDER BY n DESC, en.id", limit)


def hashtag_ranking(conn, since=None, limit=None) -> list:
    """``(tag, written, records, first published_at, last published_at, entities JSON)`` of hashtags
    in records published from ``since`` (a stored timestamp), most records first (ties: tag)."""
    where = Where().bound("r.published_at", "since", since)
    return _ranked(conn, "SELECT h.tag, t.written, count(*) AS n, min(r.published_at), max(r.published_at), "
                         "t.entities FROM record_hashtags h JOIN hashtags t ON t.tag = h.tag "
                         "JOIN records r ON r.id = h.record_id",
                   where, " GROUP BY h.tag ORDER BY n DESC, h.tag", limit)


def hashtag_day_counts(conn, tags, since=None, until=None) -> list:
    """``(tag, YYYY-MM-DD, records)`` carrying each of ``tags`` per UTC day published within the
    stored-timestamp bounds, by tag then day (days with none left out)."""
    where = (Where().add("h.tag IN (SELECT value FROM json_each(?))", json.dumps(list(tags)))
             .bound("r.published_at", "since", since).bound("r.published_at", "until", until))
    sql = ("SELECT h.tag, substr(r.published_at, 1, 10) AS day, count(*) FROM record_hashtags h "
           "JOIN records r ON r.id = h.record_id" + where.sql() + " GROUP BY h.tag, day ORDER BY h.tag, day")
    return conn.execute(sql, where.args).fetchall()
