"""Importers for the bulk dumps researchers actually get.

- **Pushshift** Reddit submissions and comments, NDJSON (one object per line),
  plain, ``.gz`` or ``.zst`` (the Pushshift archives are zstandard with a
  long window). Submissions keep Reddit's base-36 ``id`` as sourceId (as the
  collector and the CSV importer do); comments use their fullname ``t1_<id>``
  so a comment can never collide with a post.
- **Bluesky** post JSONL as exported from the firehose: Jetstream lines
  (``{did, time_us, kind: commit, commit: {operation, collection, rkey, cid,
  record}}``), repo-operation lines (``{repo, path: app.bsky.feed.post/<rkey>,
  action, cid, record}``) or flat lines (``{did|repo, rkey|uri, text,
  createdAt, langs}``). Only created ``app.bsky.feed.post`` records become
  records; sourceId is the AT URI, as with the collector.
- **Hacker News** items of the official Firebase API (``{id, type, by, time,
  title, text, url, score, descendants, kids, parent, deleted, dead}``), one
  object per line or a JSON array.

Each import is one transaction (see :func:`corpuskit.ingest.importers.import_rows`):
unusable rows (deleted, not a post, no text) are reported with their line
number and reason; ``strict=True`` writes nothing if any is bad and lists the first ones.
Fields a dump has beyond the record model are kept in ``metadata``
(scalars and short lists; large nested blobs such as media previews are dropped).
"""
from __future__ import annotations

from pathlib import Path

from corpuskit.errors import ImportFormatError, RowRejected
from corpuskit.ingest.importers import ImportReport, import_rows
from corpuskit.ingest.objects import iter_objects, open_text  # noqa: F401 - part of this module's surface
from corpuskit.ingest.converters import (POST, bluesky_to_record,  # noqa: F401
                                         extra_fields, pushshift_to_record)
from corpuskit.ingest.platforms import detect_kind
from corpuskit.text.markup import html_to_text

KINDS = ("pushshift", "bluesky", "hackernews")
SOURCES = {"pushshift": "reddit", "bluesky": "bluesky", "hackernews": "hackernews"}


# -- Hacker News ------------------------------------------------------------------
def hackernews_to_record(obj: dict) -> dict:
    """A Firebase API item as a raw record."""
    if obj.get("deleted"):
        raise RowRejected("deleted item")
    if obj.get("dead"):
        raise RowRejected("dead (flagged) item")
    kind = obj.get("type") or "story"
    sid = str(obj.get("id") or "")
    title = obj.get("title") or ""
    text = html_to_text(obj.get("text")) or title
    meta = extra_fields(obj, {"id", "title", "text", "url", "by", "time"})
    meta["hnType"] = kind
    meta["hnUrl"] = f"https://news.ycombinator.com/item?id={sid}"
    if obj.get("url"):
        meta["linkUrl"] = obj["url"]
    return {
        "sourceId": sid or None,
        "title": title,
        "contentText": text,
        "url": obj.get("url") or meta["hnUrl"],
        "author": obj.get("by") or "",
        "publishedAt": obj.get("time"),
        "contentType": "comment" if kind in ("comment", "pollopt") else "post",
        "language": "en",
        "metadata": meta,
    }


CONVERTERS = {"pushshift": pushshift_to_record, "bluesky": bluesky_to_record,
              "hackernews": hackernews_to_record}


def import_dump(corpus, path, kind: str | None = None, topic: str | None = None,
                strict: bool = False, progress: bool = False) -> ImportReport:
    """Import one dump file; ``kind`` is detected from the first objects when omitted."""
    path = Path(path)
    if not path.exists():
        raise ImportFormatError(f"{path}: no such file")
    if path.is_dir():
        raise ImportFormatError(f"{path}: is a directory")
    if kind is not None and kind not in KINDS:
        raise ImportFormatError(f"unknown dump kind {kind!r}; expected one of {', '.join(KINDS)}")
    if kind is None:
        for _, obj in _first(iter_objects(path), 50):
            kind = detect_kind(obj) if isinstance(obj, dict) else None
            if kind:
                break
        if kind is None:
            raise ImportFormatError(
                f"{path}: not a known dump (Pushshift NDJSON, Bluesky firehose JSONL or "
                "Hacker News items JSON); pass --kind")
    convert = CONVERTERS[kind]

    def rows():
        for number, obj in iter_objects(path):
            if isinstance(obj, RowRejected):
                yield number, obj
                continue
            try:
                yield number, convert(obj)
            except RowRejected as exc:
                yield number, exc

    report = import_rows(corpus, rows(), source=SOURCES[kind], topic=topic, strict=strict,
                         progress=progress, label=str(path), stage="import",
                         settings={"path": str(path), "dump": kind, "topic": topic,
                                   "strict": strict})
    report.layout = f"{kind}_dump"
    return report


def _first(iterator, n: int):
    for i, item in enumerate(iterator):
        if i >= n:
            break
        yield item
