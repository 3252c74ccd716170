"""Entity aggregates and profiles on hand-built data (numbers worked out by hand)."""
from __future__ import annotations

import pytest

from corpuskit import open_corpus
from corpuskit.analysis import entity_stats as es
from corpuskit.errors import NotFoundError, ValidationError
from tests.analysis_fixture import NOW, Fixture

# NOW is 2024-03-31T12:00:00Z (a Sunday): recent = (03-24T12:00, 03-31T12:00],
# baseline = (02-25T12:00, 03-24T12:00].


@pytest.fixture
def built():
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    f.topic("ai-policy", "AI Policy")
    f.topic("climate", "Climate")
    f.entity("OpenAI", "org", aliases=("Open AI",))        # 1
    f.entity("Anthropic", "org")                           # 2
    f.entity("Paris", "place")                             # 3
    f.entity("Google", "org")                              # 4
    f.entity("Meta", "org")                                # 5: never mentioned
    f.entity("Apple", "org")                               # 6
    f.entity("Apple", "product")                           # 7
    with c.transaction():
        f.record("2024-03-30", source="reddit", topics=("ai-policy",), score=0.6,
                 entities={"OpenAI": 2, "Anthropic": 5, "Paris": 1, "Apple|org": 1,
                           "Apple|product": 2})
        f.record("2024-03-29", source="news", topics=("ai-policy",), score=-0.4,
                 entities={"OpenAI": 1})
        f.record("2024-03-10", source="reddit", topics=("ai-policy",), score=0.2,
                 entities={"OpenAI": 3})
        f.record("2024-03-01", source="bluesky", topics=("climate",), score=None,
                 entities={"OpenAI": 1})
        f.record("2024-01-10", source="reddit", topics=("climate",), score=0.0,
                 entities={"OpenAI": 1})
        f.record("2024-03-05", source="reddit", topics=("climate",), score=0.0,
                 entities={"Google": 10})
        f.record("2024-03-30", source="reddit", topics=("climate",), score=0.0)  # no entities
        sig = f.signal("ai-policy", "2024-03-30T10:00:00Z", kind="novelty", entity="Paris")
        old = f.signal("ai-policy", "2024-03-12T10:00:00Z", kind="novelty", entity="OpenAI",
                       status="resolved")
        other = f.signal("ai-policy", "2024-03-30T11:00:00Z", kind="novelty")
        c.conn.execute("INSERT INTO signal_evidence VALUES (?, 'entity', ?)",
                       (other, f.entities["Anthropic"]))
        f.signal("ai-policy", "2024-03-30T12:00:00Z", kind="volume_spike", entity="Google")
        f.story("OpenAI", "Old take", "old body", "2024-03-20T00:00:00Z", current=False, version=1)
        f.story("OpenAI", "OpenAI in the news", "Body text [1].", "2024-03-31T00:00:00Z", version=2)
        assert sig and old
    yield c, f
    c.close()


def test_growth_factor_and_herfindahl_formulas():
    assert es.growth_factor(0, 0) == 1.0
    assert es.growth_factor(9, 0) == 10.0
    assert es.growth_factor(10, 40) == 1.0       # same weekly rate as the baseline
    assert es.growth_factor(3, 4) == 2.0
    assert es.herfindahl([]) == 0.0 and es.herfindahl([0, 0]) == 0.0
    assert es.herfindahl([5]) == 1.0
    assert es.herfindahl([1, 1, 1, 1]) == pytest.approx(0.25)


def test_entity_detail_math(built):
    c, f = built
    d = es.entity_detail(c, f.entities["OpenAI"])
    assert d["id"] == f.entities["OpenAI"] and d["name"] == "OpenAI" and d["type"] == "org"
    assert d["slug"] == "openai-org" and "canonicalPath" not in d   # the API builds paths
    assert d["mentionCount"] == 8
    assert d["recentMentions"] == 3 and d["baselineMentions"] == 4
    assert d["growthFactor"] == pytest.approx((3 + 1) / (4 * 7 / 28 + 1))
    assert d["lede"] == "OpenAI (org) was mentioned 8 times across 3 sources, mostly on AI Policy."
    assert d["sentimentDistribution"] == {"positive": 2, "neutral": 1, "negative": 1, "unknown": 1}
    assert d["sentimentTrend"] == [
        {"weekStart": "2024-01-08", "avgScore": 0.0, "sampleSize": 1},
        {"weekStart": "2024-03-04", "avgScore": 0.2, "sampleSize": 1},
        {"weekStart": "2024-03-25", "avgScore": pytest.approx(0.1), "sampleSize": 2},
    ]
    # orgs by mentions: Google 10, OpenAI 8, Anthropic 5, Apple 1, Meta 0
    assert d["prominenceRank"] == {"withinType": 2, "sampleSize": 5}
    assert d["noveltyActive"] is False   # its only novelty signal is resolved
    # reddit 2+3+1 = 6, news 1, bluesky 1
    assert d["sourceDiversity"] == {"distinctSources": 3,
                                    "herfindahlIndex": pytest.approx(38 / 64, abs=1e-4)}


def test_entity_detail_edges(built):
    c, f = built
    assert es.entity_detail(c, f.entities["Paris"])["noveltyActive"] is True
    assert es.entity_detail(c, f.entities["Anthropic"])["noveltyActive"] is True  # via evidence
    assert es.entity_detail(c, f.entities["Google"])["noveltyActive"] is False    # not novelty
    meta = es.entity_detail(c, f.entities["Meta"])
    assert meta["mentionCount"] == 0 and meta["growthFactor"] == 1.0
    assert meta["lede"] == "Meta (org) has no recorded mentions."
    assert meta["sourceDiversity"] == {"distinctSources": 0, "herfindahlIndex": 0.0}
    assert meta["prominenceRank"] == {"withinType": 5, "sampleSize": 5}
    assert meta["sentimentTrend"] == []
    assert es.entity_detail(c, str(f.entities["Paris"]))["name"] == "Paris"
    assert es.entity_detail(c, f.entities["Paris"])["lede"] == (
        "Paris (place) was mentioned 1 time across 1 source, mostly on AI Policy.")
    for bad in (999, "abc", None):
        with pytest.raises(NotFoundError):
            es.entity_detail(c, bad)


def test_list_rows_keep_order_skip_unknown_and_use_few_queries(built):
    c, f = built
    rows = es.entity_list_rows(c, [f.entities["Paris"], f.entities["OpenAI"], 999,
                                   f.entities["Paris"]])
    assert [r["name"] for r in rows] == ["Paris", "OpenAI"]
    assert set(rows[0]) == {"id", "name", "type", "slug", "lede", "mentionCount",
                            "recentMentions", "growthFactor"}
    detail = es.entity_detail(c, f.entities["OpenAI"])
    assert {k: detail[k] for k in rows[1]} == rows[1]

    statements = []
    c.conn.set_trace_callback(statements.append)
    es.entity_list_rows(c, [f.entities["Paris"]])
    one = len(statements)
    statements.clear()
    es.entity_list_rows(c, list(range(1, 8)))
    c.conn.set_trace_callback(None)
    assert len(statements) == one <= 6


def test_trending_by_growth_with_deterministic_ties(built):
    c, f = built
    out = es.trending_entities(c, 10)["entities"]
    assert [(e["name"], e["type"]) for e in out] == [
        ("Anthropic", "org"),       # 6.0
        ("Apple", "product"),       # 3.0
        ("OpenAI", "org"),          # 2.0 with 3 recent
        ("Paris", "place"),         # 2.0 with 1 recent, lower id
        ("Apple", "org"),           # 2.0 with 1 recent
    ]
    assert out[0] == {"id": f.entities["Anthropic"], "name": "Anthropic", "type": "org",
                      "mentionCount": 5, "growthFactor": 6.0, "recentMentions": 5,
                      "slug": "anthropic-org"}
    assert len(es.trending_entities(c, 2)["entities"]) == 2
    for bad in (0, -1, "x", 5000):
        with pytest.raises(ValidationError):
            es.trending_entities(c, bad)


def test_entity_ranking(built):
    c, _ = built
    out = es.entity_ranking(c)
    assert out["params"] == {"topic": None, "since": "2024-03-24T12:00:00Z"}
    assert out["data"] == [
        {"name": "Anthropic", "mentions": 5, "types": ["org"]},
        {"name": "Apple", "mentions": 3, "types": ["org", "product"]},
        {"name": "OpenAI", "mentions": 3, "types": ["org"]},
        {"name": "Paris", "mentions": 1, "types": ["place"]},
    ]
    assert out["count"] == 4
    climate = es.entity_ranking(c, topic="climate", since="2024-01-01", limit=1)
    assert climate["data"] == [{"name": "Google", "mentions": 10, "types": ["org"]}]
    assert climate["params"] == {"topic": "climate", "since": "2024-01-01T00:00:00Z"}
    assert es.entity_ranking(c, topic="climate", since="2024-03-06")["data"] == []
    with pytest.raises(NotFoundError):
        es.entity_ranking(c, topic="nope")
    with pytest.raises(ValidationError):
        es.entity_ranking(c, since="not a date")
    with pytest.raises(ValidationError):
        es.entity_ranking(c, limit=0)


def test_entity_profile(built):
    c, _ = built
    p = es.entity_profile(c, "OpenAI")
    assert p["name"] == "OpenAI" and p["type"] == "org" and p["types"] == ["org"]
    assert p["totalMentions"] == 8
    assert p["firstSeen"] == "2024-01-10T12:00:00Z" and p["lastSeen"] == "2024-03-30T12:00:00Z"
    assert p["beats"] == ["ai-policy", "climate"]
    assert p["narrative"] == {"headline": "OpenAI in the news", "content": "Body text [1].",
                              "slug": "openai-v2", "generatedAt": "2024-03-31T00:00:00Z"}
    trend = p["mentionTrend"]
    assert len(trend) == 30 and trend[0] == {"day": "2024-03-31", "mentions": 0}
    assert trend[1] == {"day": "2024-03-30", "mentions": 2} and trend[-1]["day"] == "2024-03-02"
    assert sum(t["mentions"] for t in trend) == 6  # the 03-01 and 01-10 mentions are older
    assert es.entity_profile(c, "Open AI")["name"] == "OpenAI"  # alias surface form


def test_entity_profile_folds_same_name_and_is_case_sensitive(built):
    c, _ = built
    apple = es.entity_profile(c, "Apple")
    assert apple["types"] == ["org", "product"] and apple["type"] == "product"
    assert apple["totalMentions"] == 3 and apple["narrative"] is None
    meta = es.entity_profile(c, "Meta")
    assert meta["totalMentions"] == 0 and meta["beats"] == [] and meta["firstSeen"] is None
    with pytest.raises(NotFoundError):
        es.entity_profile(c, "openai")
    with pytest.raises(NotFoundError):
        es.entity_profile(c, "Nobody")
