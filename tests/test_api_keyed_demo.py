"""The keyed interface on the session demo corpus (every stage run): real data, real shapes.

The demo file is copied (``VACUUM INTO``) so keys and rate counters never
touch the shared session corpus.
"""
from __future__ import annotations

from urllib.parse import quote

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from corpuskit.api.keyed import queries
from corpuskit.clock import iso, utc
from tests.openapi_check import checked_call


@pytest.fixture(scope="module")
def demo_api(demo_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("keyed-demo") / "demo-copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    key = corpus.create_key("enterprise", name="demo-tests", per_minute=10**7, per_day=10**8)
    app = create_app(corpus)

    def get(path_):
        status, headers, body = checked_call(app, "keyed", path_, {"x-api-key": key})
        assert status == 200, (path_, body)
        return body

    get.corpus = corpus
    yield get
    clear_cache()
    corpus.close()


def test_status_reports_real_figures_by_the_corpus_clock(demo_api):
    corpus = demo_api.corpus
    body = demo_api("/api/v1/status")
    now = utc(corpus.now())
    assert body["checkedAt"] == iso(now)
    assert body["totalRecords"] == corpus.count()
    assert body["activeTopics"] == corpus.conn.execute(
        "SELECT count(*) FROM topics WHERE active = 1").fetchone()[0] > 0
    assert 0 < body["records24h"] < body["totalRecords"]
    sources = {s["source"] for s in body["sources"]}
    assert sources == {r[0] for r in corpus.conn.execute("SELECT DISTINCT source FROM records")}


def test_every_listing_conforms_and_pages(demo_api):
    corpus = demo_api.corpus
    first = demo_api("/api/v1/discourse?limit=100")
    assert first["pagination"]["total"] == corpus.count()
    second = demo_api("/api/v1/discourse?limit=100&offset=100")
    assert not {r["id"] for r in first["data"]} & {r["id"] for r in second["data"]}
    stamps = [r["capturedAt"] for r in first["data"] + second["data"]]
    assert stamps == sorted(stamps, reverse=True)
    assert all(r["analysis"] is not None for r in first["data"])  # the demo is enriched
    # the library function gives the same page as the HTTP answer
    assert queries.list_discourse(corpus, limit=100) == first
    for path in ("/api/v1/narratives?limit=50", "/api/v1/signals?limit=100",
                 "/api/v1/observations?limit=100", "/api/v1/clusters?limit=100",
                 "/api/v1/entities?limit=200", "/api/v1/topics", "/api/v1/topics?active=false"):
        demo_api(path)
    signals = demo_api("/api/v1/signals?limit=100")["data"]
    assert {s["type"] for s in signals} >= {"volume_spike"}


def test_every_topic_detail_and_analytics_conform(demo_api):
    topics = [t["name"] for t in demo_api("/api/v1/topics")["topics"]]
    assert len(topics) >= 2
    for name in topics:
        detail = demo_api(f"/api/v1/topics/{quote(name)}")
        assert len(detail["snapshots"]) == 30
        demo_api(f"/api/v1/snapshots?topic={quote(name)}")
        trend = demo_api(f"/api/v1/trends?topic={quote(name)}&days=60")
        assert sum(v["count"] for v in trend["volume"]) > 0
    compared = demo_api("/api/v1/compare?topics=" + ",".join(topics[:5]))
    assert list(compared["comparison"]) == topics[:5]


def test_narratives_and_entities_on_real_data(demo_api):
    listed = demo_api("/api/v1/narratives?limit=50")["data"]
    assert listed
    for item in listed[:10]:
        detail = demo_api("/api/v1/narratives/" + quote(item["slug"], safe=""))
        assert detail["slug"] == item["slug"]
        assert detail["versions"][0]["version"] == max(v["version"] for v in detail["versions"])
    ranked = demo_api("/api/v1/entities?since=2000-01-01&limit=20")["data"]
    for entity in ranked[:5]:
        profile = demo_api("/api/v1/entities/" + quote(entity["name"], safe=""))
        assert profile["name"] == entity["name"]
        assert profile["totalMentions"] >= entity["mentions"]


def test_search_on_the_demo(demo_api):
    body = demo_api("/api/v1/search?q=new+chip+export+rules&limit=10")
    assert body["query"] == "new chip export rules"
    assert 0 < len(body["results"]) <= 10
    scores = [r["relevance"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True) and all(-1.0 <= s <= 1.0 for s in scores)
    only = demo_api("/api/v1/search?q=new+chip+export+rules&source=reddit&limit=5")
    assert {r["source"] for r in only["results"]} <= {"reddit"}
    assert len(demo_api("/api/v1/search?q=heat+wave&limit=500")["results"]) <= 50
