"""The OpenAPI 3.1 document of the bearer interface (``/v1``).

Bounds and enums come from :mod:`corpuskit.api.bearer.routes`, so the
document follows the code. Identifiers are opaque ``<kind>_<token>`` strings;
an unknown or malformed id is 404.
"""
from __future__ import annotations

from corpuskit.api.bearer import routes as r
from corpuskit.api.bearer.queries import V1_SIGNAL_KINDS
from corpuskit.api.openapi import coordination
from corpuskit.api.openapi.building import (array, boolean, day, enum, header, integer,
                                            json_content, nullable, number, obj, operation,
                                            path_param, query, ref, response, source_name, string,
                                            timestamp, timestamp_param)
from corpuskit.ingest.records import SOURCE_KINDS
from corpuskit.query import MAX_QUERY_LENGTH

V1_KINDS = V1_SIGNAL_KINDS           # the /v1 names of the registered kinds, read when the document is built


def _id(kind: str) -> dict:
    return string(pattern=rf"^{kind}_[a-z2-7]+$", description=f"opaque {kind}_ identifier")


def _paged(item: str) -> dict:
    return obj({"items": array(ref(item)), "nextCursor": nullable(string()), "total": integer()})


def _schemas() -> dict:
    severity = enum(r.SEVERITIES)
    score = nullable(number())
    record_item = obj({
        "id": _id("rec"), "source": source_name(), "title": string(), "url": string(),
        "publishedAt": timestamp(), "sentimentScore": score,
        "sentimentLabel": enum(r.SENTIMENTS, nullable_=True),
    })
    signal_item = obj({"id": _id("sig"), "kind": enum(V1_KINDS), "severity": severity,
                       "sigmaScore": number(), "status": enum(r.STATUSES),
                       "detectedAt": timestamp()})
    entity_base = {"id": _id("ent"), "name": string(), "type": string(), "slug": string(),
                   "canonicalPath": string(pattern=r"^/v1/entities/by-slug/")}
    entity_list = {**entity_base, "lede": nullable(string()), "mentionCount": integer(),
                   "recentMentions": nullable(integer()), "growthFactor": nullable(number())}
    story_base = {"id": _id("sto"), "headline": string(), "publishAt": timestamp()}
    return {
        "Error": obj({"error": string(minLength=1)}),
        "RateLimitError": obj({"error": string(minLength=1),
                               "upgradeUrl": string(format="uri-reference")}),
        "Redirect": obj({"location": string()}),
        "RecordItem": record_item,
        "RecordPage": _paged("RecordItem"),
        "RecordDetail": {"allOf": [ref("RecordItem"), obj({"content": string(),
                                                           "metadata": {"type": "object"}})]},
        "RecordEmbedding": obj({"recordId": _id("rec"), "model": string(),
                                "dimensions": integer(1),
                                "embedding": array(number(), minItems=1)}),
        "EntityMention": obj({"entityId": _id("ent"), "name": string(), "type": string(),
                              "mentionCount": integer(), "positions": array(integer())}),
        "EntityMentionPage": _paged("EntityMention"),
        "TopicAssignments": obj({"items": array(obj({"topicId": _id("top"), "label": string(),
                                                     "slug": string(), "confidence": number()}))}),
        "LeadStory": obj({**story_base, "slug": string(), "lede": string(),
                          "readMin": integer(), "beat": nullable(string()),
                          "signalCount": integer(), "sourceCount": integer(),
                          "stub": boolean()}),
        "StoryListItem": obj({**story_base, "slug": string(), "beat": nullable(string()),
                              "signalSeverity": enum(r.SEVERITIES, nullable_=True),
                              "readMin": integer()}),
        "StoryPage": _paged("StoryListItem"),
        "StoryCount": obj({"count": integer()}),
        "StoryBySlug": obj({**story_base, "slug": string(), "lede": string(), "body": string(),
                            "beat": nullable(string()), "versionChain": array(_id("sto"))}),
        "Story": obj({**story_base, "slug": string(), "lede": string(), "body": string(),
                      "readMin": integer(), "beat": nullable(string()),
                      "citations": array(obj({"recordId": _id("rec"), "confidence": number(),
                                              "inferred": boolean()})),
                      "versionChain": array(_id("sto"))}),
        "StoryVersions": obj({"storyId": _id("sto"),
                              "versions": array(obj({"id": _id("sto"), "generatedAt": timestamp(),
                                                     "isCurrent": boolean()}))}),
        "StorySources": obj({
            "storyId": _id("sto"),
            "sources": array(obj({"recordId": _id("rec"), "kind": source_name(),
                                  "title": string(), "url": string(), "sentimentScore": score,
                                  "inferred": boolean(), "confidence": number(),
                                  "credibilityScore": score})),
            "externalCitations": array(obj({"url": string(), "title": string()})),
        }),
        "SignalItem": signal_item,
        "SignalPage": _paged("SignalItem"),
        "SignalFeed": obj({"items": array({"allOf": [ref("SignalItem"), obj({
            "headline": string(), "topicId": nullable(_id("top")),
            "topicLabel": nullable(string())})]}), "generatedAt": timestamp()}),
        "SignalDetail": {"allOf": [ref("SignalItem"), obj({
            "headline": string(), "resolvedAt": nullable(timestamp()),
            "topicId": nullable(_id("top")), "entityId": nullable(_id("ent")),
            "source": nullable(string()),
            "sourceA": nullable(string(description="divergence only")),
            "sourceB": nullable(string(description="divergence only")),
            "divergencePoints": nullable(number(description="divergence only")),
            "summary": string(description="divergence only"),
            "quality": nullable({"type": "object", "description": "divergence only: the quality flags "
                                 "(baselineDays, corpusEdge, gap, duplicateShare, recordsChecked)"}),
            "event": obj({"id": string(), "lead": boolean(), "related": array(string())},
                         description="divergence only, when linked: the linked event (velocity and "
                         "novelty carry it as detail.event)"),
            "detail": {"type": "object", "description": "velocity and novelty: the stored detail "
                       "(detail.event: the linked event, when the signal is linked)"},
        }, required=["headline", "resolvedAt", "topicId", "entityId", "source"])]},
        "SignalEvidence": obj({
            "signalId": _id("sig"),
            "records": array(obj({"id": _id("rec"), "source": source_name(),
                                  "sentimentScore": score})),
            "entities": array(obj({"id": _id("ent"), "name": string(), "type": string()})),
            "topics": array(obj({"id": _id("top"), "label": string()})),
            "stories": array(obj({"id": _id("sto"), "headline": string()})),
        }),
        "TopicItem": obj({"id": _id("top"), "slug": string(), "label": string(),
                          "recordCount": integer(), "lastActivity": nullable(timestamp())}),
        "TopicPage": _paged("TopicItem"),
        "TopicDetail": {"allOf": [ref("TopicItem"), obj({
            "keywords": array(string()), "storyCount": integer(),
            "sampleRecords": array(ref("RecordItem"))})]},
        "EntityItem": obj(entity_list),
        "EntityPage": _paged("EntityItem"),
        "EntityDetail": obj({
            **entity_list,
            "baselineMentions": nullable(integer()),
            "sentimentDistribution": obj({k: integer() for k in
                                          ("positive", "neutral", "negative", "unknown")}),
            "sentimentTrend": array(obj({"weekStart": day(), "avgScore": nullable(number()),
                                         "sampleSize": integer()})),
            "prominenceRank": obj({"withinType": integer(), "sampleSize": integer()}),
            "noveltyActive": boolean(),
            "sourceDiversity": obj({"distinctSources": integer(), "herfindahlIndex": number()}),
            "hashtags": array(obj({"tag": string(), "written": string(), "records": integer()}),
                              description="extension: hashtags that resolve to the entity, most records first"),
        }),
        "SitemapPages": obj({"pages": array(obj({"page": integer(1), "count": integer(),
                                                 "maxUpdatedAt": nullable(timestamp())})),
                             "total": integer()}),
        "SlugPage": obj({"items": array(obj({"id": _id("ent"), "slug": string(),
                                             "canonicalPath": string()})),
                         "nextCursor": nullable(string())}),
        "Sources": obj({"sources": array(obj({"id": source_name(), "recordCount": integer(),
                                              "lastIngestedAt": nullable(timestamp()),
                                              "healthy": boolean()}))}),
        "GlobalTimeline": obj({"timeline": array(obj({
            "date": day(), "recordCount": integer(),
            "sources": {"type": "object", "additionalProperties": integer()}}))}),
        "SourceTimeline": obj({"sourceId": source_name(), "timeline": array(obj({
            "date": day(), "recordCount": integer()}))}),
        "SentimentTimeline": obj({"timeline": array(obj({
            "date": day(), "avgScore": nullable(number()),
            "sources": {"type": "object", "additionalProperties": number()}}))}),
        "TrendingEntities": obj({"entities": array(obj({
            "id": _id("ent"), "name": string(), "type": string(), "mentionCount": integer(),
            "growthFactor": nullable(number()), "recentMentions": integer(),
            "canonicalPath": string()}))}),
        "TopicDistribution": obj({"topics": array(obj({"id": _id("top"), "label": string(),
                                                       "share": number(), "recordCount": integer()})),
                                  "totalRecords": integer()}),
        "TopicTimeline": obj({"topicId": _id("top"), "timeline": array(obj({
            "date": day(), "recordCount": integer(), "share": number()}))}),
        "ArcItem": obj({"id": _id("arc"), "slug": string(), "title": string(),
                        "arcStatus": string(), "storyCount": integer(),
                        "lastUpdatedAt": timestamp()}),
        "ArcPage": _paged("ArcItem"),
        "ArcDetail": {"allOf": [ref("ArcItem"), obj({"stories": array(obj(story_base))})]},
        "CoordinationGroup": coordination.group_schema(_id("rec")),
        "CoordinationPage": obj({"groups": array(ref("CoordinationGroup")), "total": integer(),
                                 "limit": integer(1), "offset": integer(),
                                 "settings": coordination.settings_schema()}),
    }


_RATE_HEADERS = {
    "RateLimit-Limit": header("requests allowed in the reported window (minute or day)"),
    "RateLimit-Remaining": header("requests left in that window"),
    "RateLimit-Reset": header("seconds until that window resets"),
}


def _responses() -> dict:
    error = ref("Error")
    return {
        "BadRequest": response("Invalid filter parameter, limit, timestamp or cursor", error,
                               _RATE_HEADERS),
        "Unauthorized": response("Missing, malformed, unknown or revoked bearer key", error,
                                 {"WWW-Authenticate": header("Bearer realm", string())}),
        "NotFound": response("Unknown or malformed identifier, slug or source", error,
                             _RATE_HEADERS),
        "TooManyRequests": response(
            "The key's allowance (shared with /api/v1) is spent", ref("RateLimitError"),
            {**_RATE_HEADERS, "Retry-After": header("seconds until the window resets",
                                                    integer(1))}),
        "Redirect": {"description": "Moved to the canonical slug or key",
                     "headers": {"Location": header("the canonical path", string())},
                     "content": json_content(ref("Redirect"))},
    }


def _op(*args, **kwargs) -> dict:
    """A ``/v1`` operation (:func:`~corpuskit.api.openapi.building.operation`): every one may
    answer 401 and 429."""
    return operation(*args, headers=_RATE_HEADERS, always=("401", "429"), **kwargs)


def _paths() -> dict:
    def limit(default=r.LIMIT_DEFAULT, maximum=r.LIMIT_MAX):
        return query("limit", integer(1, default=default, maximum=maximum),
                     f"Page size, default {default}, maximum {maximum} (larger values are "
                     "clamped); zero, negative or non-integer: 400.")

    cursor = query("cursor", string(maxLength=1024),
                   "Opaque cursor from the previous page's nextCursor; altered or foreign: 400.")
    since = query("from", timestamp_param(), "ISO 8601 timestamp or date, inclusive.")
    until = query("to", timestamp_param(), "ISO 8601 timestamp or date, inclusive (a date covers its day); "
                                  "from after to: 400.")

    def days(default=r.DAYS_DEFAULT, maximum=r.DAYS_MAX):
        return query("days", integer(1, default=default, maximum=maximum),
                     f"Days, default {default}, maximum {maximum} (clamped).")

    def pid(name, kind, what):
        return path_param(name, f"opaque {kind}_ identifier of the {what}")

    story_filters = [query("topicId", string(maxLength=64), "opaque top_ identifier"),
                     query("entityId", string(maxLength=64), "opaque ent_ identifier")]
    p = {
        "/v1/records": _op("Records, newest publishedAt first", "RecordPage", [
            query("source", enum(SOURCE_KINDS), "Source kind; also any other source the corpus holds (docs/api.md)."),
            query("sentiment", enum(r.SENTIMENTS), "Sentiment label."),
            since, until, limit(), cursor,
            query("q", string(maxLength=MAX_QUERY_LENGTH), "Extension: a query in the corpuskit query language (Lucene syntax: terms, \"phrases\", AND/OR/NOT, -term, parentheses, vacc*, \"a b\"~5, fields source: author: lang: topic: entity: sentiment: published:[a TO b]; bare terms are AND-ed; docs/query.md). Only matching records are listed; 400 naming the column for a malformed query.")], ("400",), "listRecords"),
        "/v1/records/{id}": _op("One record", "RecordDetail", [pid("id", "rec", "record")],
                                ("404",), "getRecord"),
        "/v1/records/{id}/embedding": _op("A record's embedding", "RecordEmbedding",
                                          [pid("id", "rec", "record")], ("404",),
                                          "getRecordEmbedding"),
        "/v1/records/{id}/entities": _op("Entity mentions in a record", "EntityMentionPage",
                                         [pid("id", "rec", "record"), limit(), cursor],
                                         ("400", "404"), "listRecordEntities"),
        "/v1/records/{id}/topics": _op("Topic assignments of a record", "TopicAssignments",
                                       [pid("id", "rec", "record")], ("404",),
                                       "listRecordTopics"),
        "/v1/stories/lead": _op("The lead story", "LeadStory", [], ("404",), "getLeadStory"),
        "/v1/stories": _op("Current stories, newest first", "StoryPage",
                           story_filters + [since, until, limit(), cursor], ("400",),
                           "listStories"),
        "/v1/stories/count": _op("Number of current stories", "StoryCount",
                                 story_filters + [since, until], ("400",), "countStories"),
        "/v1/stories/by-slug/{slug}": _op("A story by slug", "StoryBySlug",
                                          [path_param("slug", "story slug")], ("301", "404"),
                                          "getStoryBySlug"),
        "/v1/stories/by-topic/{topicId}": _op("Stories of a topic", "StoryPage",
                                              [pid("topicId", "top", "topic"), limit(), cursor],
                                              ("400", "404"), "listStoriesByTopic"),
        "/v1/stories/by-entity/{entityId}": _op("Stories of an entity", "StoryPage",
                                                [pid("entityId", "ent", "entity"), limit(),
                                                 cursor], ("400", "404"), "listStoriesByEntity"),
        "/v1/stories/{id}": _op("One story version", "Story", [pid("id", "sto", "story")],
                                ("404",), "getStory"),
        "/v1/stories/{id}/versions": _op("A story's versions, newest first", "StoryVersions",
                                         [pid("id", "sto", "story")], ("404",),
                                         "listStoryVersions"),
        "/v1/stories/{id}/sources": _op("A story's cited records", "StorySources",
                                        [pid("id", "sto", "story")], ("404",),
                                        "listStorySources"),
        "/v1/signals": _op("Signals, newest first", "SignalPage", [
            query("kind", enum(V1_KINDS), "Signal kind."),
            query("severity", enum(r.SEVERITIES), "Severity."),
            query("status", enum(r.STATUSES), "Status."), limit(), cursor], ("400",),
            "listSignals"),
        "/v1/signals/feed": _op("The newest signals", "SignalFeed",
                                [limit(r.FEED_DEFAULT, r.FEED_MAX)], ("400",), "getSignalFeed"),
        "/v1/signals/{id}": _op("One signal", "SignalDetail", [pid("id", "sig", "signal")],
                                ("404",), "getSignal"),
        "/v1/signals/{id}/evidence": _op("A signal's evidence", "SignalEvidence",
                                         [pid("id", "sig", "signal")], ("404",),
                                         "getSignalEvidence"),
        "/v1/topics": _op("Topics", "TopicPage", [limit(), cursor], ("400",), "listTopics"),
        "/v1/topics/{id}": _op("One topic", "TopicDetail", [pid("id", "top", "topic")],
                               ("404",), "getTopic"),
        "/v1/entities": _op("Entities, most mentioned first", "EntityPage", [
            query("type", enum(r.ENTITY_TYPES), "Entity type."), limit(), cursor], ("400",),
            "listEntities"),
        "/v1/entities/sitemap-pages": _op("Sitemap pages of entity slugs", "SitemapPages", [],
                                          (), "getEntitySitemapPages"),
        "/v1/entities/slugs": _op("Every entity slug", "SlugPage",
                                  [limit(r.SLUGS_DEFAULT, r.SLUGS_MAX), cursor], ("400",),
                                  "listEntitySlugs"),
        "/v1/entities/by-slug/{entityKey}": _op(
            "An entity by canonical slug (legacy keys redirect)", "EntityDetail",
            [path_param("entityKey", "canonical slug, legacy numeric key or trailing-id key")],
            ("301", "404"), "getEntityBySlug"),
        "/v1/entities/{id}": _op("One entity", "EntityDetail", [pid("id", "ent", "entity")],
                                 ("404",), "getEntity"),
        "/v1/sources": _op("Per-source ingestion health", "Sources", [], (), "listSources"),
        "/v1/stats/global/timeline": _op("Records per day", "GlobalTimeline", [days()],
                                         ("400",), "getGlobalTimeline"),
        "/v1/stats/sources/{id}/timeline": _op(
            "Records per day of one source", "SourceTimeline",
            [path_param("id", "a source kind"), days()], ("400", "404"), "getSourceTimeline"),
        "/v1/stats/sentiment/timeline": _op(
            "Mean sentiment per day (at most 30 days are computed)", "SentimentTimeline",
            [days(r.SENTIMENT_DAYS_DEFAULT)], ("400",), "getSentimentTimeline"),
        "/v1/stats/entities/trending": _op(
            "Entities ranked by growth factor", "TrendingEntities",
            [query("n", integer(1, default=r.TRENDING_DEFAULT, maximum=r.TRENDING_MAX),
                   f"How many, default {r.TRENDING_DEFAULT}, maximum {r.TRENDING_MAX} (clamped).")],
            ("400",), "getTrendingEntities"),
        "/v1/stats/topics/distribution": _op("Records per topic", "TopicDistribution", [], (),
                                             "getTopicDistribution"),
        "/v1/stats/topics/{id}/timeline": _op("Records per day of one topic", "TopicTimeline",
                                              [pid("id", "top", "topic"), days()],
                                              ("400", "404"), "getTopicTimeline"),
        "/v1/arcs": _op("Story arcs, most recently updated first", "ArcPage", [limit(), cursor],
                        ("400",), "listArcs"),
        "/v1/arcs/{slug}": _op("One arc with its stories", "ArcDetail",
                               [path_param("slug", "arc slug")], ("404",), "getArc"),
        "/v1/coordination": _op(
            "Coordinated groups of accounts, largest first (extension)", "CoordinationPage",
            [*coordination.parameters(), limit(),
             query("offset", integer(0, default=0), "Groups to skip, default 0; negative: 400.")],
            ("400",), "listCoordination", description=coordination.DESCRIPTION),
    }
    stream_responses = {
        "200": {"description": "Server-sent events: `signal` ({id, kind, severity, sigmaScore, "
                               "detectedAt}, with an `id:` line usable as Last-Event-ID) and "
                               "`heartbeat` ({ts}) every 30 seconds",
                "content": {"text/event-stream": {"schema": string()}}},
        "401": {"$ref": "#/components/responses/Unauthorized"},
        "429": {"$ref": "#/components/responses/TooManyRequests"},
    }
    p["/v1/stream/signals"] = {"get": {
        "summary": "New and updated signals as server-sent events", "operationId": "streamSignals",
        "parameters": [{"name": "Last-Event-ID", "in": "header", "required": False,
                        "description": "resume after this event id",
                        "schema": string(pattern=r"^\d{1,18}$")}],
        "responses": stream_responses}}
    p["/v1/stream/stories"] = {"get": {
        "summary": "Reserved: not implemented", "operationId": "streamStories", "parameters": [],
        "responses": {"501": response("Not implemented", ref("Error")),
                      "401": {"$ref": "#/components/responses/Unauthorized"},
                      "429": {"$ref": "#/components/responses/TooManyRequests"}}}}
    p["/v1/openapi.json"] = {"get": {
        "summary": "This document (no key)", "operationId": "getBearerOpenApi", "security": [],
        "parameters": [],
        "responses": {"200": {"description": "The OpenAPI 3.1 document",
                              "content": json_content({"type": "object"})}}}}
    return p


def bearer_document() -> dict:
    """The OpenAPI 3.1 document of ``/v1``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "corpuskit read-only corpus API",
            "version": "1.0.0",
            "description": (
                "The bearer interface under /v1: `Authorization: Bearer <key>` on every endpoint "
                "(keys from `corpuskit keys create`). Cursor paging: `items`, `nextCursor` (null on "
                "the last page), `total`. Limits above their maximum are clamped; malformed values "
                "are 400; unknown or malformed ids are 404. Each request counts against the key's "
                "allowance, the same one /api/v1 uses. Every error body is `{error}`."),
        },
        "servers": [{"url": "/"}],
        "security": [{"BearerKey": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {"BearerKey": {"type": "http", "scheme": "bearer",
                                              "description": "A key from `corpuskit keys create`."}},
            "schemas": _schemas(),
            "responses": _responses(),
        },
    }
