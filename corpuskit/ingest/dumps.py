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
number and reason; ``strict=True`` aborts on the first one, writing nothing.
Fields a dump has beyond the record model are kept in ``metadata``
(scalars and short lists; large nested blobs such as media previews are dropped).
"""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

from corpuskit.errors import ImportFormatError, RowRejected
from corpuskit.ingest.collectors.markup import html_to_text
from corpuskit.ingest.importers import ImportReport, import_rows

KINDS = ("pushshift", "bluesky", "hackernews")
SOURCES = {"pushshift": "reddit", "bluesky": "bluesky", "hackernews": "hackernews"}
POST = "app.bsky.feed.post"
_REMOVED = {"[deleted]", "[removed]"}
_ZSTD_WINDOW = 2 ** 31


def open_text(path: Path):
    """A text stream over ``path``, decompressing ``.zst`` and ``.gz``."""
    suffix = path.suffix.lower()
    if suffix == ".zst":
        import zstandard

        raw = open(path, "rb")
        reader = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW).stream_reader(
            raw, closefd=True)
        return io.TextIOWrapper(reader, encoding="utf-8", errors="replace")
    if suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8-sig", errors="replace")


def iter_objects(path: Path):
    """``(line number, object)`` for every object of an NDJSON file or JSON array.

    A malformed line yields a :class:`RowRejected` in place of the object.
    """
    try:
        with open_text(path) as fh:
            head = ""
            while True:
                char = fh.read(1)
                if not char or not char.isspace():
                    head = char
                    break
        if head == "[":
            with open_text(path) as fh:
                try:
                    data = json.load(fh)
                except json.JSONDecodeError as exc:
                    raise ImportFormatError(f"{path}: not valid JSON: {exc}") from exc
            for number, obj in enumerate(data, start=1):
                yield number, obj if isinstance(obj, dict) else RowRejected("not a JSON object")
            return
        with open_text(path) as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    yield number, RowRejected("malformed JSON line")
                    continue
                yield number, obj if isinstance(obj, dict) else RowRejected("not a JSON object")
    except ImportFormatError:
        raise
    except Exception as exc:  # zstandard/gzip errors: a corrupt or truncated archive
        if exc.__class__.__module__.startswith(("zstandard", "gzip")) or isinstance(
                exc, (EOFError, gzip.BadGzipFile)):
            raise ImportFormatError(f"{path}: cannot decompress: {exc}") from exc
        raise


def detect_kind(obj: dict) -> str | None:
    """The dump kind of one object, or None."""
    if not isinstance(obj, dict):
        return None
    if "subreddit" in obj and "created_utc" in obj and ("title" in obj or "body" in obj):
        return "pushshift"
    if isinstance(obj.get("commit"), dict) or obj.get("$type") == POST or \
            str(obj.get("uri", "")).startswith("at://") or \
            (isinstance(obj.get("record"), dict) and ("repo" in obj or "did" in obj)) or \
            (("did" in obj or "repo" in obj) and "rkey" in obj):
        return "bluesky"
    if "id" in obj and "type" in obj and ("time" in obj or obj.get("deleted")):
        return "hackernews"
    return None


def _extra(obj: dict, used) -> dict:
    extra = {}
    for key, value in obj.items():
        if key in used or value is None or value == "":
            continue
        if isinstance(value, (str, int, float, bool)):
            extra[key] = value
        elif isinstance(value, list) and len(value) <= 50 and all(
                isinstance(v, (str, int, float, bool)) for v in value):
            extra[key] = value
    return extra


# -- Pushshift ------------------------------------------------------------------
def pushshift_to_record(obj: dict) -> dict:
    """A Pushshift submission or comment as a raw record."""
    if "body" in obj and "title" not in obj:
        body = (obj.get("body") or "").strip()
        if body in _REMOVED:
            raise RowRejected(f"comment body is {body}")
        cid = str(obj.get("id") or "")
        link = str(obj.get("link_id") or "")
        permalink = obj.get("permalink")
        url = (f"https://www.reddit.com{permalink}" if permalink else
               f"https://www.reddit.com/comments/{link[3:]}/_/{cid}" if link.startswith("t3_") else "")
        used = {"id", "body", "author", "created_utc", "subreddit", "permalink"}
        return {
            "sourceId": f"t1_{cid}" if cid else None,
            "title": "",
            "contentText": body,
            "url": url,
            "author": obj.get("author") or "",
            "publishedAt": obj.get("created_utc"),
            "subreddit": obj.get("subreddit"),
            "contentType": "comment",
            "metadata": _extra(obj, used),
        }
    selftext = (obj.get("selftext") or "").strip()
    if selftext in _REMOVED:
        selftext = ""
    sid = str(obj.get("id") or "")
    permalink = obj.get("permalink")
    used = {"id", "title", "selftext", "author", "created_utc", "subreddit", "permalink", "url"}
    meta = _extra(obj, used)
    if obj.get("url") and not obj.get("is_self"):
        meta["linkUrl"] = obj["url"]
    return {
        "sourceId": sid or None,
        "title": obj.get("title") or "",
        "contentText": selftext or obj.get("title") or "",
        "url": f"https://www.reddit.com{permalink}" if permalink
        else (f"https://www.reddit.com/comments/{sid}" if sid else ""),
        "author": obj.get("author") or "",
        "publishedAt": obj.get("created_utc"),
        "subreddit": obj.get("subreddit"),
        "contentType": "post",
        "metadata": meta,
    }


# -- Bluesky ----------------------------------------------------------------------
def bluesky_to_record(obj: dict) -> dict:
    """A firehose post line (Jetstream, repo operation or flat) as a raw record."""
    commit = obj.get("commit") if isinstance(obj.get("commit"), dict) else None
    if commit is not None:
        did = obj.get("did")
        operation = commit.get("operation") or "create"
        collection, rkey = commit.get("collection"), commit.get("rkey")
        record, cid = commit.get("record") or {}, commit.get("cid")
    else:
        did = obj.get("repo") or obj.get("did")
        operation = obj.get("action") or obj.get("operation") or "create"
        collection, rkey = obj.get("collection"), obj.get("rkey")
        if obj.get("path"):
            collection, _, rkey = str(obj["path"]).partition("/")
        uri = str(obj.get("uri") or "")
        if uri.startswith("at://"):
            parts = uri[5:].split("/")
            if len(parts) == 3:
                did, collection, rkey = did or parts[0], collection or parts[1], rkey or parts[2]
        record = obj.get("record") if isinstance(obj.get("record"), dict) else obj
        cid = obj.get("cid")
    collection = collection or record.get("$type") or POST
    if operation not in ("create", "update"):
        raise RowRejected(f"not a post creation (operation {operation!r})")
    if collection != POST:
        raise RowRejected(f"not a post (collection {collection!r})")
    if not did or not rkey:
        raise RowRejected("no repo DID or rkey")
    langs = record.get("langs") or []
    handle = obj.get("handle") or (obj.get("author") if isinstance(obj.get("author"), str) else None)
    reply = record.get("reply") or {}
    meta = {"did": did, "rkey": rkey, "cid": cid, "langs": langs, "handle": handle,
            "timeUs": obj.get("time_us"),
            "replyParent": (reply.get("parent") or {}).get("uri") if reply else None,
            "replyRoot": (reply.get("root") or {}).get("uri") if reply else None,
            "embedType": (record.get("embed") or {}).get("$type")}
    return {
        "sourceId": f"at://{did}/{POST}/{rkey}",
        "title": "",
        "contentText": record.get("text") or "",
        "url": f"https://bsky.app/profile/{handle or did}/post/{rkey}",
        "author": handle or did,
        "publishedAt": record.get("createdAt"),
        "language": langs[0].split("-")[0].lower() if langs else None,
        "contentType": "comment" if reply else "post",
        "metadata": {k: v for k, v in meta.items() if v not in (None, "", [])},
    }


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
    meta = _extra(obj, {"id", "title", "text", "url", "by", "time"})
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
