"""The collectors' HTTP client: politeness (User-Agent, spacing), Retry-After parsing, redaction."""
from __future__ import annotations

import pytest

from corpuskit import __version__
from corpuskit.errors import CollectorError
from corpuskit.ingest.collectors.http import HttpClient, build_url, parse_retry_after, redact, user_agent
from corpuskit.ingest.collectors.replay import ReplayServer


@pytest.fixture
def server():
    with ReplayServer() as srv:
        yield srv


def test_user_agent_is_descriptive():
    assert user_agent() == f"corpuskit/{__version__} (+https://github.com/corpuskit/corpuskit)"


def test_requests_are_spaced_by_the_minimum_interval(server):
    server.add("/x", {"ok": True})
    now = [100.0]
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    client = HttpClient("demo", min_interval=3.0, sleep=sleep, clock=lambda: now[0])
    for _ in range(3):
        assert client.get_json(server.url + "/x") == {"ok": True}
        now[0] += 1.0                       # one second of work between requests
    assert sleeps == [2.0, 2.0]
    assert [w[0] for w in client.waits_] == ["rate limit", "rate limit"]


def test_backoff_doubles_and_is_capped(server):
    server.add("/x", status=503)
    sleeps = []
    client = HttpClient("demo", max_attempts=5, backoff=1.0, max_backoff=3.0, sleep=sleeps.append)
    with pytest.raises(CollectorError, match="demo: gave up on .*/x after 5 attempts: HTTP 503"):
        client.get(server.url + "/x")
    assert sleeps == [1.0, 2.0, 3.0, 3.0]
    assert client.requests_ == 5


def test_retry_after_forms():
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT") == 0.0
    assert parse_retry_after("Fri, 01 Jan 3000 00:00:00 GMT") > 1e9
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_urls_and_redaction():
    assert build_url("http://h/p", {"q": "a b", "cursor": None, "n": 3}) == "http://h/p?q=a+b&n=3"
    assert build_url("http://h/p?x=1", {"y": 2}) == "http://h/p?x=1&y=2"
    assert redact("http://h/s?q=cats&key=SECRET&pageToken=t") == "http://h/s?q=cats&key=%2A%2A%2A&pageToken=t"
    assert "SECRET" not in redact("http://h/s?access_token=SECRET")


def test_404_names_source_url_and_body_without_the_key(server):
    server.add("/youtube/v3/search", status=403,
               body={"error": {"code": 403, "errors": [{"reason": "quotaExceeded"}]}})
    client = HttpClient("youtube", sleep=lambda s: None)
    with pytest.raises(CollectorError) as info:
        client.get_json(server.url + "/youtube/v3/search", {"q": "x", "key": "SECRET123"})
    message = str(info.value)
    assert message.startswith("youtube: HTTP 403 from http://127.0.0.1")
    assert "quotaExceeded" in message and "SECRET123" not in message
    assert client.requests_ == 1


def test_a_json_answer_with_half_a_surrogate_pair_decodes_to_storable_text(server):
    # an API that cut a post inside an emoji escapes half of its surrogate pair
    server.add("/x", b'{"text": "cut \\ud83d", "whole": "\\ud83d\\ude00", "list": ["\\udfff"]}',
               content_type="application/json")
    answer = HttpClient("bluesky", sleep=lambda s: None).get_json(server.url + "/x")
    assert answer == {"text": "cut \ufffd", "whole": "\U0001F600", "list": ["\ufffd"]}
    assert all(v.encode("utf-8") for v in (answer["text"], answer["whole"]))
