"""Rows to the ``/v1`` JSON shapes, with integer keys turned into opaque ids."""
from __future__ import annotations

from array import array
from urllib.parse import quote

from corpuskit.analysis.signals.kinds import signal_kind
from corpuskit.api.bearer.queries import STORED_TO_V1_KIND, json_field
from corpuskit.api.ids import encode_id
from corpuskit.narrate.sentences import record_title

SCORE_DECIMALS = 4


def score(value):
    """A sentiment or sigma score rounded for the wire (None stays None)."""
    return None if value is None else round(float(value), SCORE_DECIMALS)


def entity_path(slug: str) -> str:
    """The canonical path of an entity: ``/v1/entities/by-slug/<slug>``."""
    return "/v1/entities/by-slug/" + quote(slug, safe="")


def story_slug_path(slug: str) -> str:
    return "/v1/stories/by-slug/" + quote(slug, safe="")


def _text(row):
    """The record's text as the row holds it (a list row holds its head only when it has no title)."""
    keys = row.keys()
    return next((row[k] for k in ("text_head", "content_text") if k in keys), None)


def record_item(corpus, row) -> dict:
    """A record as lists show it; a record without a title shows the first sentence of its text, at
    most 120 characters (:func:`~corpuskit.narrate.sentences.record_title`; see docs/api.md)."""
    return {
        "id": encode_id(corpus, "rec", row["id"]),
        "source": row["source"],
        "title": record_title(row["title"], _text(row)),
        "url": row["url"],
        "publishedAt": row["published_at"],
        "sentimentScore": score(row["sentiment_score"]),
        "sentimentLabel": row["sentiment_label"],
    }


def hashtag_items(found) -> list[dict]:
    """Hashtags resolving to an entity, ``(tag, written, records)`` rows, as the wire shows them
    (an extension of the entity detail, documented in docs/api.md)."""
    return [{"tag": tag, "written": written, "records": records} for tag, written, records in found]


def record_detail(corpus, row, hashtags=()) -> dict:
    """The record detail; ``hashtags`` (as written, without ``#``) go into ``metadata.hashtags``
    when the record carries any (the spec leaves metadata's key set open)."""
    item = record_item(corpus, row)
    metadata = json_field(row["metadata"], {})
    if not isinstance(metadata, dict):
        metadata = {"value": metadata}
    for key, column in (("author", "author"), ("contentType", "content_type"), ("subreddit", "subreddit"),
                        ("language", "language"), ("capturedAt", "captured_at")):
        if row[column] not in (None, "") and key not in metadata:
            metadata[key] = row[column]
    if hashtags and "hashtags" not in metadata:
        metadata["hashtags"] = list(hashtags)
    item["content"] = row["content_text"]
    item["metadata"] = metadata
    return item


def embedding(corpus, record_id: int, blob: bytes, model, dimensions) -> dict:
    vector = array("f")
    vector.frombytes(blob)
    return {
        "recordId": encode_id(corpus, "rec", record_id),
        "model": model,
        "dimensions": int(dimensions) if dimensions else len(vector),
        "embedding": [float(f"{x:.7g}") for x in vector],
    }


def mention_item(corpus, row) -> dict:
    positions = json_field(row["positions"], [])
    return {
        "entityId": encode_id(corpus, "ent", row["entity_id"]),
        "name": row["name"],
        "type": row["type"],
        "mentionCount": row["mention_count"],
        "positions": [int(p) for p in positions if isinstance(p, (int, float))],
    }


def topic_assignment(corpus, row) -> dict:
    return {"topicId": encode_id(corpus, "top", row[0]), "label": row[1], "slug": row[2],
            "confidence": score(row[3])}


def story_list_item(corpus, row) -> dict:
    return {
        "id": encode_id(corpus, "sto", row["id"]),
        "slug": row["slug"],
        "headline": row["headline"],
        "publishAt": row["publish_at"],
        "beat": row["beat"],
        "signalSeverity": row["signal_severity"],
        "readMin": row["read_min"],
    }


def story(corpus, data: dict) -> dict:
    """A story dict from ``corpuskit.narrate.read`` with its integer ids made opaque."""
    out = dict(data)
    out["id"] = encode_id(corpus, "sto", data["id"])
    if "citations" in out:
        out["citations"] = [dict(c, recordId=encode_id(corpus, "rec", c["recordId"]),
                                 confidence=score(c["confidence"])) for c in data["citations"]]
    if "versionChain" in out:
        out["versionChain"] = [encode_id(corpus, "sto", i) for i in data["versionChain"]]
    return out


def signal_item(corpus, row) -> dict:
    return {
        "id": encode_id(corpus, "sig", row["id"]),
        "kind": STORED_TO_V1_KIND[row["kind"]],
        "severity": row["severity"],
        "sigmaScore": score(row["sigma_score"]),
        "status": row["status"],
        "detectedAt": row["detected_at"],
    }


def signal_feed_item(corpus, row) -> dict:
    item = signal_item(corpus, row)
    item["headline"] = row["headline"]
    item["topicId"] = encode_id(corpus, "top", row["topic_id"]) if row["topic_id"] is not None else None
    item["topicLabel"] = row["topic_label"]
    return item


def signal_detail(corpus, row) -> dict:
    """The list fields, headline, topic/entity ids, resolution time, and the kind's detail keys.

    A kind that declares ``v1_fields`` (divergence: ``sourceA``, ``sourceB``, ``divergencePoints``,
    ``summary``) has those fields and the quality flags ``quality`` (and ``event``, for a linked
    signal) at the top level; a ``summary`` it lacks is its headline. The others (velocity, novelty):
    their stored detail object (quality flags and ``event`` included) under ``detail`` (keys as the
    analysis stage writes them).
    """
    item = signal_item(corpus, row)
    detail = json_field(row["detail"], {})
    if not isinstance(detail, dict):
        detail = {}
    item.update({
        "headline": row["headline"],
        "resolvedAt": row["resolved_at"],
        "topicId": encode_id(corpus, "top", row["topic_id"]) if row["topic_id"] is not None else None,
        "entityId": encode_id(corpus, "ent", row["entity_id"]) if row["entity_id"] is not None else None,
        "source": row["source"],
    })
    fields = signal_kind(row["kind"]).v1_fields
    if fields:
        for field, keys in fields.items():
            item[field] = next((detail[k] for k in keys if k in detail), None)
        if "summary" in fields and item["summary"] is None:
            item["summary"] = row["headline"]
        item["quality"] = detail.get("quality") if isinstance(detail.get("quality"), dict) else None
        if isinstance(detail.get("event"), dict):
            item["event"] = detail["event"]
    else:
        item["detail"] = detail
    return item


def topic_item(corpus, row) -> dict:
    return {"id": encode_id(corpus, "top", row["id"]), "slug": row["name"], "label": row["display_name"],
            "recordCount": row["record_count"], "lastActivity": row["last_activity"]}


def entity_base(corpus, row) -> dict:
    return {"id": encode_id(corpus, "ent", row["id"]), "name": row["name"], "type": row["type"],
            "slug": row["slug"], "canonicalPath": entity_path(row["slug"])}


def arc_item(corpus, row) -> dict:
    return {"id": encode_id(corpus, "arc", row["id"]), "slug": row["slug"], "title": row["title"],
            "arcStatus": row["arc_status"], "storyCount": row["story_count"],
            "lastUpdatedAt": row["last_updated_at"]}
