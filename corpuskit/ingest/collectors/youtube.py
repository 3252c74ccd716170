"""YouTube videos through the Data API v3 (``search`` then ``videos``).

``/search?part=snippet&type=video&order=date&q=...&publishedAfter=...&maxResults=50``
answers ``{nextPageToken, pageInfo, items: [{id: {videoId}, snippet}]}``;
``/videos?part=snippet,statistics,contentDetails&id=a,b,...`` adds the full
description, tags, language, view/like/comment counts and duration. The key
comes from ``YOUTUBE_API_KEY`` (or ``api_key=``); it never appears in errors.
A search costs 100 quota units of the default 10,000 per day.
"""
from __future__ import annotations

import html

from corpuskit.clock import iso
from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors.base import Collector, Walk

WATCH_URL = "https://www.youtube.com/watch?v={}"


class YouTubeCollector(Collector):
    """Videos matching ``query``, newest first."""

    name = "youtube"
    default_base_url = "https://www.googleapis.com/youtube/v3"
    default_page_size = 50
    min_interval = 0.2

    def __init__(self, query: str = "", api_key: str | None = None,
                 region: str | None = None, **kwargs):
        super().__init__(query=query, **kwargs)
        self.api_key = api_key
        self.region = region

    def _key(self) -> str:
        key = self.api_key
        if not key:
            raise CollectorError(
                "youtube: no API key; pass api_key= or, with the corpuskit command, set the "
                "environment variable YOUTUBE_API_KEY (a YouTube Data API v3 key from console.cloud.google.com)"
            )
        return key

    def _check(self) -> None:
        super()._check()
        self._key()

    def pages(self, client, walk: Walk):
        base = self.resolved_base_url()
        key = self._key()
        token = None
        while True:
            params = {"part": "snippet", "type": "video", "order": "date", "q": walk.query,
                      "maxResults": min(walk.page_size, 50), "pageToken": token,
                      "regionCode": self.region, "key": key,
                      "publishedAfter": iso(walk.lower) if walk.lower is not None else None}
            answer = client.get_json(base + "/search", params)
            if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
                raise ValueError("the search answer has no 'items' list")
            ids = [item["id"]["videoId"] for item in answer["items"]
                   if isinstance(item.get("id"), dict) and item["id"].get("videoId")]
            details = {}
            if ids:
                more = client.get_json(base + "/videos", {
                    "part": "snippet,statistics,contentDetails", "id": ",".join(ids), "key": key})
                details = {v.get("id"): v for v in (more.get("items") or [])}
            records = []
            for item in answer["items"]:
                vid = (item.get("id") or {}).get("videoId")
                if vid:
                    records.append(video_to_record(vid, item.get("snippet") or {}, details.get(vid)))
            yield records
            previous, token = token, answer.get("nextPageToken")
            if not token or token == previous or not answer["items"]:
                return


def video_to_record(video_id: str, snippet: dict, detail: dict | None = None) -> dict:
    """A video as a raw record, from its search snippet and (when given) its videos resource."""
    detail = detail or {}
    full = detail.get("snippet") or snippet
    stats = detail.get("statistics") or {}
    language = full.get("defaultLanguage") or full.get("defaultAudioLanguage") or ""
    meta = {
        "channelId": full.get("channelId"),
        "channelTitle": full.get("channelTitle"),
        "tags": full.get("tags"),
        "categoryId": full.get("categoryId"),
        "duration": (detail.get("contentDetails") or {}).get("duration"),
        "liveBroadcastContent": full.get("liveBroadcastContent"),
        "defaultAudioLanguage": full.get("defaultAudioLanguage"),
    }
    for key in ("viewCount", "likeCount", "commentCount"):
        if stats.get(key) is not None:
            meta[key] = int(stats[key])
    title = full.get("title") or ""
    description = full.get("description") or ""
    if not detail:   # search snippets carry HTML-escaped text (&#39;), the videos resource does not
        title, description = html.unescape(title), html.unescape(description)
    return {
        "sourceId": video_id,
        "title": title,
        "contentText": description or title,
        "url": WATCH_URL.format(video_id),
        "author": full.get("channelTitle") or "",
        "publishedAt": full.get("publishedAt"),
        "language": language.split("-")[0].lower() or None,
        "contentType": "video",
        "views": meta.get("viewCount"), "likes": meta.get("likeCount"),
        "replies": meta.get("commentCount"),
        "metadata": {k: v for k, v in meta.items() if v not in (None, "", [])},
    }
