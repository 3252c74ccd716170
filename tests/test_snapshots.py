"""Daily snapshots: fields, dense windows, incremental rewrites, errors."""
from __future__ import annotations

import pytest

from corpuskit import open_corpus
from corpuskit.analysis.snapshots import build_snapshots, get_snapshots
from corpuskit.errors import NotFoundError, ValidationError
from tests.analysis_fixture import NOW, Fixture, table_rows


def counts(summary: dict) -> dict:
    return {k: summary[k] for k in ("written", "unchanged", "deleted")}


@pytest.fixture
def built():
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    f.topic("ai-policy", "AI Policy")
    f.topic("climate", "Climate")
    f.entity("OpenAI", "org")
    f.entity("Sam Altman", "person")
    f.entity("Paris", "place")
    with c.transaction():
        f.record("2024-03-30", source="reddit", topics=("ai-policy",), score=0.6,
                 entities={"OpenAI": 2, "Sam Altman": 1})
        f.record("2024-03-30", source="reddit", topics=("ai-policy",), score=-0.4,
                 entities={"OpenAI": 1})
        f.record("2024-03-30", source="bluesky", topics=("ai-policy", "climate"), score=0.0,
                 entities={"Paris": 3})
        f.record("2024-03-30", source="news", topics=("ai-policy",), score=None)
        f.record("2024-03-28", source="reddit", topics=("climate",), score=0.3)
        f.signal("ai-policy", "2024-03-30T09:00:00Z")
        f.signal("ai-policy", "2024-03-30T10:00:00Z")
        f.signal("climate", "2024-03-29T10:00:00Z")  # a day with a signal and no record
    yield c, f
    c.close()


def test_snapshot_row_has_every_field(built):
    c, _ = built
    assert counts(build_snapshots(c, "analyse-1")) == {"written": 4, "unchanged": 0, "deleted": 0}
    out = get_snapshots(c, "ai-policy", "2024-03-30", "2024-03-30")
    assert out["topic"] == "ai-policy" and out["days"] == 1
    row = out["data"][0]
    assert row == {
        "date": "2024-03-30",
        "totalRecords": 4,
        "volumeBySource": {"bluesky": 1, "news": 1, "reddit": 2},
        "sentimentPositive": 1, "sentimentNeutral": 1, "sentimentNegative": 1,
        "avgSentimentScore": "0.0667",
        "platformCount": 3,
        "topEntities": [{"name": "OpenAI", "mentions": 3, "type": "org"},
                        {"name": "Paris", "mentions": 3, "type": "place"},
                        {"name": "Sam Altman", "mentions": 1, "type": "person"}],
        "signalCount": 2,
    }


def test_window_defaults_to_last_30_days_and_is_dense(built):
    c, _ = built
    build_snapshots(c, "analyse-1")
    out = get_snapshots(c, "climate")
    assert out["days"] == 30 and len(out["data"]) == 30
    assert out["data"][0]["date"] == "2024-03-02" and out["data"][-1]["date"] == "2024-03-31"
    by_day = {r["date"]: r for r in out["data"]}
    assert by_day["2024-03-28"]["totalRecords"] == 1
    assert by_day["2024-03-29"]["totalRecords"] == 0 and by_day["2024-03-29"]["signalCount"] == 1
    assert by_day["2024-03-31"] == {
        "date": "2024-03-31", "totalRecords": 0, "volumeBySource": {}, "sentimentPositive": 0,
        "sentimentNeutral": 0, "sentimentNegative": 0, "avgSentimentScore": None,
        "platformCount": 0, "topEntities": [], "signalCount": 0}
    only_to = get_snapshots(c, "climate", date_to="2024-03-29")
    assert only_to["days"] == 30 and only_to["data"][-1]["date"] == "2024-03-29"
    only_from = get_snapshots(c, "climate", date_from="2024-03-28")
    assert [r["date"] for r in only_from["data"]] == ["2024-03-28", "2024-03-29", "2024-03-30",
                                                      "2024-03-31"]


def test_errors(built):
    c, _ = built
    with pytest.raises(NotFoundError, match="Topic not found"):
        get_snapshots(c, "no-such-topic")
    with pytest.raises(ValidationError, match="after"):
        get_snapshots(c, "climate", "2024-03-10", "2024-03-01")
    with pytest.raises(ValidationError, match="YYYY-MM-DD"):
        get_snapshots(c, "climate", "March 1st")
    with pytest.raises(ValidationError):
        get_snapshots(c, "")


def test_only_changed_days_are_rewritten(built):
    c, f = built
    assert build_snapshots(c, "analyse-1")["written"] == 4
    assert counts(build_snapshots(c, "analyse-2")) == {"written": 0, "unchanged": 4, "deleted": 0}
    assert {r[0] for r in c.conn.execute("SELECT DISTINCT run_id FROM snapshots")} == {"analyse-1"}
    with c.transaction():
        f.record("2024-03-31", source="reddit", topics=("climate",), score=0.1)   # a new day
        f.record("2024-03-28", source="news", topics=("climate",), score=0.1)     # an old day changes
    assert counts(build_snapshots(c, "analyse-3")) == {"written": 2, "unchanged": 3, "deleted": 0}
    rewritten = c.conn.execute(
        "SELECT topic_id, date FROM snapshots WHERE run_id = 'analyse-3' ORDER BY date").fetchall()
    assert [tuple(r) for r in rewritten] == [(f.topics["climate"], "2024-03-28"),
                                             (f.topics["climate"], "2024-03-31")]
    # a sentiment change, an entity rename and a new signal each rewrite only their own day
    c.conn.execute("UPDATE enrichment SET sentiment_score = 0.9 WHERE record_id = 5")
    assert build_snapshots(c, "analyse-4")["written"] == 1
    c.conn.execute("UPDATE entities SET name = 'Open AI' WHERE name = 'OpenAI'")
    assert build_snapshots(c, "analyse-5")["written"] == 1
    f.signal("climate", "2024-03-31T01:00:00Z")
    assert build_snapshots(c, "analyse-6")["written"] == 1
    # a day that loses all its inputs is deleted
    c.conn.execute("DELETE FROM signals WHERE detected_at LIKE '2024-03-29%'")
    assert counts(build_snapshots(c, "analyse-7")) == {"written": 0, "unchanged": 4, "deleted": 1}
    assert build_snapshots(c, "analyse-8", full=True)["written"] == 0


def test_same_input_gives_identical_tables():
    tables = []
    for _ in range(2):
        c = open_corpus(":memory:", now=NOW)
        f = Fixture(c)
        f.topic("a")
        f.topic("b")
        f.entity("X")
        with c.transaction():
            for day in range(1, 20):
                for k in range(day % 4 + 1):
                    f.record(f"2024-03-{day:02d}", source=("reddit", "news")[k % 2],
                             topics=("a",) if k % 3 else ("a", "b"), score=(k - 1) / 3,
                             entities={"X": k} if k else None)
        build_snapshots(c, "analyse-1")
        tables.append(table_rows(c, "snapshots", "topic_id, date"))
        c.close()
    assert tables[0] == tables[1] and len(tables[0]) > 19


def test_only_dirty_days_are_aggregated_and_the_result_equals_a_full_build(monkeypatch):
    monkeypatch.setattr("corpuskit.analysis.snapshot_changes.BUCKET_BITS", 2)  # 4 ids a bucket
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    f.topic("a")
    f.topic("b")
    f.entity("X", "org")
    for filler in ("F1", "F2", "F3"):
        f.entity(filler)                   # so Y sits in another bucket of entity ids than X
    f.entity("Y", "person")
    with c.transaction():
        for day in range(1, 31):
            for k in range(4):
                f.record(f"2024-03-{day:02d}", topics=("a",) if k else ("a", "b"),
                         source=("reddit", "news")[k % 2], score=(k - 1.5) / 2,
                         entities={"X": 1} if k == 0 else ({"Y": 2} if day == 17 else None))
    first = build_snapshots(c, "analyse-1")
    assert first["daysRecomputed"] == 30 and first["written"] == 60
    assert build_snapshots(c, "analyse-2")["daysRecomputed"] == 0
    with c.transaction():
        f.record("2024-03-31", topics=("b",), score=0.3)        # a new day, a new bucket
    out = build_snapshots(c, "analyse-3")
    assert out["daysRecomputed"] <= 2 and out["written"] == 1
    c.conn.execute("UPDATE enrichment SET sentiment_score = 0.99, sentiment_label = 'positive' "
                   "WHERE record_id = 42")                    # one record on 2024-03-11
    out = build_snapshots(c, "analyse-4")
    assert out["daysRecomputed"] <= 2 and out["written"] == 1
    c.conn.execute("UPDATE entities SET name = 'Why' WHERE name = 'Y'")  # mentioned on one day
    out = build_snapshots(c, "analyse-5")
    assert out["daysRecomputed"] <= 2 and out["written"] == 1
    c.conn.execute("DELETE FROM records WHERE id = 80")        # 2024-03-20 loses a record
    out = build_snapshots(c, "analyse-6")
    assert out["daysRecomputed"] <= 2 and out["written"] == 1
    c.conn.execute("DELETE FROM topic_assignments WHERE topic_id = ? AND record_id IN "
                   "(SELECT id FROM records WHERE day = '2024-03-05')", (f.topics["b"],))
    out = build_snapshots(c, "analyse-7")
    assert out["daysRecomputed"] <= 2 and out["deleted"] == 1
    f.signal("a", "2024-03-09T08:00:00Z")
    out = build_snapshots(c, "analyse-8")
    assert out["daysRecomputed"] == 1 and out["written"] == 1
    incremental = [r[:-1] for r in table_rows(c, "snapshots", "topic_id, date")]
    assert build_snapshots(c, "analyse-9", full=True)["written"] == 0
    c.conn.execute("DELETE FROM snapshots")
    build_snapshots(c, "analyse-10", full=True)
    assert [r[:-1] for r in table_rows(c, "snapshots", "topic_id, date")] == incremental
    c.close()
