"""News headlines through the Google News RSS search feed, parsed with feedparser.

``/rss/search?q=...&hl=en-US&gl=US&ceid=US:en`` answers an RSS 2.0 channel
whose items have ``title`` ("Headline - Publisher"), ``link``, ``guid``,
``pubDate`` (RFC 822), ``description`` (HTML) and ``source url=...``
(the publisher). The feed has no pages (about 100 items); a rerun keeps only
items newer than the last one stored.
"""
from __future__ import annotations

import calendar

import feedparser

from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors.base import Collector, Walk
from corpuskit.text.markup import html_to_text


class GoogleNewsCollector(Collector):
    """Headlines matching ``query`` in the edition given by ``hl``/``gl``."""

    name = "google_news"
    default_base_url = "https://news.google.com/rss/search"
    min_interval = 2.0

    def __init__(self, query: str = "", hl: str = "en-US", gl: str = "US", **kwargs):
        super().__init__(query=query, **kwargs)
        self.hl = hl
        self.gl = gl

    def state_key(self) -> str:
        key = super().state_key()
        return key if (self.hl, self.gl) == ("en-US", "US") else f"{key} [{self.hl},{self.gl}]"

    def pages(self, client, walk: Walk):
        url = self.resolved_base_url()
        language = self.hl.split("-")[0].lower()
        params = {"q": walk.query, "hl": self.hl, "gl": self.gl,
                  "ceid": f"{self.gl}:{language}"}
        body = client.get(url, params, accept="application/rss+xml, application/xml")
        feed = feedparser.parse(body)
        if feed.bozo and not feed.entries:
            raise CollectorError(f"{self.name}: malformed RSS from {url}: {feed.bozo_exception}")
        if not feed.entries and "rss" not in (feed.version or ""):
            raise CollectorError(f"{self.name}: the answer from {url} is not an RSS feed")
        records = [entry_to_record(e, language) for e in feed.entries]
        records.sort(key=lambda r: r["publishedAt"] or "", reverse=True)
        yield records


def entry_to_record(entry, language: str = "en") -> dict:
    """One feed item as a raw record."""
    source = entry.get("source") or {}
    publisher = source.get("title") or ""
    title = (entry.get("title") or "").strip()
    suffix = f" - {publisher}"
    if publisher and title.endswith(suffix):
        title = title[: -len(suffix)].strip()
    parsed = entry.get("published_parsed") or entry.get("updated_parsed")
    published = calendar.timegm(parsed) if parsed else entry.get("published")
    description = html_to_text(entry.get("summary"))
    text = description if description and description != f"{title} {publisher}".strip() else title
    meta = {"publisher": publisher, "publisherUrl": source.get("href"),
            "guid": entry.get("id"), "feedTitle": entry.get("title")}
    return {
        "sourceId": entry.get("id") or entry.get("link"),
        "title": title,
        "contentText": text,
        "url": entry.get("link") or "",
        "author": publisher,
        "publishedAt": published,
        "language": language,
        "contentType": "article",
        "metadata": {k: v for k, v in meta.items() if v},
    }
