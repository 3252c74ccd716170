"""Source health: the library function and both HTTP interfaces (/v1/sources, /api/v1/status)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.http_client import call

from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors import collect, source_health
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.collectors.replay import ReplayServer

FIXTURES = Path(__file__).parent / "fixtures" / "collect"


def fast_client(source):
    return HttpClient(source, timeout=2, sleep=lambda s: None, max_attempts=2, backoff=0.01)


@pytest.fixture
def server():
    with ReplayServer() as srv:
        srv.load_cassette(FIXTURES / "cassette_initial.json")
        yield srv


def imported(corpus):
    corpus.add_records([
        {"source": "twitter", "contentText": "an old tweet", "publishedAt": "2020-01-02T03:04:05Z",
         "sourceId": "1"},
        {"source": "twitter", "contentText": "a newer tweet", "publishedAt": "2020-02-02T03:04:05Z",
         "sourceId": "2", "capturedAt": "2020-02-03T00:00:00Z"},
    ])


def test_empty_corpus_has_no_sources(corpus):
    assert source_health(corpus) == []


def test_imported_sources_are_healthy_with_their_newest_capture(corpus):
    imported(corpus)
    assert source_health(corpus) == [{
        "source": "twitter", "recordCount": 2, "lastIngestedAt": "2020-02-03T00:00:00Z",
        "lastAttemptAt": None, "healthy": True, "reason": ""}]


def test_collected_failed_and_recovered(corpus, server):
    imported(corpus)
    collect(corpus, "hackernews", "sqlite", base_url=server.base_url("hackernews"),
            client=fast_client("hackernews"), page_size=3)
    with pytest.raises(CollectorError):
        collect(corpus, "bluesky", "climate", base_url=server.url + "/nowhere",
                client=fast_client("bluesky"))
    health = {h["source"]: h for h in source_health(corpus)}
    assert sorted(health) == ["bluesky", "hackernews", "twitter"]
    hn = health["hackernews"]
    assert hn["healthy"] and hn["recordCount"] == 5 and hn["reason"] == ""
    assert hn["lastIngestedAt"] >= "2024" and hn["lastIngestedAt"] == hn["lastAttemptAt"]
    bsky = health["bluesky"]
    assert bsky["healthy"] is False and bsky["recordCount"] == 0 and bsky["lastIngestedAt"] is None
    assert bsky["reason"].startswith("bluesky: HTTP 404 from http://127.0.0.1")
    # a later run that adds nothing keeps lastIngestedAt, refreshes the attempt
    server.clear()
    server.add("/api/v1/search_by_date", {"hits": [], "nbPages": 0, "page": 0})
    first = hn["lastIngestedAt"]
    collect(corpus, "hackernews", "sqlite", base_url=server.base_url("hackernews"),
            client=fast_client("hackernews"))
    again = {h["source"]: h for h in source_health(corpus)}["hackernews"]
    assert again["lastIngestedAt"] == first and again["healthy"]


def test_health_reaches_both_http_interfaces(corpus, server):
    from corpuskit.api import create_app

    imported(corpus)
    collect(corpus, "arxiv", "sentiment", base_url=server.base_url("arxiv"),
            client=fast_client("arxiv"), page_size=3)
    with pytest.raises(CollectorError):
        collect(corpus, "gdelt", "x", base_url=server.url + "/nowhere", client=fast_client("gdelt"))
    key = corpus.create_key(tier="research", name="health")
    app = create_app(corpus, heartbeat_seconds=30)
    status, _, body = call(app, "GET", "/v1/sources", {"Authorization": f"Bearer {key}"})
    assert status == 200
    sources = {s["id"]: s for s in json.loads(body)["sources"]}
    assert sources["arxiv"]["recordCount"] == 5 and sources["arxiv"]["healthy"] is True
    assert sources["gdelt"]["healthy"] is False
    assert sources["twitter"]["lastIngestedAt"] == "2020-02-03T00:00:00Z"
    status, _, body = call(app, "GET", "/api/v1/status")
    assert status == 200
    listed = {s["source"]: s["lastIngestion"] for s in json.loads(body)["sources"]}
    assert listed["arxiv"] == sources["arxiv"]["lastIngestedAt"]
    assert listed["twitter"] == "2020-02-03T00:00:00Z"


def test_demo_corpus_sources_are_healthy(demo_corpus):
    health = source_health(demo_corpus)
    assert health and all(h["healthy"] and h["recordCount"] > 0 for h in health)
    total = sum(h["recordCount"] for h in health)
    assert total == demo_corpus.count()
