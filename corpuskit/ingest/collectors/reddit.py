"""Reddit through the public listing JSON of named subreddits (``/r/<subs>/new.json``).

The query names subreddits, joined with ``+`` as on Reddit itself
(``science+technology``); an ``r/`` prefix and spaces or commas are accepted.
A listing is ``{kind: Listing, data: {after, children: [{kind: t3, data:
{id, name, subreddit, title, selftext, author, created_utc, permalink, url,
score, num_comments, upvote_ratio, ...}}]}}``, newest first; the next page is
asked with ``after=<name of the last post>``. Unauthenticated clients are
allowed about 10 requests a minute, hence the 6 s spacing.
"""
from __future__ import annotations

import re

from corpuskit.errors import ValidationError
from corpuskit.ingest.collectors.base import Collector, Walk

_SUB = re.compile(r"^[A-Za-z0-9_]{2,21}$")
_REMOVED = {"[deleted]", "[removed]"}


def parse_subreddits(query: str) -> list[str]:
    """``"r/science, technology"`` or ``"science+technology"`` -> ``["science", "technology"]``."""
    names = []
    for part in re.split(r"[+,\s]+", query or ""):
        part = part.strip()
        if part.lower().startswith("r/"):
            part = part[2:]
        if not part:
            continue
        if not _SUB.match(part):
            raise ValidationError(f"reddit: {part!r} is not a subreddit name")
        if part.lower() not in [n.lower() for n in names]:
            names.append(part)
    return names


class RedditCollector(Collector):
    """New posts of the subreddits named in ``query`` (``science+technology``)."""

    name = "reddit"
    default_base_url = "https://www.reddit.com"
    default_page_size = 100
    min_interval = 6.0

    def state_key(self) -> str:
        return "+".join(sorted(n.lower() for n in parse_subreddits(self.query)))

    def pages(self, client, walk: Walk):
        subs = "+".join(parse_subreddits(self.query))
        url = f"{self.resolved_base_url()}/r/{subs}/new.json"
        after = None
        while True:
            answer = client.get_json(url, {"limit": walk.page_size, "after": after, "raw_json": 1})
            data = answer.get("data") if isinstance(answer, dict) else None
            if not isinstance(data, dict) or not isinstance(data.get("children"), list):
                raise ValueError(f"answer from {url} is not a Reddit listing")
            yield [post_to_record(child.get("data") or {}) for child in data["children"]
                   if child.get("kind") == "t3"]
            previous, after = after, data.get("after")
            if not after or after == previous or not data["children"]:
                return


def post_to_record(post: dict) -> dict:
    """One Reddit post (``t3`` data) as a raw record."""
    selftext = post.get("selftext") or ""
    if selftext.strip() in _REMOVED:
        selftext = ""
    permalink = post.get("permalink") or ""
    meta = {k: post.get(k) for k in ("score", "num_comments", "upvote_ratio", "over_18",
                                     "link_flair_text", "domain", "is_self", "name",
                                     "subreddit_id", "stickied", "locked") if post.get(k) is not None}
    if post.get("url") and not post.get("is_self"):
        meta["linkUrl"] = post["url"]
    return {
        "sourceId": post.get("id"),
        "title": post.get("title") or "",
        "contentText": selftext or post.get("title") or "",
        "url": f"https://www.reddit.com{permalink}" if permalink
        else f"https://www.reddit.com/comments/{post.get('id')}",
        "author": post.get("author") or "",
        "publishedAt": post.get("created_utc"),
        "subreddit": post.get("subreddit"),
        "contentType": "post",
        "metadata": meta,
    }
