"""One test per /v1 endpoint on the hand-built fixture corpus: happy path, paging, filters, 404, 301."""
from __future__ import annotations

from datetime import timedelta

import pytest

from corpuskit.clock import iso
from tests.api_fixtures import NOW, insert_record
from tests.api_v1_common import V1
from tests.http_client import assert_json_error

@pytest.fixture(scope="module")
def v1():
    server = V1()
    yield server
    server.corpus.close()


def missing(v1, path):
    status, headers, body = v1.get(path)
    assert_json_error(status, body, 404, headers)


def test_records_list_pages_visit_every_row_once_in_order(v1):
    body = v1.ok("/v1/records?limit=7")
    assert body["total"] == 45 and len(body["items"]) == 7 and body["nextCursor"]
    assert set(body["items"][0]) == {"id", "source", "title", "url", "publishedAt", "sentimentScore", "sentimentLabel"}
    items = v1.walk("/v1/records?limit=7")
    assert len(items) == 45 and len({i["id"] for i in items}) == 45
    assert {i["id"] for i in items} == {v1.id("rec", r) for r in v1.keys["records"]}
    keys = [(i["publishedAt"], i["id"]) for i in items]
    assert [k[0] for k in keys] == sorted((k[0] for k in keys), reverse=True)


def test_records_page_does_not_shift_when_records_arrive(v1):
    first = v1.ok("/v1/records?limit=5")
    second_before = v1.ok(f"/v1/records?limit=5&cursor={first['nextCursor']}")
    conn = v1.corpus.conn
    new_id = insert_record(conn, 9000, NOW + timedelta(minutes=5), "reddit", "positive")
    try:
        second_after = v1.ok(f"/v1/records?limit=5&cursor={first['nextCursor']}")
        assert second_after["items"] == second_before["items"]
        assert v1.ok("/v1/records?limit=1")["items"][0]["id"] == v1.id("rec", new_id)
    finally:
        conn.execute("DELETE FROM records WHERE id = ?", (new_id,))


def test_records_filters(v1):
    reddit = v1.walk("/v1/records?source=reddit&limit=4")
    assert len(reddit) == 15 and {i["source"] for i in reddit} == {"reddit"}
    negative = v1.ok("/v1/records?sentiment=negative&limit=100")
    assert negative["total"] == 15 and {i["sentimentLabel"] for i in negative["items"]} == {"negative"}
    window = v1.ok(f"/v1/records?from={iso(NOW - timedelta(hours=12))}&to={iso(NOW - timedelta(hours=6))}")
    assert window["total"] == 4      # two timestamps, two records each, both bounds inclusive
    assert all(iso(NOW - timedelta(hours=12)) <= i["publishedAt"] <= iso(NOW - timedelta(hours=6))
               for i in window["items"])
    day = v1.ok("/v1/records?from=2026-02-28&to=2026-02-28&limit=100")
    assert day["total"] > 0 and all(i["publishedAt"].startswith("2026-02-28") for i in day["items"])
    both = v1.ok("/v1/records?source=reddit&sentiment=positive")
    assert both["total"] == 15       # every reddit record is positive in the fixture
    # a cursor from one filter set is refused on another
    cursor = v1.ok("/v1/records?source=reddit&limit=2")["nextCursor"]
    status, headers, body = v1.get(f"/v1/records?source=bluesky&limit=2&cursor={cursor}")
    assert_json_error(status, body, 400, headers)


def test_record_detail_embedding_entities_topics(v1):
    rid = v1.id("rec", v1.keys["records"][3])
    detail = v1.ok(f"/v1/records/{rid}")
    assert detail["id"] == rid and "OpenAI" in detail["content"] and detail["metadata"]["score"] == 3
    assert detail["title"] == "Title 3 ünïcode"
    emb = v1.ok(f"/v1/records/{rid}/embedding")
    assert emb["recordId"] == rid and emb["dimensions"] == 512 and len(emb["embedding"]) == 512
    assert emb["model"] == "corpuskit-tfidf-svd-512"
    mentions = v1.walk(f"/v1/records/{rid}/entities?limit=1")
    assert [m["name"] for m in mentions] == ["OpenAI", "Ada Lovelace", "Widgets"]
    assert mentions[0]["mentionCount"] == 3 and mentions[0]["positions"] == [0, 40]
    assert v1.ok(f"/v1/records/{rid}/entities")["total"] == 3
    topics = v1.ok(f"/v1/records/{rid}/topics")
    assert set(topics) == {"items"} and topics["items"][0]["slug"] == "climate"
    assert set(topics["items"][0]) == {"topicId", "label", "slug", "confidence"}
    for suffix in ("", "/embedding", "/entities", "/topics"):
        missing(v1, f"/v1/records/{v1.id('rec', 999999)}{suffix}")
        missing(v1, f"/v1/records/not-an-id{suffix}")
        missing(v1, f"/v1/records/{v1.id('sto', v1.keys['records'][3])}{suffix}")


def test_stories_lead_list_count_and_filters(v1):
    lead = v1.ok("/v1/stories/lead")
    assert lead["slug"] == "story-0" and {"signalCount", "sourceCount", "stub", "readMin"} <= set(lead)
    stories = v1.walk("/v1/stories?limit=4")
    assert len(stories) == 25 and len({s["id"] for s in stories}) == 25
    assert set(stories[0]) == {"id", "slug", "headline", "publishAt", "beat", "signalSeverity", "readMin"}
    top = v1.id("top", v1.keys["topics"][0])
    by_topic = v1.walk(f"/v1/stories/by-topic/{top}?limit=5")
    assert len(by_topic) == 13 and {s["beat"] for s in by_topic} == {"ai"}
    assert v1.ok(f"/v1/stories/count?topicId={top}") == {"count": 13}
    assert v1.ok(f"/v1/stories?topicId={top}")["total"] == 13
    ent = v1.id("ent", v1.keys["entities"][1])
    assert v1.ok(f"/v1/stories/count?entityId={ent}")["count"] == len(v1.walk(f"/v1/stories/by-entity/{ent}"))
    assert v1.ok("/v1/stories/count") == {"count": 25}
    ranged = v1.ok(f"/v1/stories?from={iso(NOW - timedelta(hours=1))}&to={iso(NOW)}")
    assert ranged["total"] == 4
    for bad in ("topicId=top_nope", "entityId=garbage", "from=2026-03-02&to=2026-03-01", "to=soon"):
        status, headers, body = v1.get(f"/v1/stories?{bad}")
        assert_json_error(status, body, 400, headers)
    missing(v1, f"/v1/stories/by-topic/{v1.id('top', 999)}")
    missing(v1, f"/v1/stories/by-entity/{v1.id('ent', 999)}")


def test_story_detail_versions_sources_and_slug_redirect(v1):
    sid = v1.id("sto", v1.keys["stories"][(0, 2)])
    old = v1.id("sto", v1.keys["stories"][(0, 1)])
    detail = v1.ok(f"/v1/stories/{sid}")
    assert detail["versionChain"] == [sid, old] and len(detail["citations"]) == 3
    assert detail["citations"][0]["recordId"].startswith("rec_")
    versions = v1.ok(f"/v1/stories/{sid}/versions")
    assert [v["isCurrent"] for v in versions["versions"]] == [True, False]
    assert v1.ok(f"/v1/stories/{old}")["slug"] == "story-0"      # old version readable, canonical slug
    sources = v1.ok(f"/v1/stories/{sid}/sources")
    assert sources["storyId"] == sid and len(sources["sources"]) == 3 and sources["externalCitations"] == []
    assert v1.ok("/v1/stories/by-slug/story-0")["id"] == sid
    status, headers, body = v1.get("/v1/stories/by-slug/story-0-v1")
    assert status == 301 and headers["location"] == "/v1/stories/by-slug/story-0"
    missing(v1, "/v1/stories/by-slug/never-was")
    for suffix in ("", "/versions", "/sources"):
        missing(v1, f"/v1/stories/{v1.id('sto', 99999)}{suffix}")


def test_signals_list_filters_feed_detail_evidence(v1):
    items = v1.walk("/v1/signals?limit=1")
    assert [s["kind"] for s in items] == ["velocity", "novelty", "divergence"]   # no sentiment_shift on /v1
    assert v1.ok("/v1/signals?kind=velocity")["total"] == 1
    assert v1.ok("/v1/signals?status=resolved")["items"][0]["kind"] == "novelty"
    assert v1.ok("/v1/signals?severity=low")["total"] == 1
    for bad in ("kind=sentiment_shift", "kind=volume_spike", "severity=extreme", "status=closed"):
        status, headers, body = v1.get(f"/v1/signals?{bad}")
        assert_json_error(status, body, 400, headers)
    feed = v1.ok("/v1/signals/feed?limit=2")
    assert len(feed["items"]) == 2 and feed["generatedAt"] == iso(NOW)
    assert all(i["status"] == "open" for i in feed["items"])
    div = v1.id("sig", v1.keys["signals"]["divergence"])
    detail = v1.ok(f"/v1/signals/{div}")
    assert (detail["sourceA"], detail["sourceB"], detail["divergencePoints"]) == ("reddit", "hackernews", 0.42)
    assert detail["summary"]
    velocity = v1.ok(f"/v1/signals/{v1.id('sig', v1.keys['signals']['volume_spike'])}")
    assert velocity["detail"] == {"baselineMean": 3.0, "observed": 11}
    evidence = v1.ok(f"/v1/signals/{div}/evidence")
    assert len(evidence["records"]) == 2 and evidence["entities"][0]["name"] == "OpenAI"
    assert evidence["topics"][0]["label"] == "Artificial intelligence"
    vel_evidence = v1.ok(f"/v1/signals/{v1.id('sig', v1.keys['signals']['volume_spike'])}/evidence")
    assert vel_evidence["stories"][0]["headline"] == "Headline 1 v1"
    missing(v1, f"/v1/signals/{v1.id('sig', v1.keys['signals']['sentiment_shift'])}")
    missing(v1, f"/v1/signals/{v1.id('sig', 424242)}/evidence")


def test_topics_list_and_detail(v1):
    topics = v1.walk("/v1/topics?limit=1")
    assert [t["slug"] for t in topics] == ["ai", "climate"] and topics[0]["recordCount"] == 27
    detail = v1.ok(f"/v1/topics/{topics[0]['id']}")
    assert detail["keywords"] == ["ai", "news"] and detail["storyCount"] == 13 and detail["sampleRecords"]
    missing(v1, f"/v1/topics/{v1.id('top', 77)}")


def test_entities_list_detail_and_slug_redirects(v1):
    items = v1.walk("/v1/entities?limit=2")
    assert [e["slug"] for e in items] == ["openai", "ada-lovelace", "widgets"]   # mentioned entities only
    assert items[0]["canonicalPath"] == "/v1/entities/by-slug/openai"
    assert {"lede", "mentionCount", "recentMentions", "growthFactor"} <= set(items[0])
    assert [e["slug"] for e in v1.ok("/v1/entities?type=person")["items"]] == ["ada-lovelace"]
    detail = v1.ok(f"/v1/entities/{items[0]['id']}")
    assert detail["id"] == items[0]["id"] and "sentimentDistribution" in detail and "prominenceRank" in detail
    assert v1.ok("/v1/entities/by-slug/openai")["id"] == items[0]["id"]
    oid = v1.keys["entities"][0]
    for legacy in (str(oid), f"openai-{oid}"):
        status, headers, body = v1.get(f"/v1/entities/by-slug/{legacy}")
        assert status == 301 and headers["location"] == "/v1/entities/by-slug/openai"
    missing(v1, "/v1/entities/by-slug/nobody-at-all")
    missing(v1, f"/v1/entities/{v1.id('ent', 31337)}")
    trending = v1.ok("/v1/stats/entities/trending?n=2")
    assert len(trending["entities"]) <= 2
    assert all(e["id"].startswith("ent_") and e["canonicalPath"].startswith("/v1/entities/by-slug/")
               for e in trending["entities"])


def test_entity_sitemap_and_slug_drain(v1):
    sitemap = v1.ok("/v1/entities/sitemap-pages")
    assert sitemap == {"pages": [{"page": 1, "count": 3, "maxUpdatedAt": iso(NOW)}], "total": 3}
    drained = v1.walk("/v1/entities/slugs?limit=2")
    assert [d["slug"] for d in drained] == ["ada-lovelace", "openai", "widgets"]
    assert set(v1.ok("/v1/entities/slugs")) == {"items", "nextCursor"}


def test_sources_and_stats_are_dense_by_the_corpus_clock(v1):
    sources = v1.ok("/v1/sources")["sources"]
    assert [s["id"] for s in sources] == ["bluesky", "hackernews", "reddit"]
    assert sum(s["recordCount"] for s in sources) == 45 and all(s["healthy"] for s in sources)
    timeline = v1.ok("/v1/stats/global/timeline?days=20")["timeline"]
    assert len(timeline) == 20 and timeline[-1]["date"] == "2026-03-01"
    assert sum(d["recordCount"] for d in timeline) == 45 and timeline[0]["recordCount"] == 0
    src = v1.ok("/v1/stats/sources/reddit/timeline?days=20")
    assert src["sourceId"] == "reddit" and sum(d["recordCount"] for d in src["timeline"]) == 15
    missing(v1, "/v1/stats/sources/myspace/timeline")
    missing(v1, "/v1/stats/sources/youtube/timeline")        # a source kind with no records
    sentiment = v1.ok("/v1/stats/sentiment/timeline")["timeline"]
    assert len(sentiment) == 7 and {"date", "avgScore", "sources"} <= set(sentiment[0])
    dist = v1.ok("/v1/stats/topics/distribution")
    assert dist["totalRecords"] == 45 and dist["topics"][0]["id"].startswith("top_")
    top = v1.id("top", v1.keys["topics"][0])
    topic_tl = v1.ok(f"/v1/stats/topics/{top}/timeline?days=400")
    assert topic_tl["topicId"] == top and len(topic_tl["timeline"]) == 365
    missing(v1, f"/v1/stats/topics/{v1.id('top', 555)}/timeline")


def test_arcs(v1):
    arcs = v1.walk("/v1/arcs?limit=1")
    assert [a["slug"] for a in arcs] == ["ai-arc"] and arcs[0]["arcStatus"] == "active"
    detail = v1.ok("/v1/arcs/ai-arc")
    assert [s["headline"] for s in detail["stories"]] == ["Headline 2 v1", "Headline 0 v2"]
    missing(v1, "/v1/arcs/no-such-arc")


def test_story_stream_is_501(v1):
    status, headers, body = v1.get("/v1/stream/stories")
    assert_json_error(status, body, 501, headers)
