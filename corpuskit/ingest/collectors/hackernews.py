"""Hacker News through the Algolia search API (``search_by_date``).

Documented at https://hn.algolia.com/api. Answers ``{hits, page, nbPages,
hitsPerPage, nbHits}``, hits newest first; each hit has ``objectID``,
``created_at_i`` (unix seconds), ``title``/``url``/``author``/``points``/
``num_comments`` for stories and ``comment_text``/``story_id``/``parent_id``
for comments. A rerun asks only for ``created_at_i > newest`` through
``numericFilters``. Algolia's limit is generous (10,000 requests per hour per IP).
"""
from __future__ import annotations

from corpuskit.ingest.collectors.base import Collector, Walk
from corpuskit.text.markup import html_to_text

ITEM_URL = "https://news.ycombinator.com/item?id={}"


class HackerNewsCollector(Collector):
    """Stories (and optionally comments) matching ``query``.

    ``tags`` is Algolia's tag filter: ``story`` (default), ``comment``,
    ``(story,comment)``, ``show_hn``, ``ask_hn``... An empty query with tags
    collects everything new with those tags.
    """

    name = "hackernews"
    default_base_url = "https://hn.algolia.com/api/v1"
    default_page_size = 100
    min_interval = 0.4
    query_required = False

    def __init__(self, query: str = "", tags: str = "story", **kwargs):
        super().__init__(query=query, **kwargs)
        self.tags = tags

    def state_key(self) -> str:
        key = super().state_key()
        return key if self.tags == "story" else f"{key} [tags={self.tags}]"

    def pages(self, client, walk: Walk):
        url = self.resolved_base_url() + "/search_by_date"
        page = 0
        while True:
            params = {"query": walk.query, "tags": self.tags, "hitsPerPage": walk.page_size,
                      "page": page}
            if walk.lower is not None:
                params["numericFilters"] = f"created_at_i>={int(walk.lower.timestamp())}"
            answer = client.get_json(url, params)
            if not isinstance(answer, dict) or not isinstance(answer.get("hits"), list):
                raise ValueError(f"answer from {url} has no 'hits' list")
            yield [hit_to_record(hit) for hit in answer["hits"]]
            page += 1
            if not answer["hits"] or page >= int(answer.get("nbPages", 0)):
                return


def hit_to_record(hit: dict) -> dict:
    """One Algolia hit as a raw record."""
    tags = list(hit.get("_tags") or [])
    is_comment = "comment" in tags or (hit.get("comment_text") and not hit.get("title"))
    sid = str(hit.get("objectID") or hit.get("story_id") or "")
    if is_comment:
        title = ""
        text = html_to_text(hit.get("comment_text"))
        url = ITEM_URL.format(sid)
    else:
        title = (hit.get("title") or "").strip()
        text = html_to_text(hit.get("story_text")) or title
        url = hit.get("url") or ITEM_URL.format(sid)
    meta = {
        "points": hit.get("points"),
        "numComments": hit.get("num_comments"),
        "tags": tags,
        "hnUrl": ITEM_URL.format(sid),
    }
    for key, name in (("story_id", "storyId"), ("parent_id", "parentId"),
                      ("story_title", "storyTitle"), ("story_url", "storyUrl")):
        if hit.get(key) not in (None, ""):
            meta[name] = hit[key]
    if not is_comment and hit.get("url"):
        meta["linkUrl"] = hit["url"]
    return {
        "sourceId": sid,
        "title": title,
        "contentText": text,
        "url": url,
        "author": hit.get("author") or "",
        "publishedAt": hit.get("created_at_i") if hit.get("created_at_i") is not None
        else hit.get("created_at"),
        "contentType": "comment" if is_comment else "post",
        "language": "en",
        "metadata": {k: v for k, v in meta.items() if v is not None},
    }
