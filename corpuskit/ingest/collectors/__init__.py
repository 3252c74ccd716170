"""Live collectors: public APIs into the corpus, incrementally and politely.

>>> from corpuskit.ingest.collectors import collect
>>> report = collect(corpus, "hackernews", query="sqlite")   # doctest: +SKIP
>>> report.added                                             # doctest: +SKIP

One module per source; each maps its API's fields into the record model.
Every collector takes ``base_url=`` (or env ``CORPUSKIT_<SOURCE>_BASE_URL``)
so it can be pointed at a local replay server (:mod:`.replay`).
"""
from __future__ import annotations

from corpuskit.errors import ValidationError
from corpuskit.ingest.collectors.arxiv import ArxivCollector
from corpuskit.ingest.collectors.base import CollectReport, Collector, load_state
from corpuskit.ingest.collectors.bluesky import BlueskyCollector
from corpuskit.ingest.collectors.gdelt import GdeltCollector
from corpuskit.ingest.collectors.google_news import GoogleNewsCollector
from corpuskit.ingest.collectors.hackernews import HackerNewsCollector
from corpuskit.ingest.collectors.health import source_health
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.collectors.reddit import RedditCollector
from corpuskit.ingest.collectors.youtube import YouTubeCollector

COLLECTORS = {c.name: c for c in (
    ArxivCollector, BlueskyCollector, GdeltCollector, GoogleNewsCollector,
    HackerNewsCollector, RedditCollector, YouTubeCollector,
)}


def get_collector(source: str, **params) -> Collector:
    """A collector for ``source`` built with ``params`` (see :class:`Collector`)."""
    try:
        cls = COLLECTORS[source]
    except KeyError:
        raise ValidationError(
            f"no collector for {source!r}; collectors: {', '.join(sorted(COLLECTORS))}"
        ) from None
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValidationError(f"{source}: {exc}") from exc


def collect(corpus, source: str, query: str = "", **params) -> CollectReport:
    """Collect ``source`` for ``query`` into ``corpus``; returns the :class:`CollectReport`.

    Raises :class:`~corpuskit.errors.CollectorError` when the source fails
    (records stored before the failure are kept).
    """
    return get_collector(source, query=query, **params).run(corpus).report_


__all__ = [
    "COLLECTORS", "ArxivCollector", "BlueskyCollector", "CollectReport", "Collector",
    "GdeltCollector", "GoogleNewsCollector", "HackerNewsCollector", "HttpClient",
    "RedditCollector", "YouTubeCollector", "collect", "get_collector", "load_state",
    "source_health",
]
