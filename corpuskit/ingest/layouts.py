"""Known input layouts: how the columns of common exports map to record fields.

A layout is recognised from the set of columns it has; ``--map FIELD=COLUMN``
overrides or completes any of them. Columns a layout does not map are kept
in the record's ``metadata``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from corpuskit.errors import ImportFormatError
from corpuskit.ingest.export_columns import DERIVED_RECORD_COLUMNS
from corpuskit.ingest.records import RECORD_FIELDS

#: the platform JSON formats recognised by their keys (see :mod:`corpuskit.ingest.platforms`)
JSON_FORMATS = ("twitter_v1", "twitter_v2", "pushshift", "bluesky", "mastodon", "telegram",
                "youtube")


@dataclass(frozen=True)
class Layout:
    """A named column layout: which columns identify it and how they map."""

    name: str
    required: frozenset
    mapping: dict                       # record field -> column, or a tuple of columns (first present)
    source: str | None = None           # implied source kind
    derive: tuple = field(default=())   # extra derivations, see apply_layout
    needs: tuple = field(default=())    # groups of columns: each group needs one of its columns
    ignored: frozenset = field(default=frozenset())   # columns read by no field, kept nowhere

    def matches(self, columns) -> bool:
        columns = set(columns)
        return self.required <= columns and all(not columns.isdisjoint(group) for group in self.needs)

    def resolve(self, columns) -> dict:
        """``{field: column}`` for a file with these columns: each field's first column present."""
        resolved = {}
        for fld, candidates in self.mapping.items():
            for column in (candidates if isinstance(candidates, tuple) else (candidates,)):
                if column in columns:
                    resolved[fld] = column
                    break
        return resolved

    @cached_property
    def _plan(self) -> tuple:
        """``(mapping items, columns a row may have without leaving extras, corpuskit export?)``."""
        corpuskit = self.name.startswith("corpuskit")
        used = set(self.mapping.values()) | self.ignored
        if corpuskit:
            used.update(_CORPUSKIT_KEPT + _CORPUSKIT_DERIVED)
        return tuple(self.mapping.items()), frozenset(used), corpuskit


# the corpuskit export's own columns beside the record fields, and the enrichment it writes
# beside the record (derived, not imported)
_CORPUSKIT_KEPT = ("source", "capturedAt", "topic", "metadata")
_CORPUSKIT_DERIVED = DERIVED_RECORD_COLUMNS


# the common names of a record's text, time and id columns, in the order they are preferred
TEXT_COLUMNS = ("text", "full_text", "body", "content")
TIME_COLUMNS = ("date", "created_at", "timestamp", "timestamp_ms", "published_at", "time")
ID_COLUMNS = ("id", "status_id", "tweet_id", "post_id")

LAYOUTS = (
    Layout("corpuskit", frozenset({"source", "contentText", "publishedAt"}),
           {f: f for f in RECORD_FIELDS}),
    Layout("hackernews_csv", frozenset({"id", "title", "url", "num_points", "num_comments",
                                        "author", "created_at"}),
           {"sourceId": "id", "title": "title", "url": "url", "author": "author",
            "publishedAt": "created_at"}, source="hackernews", derive=("hn_url",)),
    Layout("reddit_csv", frozenset({"id", "subreddit", "author", "timestamp", "title"}),
           {"sourceId": "id", "title": "title", "author": "author", "publishedAt": "timestamp",
            "subreddit": "subreddit", "language": "subreddit_language"},
           source="reddit", derive=("reddit_url",)),
    Layout("pushshift_submission", frozenset({"id", "subreddit", "author", "created_utc", "title"}),
           {"sourceId": "id", "title": "title", "contentText": "selftext", "author": "author",
            "publishedAt": "created_utc", "subreddit": "subreddit", "url": "url",
            "language": "lang"},
           source="reddit", derive=("reddit_url",)),
    Layout("twitter_export", frozenset({"id", "date", "text", "user_name"}),
           {"sourceId": "id", "contentText": "text", "author": "user_name", "publishedAt": "date"},
           source="twitter", derive=("tweet_url",)),
    # 4CAT's CSV export (any data source): its common columns, and the engagement columns of
    # the data sources that have them; 4CAT does not name the platform, so --source does
    Layout("4cat_csv", frozenset({"id", "thread_id", "body", "author", "timestamp"}),
           {"sourceId": "id", "contentText": "body", "title": "subject", "author": "author",
            "publishedAt": "timestamp", "url": "url", "subreddit": "subreddit",
            "language": ("language_guess", "lang", "language"),
            "likes": ("like_count", "likes"), "reposts": ("retweet_count", "retweets", "reposts"),
            "replies": ("reply_count", "replies"), "quotes": ("quote_count", "quotes"),
            "views": ("views", "view_count"), "isRepost": ("is_retweet", "is_repost")},
           ignored=frozenset({"unix_timestamp"})),
    # a plain file named with common column names (the last resort before --map)
    # (rtweet and Twitter API v1.1 flattened exports: full_text, status_id, screen_name, created_at)
    Layout("common_names", frozenset(),
           {"sourceId": ID_COLUMNS, "contentText": TEXT_COLUMNS,
            "title": "title",
            "publishedAt": TIME_COLUMNS,
            "author": ("author", "user", "username", "screen_name", "user_screen_name"), "url": "url",
            "language": ("language", "lang"),
            "likes": ("likes", "like_count", "favorite_count", "favourites_count"),
            "reposts": ("reposts", "retweets", "retweet_count", "shares", "reblogs_count"),
            "replies": ("replies", "reply_count", "replies_count"),
            "quotes": ("quotes", "quote_count"), "views": ("views", "view_count"),
            "replyTo": ("reply_to", "in_reply_to", "parent_id"), "isRepost": ("is_repost", "is_retweet")},
           needs=(TEXT_COLUMNS, TIME_COLUMNS)),
)


def parse_map(items) -> dict:
    """Parse ``["FIELD=COLUMN", ...]`` into ``{field: column}``, checking field names."""
    mapping = {}
    for item in items or ():
        if "=" not in item:
            raise ImportFormatError(f"--map {item!r}: expected FIELD=COLUMN")
        fld, column = (part.strip() for part in item.split("=", 1))
        if fld not in RECORD_FIELDS:
            raise ImportFormatError(
                f"--map {item!r}: unknown field {fld!r}; fields are {', '.join(RECORD_FIELDS)}"
            )
        if not column:
            raise ImportFormatError(f"--map {item!r}: empty column name")
        mapping[fld] = column
    return mapping


def detect_layout(columns, mapping: dict | None = None) -> Layout:
    """The layout for these columns, with ``mapping`` applied on top.

    Raises :class:`ImportFormatError` when no layout matches and the mapping
    does not name at least the text and date columns, or names a missing column.
    """
    columns = list(columns)
    mapping = dict(mapping or {})
    missing = [c for c in mapping.values() if c not in columns]
    if missing:
        raise ImportFormatError(
            f"--map names column(s) not in the file: {', '.join(missing)}; "
            f"columns are: {', '.join(columns)}"
        )
    for layout in LAYOUTS:
        if layout.matches(columns):
            merged = layout.resolve(columns)
            merged.update(mapping)
            return Layout(layout.name + ("+map" if mapping else ""), layout.required, merged,
                          layout.source, layout.derive, ignored=layout.ignored)
    if ("contentText" in mapping or "title" in mapping) and "publishedAt" in mapping:
        return Layout("custom", frozenset(mapping.values()), mapping)
    raise ImportFormatError(
        _missing_roles(columns) + ". Recognised formats: "
        + ", ".join(layout.name for layout in LAYOUTS)
        + " (CSV, JSON lines, Parquet), and the JSON of " + ", ".join(JSON_FORMATS)
        + ". Name the columns with --map FIELD=COLUMN (at least contentText or title, and "
        "publishedAt), e.g. --map contentText=message --map publishedAt=posted"
    )


def _missing_roles(columns) -> str:
    """Which roles (text, time) no column of the file fills, and the names each role is known by."""
    present = set(columns)
    roles = [("text", TEXT_COLUMNS), ("time", TIME_COLUMNS)]
    missing = [f"no {role} column (looked for {', '.join(names)})" for role, names in roles
               if present.isdisjoint(names)]
    return "cannot tell which column holds the record's " + " and ".join(
        role for role, names in roles if present.isdisjoint(names)) + ": " + "; ".join(missing) + \
        ". The file's columns are: " + ", ".join(columns)


def apply_layout(layout: Layout, row: dict) -> dict:
    """Turn one input row into a raw record dict (not yet normalised)."""
    items, used, corpuskit = layout._plan
    get = row.get
    raw = {fld: get(column) for fld, column in items}
    if corpuskit:
        for key in _CORPUSKIT_KEPT:
            if key in row:
                raw[key] = row[key]
    # columns the layout does not use go to metadata (none, in the common case)
    extra = None if row.keys() <= used else \
        {k: _plain(v) for k, v in row.items() if k not in used and not _blank(v)}
    if extra:
        meta = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
        raw["metadata"] = {**extra, **meta}
    sid = raw.get("sourceId")
    if isinstance(sid, float) and sid == int(sid):
        raw["sourceId"] = str(int(sid))
    if "hn_url" in layout.derive and sid and _blank(raw.get("url")):
        raw["url"] = f"https://news.ycombinator.com/item?id={raw['sourceId']}"
    if "reddit_url" in layout.derive and sid and _blank(raw.get("url")):
        permalink = row.get("permalink")
        raw["url"] = (f"https://www.reddit.com{permalink}" if permalink
                      else f"https://www.reddit.com/comments/{raw['sourceId']}")
    if "tweet_url" in layout.derive and sid and _blank(raw.get("url")):
        raw["url"] = tweet_url(raw["sourceId"], _handle(row))
    return raw


# columns that hold a tweet author's @handle in common exports (the display name,
# e.g. `user_name` "Rachel Roh", is not a handle and makes no URL)
HANDLE_COLUMNS = ("user_screen_name", "screen_name", "user_username", "username", "user_handle",
                  "handle")
_HANDLE = re.compile(r"^@?([A-Za-z0-9_]{1,15})$")


def tweet_url(tweet_id, handle: str | None = None) -> str:
    """``https://twitter.com/HANDLE/status/ID``, or ``https://twitter.com/i/web/status/ID``
    when the handle is unknown or not a valid handle (1-15 letters, digits, ``_``)."""
    match = _HANDLE.match(handle.strip()) if isinstance(handle, str) else None
    who = match.group(1) if match else "i/web"
    return f"https://twitter.com/{who}/status/{tweet_id}"


def _handle(row: dict) -> str | None:
    for column in HANDLE_COLUMNS:
        value = row.get(column)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _blank(value) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == ""


def _plain(value):
    """JSON-friendly version of a cell (numpy scalars, timestamps)."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            pass
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
