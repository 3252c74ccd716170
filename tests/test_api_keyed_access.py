"""The keyed interface's gate: keys in either header, 401/503 rules, 429 with headers, status and OpenAPI without a key."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app, ratelimit
from corpuskit.api.auth import clear_cache
from tests import waitress_server
from tests.http_client import assert_json_error, call, call_json
from tests.keyed_fixtures import NOW, open_keyed_corpus
from tests.openapi_check import checked_call


@pytest.fixture(scope="module")
def served():
    corpus = open_keyed_corpus()
    key = corpus.create_key("enterprise", name="big", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)
    yield corpus, app, key
    clear_cache()
    corpus.close()


def test_status_needs_no_key_and_reports_real_figures(served):
    corpus, app, _ = served
    status, headers, body = checked_call(app, "keyed", "/api/v1/status")
    assert status == 200
    assert "ratelimit-limit" not in headers
    assert body["totalRecords"] == corpus.count() == 66
    assert body["activeTopics"] == 3
    assert body["checkedAt"] == NOW
    # published in the 24 hours before the clock: recount by hand
    expected24 = corpus.conn.execute(
        "SELECT count(*) FROM records WHERE published_at > '2026-02-09T12:00:00Z' "
        "AND published_at <= ?", (NOW,)).fetchone()[0]
    assert body["records24h"] == expected24 > 0
    assert body["signals48h"] == 1  # only the 2026-02-09 06:00 signal is within 48 h
    sources = {s["source"]: s["lastIngestion"] for s in body["sources"]}
    assert set(sources) == {"reddit", "bluesky", "hackernews", "arxiv", "gdelt", "news"}
    assert sources["bluesky"] == corpus.conn.execute(
        "SELECT max(captured_at) FROM records WHERE source = 'bluesky'").fetchone()[0]


@pytest.mark.parametrize("path", ["/api/v1/openapi.json", "/v1/openapi.json"])
def test_openapi_documents_need_no_key(served, path):
    _, app, _ = served
    status, headers, body = call_json(app, path)
    assert status == 200 and body["openapi"].startswith("3.1")


def test_key_accepted_in_either_header(served):
    _, app, key = served
    for headers in ({"x-api-key": key}, {"Authorization": f"Bearer {key}"},
                    {"x-api-key": key, "Authorization": f"Bearer {key}"}):
        status, response_headers, _ = checked_call(app, "keyed", "/api/v1/topics", headers)
        assert status == 200, headers
        assert int(response_headers["ratelimit-remaining"]) > 0


@pytest.mark.parametrize("headers, message", [
    ({}, "API key required"),
    ({"x-api-key": ""}, "API key required"),
    ({"x-api-key": "ck_" + "x" * 43}, "Invalid or missing API key"),
    ({"x-api-key": "nope_" + "x" * 43}, "Invalid or missing API key"),
    ({"Authorization": "Basic dXNlcjpwYXNz"}, "Invalid or missing API key"),
    ({"Authorization": "Bearer"}, "Invalid or missing API key"),
    ({"x-api-key": "ck_" + "y" * 400}, "Invalid or missing API key"),
    ({"x-api-key": "ck_' OR 1=1 --"}, "Invalid or missing API key"),
])
def test_missing_or_invalid_key_is_401(served, headers, message):
    _, app, _ = served
    status, response_headers, body = checked_call(app, "keyed", "/api/v1/discourse", headers)
    assert_json_error(status, body, 401, response_headers)
    assert body["error"] == message
    assert response_headers["www-authenticate"].startswith("Bearer")


def test_two_different_keys_are_refused(served):
    corpus, app, key = served
    other = corpus.create_key("research", name="other")
    status, headers, body = checked_call(app, "keyed", "/api/v1/topics",
                                         {"x-api-key": key, "Authorization": f"Bearer {other}"})
    assert_json_error(status, body, 401, headers)
    assert "Conflicting" in body["error"]


def test_revoked_key_is_401(served):
    corpus, app, _ = served
    from corpuskit.store.api_keys import revoke_key

    doomed = corpus.create_key("free", name="doomed")
    revoke_key(corpus.conn, doomed)
    clear_cache()
    status, headers, body = checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": doomed})
    assert status == 401 and body["error"] == "Invalid or missing API key"


def test_custom_key_prefix(served):
    corpus, _, key = served
    app = create_app(corpus, key_prefix="lab_")
    lab_key = corpus.create_key("research", name="lab", prefix="lab_")
    assert lab_key.startswith("lab_")
    assert checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": lab_key})[0] == 200
    # a ck_ key no longer has the configured prefix
    assert checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": key})[0] == 401


def test_no_keys_configured_is_503_but_status_still_answers():
    corpus = open_corpus(":memory:")
    app = create_app(corpus)
    for path in ("/api/v1/discourse", "/api/v1/topics", "/api/v1/search?q=abc"):
        status, headers, body = checked_call(app, "keyed", path, {"x-api-key": "ck_whatever"})
        assert_json_error(status, body, 503, headers)
        assert body["error"] == "API access not configured"
    status, _, body = checked_call(app, "keyed", "/api/v1/status")
    assert status == 200 and body["totalRecords"] == 0 and body["sources"] == []
    corpus.close()


def test_free_key_sixth_request_in_a_minute_is_429(served, monkeypatch):
    corpus, app, _ = served
    free = corpus.create_key("free", name="free")
    moment = datetime(2026, 5, 1, 10, 15, 42, 500000, tzinfo=timezone.utc)
    monkeypatch.setattr(ratelimit, "clock", lambda: moment)
    remaining = []
    for _ in range(5):
        status, headers, _ = checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": free})
        assert status == 200
        assert headers["ratelimit-limit"] == "5"
        assert headers["ratelimit-reset"] == "18"
        remaining.append(int(headers["ratelimit-remaining"]))
    assert remaining == [4, 3, 2, 1, 0]
    status, headers, body = checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": free})
    assert status == 429
    assert body["error"] == "Rate limit exceeded"
    assert body["upgradeUrl"].startswith("http") and body["upgradeUrl"].endswith("/docs#keyed-headers")
    assert headers["retry-after"] == "18"
    assert headers["ratelimit-remaining"] == "0"
    # a refused request is counted nowhere; the next minute lets the key in again
    key_id = corpus.conn.execute("SELECT id FROM api_keys WHERE name = 'free'").fetchone()[0]
    assert ratelimit.usage(ratelimit.counters_conn(corpus), key_id, moment) == {"minute": 5, "day": 5}
    later = datetime(2026, 5, 1, 10, 16, 0, tzinfo=timezone.utc)
    monkeypatch.setattr(ratelimit, "clock", lambda: later)
    assert checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": free})[0] == 200


def test_daily_allowance_429_and_headers_on_errors(served, monkeypatch):
    corpus, app, _ = served
    small = corpus.create_key("enterprise", name="small", per_minute=50, per_day=3)
    moment = datetime(2026, 5, 1, 23, 0, 0, tzinfo=timezone.utc)
    monkeypatch.setattr(ratelimit, "clock", lambda: moment)
    # a 404 and a 400 still count, and carry the RateLimit headers
    status, headers, body = checked_call(app, "keyed", "/api/v1/topics/nope", {"x-api-key": small})
    assert status == 404 and body == {"error": "Topic not found"}
    assert headers["ratelimit-remaining"] == "2" and headers["ratelimit-limit"] == "3"
    status, headers, body = checked_call(app, "keyed", "/api/v1/discourse?limit=x", {"x-api-key": small})
    assert status == 400 and headers["ratelimit-remaining"] == "1"
    assert checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": small})[0] == 200
    status, headers, body = checked_call(app, "keyed", "/api/v1/topics", {"x-api-key": small})
    assert status == 429 and body["error"] == "Daily request limit reached"
    assert headers["retry-after"] == "3600"
    assert body["upgradeUrl"]


def test_v1_shares_the_same_allowance(served, monkeypatch):
    corpus, app, _ = served
    shared = corpus.create_key("free", name="shared")
    moment = datetime(2026, 5, 2, 8, 0, 1, tzinfo=timezone.utc)
    monkeypatch.setattr(ratelimit, "clock", lambda: moment)
    for i in range(5):
        path = "/api/v1/topics" if i % 2 else "/v1/topics"
        headers = {"x-api-key": shared} if i % 2 else {"Authorization": f"Bearer {shared}"}
        status, _, _ = call(app, "GET", path, headers)
        assert status == 200, (path, status)
    status, headers, data = call(app, "GET", "/v1/topics", {"Authorization": f"Bearer {shared}"})
    assert status == 429 and json.loads(data)["error"] == "Rate limit exceeded"
    status, _, _ = call(app, "GET", "/api/v1/topics", {"x-api-key": shared})
    assert status == 429


def test_unknown_keyed_path_is_json_404(served):
    _, app, key = served
    status, headers, data = call(app, "GET", "/api/v1/nothing-here", {"x-api-key": key})
    assert_json_error(status, data, 404, headers)


def test_parallel_clients_over_http_get_exactly_the_allowance(tmp_path, monkeypatch):
    """A real threaded server (waitress) and 8 client threads: 60 of 96 requests pass."""
    import http.client
    import threading

    corpus = open_keyed_corpus(tmp_path / "http-limits.db")
    key = corpus.create_key("research", name="parallel")
    monkeypatch.setattr(ratelimit, "clock", lambda: datetime(2026, 5, 3, 9, 0, 5, tzinfo=timezone.utc))
    server, thread = waitress_server.start(create_app(corpus), threads=8)
    statuses, lock = [], threading.Lock()
    start = threading.Barrier(8)

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=30)
        start.wait()
        mine = []
        for _ in range(12):
            conn.request("GET", "/api/v1/topics", headers={"x-api-key": key})
            response = conn.getresponse()
            response.read()
            mine.append(response.status)
        conn.close()
        with lock:
            statuses.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    waitress_server.stop(server, thread)
    clear_cache()
    assert sorted(set(statuses)) == [200, 429]
    assert statuses.count(200) == 60 and statuses.count(429) == 36
    corpus.close()
