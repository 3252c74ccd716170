"""Corpus statistics: dense timelines by the corpus clock, distribution, status."""
from __future__ import annotations

import pytest

from tests.analysis_fixture import NOW, Fixture
from corpuskit import open_corpus
from corpuskit.analysis import corpus_stats
from corpuskit.errors import NotFoundError, ValidationError


@pytest.fixture
def built():
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    f.topic("ai-policy", "AI Policy")
    f.topic("climate", "Climate")
    f.topic("empty-beat", "Empty Beat")
    with c.transaction():
        f.records(3, "2024-03-31", source="reddit", topics=("ai-policy",), score=0.5)
        f.records(2, "2024-03-31", source="bluesky", topics=("climate",), score=-0.5)
        f.records(1, "2024-03-29", source="reddit", topics=("ai-policy", "climate"), score=0.2)
        f.record("2024-03-25", source="hackernews", score=None)           # outside a 6-day window
        f.record("2024-03-31T13:00:00Z", source="reddit", topics=("ai-policy",))  # after the clock
        f.signal("ai-policy", "2024-03-30T08:00:00Z")
        f.signal("climate", "2024-03-20T08:00:00Z")
    yield c, f
    c.close()


def test_global_timeline_is_dense_oldest_first_and_ends_on_clock_day(built):
    c, _ = built
    rows = corpus_stats.global_timeline(c, days=6)
    assert [r["date"] for r in rows] == ["2024-03-26", "2024-03-27", "2024-03-28", "2024-03-29",
                                         "2024-03-30", "2024-03-31"]
    by_date = {r["date"]: r for r in rows}
    assert by_date["2024-03-30"]["recordCount"] == 0
    assert by_date["2024-03-30"]["sources"] == {"bluesky": 0, "reddit": 0}
    assert by_date["2024-03-29"]["sources"] == {"bluesky": 0, "reddit": 1}
    # the record at 13:00 is on the clock's day, so it is in the day row
    assert by_date["2024-03-31"]["recordCount"] == 6
    assert by_date["2024-03-31"]["sources"] == {"bluesky": 2, "reddit": 4}
    assert len(corpus_stats.global_timeline(c, days=1)) == 1


def test_windows_follow_the_corpus_clock_not_the_wall_clock():
    c = open_corpus(":memory:")  # frozen: the clock is the newest record
    f = Fixture(c)
    with c.transaction():
        f.record("2015-06-01")
        f.record("2015-06-03")
    rows = corpus_stats.global_timeline(c, days=3)
    assert [(r["date"], r["recordCount"]) for r in rows] == [
        ("2015-06-01", 1), ("2015-06-02", 0), ("2015-06-03", 1)]
    c.close()


@pytest.mark.parametrize("days", [0, -3, "x", 2.5, None, True])
def test_bad_days_are_validation_errors(built, days):
    c, _ = built
    with pytest.raises(ValidationError, match="days"):
        corpus_stats.global_timeline(c, days=days)


def test_source_timeline_and_unknown_sources(built):
    c, _ = built
    out = corpus_stats.source_timeline(c, "bluesky", days=3)
    assert out == {"sourceId": "bluesky", "timeline": [
        {"date": "2024-03-29", "recordCount": 0}, {"date": "2024-03-30", "recordCount": 0},
        {"date": "2024-03-31", "recordCount": 2}]}
    with pytest.raises(NotFoundError):
        corpus_stats.source_timeline(c, "youtube", days=3)  # a kind with no records
    with pytest.raises(NotFoundError):
        corpus_stats.source_timeline(c, "myspace", days=3)  # not a kind


def test_sentiment_timeline_null_on_empty_days(built):
    c, _ = built
    tl = corpus_stats.sentiment_timeline(c, days=3)["timeline"]
    assert [t["date"] for t in tl] == ["2024-03-29", "2024-03-30", "2024-03-31"]
    assert tl[1] == {"date": "2024-03-30", "avgScore": None, "sources": {}}
    assert tl[0]["avgScore"] == pytest.approx(0.2)
    # 3 x 0.5 + 1 x 0.0 (reddit) and 2 x -0.5 (bluesky) on the last day
    assert tl[2]["sources"] == {"bluesky": pytest.approx(-0.5), "reddit": pytest.approx(0.375)}
    assert tl[2]["avgScore"] == pytest.approx((1.5 - 1.0) / 6, abs=1e-4)


def test_topic_distribution(built):
    c, f = built
    out = corpus_stats.topic_distribution(c)
    assert out["totalRecords"] == 8
    topics = {t["label"]: t for t in out["topics"]}
    assert topics["AI Policy"]["recordCount"] == 5 and topics["Climate"]["recordCount"] == 3
    assert topics["AI Policy"]["share"] == pytest.approx(5 / 8, abs=1e-4)
    assert topics["Empty Beat"] == {"topicId": f.topics["empty-beat"], "label": "Empty Beat",
                                    "recordCount": 0, "share": 0.0}
    assert [t["label"] for t in out["topics"]] == ["AI Policy", "Climate", "Empty Beat"]
    assert all(isinstance(t["topicId"], int) for t in out["topics"])


def test_topic_timeline_share_and_errors(built):
    c, f = built
    out = corpus_stats.topic_timeline(c, f.topics["climate"], days=3)
    assert out["topicId"] == f.topics["climate"]
    assert out["timeline"] == [
        {"date": "2024-03-29", "recordCount": 1, "share": 1.0},
        {"date": "2024-03-30", "recordCount": 0, "share": 0.0},
        {"date": "2024-03-31", "recordCount": 2, "share": pytest.approx(2 / 6, abs=1e-4)}]
    with pytest.raises(NotFoundError):
        corpus_stats.topic_timeline(c, 999, days=3)
    with pytest.raises(NotFoundError):
        corpus_stats.topic_timeline(c, "nope", days=3)


def test_status_by_the_corpus_clock(built):
    c, _ = built
    c.conn.execute("INSERT INTO source_health(source, last_ingested_at) VALUES "
                   "('bluesky', '2024-03-31T20:00:00Z')")
    s = corpus_stats.status(c)
    assert s["status"] == "operational"
    assert s["checkedAt"] == NOW
    assert s["totalRecords"] == 8
    # published in (2024-03-30T12:00, 2024-03-31T12:00]: the 5 at noon on the 31st
    assert s["records24h"] == 5
    assert s["signals48h"] == 1
    assert s["activeTopics"] == 3
    assert s["sources"] == [
        {"source": "bluesky", "lastIngestion": "2024-03-31T20:00:00Z"},
        {"source": "hackernews", "lastIngestion": "2024-03-25T12:00:00Z"},
        {"source": "reddit", "lastIngestion": "2024-03-31T13:00:00Z"},
    ]
