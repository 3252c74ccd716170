"""The record model and the one function that writes records.

A record is a plain dict with camelCase keys, the fields both HTTP
interfaces show: ``source, sourceId, contentType, title, contentText, url,
author, publishedAt, capturedAt, subreddit, language, topic, metadata``, and
the typed engagement and link fields (:data:`ENGAGEMENT_FIELDS`,
:data:`LINK_FIELDS`, ``isRepost``; see docs/corpus_file.md), present when the
input gives any of them (stored as NULL, and ``is_repost`` 0, when it gives none).

``source`` is any lower-case slug (:func:`check_source`); the known kinds
(:data:`SOURCE_KINDS`) keep their special handling.
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
from corpuskit.query.values import SOURCE_KINDS, is_source_name

CONTENT_TYPES = ("post", "comment", "paper", "article", "video", "story")
#: Counts a platform reports for a post: whole numbers >= 0, or None when it reports none.
ENGAGEMENT_FIELDS = ("likes", "reposts", "replies", "quotes", "views")
#: Platform ids of the post this one replies to, quotes, or reposts.
LINK_FIELDS = ("replyTo", "quoteOf", "repostOf")
RECORD_FIELDS = (
    "sourceId", "title", "contentText", "url", "author", "publishedAt",
    "subreddit", "language", "contentType",
) + ENGAGEMENT_FIELDS + LINK_FIELDS + ("isRepost",)
ALL_FIELDS = ("source",) + RECORD_FIELDS + ("capturedAt", "topic", "metadata")

_COLUMNS = {
    "source": "source", "sourceId": "source_id", "contentType": "content_type",
    "title": "title", "contentText": "content_text", "url": "url", "author": "author",
    "publishedAt": "published_at", "capturedAt": "captured_at", "subreddit": "subreddit",
    "language": "language", "topic": "topic", "metadata": "metadata",
    "likes": "likes", "reposts": "reposts", "replies": "replies", "quotes": "quotes",
    "views": "views", "replyTo": "reply_to", "quoteOf": "quote_of", "repostOf": "repost_of",
    "isRepost": "is_repost",
}
#: The ``records`` columns an import writes, in :func:`record_row` order (then ``run_id``).
STORED_COLUMNS = (
    "source", "source_id", "content_hash", "content_type", "title", "content_text", "url",
    "author", "published_at", "captured_at", "subreddit", "language", "topic", "metadata",
    "likes", "reposts", "replies", "quotes", "views", "reply_to", "quote_of", "repost_of",
    "is_repost",
)


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


def source_error(source) -> str:
    """The reason ``source`` is not a source name."""
    return (f"invalid source name {source!r}: a source is a lower-case slug (a letter, then up "
            f"to 39 letters, digits, _ or -), e.g. mastodon, telegram; the known kinds are "
            f"{', '.join(SOURCE_KINDS)}")


def check_source(source: str) -> str:
    """Return ``source`` if it is a valid source name, else raise ValidationError.

    Any lower-case slug is a source name (``mastodon``, ``telegram``, ``my_forum``);
    :data:`SOURCE_KINDS` are the ones with special handling.
    """
    if not is_source_name(source):
        raise ValidationError(source_error(source))
    return source


def _count(raw: dict, field: str):
    """A count field as an int >= 0, or None; raises RowRejected for anything else."""
    value = raw.get(field)
    if value is None or value == "" or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bool):
        raise RowRejected(f"{field}: not a count ({value!r})")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value == int(value):
        number = int(value)
    else:
        text = str(value).strip().replace(",", "").replace("_", "")
        if not text.isascii() or not text.isdigit():
            raise RowRejected(f"{field}: not a whole number >= 0 ({value!r})")
        number = int(text)
    if number < 0 or number >= 2 ** 63:
        raise RowRejected(f"{field}: not a whole number >= 0 ({value!r})")
    return number


_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def _flag(value) -> int:
    if value is None or (isinstance(value, float) and value != value):
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    raise RowRejected(f"isRepost: not true or false ({value!r})")


def engagement(raw: dict) -> dict:
    """The typed engagement, link and repost fields of a raw record, checked.

    Counts become ints (``"1,234"`` and ``12.0`` are read; anything else rejects the
    row); links become strings or None; ``isRepost`` is 0 or 1, and 1 whenever
    ``repostOf`` names a post.
    """
    out = {name: _count(raw, name) for name in ENGAGEMENT_FIELDS}
    for name in LINK_FIELDS:
        value = raw.get(name)
        if isinstance(value, float) and value == value and value == int(value):
            value = int(value)
        out[name] = _text(value) or None
    out["isRepost"] = 1 if out["repostOf"] else _flag(raw.get("isRepost"))
    return out


def normalise(raw: dict, *, source: str | None = None, captured_at: str | None = None,
              topic: str | None = None, parse_date=to_iso) -> dict:
    """Clean one raw record dict into the record model.

    ``source``/``topic`` fill in when the row has none. ``parse_date`` turns a date value into the stored ISO form
    (default :func:`corpuskit.clock.to_iso`; an import passes its file's date
    rules, see :mod:`corpuskit.ingest.dates`). Raises :class:`RowRejected` with
    the reason when the row has no text, its date cannot be parsed, or an
    engagement count is not a whole number.
    """
    src = _text(raw.get("source")) or source
    if not src:
        raise RowRejected("no source kind")
    if src not in _NAMES_SEEN:
        if not is_source_name(src):
            raise RowRejected(source_error(src))
        if len(_NAMES_SEEN) < 4096:
            _NAMES_SEEN.add(src)
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
        published_iso = parse_date(published)
    except ValidationError as exc:
        raise RowRejected(str(exc)) from exc
    captured_raw = raw.get("capturedAt")
    try:
        captured_iso = parse_date(captured_raw) if _text(captured_raw) else (captured_at or published_iso)
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
    rec = {
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
    if not _ENGAGEMENT_KEYS.isdisjoint(raw):   # the typed fields appear when the row has any
        rec.update(engagement(raw))
    return rec


_ENGAGEMENT_KEYS = frozenset(ENGAGEMENT_FIELDS + LINK_FIELDS + ("isRepost",))
_NAMES_SEEN = set(SOURCE_KINDS)   # names already checked: the check is a set lookup per row


INSERT_SQL = (
    f"INSERT INTO records ({', '.join(STORED_COLUMNS)}, run_id) "
    f"VALUES ({','.join('?' * (len(STORED_COLUMNS) + 1))})"
)


# json.dumps(obj, sort_keys=True, ensure_ascii=False) builds this same encoder on every call
_encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode


def _metadata_json(metadata: dict) -> str:
    return _encode(metadata) if metadata else "{}"   # most rows carry none: no encoder call


#: the columns every record fills; the typed engagement columns follow them in STORED_COLUMNS
BASE_COLUMNS = STORED_COLUMNS[:14]


def has_engagement(rec: dict) -> bool:
    """Whether a normalised record carries the typed engagement fields (:func:`normalise` adds all or none)."""
    return "isRepost" in rec


def base_row(rec: dict, run_id: str | None) -> tuple:
    """The :data:`BASE_COLUMNS` values of a normalised record, then ``run_id``."""
    return (rec["source"], rec["sourceId"], record_hash(rec), rec["contentType"], rec["title"],
            rec["contentText"], rec["url"], rec["author"], rec["publishedAt"], rec["capturedAt"],
            rec["subreddit"], rec["language"], rec["topic"], _metadata_json(rec["metadata"]), run_id)


def record_row(rec: dict, run_id: str | None) -> tuple:
    """The values of :data:`INSERT_SQL` for a normalised record."""
    return (rec["source"], rec["sourceId"], record_hash(rec), rec["contentType"], rec["title"],
            rec["contentText"], rec["url"], rec["author"], rec["publishedAt"], rec["capturedAt"],
            rec["subreddit"], rec["language"], rec["topic"], _metadata_json(rec["metadata"]),
            rec.get("likes"), rec.get("reposts"), rec.get("replies"), rec.get("quotes"),
            rec.get("views"), rec.get("replyTo"), rec.get("quoteOf"), rec.get("repostOf"),
            rec.get("isRepost") or 0, run_id)


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
            fulltext.index_rows(conn, [(rid, rec["title"], rec["contentText"], rec.get("language"))])
            added += 1
        else:
            duplicates += 1
    return added, duplicates


def row_to_record(row) -> dict:
    """A ``records`` table row as a record dict (with its integer ``id``)."""
    rec = {"id": row["id"]}
    keys = row.keys()
    for field, column in _COLUMNS.items():
        if column in keys:
            rec[field] = row[column]
    rec["metadata"] = json.loads(rec["metadata"] or "{}")
    return rec
