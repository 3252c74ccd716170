"""Read functions for the HTTP layer: stories (``/v1``), narratives (``/api/v1``) and arcs.

Every function returns plain dicts in the exact shapes of the specs, with the
integer row ids inside (the ``/v1`` layer turns them into opaque ids), and
raises :class:`corpuskit.query.StoryNotFound` for a missing story and
:class:`corpuskit.errors.NotFoundError` for a missing arc.
Paging is the HTTP layer's job: list functions take ``limit``/``offset`` and
return everything the layer needs to build its envelope.

Only current versions are listed; old versions stay readable by id
(:func:`story_detail`) and by slug (:func:`narrative_detail`, and
:func:`corpuskit.query.resolve_story_slug` for 301s).
"""
from __future__ import annotations

import json

from corpuskit.errors import NotFoundError
from corpuskit.query import Page, StoryNotFound, parse_story_id, resolve_story_slug, story_version_by_slug
from corpuskit.query.stories import story_where

_STORY_SQL = (
    "SELECT s.*, t.name AS topic_name, t.display_name AS topic_display, e.name AS entity_name, "
    "sig.kind AS trigger_kind, sig.severity AS trigger_severity, "
    "(SELECT c.slug FROM stories c WHERE c.story_key = s.story_key AND c.is_current = 1) "
    "AS canonical_slug "
    "FROM stories s LEFT JOIN topics t ON t.id = s.topic_id "
    "LEFT JOIN entities e ON e.id = s.entity_id "
    "LEFT JOIN signals sig ON sig.id = s.trigger_signal_id"
)


def _story_row(corpus, key):
    row = corpus.conn.execute(_STORY_SQL + " WHERE s.id = ?", (parse_story_id(key),)).fetchone()
    if row is None:
        raise StoryNotFound(key)
    return row


def _version_chain(corpus, story_key: str) -> list[int]:
    rows = corpus.conn.execute(
        "SELECT id FROM stories WHERE story_key = ? ORDER BY is_current DESC, version DESC",
        (story_key,),
    ).fetchall()
    return [r[0] for r in rows]


# -- /v1 stories ------------------------------------------------------------
def lead_story(corpus) -> dict:
    """The current lead story (``GET /v1/stories/lead``).

    ``stub`` is true when the lead is thin: fewer than three citations or a
    body under 80 words (a short story written from little evidence).
    """
    row = corpus.conn.execute(
        _STORY_SQL + " WHERE s.kind = 'lead_story' AND s.is_current = 1 AND s.story_key NOT LIKE 'period:%' "
        "ORDER BY s.id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        raise StoryNotFound("lead")
    n_citations = corpus.conn.execute(
        "SELECT count(*) FROM story_citations WHERE story_id = ?", (row["id"],)
    ).fetchone()[0]
    return {
        "id": row["id"],
        "slug": row["canonical_slug"],
        "headline": row["headline"],
        "lede": row["lede"],
        "publishAt": row["publish_at"],
        "readMin": row["read_min"],
        "beat": row["topic_name"],
        "signalCount": row["signal_count"],
        "sourceCount": row["source_count"],
        "stub": bool(n_citations < 3 or len(row["body"].split()) < 80),
    }


def _citations(corpus, story_id: int) -> list[dict]:
    rows = corpus.conn.execute(
        "SELECT record_id, confidence, inferred FROM story_citations WHERE story_id = ? "
        "ORDER BY ordinal", (story_id,),
    ).fetchall()
    return [{"recordId": r[0], "confidence": r[1], "inferred": bool(r[2])} for r in rows]


def story_detail(corpus, story_id) -> dict:
    """One story version by id (``GET /v1/stories/{id}``); ``slug`` is the canonical slug."""
    return _story_json(corpus, _story_row(corpus, story_id), full=True)


def story_by_slug(corpus, slug: str) -> dict:
    """The current version for any slug ever used (``GET /v1/stories/by-slug/{slug}``).

    The HTTP layer calls :func:`resolve_story_slug` first and answers 301 when
    the slug is not canonical; this function itself always answers the
    current version.
    """
    row = _story_row(corpus, resolve_story_slug(corpus.conn, slug)[0])
    return _story_json(corpus, row, full=False)


def _story_json(corpus, row, full: bool) -> dict:
    """A story row as /v1 shapes it; ``full`` adds its reading time and citations."""
    out = {"id": row["id"], "slug": row["canonical_slug"], "headline": row["headline"],
           "lede": row["lede"], "body": row["body"], "publishAt": row["publish_at"]}
    if full:
        out["readMin"] = row["read_min"]
    out["beat"] = row["topic_name"]
    if full:
        out["citations"] = _citations(corpus, row["id"])
    out["versionChain"] = _version_chain(corpus, row["story_key"])
    return out


def story_versions(corpus, story_id) -> dict:
    """``{storyId, versions: [{id, generatedAt, isCurrent}]}``, newest first."""
    row = _story_row(corpus, story_id)
    rows = corpus.conn.execute(
        "SELECT id, generated_at, is_current FROM stories WHERE story_key = ? ORDER BY version DESC",
        (row["story_key"],),
    ).fetchall()
    return {"storyId": row["id"],
            "versions": [{"id": r[0], "generatedAt": r[1], "isCurrent": bool(r[2])} for r in rows]}


def story_sources(corpus, story_id) -> dict:
    """The cited records with their credibility, and the links found in them.

    ``credibilityScore`` is computed at narrate time by
    :func:`corpuskit.narrate.credibility.credibility_scores` (a documented blend
    of source-kind prior, author activity and engagement, in [0, 1]).
    """
    row = _story_row(corpus, story_id)
    rows = corpus.conn.execute(
        "SELECT c.record_id, r.source, r.title, r.url, e.sentiment_score, c.inferred, "
        "c.confidence, c.credibility FROM story_citations c JOIN records r ON r.id = c.record_id "
        "LEFT JOIN enrichment e ON e.record_id = c.record_id WHERE c.story_id = ? ORDER BY c.ordinal",
        (row["id"],),
    ).fetchall()
    sources = [{"recordId": r[0], "kind": r[1], "title": r[2], "url": r[3], "sentimentScore": r[4],
                "inferred": bool(r[5]), "confidence": r[6], "credibilityScore": r[7]} for r in rows]
    return {"storyId": row["id"], "sources": sources,
            "externalCitations": json.loads(row["external_citations"])}


def _story_filters(topic_id=None, entity_id=None, since=None, until=None, kind=None,
                   topic=None, featured=None, time_column="publish_at"):
    where = story_where(topic_id, entity_id, since, until, kind=kind, topic=topic, featured=featured,
                        time_column=time_column)
    return where.sql(), where.args


def list_stories(corpus, topic_id=None, entity_id=None, since=None, until=None,
                 limit: int | None = None, offset: int = 0) -> Page:
    """A :class:`~corpuskit.query.Page` of current stories, newest ``publishAt`` first (ties:
    higher id first); every story from ``offset`` when ``limit`` is None.

    ``since``/``until`` are stored-timestamp strings bounding ``publishAt``
    inclusively. Each row is ``{id, slug, kind, headline, lede, publishAt, beat,
    signalSeverity, featured, readMin}``.
    """
    where, args = _story_filters(topic_id, entity_id, since, until)
    total = corpus.conn.execute(
        "SELECT count(*) FROM stories s LEFT JOIN topics t ON t.id = s.topic_id" + where, args
    ).fetchone()[0]
    sql = _STORY_SQL + where + " ORDER BY s.publish_at DESC, s.id DESC"
    page_args = list(args)
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        page_args += [int(limit), int(offset)]
    rows = corpus.conn.execute(sql, page_args).fetchall()
    items = [{"id": r["id"], "slug": r["slug"], "kind": r["kind"], "headline": r["headline"],
              "lede": r["lede"], "publishAt": r["publish_at"], "beat": r["topic_name"],
              "signalSeverity": r["signal_severity"], "featured": bool(r["featured"]),
              "readMin": r["read_min"]} for r in rows]
    return Page(items, total, total if limit is None else int(limit), int(offset))


def story_count(corpus, topic_id=None, entity_id=None, since=None, until=None) -> dict:
    """``{count}`` of current stories under the same filters as :func:`list_stories`."""
    where, args = _story_filters(topic_id, entity_id, since, until)
    count = corpus.conn.execute(
        "SELECT count(*) FROM stories s LEFT JOIN topics t ON t.id = s.topic_id" + where, args
    ).fetchone()[0]
    return {"count": count}


# -- /api/v1 narratives -------------------------------------------------------
def _narrative_item(row) -> dict:
    return {
        "slug": row["slug"],
        "type": row["kind"],
        "headline": row["headline"],
        "content": row["body"],
        "topic": row["topic_name"],
        "topicDisplayName": row["topic_display"],
        "category": row["category"],
        "signalSeverity": row["signal_severity"],
        "featured": bool(row["featured"]),
        "generatedAt": row["generated_at"],
        "version": row["version"],
        "entityName": row["entity_name"] if row["kind"] == "entity_narrative" else None,
    }


def narrative_page(corpus, type: str | None = None, topic: str | None = None,
                   featured: bool | None = None, since=None, until=None,
                   limit: int = 20, offset: int = 0) -> Page:
    """A :class:`~corpuskit.query.Page` of current narratives, ``generatedAt`` descending
    (ties: id descending)."""
    where, args = _story_filters(since=since, until=until, kind=type, topic=topic,
                                 featured=featured, time_column="generated_at")
    total = corpus.conn.execute(
        "SELECT count(*) FROM stories s LEFT JOIN topics t ON t.id = s.topic_id" + where, args
    ).fetchone()[0]
    rows = corpus.conn.execute(
        _STORY_SQL + where + " ORDER BY s.generated_at DESC, s.id DESC LIMIT ? OFFSET ?",
        args + [int(limit), int(offset)],
    ).fetchall()
    return Page([_narrative_item(r) for r in rows], total, int(limit), int(offset))


def narrative_detail(corpus, slug: str) -> dict:
    """The keyed narrative detail for a version's own slug, or the current version for any
    other spelling of a known slug (``GET /api/v1/narratives/:slug``)."""
    conn = corpus.conn
    row = _story_row(corpus, story_version_by_slug(conn, slug))
    item = _narrative_item(row)
    item["triggerSignal"] = (
        {"type": row["trigger_kind"], "severity": row["trigger_severity"]}
        if row["trigger_signal_id"] is not None else None
    )
    item["metadata"] = json.loads(row["metadata"])
    item["sourceDiscourseIds"] = [c["recordId"] for c in _citations(corpus, row["id"])]
    item["references"] = json.loads(row["refs"])
    versions = conn.execute(
        "SELECT slug, version, generated_at FROM stories WHERE story_key = ? ORDER BY version DESC",
        (row["story_key"],),
    ).fetchall()
    item["versions"] = [{"slug": v[0], "version": v[1], "generatedAt": v[2]} for v in versions]
    return item


def _current_story(corpus, columns: str, key: str, key_id: int, kind: str):
    """The newest current, non-period story of ``kind`` whose ``key`` column is ``key_id``: its
    ``columns``, or None."""
    return corpus.conn.execute(
        f"SELECT {columns} FROM stories "
        f"WHERE {key} = ? AND kind = ? AND is_current = 1 AND story_key NOT LIKE 'period:%' "
        "ORDER BY id DESC LIMIT 1",
        (int(key_id), kind),
    ).fetchone()


def topic_current_narrative(corpus, topic_id: int) -> dict | None:
    """A topic's current beat narrative as the keyed topic detail shows it, or None."""
    row = _current_story(corpus, "slug, headline, body, signal_severity, generated_at, version",
                         "topic_id", topic_id, "beat_narrative")
    if row is None:
        return None
    return {"slug": row[0], "headline": row[1], "content": row[2], "signalSeverity": row[3],
            "generatedAt": row[4], "version": row[5]}


def entity_current_narrative(corpus, entity_id: int) -> dict | None:
    """An entity's current entity narrative ``{slug, headline, generatedAt, version}``, or None."""
    row = _current_story(corpus, "slug, headline, generated_at, version", "entity_id", entity_id,
                         "entity_narrative")
    if row is None:
        return None
    return {"slug": row[0], "headline": row[1], "generatedAt": row[2], "version": row[3]}


# -- arcs ---------------------------------------------------------------------
def _arc_item(row) -> dict:
    return {"id": row["id"], "slug": row["slug"], "title": row["title"],
            "arcStatus": row["arc_status"], "storyCount": row["story_count"],
            "lastUpdatedAt": row["last_updated_at"]}


def list_arcs(corpus, limit: int | None = None, offset: int = 0) -> dict:
    """``{items, total}`` of arcs, most recently updated first (ties: id)."""
    total = corpus.conn.execute("SELECT count(*) FROM arcs").fetchone()[0]
    sql = "SELECT * FROM arcs ORDER BY last_updated_at DESC, id"
    args = []
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        args = [int(limit), int(offset)]
    return {"items": [_arc_item(r) for r in corpus.conn.execute(sql, args)], "total": total}


def arc_detail(corpus, slug: str) -> dict:
    """One arc with its stories (current versions), oldest ``publishAt`` first: the timeline."""
    row = corpus.conn.execute("SELECT * FROM arcs WHERE slug = ?", (slug,)).fetchone()
    if row is None:
        raise NotFoundError("Arc not found")
    item = _arc_item(row)
    stories = corpus.conn.execute(
        "SELECT s.id, s.headline, s.publish_at FROM arc_stories a "
        "JOIN stories s ON s.story_key = a.story_key AND s.is_current = 1 "
        "WHERE a.arc_id = ? ORDER BY s.publish_at, s.id", (row["id"],),
    ).fetchall()
    item["stories"] = [{"id": s[0], "headline": s[1], "publishAt": s[2]} for s in stories]
    return item
