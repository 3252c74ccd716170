"""``/v1`` handlers for records and stories; each takes the corpus, then its path parameters.

Routed by :data:`corpuskit.api.bearer.routes.ROUTES`.
"""
from __future__ import annotations

from corpuskit.api import params
from corpuskit.api.bearer import queries, shapes
from corpuskit.api.bearer.request import SENTIMENTS, cursor, filter_id, limit, need, paged, redirect
from corpuskit.api.errors import abort_json
from corpuskit.api.ids import encode_id
from corpuskit.api.paging import decode_cursor
from corpuskit.api.response_cache import cached_page
from corpuskit.ingest.records import SOURCE_KINDS
from corpuskit.narrate import read as narrate_read
from corpuskit.query import (EntityNotFound, StoryNotFound, entity_row, record_hashtags, resolve_story_slug,
                             source_in_corpus)


# -- records --------------------------------------------------------------------
def records(corpus):
    source = params.source_param("source", SOURCE_KINDS, lambda s: source_in_corpus(corpus.conn, s))
    sentiment = params.enum_param("sentiment", SENTIMENTS)
    since, until = params.time_range()
    q = params.query_param("q")
    size = limit()
    filters = {"source": source, "sentiment": sentiment, "from": since, "to": until}
    if q is not None:   # a cursor is signed over its query too (and stays as it was without one)
        filters["q"] = q.text
    token = cursor()
    decode_cursor(corpus, "records", filters, token, 2)  # a bad cursor is 400, cached page or not
    # records and their enrichment change only with imports and stage runs: the data version
    key = ("v1/records", source, sentiment, since, until, token, size, q and q.text)
    return cached_page(corpus.conn, key, lambda: paged(
        corpus, "records", filters, 2,
        lambda after: queries.record_page(corpus.conn, source, sentiment, since, until, after, size, q),
        lambda r: [r["published_at"], r["id"]], lambda r: shapes.record_item(corpus, r), size))


def record(corpus, rid):
    row = queries.record_row(corpus.conn, need(corpus, "rec", rid, "record"))
    if row is None:
        abort_json(404, "record not found")
    return shapes.record_detail(corpus, row, record_hashtags(corpus.conn, row["id"]))


def _existing_record(corpus, rid):
    record_id = need(corpus, "rec", rid, "record")
    if not queries.record_exists(corpus.conn, record_id):
        abort_json(404, "record not found")
    return record_id


def record_embedding(corpus, rid):
    record_id = _existing_record(corpus, rid)
    found = queries.record_embedding(corpus.conn, record_id)
    if found is None:
        abort_json(404, "record has no embedding (run the enrichment stage)")
    return shapes.embedding(corpus, record_id, *found)


def record_entities(corpus, rid):
    record_id = _existing_record(corpus, rid)
    size = limit()
    return paged(corpus, "record-entities", {"record": record_id}, 2,
                 lambda after: queries.mention_page(corpus.conn, record_id, after, size),
                 lambda r: [r["mention_count"], r["entity_id"]],
                 lambda r: shapes.mention_item(corpus, r), size)


def record_topics(corpus, rid):
    record_id = _existing_record(corpus, rid)
    return {"items": [shapes.topic_assignment(corpus, r) for r in queries.record_topics(corpus.conn, record_id)]}


# -- stories --------------------------------------------------------------------
def _story_filters(corpus):
    topic_id, _ = filter_id(corpus, "topicId", "top")
    entity_id, _ = filter_id(corpus, "entityId", "ent")
    since, until = params.time_range()
    return topic_id, entity_id, since, until


def _story_list(corpus, scope, topic_id=None, entity_id=None, since=None, until=None):
    size = limit()
    filters = {"topic": topic_id, "entity": entity_id, "from": since, "to": until}
    return paged(corpus, scope, filters, 2,
                 lambda after: queries.story_page(corpus.conn, topic_id, entity_id, since, until, after, size),
                 lambda r: [r["publish_at"], r["id"]], lambda r: shapes.story_list_item(corpus, r), size)


def lead_story(corpus):
    try:
        return shapes.story(corpus, narrate_read.lead_story(corpus))
    except StoryNotFound:
        abort_json(404, "No lead story available")


def story_count(corpus):
    topic_id, entity_id, since, until = _story_filters(corpus)
    return {"count": queries.story_count(corpus.conn, topic_id, entity_id, since, until)}


def story_by_slug(corpus, slug):
    if len(slug) > 300:
        abort_json(404, "story not found")
    try:
        _, canonical, is_canonical = resolve_story_slug(corpus.conn, slug)
    except StoryNotFound:
        abort_json(404, "story not found")
    if not is_canonical:
        redirect(shapes.story_slug_path(canonical))
    return shapes.story(corpus, narrate_read.story_by_slug(corpus, canonical))


def stories_by_topic(corpus, tid):
    topic_id = need(corpus, "top", tid, "topic")
    if not queries.topic_exists(corpus.conn, topic_id):
        abort_json(404, "topic not found")
    return _story_list(corpus, "stories-by-topic", topic_id=topic_id)


def stories_by_entity(corpus, eid):
    entity_id = need(corpus, "ent", eid, "entity")
    try:
        entity_row(corpus.conn, entity_id)
    except EntityNotFound:
        abort_json(404, "entity not found")
    return _story_list(corpus, "stories-by-entity", entity_id=entity_id)


def stories(corpus):
    topic_id, entity_id, since, until = _story_filters(corpus)
    return _story_list(corpus, "stories", topic_id, entity_id, since, until)


def _story_call(corpus, sid, function):
    story_id = need(corpus, "sto", sid, "story")
    try:
        return getattr(narrate_read, function)(corpus, story_id)
    except StoryNotFound:
        abort_json(404, "story not found")


def story(corpus, sid):
    return shapes.story(corpus, _story_call(corpus, sid, "story_detail"))


def story_versions(corpus, sid):
    data = _story_call(corpus, sid, "story_versions")
    return {"storyId": encode_id(corpus, "sto", data["storyId"]),
            "versions": [dict(v, id=encode_id(corpus, "sto", v["id"])) for v in data["versions"]]}


def story_sources(corpus, sid):
    data = _story_call(corpus, sid, "story_sources")
    return {"storyId": encode_id(corpus, "sto", data["storyId"]),
            "sources": [dict(s, recordId=encode_id(corpus, "rec", s["recordId"]),
                             sentimentScore=shapes.score(s["sentimentScore"]),
                             confidence=shapes.score(s["confidence"]),
                             credibilityScore=shapes.score(s["credibilityScore"]))
                        for s in data["sources"]],
            "externalCitations": data["externalCitations"]}
