"""The record model and the one function that writes records.

A record is a plain dict with camelCase keys, the fields both HTTP
interfaces show: ``source, sourceId, contentType, title, contentText, url,
author, publishedAt, capturedAt, subreddit, language, topic, metadata``.
:func:`normalise` checks and cleans one; :func:`insert_records` stores many,
skipping duplicates.

Duplicates (the rules ``import --dedupe`` names):

- ``id``: same source + sourceId. A sourceId names one post, so this rule
  always applies to a row that has one, whatever the mode.
- ``content``: same source + author + title + text + publishedAt (the content
  key, :func:`content_hash`). The publication time is part of the key: a
  headline that recurs on another day is another record, and the same file
  imported twice still adds nothing. So is the author: the same words posted
  at the same time by two accounts are two posts.
- ``auto`` (the default): ``id`` for a row with a sourceId, else ``content``.
- ``none``: rows without a sourceId are never dropped.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable

from corpuskit.clock import to_iso
from corpuskit.errors import RowRejected, ValidationError
from corpuskit.store import fulltext

SOURCE_KINDS = (
    "reddit", "bluesky", "arxiv", "hackernews", "youtube", "google_news", "news",
    "exa", "webset", "huggingface", "twitter", "gdelt",
)
CONTENT_TYPES = ("post", "comment", "paper", "article", "video", "story")
RECORD_FIELDS = (
    "sourceId", "title", "contentText", "url", "author", "publishedAt",
    "subreddit", "language", "contentType",
)
ALL_FIELDS = ("source",) + RECORD_FIELDS + ("capturedAt", "topic", "metadata")

_COLUMNS = {
    "source": "source", "sourceId": "source_id", "contentType": "content_type",
    "title": "title", "contentText": "content_text", "url": "url", "author": "author",
    "publishedAt": "published_at", "capturedAt": "captured_at", "subreddit": "subreddit",
    "language": "language", "topic": "topic", "metadata": "metadata",
}


def _text(value) -> str:
    if type(value) is str:  # the common case first
        return value.strip()
    if value is None:
        return ""
    if isinstance(value, float) and value != value:  # NaN from pandas
        return ""
    return str(value).strip()


def _language(value) -> str:
    """A given language tag's primary subtag in lower case (``en-US`` -> ``en``), else ``und``:
    not stated, detected by enrichment (:mod:`corpuskit.enrich.language`)."""
    tag = _text(value).replace("_", "-").split("-")[0].lower()
    return tag if tag.isalpha() and 2 <= len(tag) <= 3 else "und"


DEDUPE_RULES = ("auto", "id", "content", "none")


def content_hash(source: str, author: str, title: str, text: str, published_at: str) -> str:
    """The content key: a stable hash of source, author, title, text and publication time.

    ``published_at`` is the normalised ISO string (``YYYY-MM-DDTHH:MM:SSZ``);
    ``author`` is ``""`` when the row names none.
    """
    key = "\x1f".join((source, author or "", title or "", text or "", published_at))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def record_hash(rec: dict) -> str:
    """:func:`content_hash` of a normalised record."""
    return content_hash(rec["source"], rec["author"], rec["title"], rec["contentText"],
                        rec["publishedAt"])


def check_dedupe(dedupe: str) -> str:
    """Return ``dedupe`` if it is a known rule, else raise ValidationError."""
    if dedupe not in DEDUPE_RULES:
        raise ValidationError(f"unknown dedupe rule {dedupe!r}; expected one of: "
                              f"{', '.join(DEDUPE_RULES)}")
    return dedupe


def dedupe_rule(rec: dict, dedupe: str = "auto") -> str:
    """The rule that decides whether ``rec`` is a duplicate: ``id``, ``content`` or ``none``.

    Raises :class:`RowRejected` for a row without a sourceId under ``dedupe="id"``.
    """
    if dedupe == "auto":
        return "id" if rec["sourceId"] else "content"
    if dedupe == "id" and not rec["sourceId"]:
        raise RowRejected("no sourceId (--dedupe id needs one on every row; name the id "
                          "column with --map sourceId=COLUMN)")
    return dedupe


def check_source(source: str) -> str:
    """Return ``source`` if it is a known source kind, else raise ValidationError."""
    if source not in SOURCE_KINDS:
        raise ValidationError(
            f"unknown source kind {source!r}; expected one of: {', '.join(SOURCE_KINDS)}"
        )
    return source


def normalise(raw: dict, *, source: str | None = None, captured_at: str | None = None,
              topic: str | None = None) -> dict:
    """Clean one raw record dict into the record model.

    ``source``/``topic`` fill in when the row has none. Raises
    :class:`RowRejected` with the reason when the row has no text or its
    date cannot be parsed.
    """
    src = _text(raw.get("source")) or source
    if not src:
        raise RowRejected("no source kind")
    if src not in SOURCE_KINDS:
        raise RowRejected(f"unknown source kind {src!r}")
    title = _text(raw.get("title"))
    text = _text(raw.get("contentText"))
    if not text:
        text = title
    if not text:
        raise RowRejected("no text (empty title and contentText)")
    published = raw.get("publishedAt")
    if published is None or _text(published) == "":
        raise RowRejected("no publishedAt date")
    try:
        published_iso = to_iso(published)
    except ValidationError as exc:
        raise RowRejected(str(exc)) from exc
    captured_raw = raw.get("capturedAt")
    try:
        captured_iso = to_iso(captured_raw) if _text(captured_raw) else (captured_at or published_iso)
    except ValidationError as exc:
        raise RowRejected(f"capturedAt: {exc}") from exc
    content_type = _text(raw.get("contentType")) or ("paper" if src == "arxiv" else "post")
    metadata = raw.get("metadata") or {}
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {"raw": metadata}
    if not isinstance(metadata, dict):
        metadata = {"value": metadata}
    source_id = _text(raw.get("sourceId")) or None
    subreddit = _text(raw.get("subreddit")) or None
    if subreddit and subreddit.lower().startswith("r/"):
        subreddit = subreddit[2:]
    return {
        "source": src,
        "sourceId": source_id,
        "contentType": content_type,
        "title": title,
        "contentText": text,
        "url": _text(raw.get("url")),
        "author": _text(raw.get("author")),
        "publishedAt": published_iso,
        "capturedAt": captured_iso,
        "subreddit": subreddit,
        "language": _language(raw.get("language")),
        "topic": _text(raw.get("topic")) or topic or None,
        "metadata": metadata,
    }


INSERT_SQL = (
    "INSERT INTO records (source, source_id, content_hash, content_type, title, "
    "content_text, url, author, published_at, captured_at, subreddit, language, topic, "
    "metadata, run_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


# json.dumps(obj, sort_keys=True, ensure_ascii=False) builds this same encoder on every call
_metadata_json = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode


def record_row(rec: dict, run_id: str | None) -> tuple:
    """The values of :data:`INSERT_SQL` for a normalised record."""
    return (rec["source"], rec["sourceId"], record_hash(rec), rec["contentType"], rec["title"],
            rec["contentText"], rec["url"], rec["author"], rec["publishedAt"], rec["capturedAt"],
            rec["subreddit"], rec["language"], rec["topic"], _metadata_json(rec["metadata"]), run_id)


def insert_records(conn, records: Iterable[dict], run_id: str | None = None) -> tuple[int, int]:
    """Insert normalised records under the ``auto`` rule; return ``(added, duplicates)``.

    Must be called inside a transaction (see :func:`corpuskit.store.transaction`).
    Each new record is added to the full-text index (:mod:`corpuskit.store.fulltext`).
    A record whose source + sourceId (or, with no sourceId, whose content key)
    is already stored, or repeated within the batch, counts as a duplicate.
    File imports use :mod:`corpuskit.ingest.staging` instead, which applies
    any rule and writes in one short transaction.
    """
    added = duplicates = 0
    for rec in records:
        values = record_row(rec, run_id)
        if rec["sourceId"]:
            stored = conn.execute("SELECT 1 FROM records WHERE source = ? AND source_id = ?",
                                  (rec["source"], rec["sourceId"])).fetchone()
        else:
            stored = conn.execute("SELECT 1 FROM records WHERE source = ? AND content_hash = ?",
                                  (rec["source"], values[2])).fetchone()
        if stored is None:
            rid = conn.execute(INSERT_SQL, values).lastrowid
            fulltext.index_rows(conn, [(rid, rec["title"], rec["contentText"])])
            added += 1
        else:
            duplicates += 1
    return added, duplicates


def row_to_record(row) -> dict:
    """A ``records`` table row as a record dict (with its integer ``id``)."""
    rec = {"id": row["id"]}
    for field, column in _COLUMNS.items():
        rec[field] = row[column]
    rec["metadata"] = json.loads(rec["metadata"] or "{}")
    return rec
