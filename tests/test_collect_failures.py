"""Collectors under failure: 429 with Retry-After, 5xx, persistent 5xx (partial data kept), bad answers, timeouts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors import collect, load_state, source_health
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.collectors.replay import ReplayServer

FIXTURES = Path(__file__).parent / "fixtures" / "collect"
CASSETTE = json.loads((FIXTURES / "cassette_initial.json").read_text())
QUERIES = {"hackernews": "sqlite", "reddit": "science+technology", "bluesky": "climate",
           "gdelt": "heatwave", "google_news": "renewable energy", "arxiv": "sentiment",
           "youtube": "heat pump"}
SOURCES = sorted(QUERIES)
PAGED = [s for s in SOURCES if s != "google_news"]    # the RSS feed has a single page
JSON_SOURCES = ["bluesky", "gdelt", "hackernews", "reddit", "youtube"]
FIRST_PAGE_PATH = {"hackernews": "/api/v1/search_by_date", "reddit": "/r/science+technology/new.json",
                   "bluesky": "/xrpc/app.bsky.feed.searchPosts", "gdelt": "/api/v2/doc/doc",
                   "google_news": "/rss/search", "arxiv": "/api/query", "youtube": "/youtube/v3/search"}


def page_route(source: str, page: int) -> dict:
    """The cassette route of ``source``'s page ``page`` (0-based)."""
    routes = [r for r in CASSETTE["routes"] if r["path"] == FIRST_PAGE_PATH[source]]
    return routes[page]


@pytest.fixture
def server():
    with ReplayServer() as srv:
        yield srv


def client_for(source, **kwargs):
    sleeps = []
    kwargs.setdefault("timeout", 2)
    kwargs.setdefault("backoff", 0.5)
    client = HttpClient(source, sleep=sleeps.append, **kwargs)
    return client, sleeps


def run(corpus, server, source, client):
    key = {"api_key": "test-secret-key"} if source == "youtube" else {}
    return collect(corpus, source, QUERIES[source], base_url=server.base_url(source),
                   client=client, page_size=3, **key)


def script(server, source, page, *answers):
    """Queue ``answers`` (dicts of ReplayServer.add arguments) before the recorded page."""
    route = page_route(source, page)
    for answer in answers:
        server.add(route["path"], match=route.get("match"), **answer)


@pytest.mark.parametrize("source", SOURCES)
def test_429_with_retry_after_then_success(corpus, server, source):
    script(server, source, 0, {"status": 429, "headers": {"Retry-After": "7"},
                               "body": {"error": "RateLimitExceeded"}})
    server.load_cassette(FIXTURES / "cassette_initial.json")
    client, sleeps = client_for(source)
    report = run(corpus, server, source, client)
    assert report.complete and report.added == (4 if source == "google_news" else 5)
    assert 7.0 in sleeps                             # the server's Retry-After, not our backoff
    assert ("retry after HTTP 429", 7.0) in client.waits_


def test_retry_after_is_capped_and_accepts_http_dates(corpus, server):
    script(server, "hackernews", 0,
           {"status": 429, "headers": {"Retry-After": "86400"}},
           {"status": 503, "headers": {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}})
    server.load_cassette(FIXTURES / "cassette_initial.json")
    client, sleeps = client_for("hackernews", retry_after_cap=3.0)
    run(corpus, server, "hackernews", client)
    assert sleeps == [3.0]            # capped; a date in the past means "now": no wait at all
    assert client.requests_ == 4      # 429, 503, page 0, page 1


@pytest.mark.parametrize("source", SOURCES)
def test_500_then_success(corpus, server, source):
    script(server, source, 0, {"status": 500, "body": "Internal Server Error"},
           {"status": 502, "body": "Bad Gateway"})
    server.load_cassette(FIXTURES / "cassette_initial.json")
    client, sleeps = client_for(source, backoff=0.5)
    report = run(corpus, server, source, client)
    assert report.complete and report.error is None
    assert sleeps[:2] == [0.5, 1.0]                  # exponential backoff
    assert client.requests_ == len(server.requests)


@pytest.mark.parametrize("source", PAGED)
def test_persistent_500_keeps_the_pages_already_stored(corpus, server, source):
    script(server, source, 1, *[{"status": 500, "body": "oops"}] * 3)
    server.load_cassette(FIXTURES / "cassette_initial.json")
    client, _ = client_for(source, max_attempts=3)
    with pytest.raises(CollectorError, match=rf"{source}: gave up on http://127\.0\.0\.1:\d+/.* "
                                             r"after 3 attempts: HTTP 500") as info:
        run(corpus, server, source, client)
    assert "test-secret-key" not in str(info.value)           # API keys never in messages
    assert corpus.count() == 3                                  # the first page is kept
    state = load_state(corpus.conn, source, page_state_key(source))
    assert "newest" not in state                                # the watermark did not move
    stored_newest = corpus.records()["publishedAt"].max().strftime("%Y-%m-%dT%H:%M:%SZ")
    assert state["pending"]["newest"] == stored_newest          # what was stored, noted
    health = {h["source"]: h for h in source_health(corpus)}[source]
    assert health["healthy"] is False and "HTTP 500" in health["reason"]
    assert health["recordCount"] == 3
    run_row = corpus.conn.execute("SELECT status FROM runs WHERE stage='collect'").fetchone()
    assert run_row[0] == "failed"
    # the source recovers: the rerun walks down again and stores the rest, once
    client, _ = client_for(source)
    report = run(corpus, server, source, client)
    assert report.complete and report.added == 2 and report.duplicates == 3
    assert corpus.count() == 5
    state = load_state(corpus.conn, source, page_state_key(source))
    assert state["newest"] and "pending" not in state
    health = {h["source"]: h for h in source_health(corpus)}[source]
    assert health["healthy"] is True and health["reason"] == ""


def page_state_key(source):
    return QUERIES[source]


def test_client_errors_are_not_retried(corpus, server):
    script(server, "bluesky", 0, {"status": 400, "body": {"error": "BadQueryString",
                                                          "message": "query too long"}})
    client, sleeps = client_for("bluesky")
    with pytest.raises(CollectorError, match="bluesky: HTTP 400 from .*BadQueryString"):
        run(corpus, server, "bluesky", client)
    assert client.requests_ == 1 and sleeps == []


@pytest.mark.parametrize("source", JSON_SOURCES)
def test_malformed_json_is_a_clear_error(corpus, server, source):
    script(server, source, 0, {"body": '{"hits": [1, 2,', "content_type": "application/json"})
    client, _ = client_for(source)
    with pytest.raises(CollectorError, match=f"{source}: malformed JSON from http://127.0.0.1"):
        run(corpus, server, source, client)
    assert corpus.count() == 0
    health = {h["source"]: h for h in source_health(corpus)}[source]
    assert not health["healthy"] and "malformed JSON" in health["reason"]


@pytest.mark.parametrize("source", ["hackernews", "reddit", "bluesky", "youtube"])
def test_json_of_the_wrong_shape_is_a_clear_error(corpus, server, source):
    script(server, source, 0, {"body": {"unexpected": True}})
    client, _ = client_for(source)
    with pytest.raises(CollectorError, match=f"{source}: ValueError: .*(list|listing)"):
        run(corpus, server, source, client)


def test_malformed_xml_is_a_clear_error(corpus, server):
    script(server, "arxiv", 0, {"body": "<feed><entry>unclosed"})
    client, _ = client_for("arxiv")
    with pytest.raises(CollectorError, match="arxiv: malformed Atom XML"):
        run(corpus, server, "arxiv", client)


@pytest.mark.parametrize("source", SOURCES)
def test_timeout_is_retried(corpus, server, source):
    script(server, source, 0, {"delay": 0.5, "body": "late"})
    server.load_cassette(FIXTURES / "cassette_initial.json")
    client, sleeps = client_for(source, timeout=0.15)
    report = run(corpus, server, source, client)
    assert report.complete
    assert any("timed out" in reason for reason, _ in client.waits_)


def test_persistent_timeout_is_a_clear_error(corpus, server):
    script(server, "hackernews", 0, {"delay": 0.5, "body": "late"})
    client, _ = client_for("hackernews", timeout=0.15, max_attempts=2)
    with pytest.raises(CollectorError, match=r"hackernews: gave up on .* after 2 attempts: "
                                             r"timed out after 0.15 s"):
        run(corpus, server, "hackernews", client)


def test_unreachable_server_is_a_clear_error(corpus):
    client, _ = client_for("reddit", max_attempts=2, timeout=0.5)
    with pytest.raises(CollectorError, match="reddit: gave up on http://127.0.0.1:9/.*connection failed"):
        collect(corpus, "reddit", "science", base_url="http://127.0.0.1:9", client=client)
