"""Volume trends and topic comparison."""
from __future__ import annotations

import pytest

from corpuskit import open_corpus
from corpuskit.analysis.snapshots import build_snapshots
from corpuskit.analysis.trends import compare_topics, volume_trend
from corpuskit.errors import NotFoundError, ValidationError
from tests.analysis_fixture import NOW, Fixture


@pytest.fixture
def built():
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    for name in ("a", "b", "c", "d", "e", "f"):
        f.topic(name, f"Topic {name.upper()}", category="science" if name == "a" else "general")
    with c.transaction():
        f.records(3, "2024-03-31", topics=("a",))
        f.records(2, "2024-03-29", topics=("a", "b"), source="news", score=0.5)
        f.records(4, "2024-01-15", topics=("a",))  # far outside the default window
    build_snapshots(c, "analyse-1")
    yield c
    c.close()


def test_volume_trend_dense_oldest_first(built):
    out = volume_trend(built, "a", days=3)
    assert out == {"topic": "a", "days": 3, "externalTrends": [], "volume": [
        {"day": "2024-03-29", "count": 2}, {"day": "2024-03-30", "count": 0},
        {"day": "2024-03-31", "count": 3}]}
    default = volume_trend(built, "a")
    assert default["days"] == 30 and len(default["volume"]) == 30
    assert sum(v["count"] for v in default["volume"]) == 5
    assert sum(v["count"] for v in volume_trend(built, "a", days=90)["volume"]) == 9


def test_volume_trend_errors(built):
    with pytest.raises(NotFoundError):
        volume_trend(built, "zzz")
    with pytest.raises(ValidationError):
        volume_trend(built, "a", days=0)
    with pytest.raises(ValidationError):
        volume_trend(built, None)


def test_compare_rows_are_snapshot_rows(built):
    out = compare_topics(built, "a, b", days=2)
    assert out["topics"] == [{"name": "a", "displayName": "Topic A", "category": "science"},
                             {"name": "b", "displayName": "Topic B", "category": "general"}]
    assert out["days"] == 2
    assert [r["date"] for r in out["comparison"]["a"]] == ["2024-03-30", "2024-03-31"]
    assert out["comparison"]["a"][1]["totalRecords"] == 3
    assert out["comparison"]["b"][1]["totalRecords"] == 0
    three = compare_topics(built, ["a", "b"], days=3)["comparison"]["b"][0]
    assert three["date"] == "2024-03-29" and three["totalRecords"] == 2
    assert three["volumeBySource"] == {"news": 2} and three["avgSentimentScore"] == "0.5000"


def test_compare_days_clamped_to_90(built):
    out = compare_topics(built, ["a", "b"], days=365)
    assert out["days"] == 90 and len(out["comparison"]["a"]) == 90
    assert compare_topics(built, ["a", "b"])["days"] == 30


@pytest.mark.parametrize("topics", ["a", ["a"], ["a", "a"], "", None, "a,b,c,d,e,f"])
def test_compare_needs_two_to_five_topics(built, topics):
    with pytest.raises(ValidationError, match="topics"):
        compare_topics(built, topics)


def test_compare_errors(built):
    assert len(compare_topics(built, "a,b,c,d,e")["topics"]) == 5
    with pytest.raises(NotFoundError):
        compare_topics(built, ["a", "nope"])
    with pytest.raises(ValidationError):
        compare_topics(built, ["a", "b"], days=0)
