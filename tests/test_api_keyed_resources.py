"""Every keyed endpoint on the fixture corpus: happy path, ordering, paging, 400s and 404s.

Every answer is checked against the keyed OpenAPI document (``checked_call``).
"""
from __future__ import annotations

from urllib.parse import quote

import pytest

from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from tests.http_client import assert_json_error
from tests.keyed_fixtures import NOW, RECORDS_PER_TOPIC, UNENRICHED, open_keyed_corpus
from tests.openapi_check import checked_call

TOTAL_RECORDS = 3 * RECORDS_PER_TOPIC + UNENRICHED


@pytest.fixture(scope="module")
def api():
    corpus = open_keyed_corpus()
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)

    def get(path):
        return checked_call(app, "keyed", path, {"x-api-key": key})

    get.corpus = corpus
    yield get
    clear_cache()
    corpus.close()


def ok(get, path):
    status, headers, body = get(path)
    assert status == 200, (path, body)
    assert headers["ratelimit-limit"] and headers["ratelimit-remaining"]
    return body


def bad(get, path, status=400, contains=None):
    code, headers, body = get(path)
    assert_json_error(code, body, status, headers)
    if contains:
        assert contains in body["error"], body
    return body


def walk(get, path, limit):
    """Every row of an offset-paged list, page by page."""
    rows, offset = [], 0
    while True:
        sep = "&" if "?" in path else "?"
        body = ok(get, f"{path}{sep}limit={limit}&offset={offset}")
        rows += body["data"]
        page = body["pagination"]
        assert page["limit"] == limit and page["offset"] == offset
        if not page["hasMore"]:
            assert offset + len(body["data"]) == page["total"]
            return rows, page["total"]
        offset += limit


# -- shared parameter rules -----------------------------------------------------
@pytest.mark.parametrize("path, message", [
    ("/api/v1/discourse?limit=abc", "limit"),
    ("/api/v1/discourse?limit=-1", "limit"),
    ("/api/v1/discourse?limit=0", "limit"),
    ("/api/v1/discourse?limit=2.5", "limit"),
    ("/api/v1/discourse?offset=-3", "offset"),
    ("/api/v1/discourse?offset=x", "offset"),
    ("/api/v1/discourse?source=myspace", "source"),
    ("/api/v1/discourse?since=yesterday", "since"),
    ("/api/v1/discourse?until=2026-13-45", "until"),
    ("/api/v1/discourse?since=2026-02-09&until=2026-02-01", "after"),
    ("/api/v1/narratives?type=op_ed", "type"),
    ("/api/v1/narratives?featured=maybe", "featured"),
    ("/api/v1/narratives?since=02/03/2026", "since"),
    ("/api/v1/topics?active=perhaps", "active"),
    ("/api/v1/signals?severity=critical", "severity"),
    ("/api/v1/signals?since=not-a-date", "since"),
    ("/api/v1/observations?type=rumour", "type"),
    ("/api/v1/observations?severity=huge", "severity"),
    ("/api/v1/entities?since=2026-02-30", "since"),
    ("/api/v1/entities?limit=many", "limit"),
    ("/api/v1/clusters?limit=-5", "limit"),
    ("/api/v1/trends?topic=climate&days=0", "days"),
    ("/api/v1/compare?topics=climate,chips&days=ten", "days"),
    ("/api/v1/search?q=carbon&days=-1", "days"),
    ("/api/v1/search?q=carbon&source=friendster", "source"),
])
def test_malformed_parameters_are_400(api, path, message):
    bad(api, path, 400, message)


@pytest.mark.parametrize("path, maximum", [
    ("/api/v1/narratives?limit=999", 50), ("/api/v1/discourse?limit=101", 100),
    ("/api/v1/signals?limit=10000", 100), ("/api/v1/observations?limit=500", 100),
])
def test_limit_above_maximum_is_clamped(api, path, maximum):
    assert ok(api, path)["pagination"]["limit"] == maximum


@pytest.mark.parametrize("path", [
    "/api/v1/discourse?topic=nope", "/api/v1/narratives?topic=nope", "/api/v1/signals?topic=nope",
    "/api/v1/entities?topic=nope", "/api/v1/clusters?topic=nope", "/api/v1/topics/nope",
    "/api/v1/snapshots?topic=nope", "/api/v1/trends?topic=nope",
    "/api/v1/compare?topics=climate,nope", "/api/v1/topics/Climate",
])
def test_unknown_topic_is_404(api, path):
    assert bad(api, path, 404)["error"] == "Topic not found"


# -- discourse ----------------------------------------------------------------------
def test_discourse_orders_by_captured_at_and_pages_exactly(api):
    rows, total = walk(api, "/api/v1/discourse", 17)
    assert total == TOTAL_RECORDS == len(rows)
    assert len({r["id"] for r in rows}) == total
    keys = [(r["capturedAt"], int(r["id"])) for r in rows]
    assert keys == sorted(keys, reverse=True)
    assert ok(api, "/api/v1/discourse")["pagination"]["limit"] == 50


def test_discourse_fields_and_analysis(api):
    rows, _ = walk(api, "/api/v1/discourse", 100)
    unenriched = [r for r in rows if r["analysis"] is None]
    assert len(unenriched) == UNENRICHED
    assert all(r["topic"] == "climate" for r in unenriched)  # the import hint
    enriched = next(r for r in rows if r["analysis"] and len(r["analysis"]["entities"]) == 2)
    analysis = enriched["analysis"]
    assert analysis["sentiment"]["label"] in ("positive", "neutral", "negative")
    assert isinstance(analysis["sentiment"]["score"], float)
    assert analysis["themes"][1] == "news"
    assert {e["text"] for e in analysis["entities"]} >= {"Zürich"}
    arxiv = next(r for r in rows if r["source"] == "arxiv")
    assert arxiv["contentType"] == "paper"
    reddit = next(r for r in rows if r["source"] == "reddit")
    assert reddit["subreddit"] == "science"


def test_discourse_filters(api):
    body = ok(api, "/api/v1/discourse?source=gdelt&limit=100")
    assert body["data"] and {r["source"] for r in body["data"]} == {"gdelt"}
    climate, total = walk(api, "/api/v1/discourse?topic=climate", 10)
    assert total == RECORDS_PER_TOPIC + UNENRICHED
    assert {r["topic"] for r in climate} == {"climate"}
    window = ok(api, "/api/v1/discourse?since=2026-02-05T00:00:00Z&until=2026-02-06&limit=100")
    assert window["data"]
    assert all("2026-02-05T00:00:00Z" <= r["capturedAt"] <= "2026-02-06T23:59:59Z"
               for r in window["data"])
    assert ok(api, "/api/v1/discourse?source=youtube")["pagination"]["total"] == 0


# -- narratives ----------------------------------------------------------------------
def test_narratives_list_filters_and_paging(api):
    rows, total = walk(api, "/api/v1/narratives", 2)
    assert total == 4  # current versions only
    stamps = [r["generatedAt"] for r in rows]
    assert stamps == sorted(stamps, reverse=True)
    assert {r["type"] for r in rows} == {"lead_story", "beat_narrative", "dispatch",
                                         "entity_narrative"}
    featured = ok(api, "/api/v1/narratives?featured=true")["data"]
    assert {r["slug"] for r in featured} == {"ai-policy-week", "lead-carbon"}
    assert [r["slug"] for r in ok(api, "/api/v1/narratives?type=entity_narrative")["data"]] == [
        "openai-profile"]
    entity = ok(api, "/api/v1/narratives?type=entity_narrative")["data"][0]
    assert entity["entityName"] == "OpenAI"
    policy = ok(api, "/api/v1/narratives?topic=ai-policy")["data"]
    assert {r["topic"] for r in policy} == {"ai-policy"}
    since = ok(api, "/api/v1/narratives?since=2026-02-08&until=2026-02-08")["data"]
    assert [r["slug"] for r in since] == ["lead-carbon"]


def test_narrative_detail_and_versions(api):
    body = ok(api, "/api/v1/narratives/ai-policy-week")
    assert body["version"] == 2
    assert [v["version"] for v in body["versions"]] == [2, 1]
    assert body["triggerSignal"] == {"type": "volume_spike", "severity": "high"}
    assert len(body["sourceDiscourseIds"]) == 3
    assert body["metadata"]["summary"].startswith("Summary")
    assert body["references"][0]["refType"] == "beat"
    old = ok(api, "/api/v1/narratives/ai-policy-week-v1")
    assert old["version"] == 1 and old["headline"] == "AI policy week"
    assert bad(api, "/api/v1/narratives/no-such-story", 404)["error"] == "Narrative not found"
    assert bad(api, "/api/v1/narratives/" + quote("'; DROP TABLE stories; --"), 404)


# -- topics ---------------------------------------------------------------------------
def test_topics_list_active_default_and_filter(api):
    body = ok(api, "/api/v1/topics")
    assert body["count"] == 3 == len(body["topics"])
    assert [t["name"] for t in body["topics"]] == ["ai-policy", "chips", "climate"]
    assert body["topics"][0]["subreddits"] == ["artificial"]
    inactive = ok(api, "/api/v1/topics?active=false")
    assert [t["name"] for t in inactive["topics"]] == ["retired-beat"]
    assert inactive["topics"][0]["active"] is False


def test_topic_detail(api):
    body = ok(api, "/api/v1/topics/ai-policy")
    assert body["currentNarrative"]["slug"] == "ai-policy-week"
    assert [s["detectedAt"] for s in body["recentSignals"]] == [
        "2026-02-09T06:00:00Z", "2026-02-02T06:00:00Z"]
    assert len(body["snapshots"]) == 30 and body["snapshots"][-1]["date"] == NOW[:10]
    assert sum(s["totalRecords"] for s in body["snapshots"]) == RECORDS_PER_TOPIC
    assert [c["clusterLabel"] for c in body["clusters"]] == [1, 0]
    assert sum(v["count"] for v in body["volumeBySource"]) == RECORDS_PER_TOPIC
    counts = [v["count"] for v in body["volumeBySource"]]
    assert counts == sorted(counts, reverse=True)
    retired = ok(api, "/api/v1/topics/retired-beat")
    assert retired["currentNarrative"] is None and retired["volumeBySource"] == []


# -- signals ---------------------------------------------------------------------------
def test_signals_list(api):
    rows, total = walk(api, "/api/v1/signals", 2)
    assert total == 5
    assert [r["detectedAt"] for r in rows] == sorted((r["detectedAt"] for r in rows), reverse=True)
    assert {r["type"] for r in rows} == {"volume_spike", "sentiment_shift", "novelty", "divergence"}
    spike = rows[0]
    assert spike["detail"] == {"baseline": 2.0, "current": 9.0, "multiplier": 4.5}
    assert isinstance(spike["narrativeId"], int)
    shift = next(r for r in rows if r["type"] == "sentiment_shift")
    assert set(shift["detail"]) == {"before", "after"}
    assert [r["acknowledged"] for r in rows].count(True) == 1
    assert {r["severity"] for r in ok(api, "/api/v1/signals?severity=medium")["data"]} == {"medium"}
    assert ok(api, "/api/v1/signals?topic=climate")["pagination"]["total"] == 2
    assert ok(api, "/api/v1/signals?since=2026-02-07")["pagination"]["total"] == 3


# -- entities ----------------------------------------------------------------------------
def test_entities_aggregate(api):
    body = ok(api, "/api/v1/entities?since=2026-01-01")
    names = [e["name"] for e in body["data"]]
    assert set(names) == {"OpenAI", "IPCC", "AC/DC", "Zürich"}
    mentions = [e["mentions"] for e in body["data"]]
    assert mentions == sorted(mentions, reverse=True)
    assert body["count"] == 4 and body["params"]["since"] == "2026-01-01T00:00:00Z"
    one = ok(api, "/api/v1/entities?since=2026-01-01&limit=1")
    assert one["count"] == 1
    scoped = ok(api, "/api/v1/entities?topic=climate&since=2026-01-01")
    assert {e["name"] for e in scoped["data"]} <= {"IPCC", "Zürich"}
    assert scoped["params"]["topic"] == "climate"
    default = ok(api, "/api/v1/entities")  # 7 days before the corpus clock
    assert default["params"]["since"] == "2026-02-03T12:00:00Z"


def test_entity_profile_case_sensitive_and_url_decoded(api):
    body = ok(api, "/api/v1/entities/OpenAI")
    assert body["name"] == "OpenAI" and body["type"] == "org"
    assert body["beats"] == ["ai-policy"]
    assert body["narrative"]["slug"] == "openai-profile"
    assert len(body["mentionTrend"]) == 30
    days = [d["day"] for d in body["mentionTrend"]]
    assert days == sorted(days, reverse=True)
    assert sum(d["mentions"] for d in body["mentionTrend"]) == body["totalMentions"]
    assert ok(api, "/api/v1/entities/" + quote("AC/DC", safe=""))["name"] == "AC/DC"
    assert ok(api, "/api/v1/entities/" + quote("Zürich"))["type"] == "place"
    for missing in ("openai", "OPENAI", "Nobody", quote("Zurich")):
        assert bad(api, f"/api/v1/entities/{missing}", 404)["error"] == "Entity not found"


# -- snapshots, trends, compare -----------------------------------------------------------
def test_snapshots(api):
    body = ok(api, "/api/v1/snapshots?topic=climate")
    assert body["topic"] == "climate" and body["days"] == 30 == len(body["data"])
    assert body["data"][-1]["date"] == NOW[:10]
    ranged = ok(api, "/api/v1/snapshots?topic=climate&from=2026-02-01&to=2026-02-03")
    assert [d["date"] for d in ranged["data"]] == ["2026-02-01", "2026-02-02", "2026-02-03"]
    day = ranged["data"][0]
    assert day["totalRecords"] == sum(day["volumeBySource"].values())
    assert day["sentimentPositive"] + day["sentimentNeutral"] + day["sentimentNegative"] == \
        day["totalRecords"]
    bad(api, "/api/v1/snapshots", 400, "topic")
    bad(api, "/api/v1/snapshots?topic=", 400, "topic")
    bad(api, "/api/v1/snapshots?topic=climate&from=2026-02-31", 400, "from")
    bad(api, "/api/v1/snapshots?topic=climate&from=20260201", 400, "from")
    bad(api, "/api/v1/snapshots?topic=climate&from=2026-02-05&to=2026-02-01", 400)
    bad(api, "/api/v1/snapshots?topic=climate&from=2020-01-01&to=2026-02-01", 400, "range")


def test_trends(api):
    body = ok(api, "/api/v1/trends?topic=ai-policy")
    assert body["days"] == 30 and len(body["volume"]) == 30
    assert sum(v["count"] for v in body["volume"]) == RECORDS_PER_TOPIC
    assert body["volume"][0]["day"] < body["volume"][-1]["day"]
    assert body["externalTrends"] == []
    assert ok(api, "/api/v1/trends?topic=ai-policy&days=7")["days"] == 7
    assert ok(api, "/api/v1/trends?topic=ai-policy&days=100000")["days"] == 365
    bad(api, "/api/v1/trends", 400, "topic")


def test_compare(api):
    body = ok(api, "/api/v1/compare?topics=climate,chips,ai-policy")
    assert [t["name"] for t in body["topics"]] == ["climate", "chips", "ai-policy"]
    assert body["days"] == 30
    assert set(body["comparison"]) == {"climate", "chips", "ai-policy"}
    assert all(len(rows) == 30 for rows in body["comparison"].values())
    assert ok(api, "/api/v1/compare?topics=climate,chips&days=500")["days"] == 90
    bad(api, "/api/v1/compare", 400, "topics")
    bad(api, "/api/v1/compare?topics=climate", 400, "2 to 5")
    bad(api, "/api/v1/compare?topics=climate,climate", 400, "2 to 5")
    bad(api, "/api/v1/compare?topics=a,b,c,d,e,f", 400, "2 to 5")
    bad(api, "/api/v1/compare?topics=,,,", 400)


# -- observations, clusters ------------------------------------------------------------------
def test_observations(api):
    rows, total = walk(api, "/api/v1/observations", 2)
    assert total == 3
    assert [r["observedAt"] for r in rows] == sorted((r["observedAt"] for r in rows), reverse=True)
    convergence = ok(api, "/api/v1/observations?type=convergence")["data"][0]
    assert convergence["detail"]["sharedEntities"] == ["OpenAI"]
    anomaly = ok(api, "/api/v1/observations?severity=high")["data"]
    assert [a["type"] for a in anomaly] == ["anomaly"]
    assert set(anomaly[0]["detail"]) >= {"metric", "deviation"}
    assert ok(api, "/api/v1/observations?since=2026-02-08")["pagination"]["total"] == 2


def test_clusters_latest_run_only(api):
    body = ok(api, "/api/v1/clusters")
    assert body["count"] == 4 == len(body["data"])
    assert {c["runId"] for c in body["data"]} == {"analyse-2"}
    assert all(0 <= c["metadata"]["silhouetteScore"] <= 1 for c in body["data"])
    climate = ok(api, "/api/v1/clusters?topic=climate&limit=1")
    assert climate["count"] == 1 and climate["data"][0]["topic"] == "climate"


# -- search ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path, message", [
    ("/api/v1/search", "q parameter is required"),
    ("/api/v1/search?q=", "q parameter is required"),
    ("/api/v1/search?q=ab", "between 3 and 500"),
    ("/api/v1/search?q=%20%20ab%20", "between 3 and 500"),
    ("/api/v1/search?q=" + "x" * 501, "500"),
])
def test_search_q_rules(api, path, message):
    bad(api, path, 400, message)


def test_search_unknown_topic_is_404(api):
    assert bad(api, "/api/v1/search?q=carbon&topic=nope", 404)["error"] == "Topic not found"


def test_search_internal_fault_is_logged_500(api, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("index exploded")

    monkeypatch.setattr("corpuskit.search.search", broken)   # what /api/v1/search ranks with
    with caplog.at_level("ERROR", logger="corpuskit.api.keyed"):
        body = bad(api, "/api/v1/search?q=carbon", 500)
    assert body["error"] == "Search failed"
    assert "index exploded" in caplog.text


HOSTILE = ["'", "\"; DROP TABLE records; --", "%00", "%FF%FE", "x" * 5000, "%E2%80%AE", "..%2F..%2Fetc",
           "<script>", "1e309", "-0", "%20", "NaN", "9" * 40]


@pytest.mark.parametrize("endpoint, names", [
    ("/api/v1/narratives", ["type", "topic", "featured", "since", "until", "limit", "offset"]),
    ("/api/v1/topics", ["active"]),
    ("/api/v1/discourse", ["source", "topic", "since", "until", "limit", "offset"]),
    ("/api/v1/search?q=carbon+heat", ["source", "topic", "days", "limit"]),
    ("/api/v1/signals", ["topic", "severity", "since", "limit", "offset"]),
    ("/api/v1/entities", ["topic", "since", "limit"]),
    ("/api/v1/snapshots?topic=climate", ["from", "to"]),
    ("/api/v1/trends?topic=climate", ["days"]),
    ("/api/v1/compare?topics=climate,chips", ["days"]),
    ("/api/v1/observations", ["type", "severity", "since", "limit", "offset"]),
    ("/api/v1/clusters", ["topic", "limit"]),
])
def test_hostile_parameters_never_500_never_html(api, endpoint, names):
    for name in names:
        for value in HOSTILE:
            sep = "&" if "?" in endpoint else "?"
            path = f"{endpoint}{sep}{name}={value}"
            status, headers, body = api(path)
            assert status in (200, 400, 404, 503), (path, status, body)
            assert headers["content-type"].startswith("application/json"), path


@pytest.mark.parametrize("path", [
    "/api/v1/topics/%00", "/api/v1/topics/" + "a" * 3000,
    "/api/v1/entities/..%2F..%2Fetc%2Fpasswd", "/api/v1/narratives/%27%20OR%201%3D1",
    "/api/v1/narratives/a%0Ab", "/api/v1/entities/%20",
])
def test_hostile_paths_are_json_404(api, path):
    status, headers, body = api(path)
    assert_json_error(status, body, 404, headers)


def test_undecodable_path_is_json_4xx(api):
    """A path that is not UTF-8 never reaches a handler: a JSON error, no HTML."""
    from tests.http_client import call

    status, headers, data = call(create_app(api.corpus), "GET", "/api/v1/entities/%FF")
    assert_json_error(status, data, None, headers)
    assert 400 <= status < 500


def test_search_before_enrichment_is_503_with_the_reason(api):
    body = bad(api, "/api/v1/search?q=carbon+heat", 503)
    assert "enrich" in body["error"]
