"""``/v1`` handlers for signals, topics and entities; each takes the corpus, then its path parameters.

Routed by :data:`corpuskit.api.bearer.routes.ROUTES`.
"""
from __future__ import annotations

from corpuskit.analysis import entity_stats
from corpuskit.api import params
from corpuskit.api.bearer import queries, shapes
from corpuskit.api.bearer.request import FEED_DEFAULT, FEED_MAX, SLUGS_DEFAULT, SLUGS_MAX, STATUSES, cursor, \
    limit, need, paged, redirect
from corpuskit.api.errors import abort_json
from corpuskit.api.ids import encode_id
from corpuskit.api.paging import decode_cursor, page_envelope
from corpuskit.clock import iso
from corpuskit.query import (ENTITY_TYPES, SEVERITIES, EntityNotFound, SignalNotFound, entity_hashtags, entity_row,
                             resolve_entity_key, signal_row)


# -- signals --------------------------------------------------------------------
def signals(corpus):
    kind = params.enum_param("kind", tuple(queries.V1_SIGNAL_KINDS))
    severity = params.enum_param("severity", SEVERITIES)
    status = params.enum_param("status", STATUSES)
    size = limit()
    filters = {"kind": kind, "severity": severity, "status": status}
    return paged(corpus, "signals", filters, 2,
                 lambda after: queries.signal_page(corpus.conn, kind, severity, status, after, size),
                 lambda r: [r["detected_at"], r["id"]], lambda r: shapes.signal_item(corpus, r), size)


def signal_feed(corpus):
    size = limit(FEED_DEFAULT, FEED_MAX)
    rows = queries.signal_feed(corpus.conn, size)
    return {"items": [shapes.signal_feed_item(corpus, r) for r in rows], "generatedAt": iso(corpus.now())}


def _signal_or_404(corpus, sid):
    try:
        row = signal_row(corpus.conn, need(corpus, "sig", sid, "signal"))
    except SignalNotFound:
        abort_json(404, "signal not found")
    if row["kind"] not in queries.STORED_TO_V1_KIND:   # a kind /v1 does not serve
        abort_json(404, "signal not found")
    return row


def signal(corpus, sid):
    return shapes.signal_detail(corpus, _signal_or_404(corpus, sid))


def signal_evidence(corpus, sid):
    row = _signal_or_404(corpus, sid)
    found = queries.signal_evidence(corpus.conn, row["id"])
    return {
        "signalId": encode_id(corpus, "sig", row["id"]),
        "records": [{"id": encode_id(corpus, "rec", r[0]), "source": r[1], "sentimentScore": shapes.score(r[2])}
                    for r in found["records"]],
        "entities": [{"id": encode_id(corpus, "ent", r[0]), "name": r[1], "type": r[2]}
                     for r in found["entities"]],
        "topics": [{"id": encode_id(corpus, "top", r[0]), "label": r[1]} for r in found["topics"]],
        "stories": [{"id": encode_id(corpus, "sto", r[0]), "headline": r[1]} for r in found["stories"]],
    }


# -- topics ---------------------------------------------------------------------
def topics(corpus):
    size = limit()
    return paged(corpus, "topics", {}, 1, lambda after: queries.topic_page(corpus.conn, after, size),
                 lambda r: [r["id"]], lambda r: shapes.topic_item(corpus, r), size)


def topic(corpus, tid):
    row = queries.topic_row(corpus.conn, need(corpus, "top", tid, "topic"))
    if row is None:
        abort_json(404, "topic not found")
    item = shapes.topic_item(corpus, row)
    keywords = queries.json_field(row["keywords"], [])
    item["keywords"] = [str(k) for k in keywords] if isinstance(keywords, list) else []
    item["storyCount"] = queries.topic_story_count(corpus.conn, row["id"])
    item["sampleRecords"] = [shapes.record_item(corpus, r)
                             for r in queries.topic_sample_records(corpus.conn, row["id"])]
    return item


# -- entities -------------------------------------------------------------------
def _entity_list_extras(corpus, ids):
    found = entity_stats.entity_list_rows(corpus, ids)
    if isinstance(found, dict):
        return {int(k): v for k, v in found.items()}
    return {int(row["id"]): row for row in found}


def _entity_detail(corpus, entity_id):
    try:
        row = entity_row(corpus.conn, entity_id)
        detail = entity_stats.entity_detail(corpus, entity_id)
    except EntityNotFound:
        abort_json(404, "entity not found")
    base = shapes.entity_base(corpus, row)   # its canonicalPath follows the slug, as on the wire
    extra = {"hashtags": shapes.hashtag_items(entity_hashtags(corpus.conn, [entity_id]))}  # extension
    return {**base, **{k: v for k, v in detail.items() if k not in base}, **extra}


def entities(corpus):
    kind = params.enum_param("type", ENTITY_TYPES)
    size = limit()
    after = decode_cursor(corpus, "entities", {"type": kind}, cursor(), 2)
    rows, total = queries.entity_page(corpus.conn, kind, after, size)
    extras = _entity_list_extras(corpus, [r["id"] for r in rows[:size]])

    def shape(r):
        extra = extras.get(r["id"], {})
        item = shapes.entity_base(corpus, r)
        item["lede"] = extra.get("lede")
        item["mentionCount"] = extra.get("mentionCount", r["mention_count"])
        item["recentMentions"] = extra.get("recentMentions")
        item["growthFactor"] = extra.get("growthFactor")
        return item

    return page_envelope(corpus, "entities", {"type": kind}, rows, size, total,
                         lambda r: [r["mention_count"], r["id"]], shape)


def entity_sitemap(corpus):
    pages, total = queries.entity_sitemap_pages(corpus.conn)
    return {"pages": [{"page": p, "count": n, "maxUpdatedAt": newest} for p, n, newest in pages],
            "total": total}


def entity_slugs(corpus):
    size = limit(SLUGS_DEFAULT, SLUGS_MAX)
    after = decode_cursor(corpus, "entity-slugs", {}, cursor(), 1)
    rows = queries.entity_slug_page(corpus.conn, after, size)
    return page_envelope(corpus, "entity-slugs", {}, rows, size, None, lambda r: [r["slug"]],
                         lambda r: {"id": encode_id(corpus, "ent", r["id"]), "slug": r["slug"],
                                    "canonicalPath": shapes.entity_path(r["slug"])})


def entity_by_slug(corpus, key):
    if len(key) > 300:
        abort_json(404, "entity not found")
    try:
        entity_id, is_canonical = resolve_entity_key(corpus.conn, key)
    except EntityNotFound:
        abort_json(404, "entity not found")
    if not is_canonical:
        row = entity_row(corpus.conn, entity_id)
        redirect(shapes.entity_path(row["slug"]))
    return _entity_detail(corpus, entity_id)


def entity(corpus, eid):
    return _entity_detail(corpus, need(corpus, "ent", eid, "entity"))
