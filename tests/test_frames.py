"""The public DataFrame API of Corpus, on the session demo corpus: columns, filters, bad values."""
import json

import pandas as pd
import pytest

from corpuskit import NotFoundError, ValidationError, open_corpus
from corpuskit.api.keyed.queries import list_discourse


def test_records_carry_primary_topic_sentiment_and_entities(demo_corpus):
    df = demo_corpus.records()
    assert len(df) == demo_corpus.count()
    assert {"topic", "sentimentScore", "sentimentLabel", "entities"} <= set(df.columns)
    primary = dict(demo_corpus.conn.execute(
        "SELECT e.record_id, t.name FROM enrichment e JOIN topics t ON t.id = e.topic_id").fetchall())
    assert df["topic"].notna().mean() > 0.8
    assert all(df.set_index("id").loc[rid, "topic"] == name for rid, name in list(primary.items())[:500])
    assert df["sentimentScore"].between(-1, 1).all()
    assert df["entities"].map(lambda e: isinstance(e, list)).all()
    rid = demo_corpus.conn.execute("SELECT record_id FROM mentions LIMIT 1").fetchone()[0]
    names = {r[0] for r in demo_corpus.conn.execute(
        "SELECT en.name FROM mentions m JOIN entities en ON en.id = m.entity_id WHERE m.record_id = ?",
        (rid,))}
    assert set(df.set_index("id").loc[rid, "entities"]) == names


def test_records_topic_filter_agrees_with_discourse(demo_corpus):
    """One membership rule: records(topic=X) lists exactly /api/v1/discourse?topic=X's records."""
    for name in demo_corpus.topics()["name"]:
        df = demo_corpus.records(topic=name)
        page = list_discourse(demo_corpus, topic=name, limit=1)
        assert len(df) == page["pagination"]["total"] > 0
        assert (df["topic"] == name).all()
    # a record on two beats is listed once, under its primary beat
    total = sum(len(demo_corpus.records(topic=n)) for n in demo_corpus.topics()["name"])
    assert total == demo_corpus.records()["topic"].notna().sum()


def test_records_topic_hint_before_enrichment(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    c.add_records([{"source": "news", "contentText": "a hint only", "publishedAt": "2024-01-01"}],
                  topic="my-beat")
    assert list(c.records(topic="my-beat")["topic"]) == ["my-beat"]
    assert c.records()["entities"].isna().all()
    with pytest.raises(ValidationError, match="unknown topic 'nope'"):
        c.records(topic="nope")


def test_records_bad_filters(demo_corpus):
    with pytest.raises(ValidationError, match="since"):
        demo_corpus.records(since="not a date")
    with pytest.raises(ValidationError, match="unknown topic 'no-such-beat'; topics are: ai-models"):
        demo_corpus.records(topic="no-such-beat")
    with pytest.raises(ValidationError, match="source"):
        demo_corpus.records(source=3)


def test_topics(demo_corpus):
    t = demo_corpus.topics()
    assert list(t.columns) == ["id", "name", "displayName", "description", "category", "keywords",
                               "subreddits", "active", "discovered", "recordCount", "assignedCount",
                               "createdAt", "share", "share_low", "share_high"]
    assert t["name"].is_monotonic_increasing and len(t) == 7
    assert (t["assignedCount"] >= t["recordCount"]).all()
    assert t["recordCount"].sum() == demo_corpus.records()["topic"].notna().sum()


def test_signals_and_filters(demo_corpus):
    s = demo_corpus.signals()
    assert len(s) > 0 and s["detectedAt"].is_monotonic_increasing
    assert set(s["kind"]) <= {"volume_spike", "sentiment_shift", "novelty", "divergence"}
    assert isinstance(s["detail"].iloc[0], dict)
    spikes = demo_corpus.signals(kind="velocity")
    assert len(spikes) and (spikes["kind"] == "volume_spike").all()
    topic = s["topic"].dropna().iloc[0]
    assert (demo_corpus.signals(topic=topic)["topic"] == topic).all()
    high = demo_corpus.signals(severity="high", status="resolved")
    assert ((high["severity"] == "high") & (high["status"] == "resolved")).all()
    middle = s["detectedAt"].iloc[len(s) // 2]
    assert (demo_corpus.signals(since=middle)["detectedAt"] >= middle).all()
    assert (demo_corpus.signals(until=middle)["detectedAt"] <= middle).all()
    for bad, match in (({"kind": "spike"}, "kind must be one of volume_spike"),
                       ({"severity": "urgent"}, "severity must be one of high, medium, low"),
                       ({"status": "closed"}, "status must be one of open, resolved"),
                       ({"topic": "nope"}, "unknown topic"),
                       ({"since": "yesterday-ish"}, "since")):
        with pytest.raises(ValidationError, match=match):
            demo_corpus.signals(**bad)


def test_signal_evidence(demo_corpus):
    sid = int(demo_corpus.signals()["id"].iloc[0])
    ev = demo_corpus.signal_evidence(sid)
    assert list(ev.columns) == ["kind", "id", "label", "source", "sentimentScore", "entityType"]
    assert {"record", "topic"} <= set(ev["kind"])
    assert ev.loc[ev["kind"] == "record", "label"].str.len().gt(0).all()
    with pytest.raises(NotFoundError):
        demo_corpus.signal_evidence(10 ** 9)
    with pytest.raises(ValidationError):
        demo_corpus.signal_evidence("abc")


def test_clusters(demo_corpus):
    c = demo_corpus.clusters()
    assert len(c) > 0 and c["recordCount"].is_monotonic_decreasing
    assert c["silhouette"].between(-1, 1).all() and c["topTerms"].map(len).gt(0).all()
    assert c["runId"].nunique() == 1
    topic = c["topic"].iloc[0]
    assert (demo_corpus.clusters(topic=topic)["topic"] == topic).all()
    assert len(demo_corpus.clusters(run=c["runId"].iloc[0])) == len(c)
    with pytest.raises(ValidationError, match="no clusters from run 'run-0'"):
        demo_corpus.clusters(run="run-0")
    with pytest.raises(ValidationError, match="unknown topic"):
        demo_corpus.clusters(topic="nope")
    points = demo_corpus.cluster_points(topic)
    assert {"x", "y", "clusterLabel"} <= set(points.columns) and (points["clusterLabel"] >= 0).any()


def test_entities_profile_and_mentions(demo_corpus):
    e = demo_corpus.entities(limit=10)
    assert len(e) == 10 and e["mentions"].is_monotonic_decreasing
    assert (e["mentions"] == e["mentionCount"]).all()   # no since: all time
    orgs = demo_corpus.entities(type="org")
    assert (orgs["type"] == "org").all() and len(orgs) > 10
    recent = demo_corpus.entities(since=demo_corpus.now() - pd.Timedelta(days=7), limit=5)
    assert (recent["mentions"] <= recent["mentionCount"]).all()
    top = e.iloc[0]
    for key in (top["name"], top["slug"], str(top["id"])):
        profile = demo_corpus.entity_profile(key)
        assert profile["id"] == top["id"] and profile["mentionCount"] == top["mentionCount"]
    trend = profile["mentionTrend"]
    assert list(trend.columns) == ["day", "mentions", "mentions_low", "mentions_high"] and len(trend) == 30 and trend["day"].is_monotonic_increasing
    m = demo_corpus.mentions(entity=top["slug"])
    assert (m["entity"] == top["name"]).all() and m["mentionCount"].sum() == top["mentionCount"]
    assert len(demo_corpus.mentions()) == demo_corpus.conn.execute("SELECT count(*) FROM mentions").fetchone()[0]
    with pytest.raises(NotFoundError):
        demo_corpus.entity_profile("No Such Entity Anywhere")
    with pytest.raises(ValidationError, match="unknown entity"):
        demo_corpus.mentions(entity="No Such Entity Anywhere")
    with pytest.raises(ValidationError, match="type must be one of person"):
        demo_corpus.entities(type="company")
    with pytest.raises(ValidationError, match="limit"):
        demo_corpus.entities(limit=0)


def test_stories_and_story(demo_corpus):
    s = demo_corpus.stories()
    assert len(s) > 0 and s["isCurrent"].all() and s["publishAt"].is_monotonic_decreasing
    assert (demo_corpus.stories(kind="lead_story")["kind"] == "lead_story").all()
    assert len(demo_corpus.stories(current=False)) >= len(s)
    lead = demo_corpus.stories(kind="lead_story").iloc[0]
    story = demo_corpus.story(lead["slug"])
    cites = story["citations"]
    assert story["headline"] == lead["headline"] and len(cites) == lead["citationCount"] > 0
    assert list(cites["ordinal"]) == list(range(1, len(cites) + 1))
    for n in cites["ordinal"]:
        assert f"[{n}]" in story["body"]
    with pytest.raises(NotFoundError):
        demo_corpus.story("no-such-story")
    with pytest.raises(ValidationError, match="kind must be one of lead_story"):
        demo_corpus.stories(kind="essay")
    with pytest.raises(ValidationError, match="current"):
        demo_corpus.stories(current="yes")


def test_snapshots_trends_compare(demo_corpus):
    names = list(demo_corpus.topics()["name"])
    snap = demo_corpus.snapshots(topic=names[0])
    days = demo_corpus.records()["publishedAt"].dt.floor("D").nunique()
    assert len(snap) == days and (snap["topic"] == names[0]).all()
    assert snap["totalRecords"].sum() == demo_corpus.topics().set_index("name").loc[names[0], "assignedCount"]
    window = demo_corpus.snapshots(since="2026-01-01", until="2026-01-10")
    assert len(window) == 10 * len(names)
    trend = demo_corpus.trends(names[0], days=14)
    assert list(trend.columns) == ["topic", "day", "count", "count_low", "count_high"] and len(trend) == 14
    assert list(trend["count"]) == list(snap["totalRecords"].tail(14))
    cmp = demo_corpus.compare(names[:3], days=14)
    assert len(cmp) == 42 and set(cmp["topic"]) == set(names[:3])
    with pytest.raises(ValidationError, match="2 to 5"):
        demo_corpus.compare(names[:1])
    with pytest.raises(ValidationError, match="unknown topic"):
        demo_corpus.trends("nope")
    with pytest.raises(ValidationError, match="days"):
        demo_corpus.trends(names[0], days=0)
    with pytest.raises(ValidationError, match="from"):
        demo_corpus.snapshots(since="2026-13-01")


def test_observations_and_runs(demo_corpus):
    o = demo_corpus.observations()
    assert len(o) == demo_corpus.conn.execute("SELECT count(*) FROM observations").fetchone()[0] > 0
    assert o["observedAt"].is_monotonic_decreasing
    kind = o["type"].iloc[0]
    assert (demo_corpus.observations(type=kind)["type"] == kind).all()
    with pytest.raises(ValidationError, match="type must be one of"):
        demo_corpus.observations(type="hunch")
    runs = demo_corpus.runs()
    assert {"enrich", "analyse", "narrate"} <= set(runs["stage"])
    assert isinstance(runs["settings"].iloc[0], dict)
    assert set(demo_corpus.runs(stage="enrich")["stage"]) == {"enrich"}


def test_accessors_on_an_empty_corpus(corpus):
    assert corpus.records().empty and corpus.topics().empty and corpus.signals().empty
    assert corpus.clusters().empty and corpus.entities().empty and corpus.stories().empty
    assert corpus.observations().empty and corpus.mentions().empty
    assert json.loads(json.dumps(corpus.manifest()))["records"]["count"] == 0


def test_records_read_after_new_records_arrive_unenriched(demo_copy):
    """A record added after enrich has no entities yet: the frame gives None for it (it raised a
    TypeError reading the missing value as JSON) and the enriched records keep their lists."""
    demo_copy.add_records([{"source": "news", "sourceId": "late-1", "contentText": "a late post about Apple",
                            "publishedAt": "2030-01-01T00:00:00Z"}])
    frame = demo_copy.records()
    late = frame[frame["sourceId"] == "late-1"].iloc[0]
    assert late["entities"] is None
    assert frame["entities"].map(lambda v: isinstance(v, list)).sum() > len(frame) / 2
    picked = demo_copy.query("late").records()
    assert "late-1" in set(picked["sourceId"])
