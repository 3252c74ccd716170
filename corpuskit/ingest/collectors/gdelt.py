"""News articles through the GDELT DOC 2.0 API, article list mode.

``/api/v2/doc/doc?query=...&mode=artlist&format=json&sort=datedesc&maxrecords=250``
answers ``{articles: [{url, url_mobile, title, seendate (YYYYMMDDTHHMMSSZ),
socialimage, domain, language (an English name), sourcecountry}]}`` (``{}``
when nothing matches, a plain-text message when the query is refused).
There are no pages: older articles are asked for by moving ``enddatetime``
back to the oldest ``seendate`` received. GDELT asks for at most one
request every 5 seconds.
"""
from __future__ import annotations

import json

from corpuskit.clock import parse_timestamp, utc
from corpuskit.errors import CollectorError
from corpuskit.ingest.readers import loads_json
from corpuskit.ingest.collectors.base import Collector, Walk

LANGUAGES = {
    "english": "en", "spanish": "es", "french": "fr", "german": "de", "italian": "it",
    "portuguese": "pt", "russian": "ru", "chinese": "zh", "japanese": "ja", "korean": "ko",
    "arabic": "ar", "hindi": "hi", "turkish": "tr", "dutch": "nl", "polish": "pl",
    "swedish": "sv", "norwegian": "no", "danish": "da", "finnish": "fi", "greek": "el",
    "hebrew": "he", "indonesian": "id", "ukrainian": "uk", "czech": "cs", "romanian": "ro",
    "hungarian": "hu", "vietnamese": "vi", "thai": "th", "persian": "fa", "urdu": "ur",
    "bengali": "bn", "tamil": "ta", "malay": "ms", "catalan": "ca", "croatian": "hr",
    "serbian": "sr", "slovak": "sk", "slovenian": "sl", "bulgarian": "bg",
}
_STAMP = "%Y%m%d%H%M%S"


def language_code(name) -> str | None:
    """ISO 639-1 code of a GDELT language name (``English`` -> ``en``), else None."""
    return LANGUAGES.get(str(name or "").strip().lower())


class GdeltCollector(Collector):
    """Articles matching ``query`` (GDELT query syntax), newest first."""

    name = "gdelt"
    default_base_url = "https://api.gdeltproject.org/api/v2/doc/doc"
    default_page_size = 250
    min_interval = 5.0

    def pages(self, client, walk: Walk):
        url = self.resolved_base_url()
        end = None
        while True:
            params = {"query": walk.query, "mode": "artlist", "format": "json",
                      "sort": "datedesc", "maxrecords": min(walk.page_size, 250)}
            if walk.lower is not None:
                params["startdatetime"] = walk.lower.strftime(_STAMP)
            if end is not None:
                params["enddatetime"] = end.strftime(_STAMP)
            body = client.get(url, params, accept="application/json")
            articles = parse_answer(body, client.source, url)
            yield [article_to_record(a) for a in articles]
            if len(articles) < params["maxrecords"]:
                return
            oldest = min(utc(parse_timestamp(a["seendate"])) for a in articles if a.get("seendate"))
            if end is not None and oldest >= end:
                return
            end = oldest


def parse_answer(body: bytes, source: str, url: str) -> list:
    """The article list of a GDELT answer; a refusal message or bad JSON raises CollectorError."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return []
    if not text.startswith("{"):
        raise CollectorError(f"{source}: GDELT refused the query at {url}: {text[:200]}")
    try:
        answer = loads_json(text)
    except json.JSONDecodeError as exc:
        raise CollectorError(f"{source}: malformed JSON from {url}: {exc} "
                             f"(answer began {text[:120]!r})") from exc
    articles = answer.get("articles", [])
    if not isinstance(articles, list):
        raise CollectorError(f"{source}: 'articles' is not a list in the answer from {url}")
    return articles


def article_to_record(article: dict) -> dict:
    """One GDELT article as a raw record (GDELT gives no body: the text is the title)."""
    meta = {k: article.get(k) for k in ("domain", "sourcecountry", "socialimage", "url_mobile",
                                        "seendate") if article.get(k)}
    if article.get("language"):
        meta["languageName"] = article["language"]
    return {
        "sourceId": article.get("url"),
        "title": (article.get("title") or "").strip(),
        "contentText": (article.get("title") or "").strip(),
        "url": article.get("url") or "",
        "author": article.get("domain") or "",
        "publishedAt": article.get("seendate"),
        "language": language_code(article.get("language")),
        "contentType": "article",
        "metadata": meta,
    }

