"""Every ``/v1`` endpoint of ``bearer-api-v1.md``: thin handlers over the library.

Each handler authenticates (``Authorization: Bearer``), counts the request
against the key's allowance, validates its parameters (``corpuskit.api.params``),
calls one read function and shapes the JSON. Unknown or malformed ids are 404;
see ``docs/api.md`` for every choice the spec leaves open.
"""
from __future__ import annotations

import functools

import bottle

from corpuskit.api import params
from corpuskit.api.auth import authenticate, rate_limit_headers
from corpuskit.api.bearer import queries, shapes
from corpuskit.api.bearer.stream import StreamGate, signal_stream
from corpuskit.api.errors import abort_json, json_response
from corpuskit.api.ids import decode_id, encode_id
from corpuskit.api.paging import decode_cursor, page_envelope
from corpuskit.api.response_cache import cached_page, remembered_answer
from corpuskit.analysis import corpus_stats, entity_stats
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.ingest.collectors import health as source_health_module
from corpuskit.ingest.records import SOURCE_KINDS
from corpuskit.narrate import read as narrate_read
from corpuskit.query import (ENTITY_TYPES, SENTIMENT_LABELS, SEVERITIES, SIGNAL_STATUSES, EntityNotFound,
                             SignalNotFound, StoryNotFound, entity_hashtags, entity_row, record_hashtags,
                             resolve_entity_key, resolve_story_slug, signal_row, source_in_corpus)

LIMIT_DEFAULT, LIMIT_MAX = 20, 100
FEED_DEFAULT, FEED_MAX = 10, 50
SLUGS_DEFAULT, SLUGS_MAX = 500, 5000
DAYS_DEFAULT, DAYS_MAX = 30, 365
SENTIMENT_DAYS_DEFAULT, SENTIMENT_LIVE_DAYS = 7, 30
TRENDING_DEFAULT, TRENDING_MAX = 10, 50
SENTIMENTS = SENTIMENT_LABELS
STATUSES = SIGNAL_STATUSES


def install(app: bottle.Bottle, corpus, heartbeat_seconds: float = 30.0,
            stream_gate: StreamGate | None = None) -> None:
    """Add the ``/v1`` routes for ``corpus`` to ``app``; ``stream_gate`` caps the open signal streams."""
    stream_gate = stream_gate if stream_gate is not None else StreamGate()

    def bearer(path, remember=False):
        """Route ``path`` behind the key check; ``remember``: keep the answer until the data change."""
        def decorate(handler):
            @functools.wraps(handler)
            def wrapper(*args, **kwargs):
                key = authenticate(corpus, bottle.request)
                bottle.request.environ["corpuskit.key_id"] = key.id
                headers = rate_limit_headers(corpus, key, bottle.request)
                for name, value in headers.items():
                    bottle.response.set_header(name, value)
                try:
                    try:
                        if remember:
                            return remembered_answer(corpus, lambda: handler(*args, **kwargs))
                        return handler(*args, **kwargs)
                    except NotFoundError as exc:
                        abort_json(404, str(exc))
                    except ValidationError as exc:
                        abort_json(400, str(exc))
                except bottle.HTTPResponse as answer:
                    for name, value in headers.items():
                        if name not in answer.headers:
                            answer.set_header(name, value)
                    raise

            app.route(path, "GET", wrapper)
            return handler

        return decorate

    def limit(default=LIMIT_DEFAULT, maximum=LIMIT_MAX):
        return params.int_param("limit", default, minimum=1, maximum=maximum)

    def cursor():
        return params.string_param("cursor", max_len=1024)

    def paged(scope, filters, arity, fetch, sort_key, shape, size):
        after = decode_cursor(corpus, scope, filters, cursor(), arity)
        rows, total = fetch(after)
        return page_envelope(corpus, scope, filters, rows, size, total, sort_key, shape)

    def need(kind, text, what):
        value = decode_id(corpus, kind, text)
        if value is None:
            abort_json(404, f"{what} not found")
        return value

    def filter_id(name, kind):
        text = params.string_param(name, max_len=64)
        if text is None:
            return None, None
        value = decode_id(corpus, kind, text)
        if value is None:
            abort_json(400, f"parameter {name!r} is not a valid {kind}_ identifier")
        return value, text

    def redirect(location):
        raise json_response({"location": location}, status=301, headers={"Location": location})

    conn = lambda: corpus.conn  # noqa: E731 - each server thread has its own connection

    # -- records ----------------------------------------------------------------
    @bearer("/v1/records")
    def records():
        source = params.source_param("source", SOURCE_KINDS, lambda s: source_in_corpus(conn(), s))
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
        return cached_page(conn(), key, lambda: paged(
            "records", filters, 2,
            lambda after: queries.record_page(conn(), source, sentiment, since, until, after, size, q),
            lambda r: [r["published_at"], r["id"]], lambda r: shapes.record_item(corpus, r), size))

    @bearer("/v1/records/<rid>")
    def record(rid):
        row = queries.record_row(conn(), need("rec", rid, "record"))
        if row is None:
            abort_json(404, "record not found")
        return shapes.record_detail(corpus, row, record_hashtags(conn(), row["id"]))

    @bearer("/v1/records/<rid>/embedding")
    def record_embedding(rid):
        record_id = need("rec", rid, "record")
        if not queries.record_exists(conn(), record_id):
            abort_json(404, "record not found")
        found = queries.record_embedding(conn(), record_id)
        if found is None:
            abort_json(404, "record has no embedding (run the enrichment stage)")
        return shapes.embedding(corpus, record_id, *found)

    @bearer("/v1/records/<rid>/entities")
    def record_entities(rid):
        record_id = need("rec", rid, "record")
        if not queries.record_exists(conn(), record_id):
            abort_json(404, "record not found")
        size = limit()
        return paged("record-entities", {"record": record_id}, 2,
                     lambda after: queries.mention_page(conn(), record_id, after, size),
                     lambda r: [r["mention_count"], r["entity_id"]],
                     lambda r: shapes.mention_item(corpus, r), size)

    @bearer("/v1/records/<rid>/topics")
    def record_topics(rid):
        record_id = need("rec", rid, "record")
        if not queries.record_exists(conn(), record_id):
            abort_json(404, "record not found")
        return {"items": [shapes.topic_assignment(corpus, r) for r in queries.record_topics(conn(), record_id)]}

    # -- stories ----------------------------------------------------------------
    def story_filters():
        topic_id, topic_text = filter_id("topicId", "top")
        entity_id, entity_text = filter_id("entityId", "ent")
        since, until = params.time_range()
        return topic_id, entity_id, since, until

    def story_list(scope, topic_id=None, entity_id=None, since=None, until=None):
        size = limit()
        filters = {"topic": topic_id, "entity": entity_id, "from": since, "to": until}
        return paged(scope, filters, 2,
                     lambda after: queries.story_page(conn(), topic_id, entity_id, since, until, after, size),
                     lambda r: [r["publish_at"], r["id"]], lambda r: shapes.story_list_item(corpus, r), size)

    @bearer("/v1/stories/lead", remember=True)
    def lead_story():
        try:
            return shapes.story(corpus, narrate_read.lead_story(corpus))
        except StoryNotFound:
            abort_json(404, "No lead story available")

    @bearer("/v1/stories/count", remember=True)
    def story_count():
        topic_id, entity_id, since, until = story_filters()
        return {"count": queries.story_count(conn(), topic_id, entity_id, since, until)}

    @bearer("/v1/stories/by-slug/<slug>")
    def story_by_slug(slug):
        if len(slug) > 300:
            abort_json(404, "story not found")
        try:
            _, canonical, is_canonical = resolve_story_slug(conn(), slug)
        except StoryNotFound:
            abort_json(404, "story not found")
        if not is_canonical:
            redirect(shapes.story_slug_path(canonical))
        return shapes.story(corpus, narrate_read.story_by_slug(corpus, canonical))

    @bearer("/v1/stories/by-topic/<tid>", remember=True)
    def stories_by_topic(tid):
        topic_id = need("top", tid, "topic")
        if not queries.topic_exists(conn(), topic_id):
            abort_json(404, "topic not found")
        return story_list("stories-by-topic", topic_id=topic_id)

    @bearer("/v1/stories/by-entity/<eid>", remember=True)
    def stories_by_entity(eid):
        entity_id = need("ent", eid, "entity")
        try:
            entity_row(conn(), entity_id)
        except EntityNotFound:
            abort_json(404, "entity not found")
        return story_list("stories-by-entity", entity_id=entity_id)

    @bearer("/v1/stories", remember=True)
    def stories():
        topic_id, entity_id, since, until = story_filters()
        return story_list("stories", topic_id, entity_id, since, until)

    def story_call(sid, function):
        story_id = need("sto", sid, "story")
        try:
            return getattr(narrate_read, function)(corpus, story_id)
        except StoryNotFound:
            abort_json(404, "story not found")

    @bearer("/v1/stories/<sid>")
    def story(sid):
        return shapes.story(corpus, story_call(sid, "story_detail"))

    @bearer("/v1/stories/<sid>/versions")
    def story_versions(sid):
        data = story_call(sid, "story_versions")
        return {"storyId": encode_id(corpus, "sto", data["storyId"]),
                "versions": [dict(v, id=encode_id(corpus, "sto", v["id"])) for v in data["versions"]]}

    @bearer("/v1/stories/<sid>/sources")
    def story_sources(sid):
        data = story_call(sid, "story_sources")
        return {"storyId": encode_id(corpus, "sto", data["storyId"]),
                "sources": [dict(s, recordId=encode_id(corpus, "rec", s["recordId"]),
                                 sentimentScore=shapes.score(s["sentimentScore"]),
                                 confidence=shapes.score(s["confidence"]),
                                 credibilityScore=shapes.score(s["credibilityScore"]))
                            for s in data["sources"]],
                "externalCitations": data["externalCitations"]}

    # -- signals ----------------------------------------------------------------
    @bearer("/v1/signals", remember=True)
    def signals():
        kind = params.enum_param("kind", tuple(queries.V1_SIGNAL_KINDS))
        severity = params.enum_param("severity", SEVERITIES)
        status = params.enum_param("status", STATUSES)
        size = limit()
        filters = {"kind": kind, "severity": severity, "status": status}
        return paged("signals", filters, 2,
                     lambda after: queries.signal_page(conn(), kind, severity, status, after, size),
                     lambda r: [r["detected_at"], r["id"]], lambda r: shapes.signal_item(corpus, r), size)

    @bearer("/v1/signals/feed", remember=True)
    def signal_feed():
        size = limit(FEED_DEFAULT, FEED_MAX)
        rows = queries.signal_feed(conn(), size)
        from corpuskit.clock import iso

        return {"items": [shapes.signal_feed_item(corpus, r) for r in rows], "generatedAt": iso(corpus.now())}

    def signal_or_404(sid):
        try:
            row = signal_row(conn(), need("sig", sid, "signal"))
        except SignalNotFound:
            abort_json(404, "signal not found")
        if row["kind"] not in queries.STORED_TO_V1_KIND:   # a kind /v1 does not serve
            abort_json(404, "signal not found")
        return row

    @bearer("/v1/signals/<sid>")
    def signal(sid):
        return shapes.signal_detail(corpus, signal_or_404(sid))

    @bearer("/v1/signals/<sid>/evidence")
    def signal_evidence(sid):
        row = signal_or_404(sid)
        found = queries.signal_evidence(conn(), row["id"])
        return {
            "signalId": encode_id(corpus, "sig", row["id"]),
            "records": [{"id": encode_id(corpus, "rec", r[0]), "source": r[1], "sentimentScore": shapes.score(r[2])}
                        for r in found["records"]],
            "entities": [{"id": encode_id(corpus, "ent", r[0]), "name": r[1], "type": r[2]}
                         for r in found["entities"]],
            "topics": [{"id": encode_id(corpus, "top", r[0]), "label": r[1]} for r in found["topics"]],
            "stories": [{"id": encode_id(corpus, "sto", r[0]), "headline": r[1]} for r in found["stories"]],
        }

    # -- topics -----------------------------------------------------------------
    @bearer("/v1/topics", remember=True)
    def topics():
        size = limit()
        return paged("topics", {}, 1, lambda after: queries.topic_page(conn(), after, size),
                     lambda r: [r["id"]], lambda r: shapes.topic_item(corpus, r), size)

    @bearer("/v1/topics/<tid>", remember=True)
    def topic(tid):
        row = queries.topic_row(conn(), need("top", tid, "topic"))
        if row is None:
            abort_json(404, "topic not found")
        item = shapes.topic_item(corpus, row)
        keywords = queries.json_field(row["keywords"], [])
        item["keywords"] = [str(k) for k in keywords] if isinstance(keywords, list) else []
        item["storyCount"] = queries.topic_story_count(conn(), row["id"])
        item["sampleRecords"] = [shapes.record_item(corpus, r) for r in queries.topic_sample_records(conn(), row["id"])]
        return item

    # -- entities ---------------------------------------------------------------
    def entity_list_extras(ids):
        found = entity_stats.entity_list_rows(corpus, ids)
        if isinstance(found, dict):
            return {int(k): v for k, v in found.items()}
        return {int(row["id"]): row for row in found}

    def entity_detail_for(entity_id):
        try:
            row = entity_row(conn(), entity_id)
            detail = entity_stats.entity_detail(corpus, entity_id)
        except EntityNotFound:
            abort_json(404, "entity not found")
        base = shapes.entity_base(corpus, row)   # its canonicalPath follows the slug, as on the wire
        extra = {"hashtags": shapes.hashtag_items(entity_hashtags(conn(), [entity_id]))}  # extension
        return {**base, **{k: v for k, v in detail.items() if k not in base}, **extra}

    @bearer("/v1/entities", remember=True)
    def entities():
        kind = params.enum_param("type", ENTITY_TYPES)
        size = limit()
        after = decode_cursor(corpus, "entities", {"type": kind}, cursor(), 2)
        rows, total = queries.entity_page(conn(), kind, after, size)
        extras = entity_list_extras([r["id"] for r in rows[:size]])

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

    @bearer("/v1/entities/sitemap-pages", remember=True)
    def entity_sitemap():
        pages, total = queries.entity_sitemap_pages(conn())
        return {"pages": [{"page": p, "count": n, "maxUpdatedAt": newest} for p, n, newest in pages],
                "total": total}

    @bearer("/v1/entities/slugs", remember=True)
    def entity_slugs():
        size = limit(SLUGS_DEFAULT, SLUGS_MAX)
        after = decode_cursor(corpus, "entity-slugs", {}, cursor(), 1)
        rows = queries.entity_slug_page(conn(), after, size)
        return page_envelope(corpus, "entity-slugs", {}, rows, size, None, lambda r: [r["slug"]],
                             lambda r: {"id": encode_id(corpus, "ent", r["id"]), "slug": r["slug"],
                                        "canonicalPath": shapes.entity_path(r["slug"])})

    @bearer("/v1/entities/by-slug/<key>", remember=True)
    def entity_by_slug(key):
        if len(key) > 300:
            abort_json(404, "entity not found")
        try:
            entity_id, is_canonical = resolve_entity_key(conn(), key)
        except EntityNotFound:
            abort_json(404, "entity not found")
        if not is_canonical:
            row = entity_row(conn(), entity_id)
            redirect(shapes.entity_path(row["slug"]))
        return entity_detail_for(entity_id)

    @bearer("/v1/entities/<eid>", remember=True)
    def entity(eid):
        return entity_detail_for(need("ent", eid, "entity"))

    # -- sources and stats ------------------------------------------------------
    @bearer("/v1/sources", remember=True)
    def sources():
        rows = source_health_module.source_health(corpus)
        return {"sources": [{"id": r["source"], "recordCount": r["recordCount"],
                             "lastIngestedAt": r["lastIngestedAt"], "healthy": r["healthy"]} for r in rows]}

    def days(default=DAYS_DEFAULT, maximum=DAYS_MAX):
        return params.int_param("days", default, minimum=1, maximum=maximum)

    @bearer("/v1/stats/global/timeline", remember=True)
    def global_timeline():
        return {"timeline": corpus_stats.global_timeline(corpus, days())}

    @bearer("/v1/stats/sources/<source>/timeline", remember=True)
    def source_timeline(source):
        window = days()
        try:
            return corpus_stats.source_timeline(corpus, source, window)
        except NotFoundError:
            abort_json(404, "source not found")

    @bearer("/v1/stats/sentiment/timeline", remember=True)
    def sentiment_timeline():
        window = min(days(SENTIMENT_DAYS_DEFAULT), SENTIMENT_LIVE_DAYS)
        return corpus_stats.sentiment_timeline(corpus, window)

    @bearer("/v1/stats/entities/trending", remember=True)
    def trending():
        n = params.int_param("n", TRENDING_DEFAULT, minimum=1, maximum=TRENDING_MAX)
        found = entity_stats.trending_entities(corpus, n)
        rows = found["entities"] if isinstance(found, dict) else found
        out = []
        for r in rows:
            try:
                entity = entity_row(conn(), int(r["id"]))
            except EntityNotFound:
                continue
            out.append({"id": encode_id(corpus, "ent", entity["id"]), "name": r["name"], "type": r["type"],
                        "mentionCount": r["mentionCount"], "growthFactor": r["growthFactor"],
                        "recentMentions": r["recentMentions"], "canonicalPath": shapes.entity_path(entity["slug"])})
        return {"entities": out}

    @bearer("/v1/stats/topics/distribution", remember=True)
    def topic_distribution():
        data = corpus_stats.topic_distribution(corpus)
        return {"topics": [{"id": encode_id(corpus, "top", t["topicId"]), "label": t["label"],
                            "share": t["share"], "recordCount": t["recordCount"]} for t in data["topics"]],
                "totalRecords": data["totalRecords"]}

    @bearer("/v1/stats/topics/<tid>/timeline", remember=True)
    def topic_timeline(tid):
        window = days()
        topic_id = need("top", tid, "topic")
        try:
            data = corpus_stats.topic_timeline(corpus, topic_id, window)
        except NotFoundError:
            abort_json(404, "topic not found")
        return {"topicId": encode_id(corpus, "top", topic_id), "timeline": data["timeline"]}

    # -- arcs -------------------------------------------------------------------
    @bearer("/v1/arcs", remember=True)
    def arcs():
        size = limit()
        return paged("arcs", {}, 2, lambda after: queries.arc_page(conn(), after, size),
                     lambda r: [r["last_updated_at"], r["id"]], lambda r: shapes.arc_item(corpus, r), size)

    @bearer("/v1/arcs/<slug>", remember=True)
    def arc(slug):
        if len(slug) > 300:
            abort_json(404, "arc not found")
        try:
            data = narrate_read.arc_detail(corpus, slug)
        except NotFoundError:
            abort_json(404, "arc not found")
        data = dict(data, id=encode_id(corpus, "arc", data["id"]))
        data["stories"] = [dict(s, id=encode_id(corpus, "sto", s["id"])) for s in data["stories"]]
        return data

    # -- streams ----------------------------------------------------------------
    @bearer("/v1/stream/signals")
    def stream_signals():
        return signal_stream(corpus, bottle.request, bottle.response, heartbeat_seconds,
                             gate=stream_gate, key_id=bottle.request.environ["corpuskit.key_id"])

    @bearer("/v1/stream/stories")
    def stream_stories():
        abort_json(501, "the story stream is reserved for a future release and not implemented")
