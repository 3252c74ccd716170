"""The OpenAPI 3.1 document of the keyed interface (``/api/v1``).

Built from the same constants the handlers use
(:mod:`corpuskit.api.keyed.handlers`), so bounds and enums cannot drift.
"""
from __future__ import annotations

from corpuskit.analysis.signals.kinds import SIGNAL_KINDS
from corpuskit.api.keyed import handlers as h
from corpuskit.api.openapi import coordination
from corpuskit.api.openapi.building import (array, boolean, day, enum, header, integer,
                                            json_content, limit_param, nullable, number, obj,
                                            operation, path_param, query, ref, response,
                                            source_name, string, timestamp, timestamp_param)
from corpuskit.ingest.records import SOURCE_KINDS
from corpuskit.query import MAX_QUERY_LENGTH, SENTIMENT_LABELS


def _severity() -> dict:
    return enum(h.SEVERITIES)


def _paged_list(item: str) -> dict:
    """``{data: [item], pagination}``, the envelope of a paged list."""
    return obj({"data": array(ref(item)), "pagination": ref("Pagination")})


def _envelope_schemas() -> dict:
    return {
        "Error": obj({"error": string(minLength=1)}),
        "RateLimitError": obj({"error": enum(("Rate limit exceeded",
                                              "Daily request limit reached")),
                               "upgradeUrl": string(format="uri-reference")}),
        "Pagination": obj({"total": integer(), "limit": integer(1), "offset": integer(),
                           "hasMore": boolean()}),
    }


def _snapshot_schemas() -> dict:
    entity_mention = obj({"name": string(), "mentions": integer(), "type": string()})
    snapshot = obj({
        "date": day(),
        "totalRecords": integer(),
        "volumeBySource": {"type": "object", "additionalProperties": integer(),
                           "description": "records per source platform"},
        "sentimentPositive": integer(),
        "sentimentNeutral": integer(),
        "sentimentNegative": integer(),
        "avgSentimentScore": nullable(string(pattern=r"^-?\d+\.\d+$",
                                             description="string-encoded decimal; null when no "
                                                         "record that day has a sentiment score")),
        "platformCount": integer(),
        "topEntities": array(entity_mention),
        "signalCount": integer(),
    })
    return {"Snapshot": snapshot}


def _narrative_schemas() -> dict:
    severity = _severity()
    narrative_item = obj({
        "slug": string(),
        "type": enum(h.NARRATIVE_TYPES),
        "headline": string(),
        "content": string(description="full text"),
        "topic": nullable(string(description="topic name")),
        "topicDisplayName": nullable(string()),
        "category": string(),
        "signalSeverity": enum(h.SEVERITIES, nullable_=True),
        "featured": boolean(),
        "generatedAt": timestamp(),
        "version": integer(1),
        "entityName": nullable(string(description="set for entity narratives")),
    })
    narrative_detail = {"allOf": [ref("NarrativeListItem"), obj({
        "triggerSignal": nullable(obj({"type": enum(SIGNAL_KINDS), "severity": severity})),
        "metadata": {"type": "object", "description": "includes a summary string",
                     "properties": {"summary": string()}},
        "sourceDiscourseIds": array(integer(1), description="provenance: cited discourse ids"),
        "references": array(obj({"refType": string(), "refSlug": string(),
                                 "displayText": string()})),
        "versions": array(obj({"slug": string(), "version": integer(1),
                               "generatedAt": timestamp()}), description="newest first"),
    })]}
    return {
        "NarrativeListItem": narrative_item,
        "NarrativeDetail": narrative_detail,
        "NarrativeList": _paged_list("NarrativeListItem"),
    }


def _topic_schemas() -> dict:
    severity = _severity()
    topic_base = {
        "name": string(description="identifier used in filters and paths"),
        "displayName": string(),
        "description": string(),
        "category": string(),
        "keywords": array(string()),
        "active": boolean(),
    }
    topic_item = obj({**topic_base, "subreddits": array(string()), "createdAt": timestamp()})
    topic_detail = obj({
        **topic_base,
        "currentNarrative": nullable(obj({
            "slug": string(), "headline": string(), "content": string(),
            "signalSeverity": enum(h.SEVERITIES, nullable_=True), "generatedAt": timestamp(),
            "version": integer(1)})),
        "recentSignals": array(obj({"type": enum(SIGNAL_KINDS), "severity": severity,
                                    "headline": string(), "detectedAt": timestamp()}),
                               description="newest first, at most 10"),
        "snapshots": array(ref("Snapshot"), description="the last 30 days, oldest first"),
        "clusters": array(obj({"clusterLabel": integer(None), "recordCount": integer(),
                               "topTerms": array(string()), "summaryLabel": string(),
                               "createdAt": timestamp()})),
        "volumeBySource": array(obj({"source": string(), "count": integer()})),
    })
    return {
        "TopicListItem": topic_item,
        "TopicList": obj({"topics": array(ref("TopicListItem")), "count": integer()}),
        "TopicDetail": topic_detail,
    }


def _discourse_schemas() -> dict:
    analysis = obj({
        # null: the record's language is one the sentiment scorer does not cover
        "sentiment": nullable(obj({"label": enum(SENTIMENT_LABELS),
                                   "score": number()})),
        "themes": array(string()),
        "entities": array(obj({"text": string(), "type": string()})),
    })
    discourse = obj({
        "id": string(pattern=r"^\d+$"),
        "source": source_name(),
        "contentType": string(),
        "sourceId": nullable(string(description="identifier on the origin platform")),
        "title": string(),
        "contentText": string(),
        "url": string(),
        "author": string(),
        "publishedAt": timestamp(),
        "capturedAt": timestamp(),
        "topic": nullable(string(description="primary topic name, else the import topic hint")),
        "subreddit": nullable(string()),
        "language": string(),
        "analysis": nullable({"$ref": "#/components/schemas/DiscourseAnalysis"}),
    })
    return {
        "DiscourseAnalysis": analysis,
        "DiscourseRecord": discourse,
        "DiscourseList": _paged_list("DiscourseRecord"),
    }


def _search_schemas() -> dict:
    search_result = obj({
        "id": string(), "resultType": string(), "source": source_name(),
        "contentType": string(), "title": string(), "excerpt": string(), "url": string(),
        "href": string(), "author": string(), "topic": nullable(string()),
        "topicDisplayName": nullable(string()), "category": nullable(string()),
        "relevance": number(description="cosine similarity"), "publishedAt": timestamp(),
        "subreddit": nullable(string()), "sentimentLabel": nullable(string()),
    })
    search = obj({
        "results": array(ref("SearchResult")),
        "query": string(),
        "totalMatched": integer(),
        "hasMore": boolean(),
        "embeddingMs": integer(),
        "searchMs": integer(),
    })
    return {"SearchResult": search_result, "SearchResults": search}


def _signal_schemas() -> dict:
    severity = _severity()
    signal = obj({
        "id": integer(1),
        "type": enum(SIGNAL_KINDS),
        "topic": nullable(string()),
        "severity": severity,
        "headline": string(),
        "detail": {"type": "object",
                   "description": "volume_spike: baseline, current, multiplier; sentiment_shift: "
                                  "before, after; divergence: sourceA, sourceB, divergencePoints, "
                                  "summary; novelty: what became newly prominent; any kind, when "
                                  "linked: event {id, lead, related}; any kind whose evidence records "
                                  "are mostly one coordinated group's posts: coordination {group, "
                                  "accounts, records, evidence, share}"},
        "detectedAt": timestamp(),
        "acknowledged": boolean(),
        "narrativeId": nullable(integer(1)),
    })
    return {"Signal": signal, "SignalList": _paged_list("Signal")}


def _entity_schemas() -> dict:
    entity_aggregate = obj({
        "data": array(obj({"name": string(), "mentions": integer(), "types": array(string())})),
        "count": integer(),
        "params": obj({"topic": nullable(string()), "since": timestamp()}),
    })
    entity_profile = obj({
        "name": string(), "type": string(), "types": array(string()),
        "totalMentions": integer(), "firstSeen": nullable(timestamp()),
        "lastSeen": nullable(timestamp()), "beats": array(string()),
        "narrative": nullable(obj({"headline": string(), "content": string(), "slug": string(),
                                   "generatedAt": timestamp()})),
        "mentionTrend": array(obj({"day": day(), "mentions": integer()}),
                              description="the last 30 days, newest first"),
        "hashtags": array(obj({"tag": string(), "written": string(), "records": integer()}),
                          description="extension: hashtags that resolve to the entity, most records first"),
    })
    return {"EntityAggregate": entity_aggregate, "EntityProfile": entity_profile}


def _topic_series_schemas() -> dict:
    """The daily series of topics: snapshots, trends and the comparison of topics."""
    trends = obj({
        "topic": string(), "days": integer(1),
        "volume": array(obj({"day": day(), "count": integer()}), description="oldest first"),
        "externalTrends": array({}),
    })
    compare = obj({
        "topics": array(obj({"name": string(), "displayName": string(), "category": string()})),
        "days": integer(1),
        "comparison": {"type": "object",
                       "additionalProperties": array(obj({"date": day(), "totalRecords": integer()},
                                                         required=["date", "totalRecords"])),
                       "description": "topic name -> daily snapshot rows, oldest first"},
    })
    return {
        "SnapshotList": obj({"topic": string(), "days": integer(), "data": array(ref("Snapshot"))}),
        "Trends": trends,
        "Compare": compare,
    }


def _observation_schemas() -> dict:
    severity = _severity()
    observation = obj({
        "type": enum(h.OBSERVATION_TYPES), "headline": string(), "detail": {"type": "object"},
        "severity": severity, "observedAt": timestamp(),
    })
    return {"Observation": observation, "ObservationList": _paged_list("Observation")}


def _cluster_schemas() -> dict:
    cluster = obj({
        "id": integer(1), "runId": string(), "topic": string(), "clusterLabel": integer(None),
        "recordCount": integer(), "topTerms": array(string()), "summaryLabel": string(),
        "metadata": obj({"silhouetteScore": nullable(number(
            description="closer to 1.0 is better"))}),
        "createdAt": timestamp(),
    })
    return {
        "Cluster": cluster,
        "ClusterList": obj({"data": array(ref("Cluster")), "count": integer()}),
    }


def _status_schemas() -> dict:
    status = obj({
        "status": enum(("operational",)), "totalRecords": integer(), "records24h": integer(),
        "activeTopics": integer(), "signals48h": integer(),
        "sources": array(obj({"source": string(), "lastIngestion": timestamp()})),
        "checkedAt": timestamp(),
    })
    return {"Status": status}


def _schemas() -> dict:
    """Every component schema of ``/api/v1``, one group per resource, in the document's order."""
    return {**_envelope_schemas(), **_snapshot_schemas(), **_narrative_schemas(),
            **_topic_schemas(), **_discourse_schemas(), **_search_schemas(), **_signal_schemas(),
            **_entity_schemas(), **_topic_series_schemas(), **_observation_schemas(),
            **_cluster_schemas(), **_status_schemas(),
            "CoordinationGroup": coordination.group_schema(string(pattern=r"^\d+$")),
            "CoordinationList": obj({"data": array(ref("CoordinationGroup")), "pagination": ref("Pagination"),
                                     "settings": coordination.settings_schema()})}


_RATE_HEADERS = {
    "RateLimit-Limit": header("requests allowed in the reported window (the one closer to "
                              "running out: minute or day)"),
    "RateLimit-Remaining": header("requests left in that window"),
    "RateLimit-Reset": header("seconds until that window resets"),
    "RateLimit-Policy": header("both allowances, e.g. '5;w=60, 100;w=86400'", string()),
}


def _responses() -> dict:
    error = ref("Error")
    return {
        "BadRequest": response("A parameter is missing, malformed, or out of range", error,
                               _RATE_HEADERS),
        "Unauthorized": response("API key required, invalid, revoked, or two different keys sent",
                                 error, {"WWW-Authenticate": header("Bearer realm", string())}),
        "NotFound": response("Topic, narrative or entity not found", error, _RATE_HEADERS),
        "TooManyRequests": response(
            "The key's per-minute or per-day allowance is spent", ref("RateLimitError"),
            {**_RATE_HEADERS, "Retry-After": header("seconds until the exhausted window resets",
                                                    integer(1))}),
        "NotConfigured": response("API access not configured (no key exists in this corpus), "
                                  "or a stage this endpoint needs is not installed or not run yet (search "
                                  "before enrichment)", error),
        "SearchFailed": response("The search failed on an internal fault (logged)", error,
                                 _RATE_HEADERS),
    }


def _op(*args, **kwargs) -> dict:
    """An ``/api/v1`` operation (:func:`~corpuskit.api.openapi.building.operation`): every one may
    answer 401, 429 and 503."""
    return operation(*args, headers=_RATE_HEADERS, always=("401", "429", "503"), **kwargs)


def _search_extensions() -> list:
    """The ``mode`` and ``query`` extensions of /api/v1/search."""
    from corpuskit.search import MODES

    return [query("mode", enum(MODES),
                 "Extension: semantic (default; relevance is the cosine), keyword (BM25 over the "
                 "full-text index; relevance the BM25 score) or hybrid (reciprocal-rank fusion, k=60, "
                 "of both rankings; relevance the fused score). Only the modes this server can run "
                 "are listed."),
            query("query", string(maxLength=h.SEARCH_QUERY_MAX),
                  "Extension: a query-language string; only records it matches are ranked "
                  "(400 on bad syntax, naming the position).")]


def _paths() -> dict:
    def limit(section):
        return limit_param(*h.PAGE_LIMITS[section])

    offset = query("offset", integer(0, default=0), "Rows to skip, default 0. Negative: 400.")
    topic = query("topic", string(minLength=1, maxLength=h.TOPIC_MAX_LENGTH),
                  "Topic name (case-sensitive); an unknown topic is 404.")
    source = query("source", enum(h.KEYED_SOURCES), "Source platform; also any other source the corpus holds (docs/api.md).")
    since = query("since", timestamp_param(), "ISO 8601 timestamp or date (inclusive lower bound).")
    until = query("until", timestamp_param(), "ISO 8601 timestamp or date (inclusive upper bound; a bare "
                                     "date covers its whole day).")
    severity = query("severity", enum(h.SEVERITIES), "Severity.")
    required_topic = query("topic", string(minLength=1, maxLength=h.TOPIC_MAX_LENGTH),
                           "Topic name (required: 400 when missing, 404 when unknown).",
                           required=True)
    fewest, most = h.COMPARE_TOPICS
    return {
        "/api/v1/narratives": _op(
            "Narratives, newest generatedAt first", "NarrativeList",
            [query("type", enum(h.NARRATIVE_TYPES), "Narrative type."), topic,
             query("featured", boolean(), "Only featured (true) or not featured (false)."),
             since, until, limit("narratives"), offset],
            ("400", "404"), operation_id="listNarratives"),
        "/api/v1/narratives/{slug}": _op(
            "One narrative with provenance and versions", "NarrativeDetail",
            [path_param("slug", "Narrative slug (any version's slug)")], ("404",),
            operation_id="getNarrative"),
        "/api/v1/topics": _op(
            "The topic catalogue (editorial beats), by name", "TopicList",
            [query("active", boolean(), "Active (default true) or inactive topics.")],
            ("400",), operation_id="listTopics"),
        "/api/v1/topics/{name}": _op(
            "One topic with narrative, signals, snapshots, clusters and volume", "TopicDetail",
            [path_param("name", "Topic name")], ("404",), operation_id="getTopic"),
        "/api/v1/discourse": _op(
            "Discourse records, newest capturedAt first", "DiscourseList",
            [source, topic, since, until, limit("discourse"), offset,
             query("q", string(maxLength=MAX_QUERY_LENGTH), "Extension: a query in the corpuskit query language (Lucene syntax: terms, \"phrases\", AND/OR/NOT, -term, parentheses, vacc*, \"a b\"~5, fields source: author: lang: topic: entity: sentiment: published:[a TO b]; bare terms are AND-ed; docs/query.md). Only matching records are listed; 400 naming the column for a malformed query.")], ("400", "404"),
            description="since/until bound capturedAt. `analysis` is null for records not yet "
                        "enriched.", operation_id="listDiscourse"),
        "/api/v1/search": _op(
            "Semantic search, ranked by cosine similarity", "SearchResults",
            [query("q", string(minLength=h.Q_MIN, maxLength=h.Q_MAX),
                   f"Query text, {h.Q_MIN} to {h.Q_MAX} characters (400 when missing, shorter "
                   "or longer).", required=True),
             source, topic,
             query("days", integer(1, maximum=h.SEARCH_DAYS_MAX),
                   f"Only records published in the last N days by the corpus clock; above "
                   f"{h.SEARCH_DAYS_MAX} is clamped."),
             limit("search"), *_search_extensions()],
            ("400", "404", "500"), operation_id="search"),
        "/api/v1/signals": _op(
            "Signals, newest detectedAt first", "SignalList",
            [topic, severity, since, limit("signals"), offset], ("400", "404"),
            operation_id="listSignals"),
        "/api/v1/entities": _op(
            "Entities ranked by mention count", "EntityAggregate",
            [topic, query("since", timestamp_param(), "ISO 8601; default 7 days before the corpus clock."),
             limit("entities")], ("400", "404"), operation_id="listEntities"),
        "/api/v1/entities/{name}": _op(
            "One entity's profile (name case-sensitive, URL-encoded)", "EntityProfile",
            [path_param("name", "Entity name, case-sensitive, URL-encoded")], ("404",),
            operation_id="getEntity"),
        "/api/v1/snapshots": _op(
            "Daily snapshots of one topic, oldest first", "SnapshotList",
            [required_topic,
             query("from", day(), "First day (YYYY-MM-DD); see `to`."),
             query("to", day(), "Last day. Both omitted: the 30 days ending on the corpus clock's "
                                "day; only `to`: the 30 days ending on it; only `from`: up to the "
                                f"clock's day. A range over {h.SNAPSHOT_MAX_DAYS} days, or from "
                                "after to, is 400.")],
            ("400", "404"), operation_id="listSnapshots"),
        "/api/v1/trends": _op(
            "Daily volume of one topic, oldest first", "Trends",
            [required_topic,
             query("days", integer(1, default=h.TRENDS_DAYS[0], maximum=h.TRENDS_DAYS[1]),
                   f"Days, default {h.TRENDS_DAYS[0]}; above {h.TRENDS_DAYS[1]} is clamped.")],
            ("400", "404"), operation_id="getTrends"),
        "/api/v1/compare": _op(
            "Daily snapshot rows of 2 to 5 topics side by side", "Compare",
            [query("topics", string(minLength=1),
                   f"Comma-separated topic names, {fewest} to {most} different ones "
                   "(400 otherwise; 404 for an unknown one).", required=True),
             query("days", integer(1, default=h.COMPARE_DAYS[0], maximum=h.COMPARE_DAYS[1]),
                   f"Days, default {h.COMPARE_DAYS[0]}; above {h.COMPARE_DAYS[1]} is clamped.")],
            ("400", "404"), operation_id="compareTopics"),
        "/api/v1/observations": _op(
            "Cross-topic observations, newest first", "ObservationList",
            [query("type", enum(h.OBSERVATION_TYPES), "Observation type."), severity, since,
             limit("observations"), offset], ("400",), operation_id="listObservations"),
        "/api/v1/clusters": _op(
            "Clusters of the most recent analysis run", "ClusterList",
            [topic, limit("clusters")], ("400", "404"), operation_id="listClusters"),
        "/api/v1/coordination": _op(
            "Coordinated groups of accounts, largest first (extension)", "CoordinationList",
            [*coordination.parameters(), limit("coordination"), offset], ("400",),
            description=coordination.DESCRIPTION, operation_id="listCoordination"),
        "/api/v1/status": {"get": {
            "summary": "Public status check (no key)", "operationId": "getStatus",
            "security": [], "parameters": [],
            "responses": {"200": response("OK", ref("Status"))},
        }},
        "/api/v1/openapi.json": {"get": {
            "summary": "This document (no key)", "operationId": "getKeyedOpenApi",
            "security": [], "parameters": [],
            "responses": {"200": {"description": "The OpenAPI 3.1 document",
                                  "content": json_content({"type": "object"})}},
        }},
    }


def keyed_document() -> dict:
    """The OpenAPI 3.1 document of ``/api/v1``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "corpuskit keyed discourse API",
            "version": "1.0.0",
            "description": (
                "The API-key interface under /api/v1. Send the key in `x-api-key` or "
                "`Authorization: Bearer`; two different keys in the two headers are refused "
                "(401). Every key has a per-minute and a per-day allowance (free 5/100, research "
                "60/5000, enterprise as set at creation), shared with the /v1 interface; windows "
                "reset at the top of each minute and at midnight UTC. A refused request counts "
                "against nothing. Limits above their maximum are clamped; malformed values are "
                "400. Every error body is `{error}`."),
        },
        "servers": [{"url": "/"}],
        "security": [{"ApiKeyHeader": []}, {"BearerKey": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {
                "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "x-api-key",
                                 "description": "A key from `corpuskit keys create` "
                                                "(prefix `ck_` unless configured)."},
                "BearerKey": {"type": "http", "scheme": "bearer",
                              "description": "The same key as `Authorization: Bearer <key>`."},
            },
            "schemas": _schemas(),
            "responses": _responses(),
        },
    }
