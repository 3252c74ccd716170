"""Bluesky through the public AppView's post search (``app.bsky.feed.searchPosts``).

Answers ``{cursor, hitsTotal, posts: [PostView]}``; a PostView has ``uri``
(``at://<did>/app.bsky.feed.post/<rkey>``), ``cid``, ``author {did, handle,
displayName}``, ``record {text, createdAt, langs, reply, embed}``,
``replyCount/repostCount/likeCount/quoteCount`` and ``indexedAt``. Asked
with ``sort=latest`` and ``since=<newest>``; paged by ``cursor``.
"""
from __future__ import annotations

from corpuskit.clock import iso
from corpuskit.ingest.collectors.base import Collector, Walk


def post_url(handle_or_did: str, uri: str) -> str:
    """The bsky.app address of a post from its author and AT URI."""
    rkey = uri.rsplit("/", 1)[-1]
    return f"https://bsky.app/profile/{handle_or_did}/post/{rkey}"


class BlueskyCollector(Collector):
    """Posts matching ``query`` (Bluesky's search syntax), newest first."""

    name = "bluesky"
    default_base_url = "https://public.api.bsky.app"
    default_page_size = 100
    min_interval = 1.0

    def __init__(self, query: str = "", lang: str | None = None, **kwargs):
        super().__init__(query=query, **kwargs)
        self.lang = lang

    def state_key(self) -> str:
        key = super().state_key()
        return f"{key} [lang={self.lang}]" if self.lang else key

    def pages(self, client, walk: Walk):
        url = self.resolved_base_url() + "/xrpc/app.bsky.feed.searchPosts"
        cursor = None
        while True:
            params = {"q": walk.query, "sort": "latest", "limit": walk.page_size,
                      "cursor": cursor, "lang": self.lang,
                      "since": iso(walk.lower) if walk.lower is not None else None}
            answer = client.get_json(url, params)
            if not isinstance(answer, dict) or not isinstance(answer.get("posts"), list):
                raise ValueError(f"answer from {url} has no 'posts' list")
            yield [post_to_record(p) for p in answer["posts"]]
            previous, cursor = cursor, answer.get("cursor")
            if not cursor or cursor == previous or not answer["posts"]:
                return


def quoted_uri(embed) -> str | None:
    """The AT URI a post's embed quotes (``app.bsky.embed.record`` or ``recordWithMedia``), or None."""
    if not isinstance(embed, dict) or not str(embed.get("$type", "")).startswith("app.bsky.embed.record"):
        return None
    inner = embed.get("record")
    if isinstance(inner, dict) and isinstance(inner.get("record"), dict):   # recordWithMedia
        inner = inner["record"]
    return inner.get("uri") if isinstance(inner, dict) else None


def post_to_record(post: dict) -> dict:
    """One PostView as a raw record."""
    record = post.get("record") or {}
    author = post.get("author") or {}
    uri = post.get("uri") or ""
    langs = record.get("langs") or []
    meta = {
        "did": author.get("did"),
        "handle": author.get("handle"),
        "displayName": author.get("displayName"),
        "cid": post.get("cid"),
        "indexedAt": post.get("indexedAt"),
        "langs": langs,
    }
    for key in ("replyCount", "repostCount", "likeCount", "quoteCount"):
        if post.get(key) is not None:
            meta[key] = post[key]
    reply = record.get("reply") or {}
    if reply:
        meta["replyParent"] = (reply.get("parent") or {}).get("uri")
        meta["replyRoot"] = (reply.get("root") or {}).get("uri")
    embed = record.get("embed") or {}
    if embed.get("$type"):
        meta["embedType"] = embed["$type"]
    return {
        "sourceId": uri,
        "title": "",
        "contentText": record.get("text") or "",
        "likes": post.get("likeCount"), "reposts": post.get("repostCount"),
        "replies": post.get("replyCount"), "quotes": post.get("quoteCount"),
        "replyTo": (reply.get("parent") or {}).get("uri") if reply else None,
        "quoteOf": quoted_uri(embed),
        "url": post_url(author.get("handle") or author.get("did") or "", uri),
        "author": author.get("handle") or author.get("did") or "",
        "publishedAt": record.get("createdAt") or post.get("indexedAt"),
        "language": langs[0].split("-")[0].lower() if langs else None,
        "contentType": "comment" if reply else "post",
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }
