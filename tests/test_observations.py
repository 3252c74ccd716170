"""Cross-topic observations: one hand-built scenario per type, reruns, listing."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from corpuskit import open_corpus
from corpuskit.analysis import observations
from corpuskit.analysis.observations import build_observations, compute_observations, milestone_thresholds
from corpuskit.api.keyed.queries import list_observations
from corpuskit.errors import ValidationError
from tests.analysis_fixture import NOW, Fixture, table_rows


def days(first: str, last: str):
    d, end = date.fromisoformat(first), date.fromisoformat(last)
    while d <= end:
        yield d.isoformat()
        d += timedelta(days=1)


def fresh():
    c = open_corpus(":memory:", now=NOW)
    return c, Fixture(c)


def of_type(c, kind):
    return list_observations(c, type=kind, limit=100)["data"]


def test_milestone_thresholds():
    assert milestone_thresholds(999) == []
    assert milestone_thresholds(12000) == [1000, 2500, 5000, 10000]


def test_volume_and_sentiment_anomalies():
    c, f = fresh()
    f.topic("a", "Topic A")
    f.topic("b", "Topic B")
    with c.transaction():
        for d in days("2024-03-01", "2024-03-31"):
            f.records(40 if d == "2024-03-25" else 5, d, topics=("a",), score=0.0)
            for k in range(10):
                score = -0.8 if d == "2024-03-20" else (0.2 if k % 2 else -0.2)
                f.record(d, topics=("b",), score=score)
    build_observations(c, "analyse-1")
    anomalies = of_type(c, "anomaly")
    assert len(anomalies) == 2
    by_topic = {o["detail"]["topic"]: o for o in anomalies}
    vol = by_topic["a"]
    assert vol["detail"]["metric"] == "volume" and vol["detail"]["direction"] == "up"
    assert vol["detail"]["value"] == 40 and vol["detail"]["expected"] == 5
    assert vol["detail"]["deviation"] >= 6 and vol["severity"] == "high"
    assert vol["observedAt"] == "2024-03-25T23:59:59Z" and vol["detail"]["days"] == 1
    assert "Topic A" in vol["headline"]
    sent = by_topic["b"]
    assert sent["detail"]["metric"] == "sentiment" and sent["detail"]["direction"] == "down"
    assert sent["detail"]["value"] == pytest.approx(-0.8)
    assert sent["detail"]["expected"] == pytest.approx(0.0, abs=1e-6)
    assert sent["detail"]["deviation"] <= -6 and sent["observedAt"] == "2024-03-20T23:59:59Z"
    c.close()


def test_volume_divergence():
    c, f = fresh()
    f.topic("up", "Rising Beat")
    f.topic("down", "Falling Beat")
    with c.transaction():
        for d in days("2024-03-01", "2024-03-31"):
            late = d >= "2024-03-25"
            f.records(30 if late else 10, d, topics=("up",), score=0.0)
            f.records(5 if late else 30, d, topics=("down",), score=0.0)
    build_observations(c, "analyse-1")
    found = of_type(c, "divergence")
    assert len(found) == 1
    obs = found[0]
    assert obs["detail"]["metric"] == "volume"
    assert obs["detail"]["topics"] == ["down", "up"]
    assert obs["detail"]["rising"] == "up" and obs["detail"]["falling"] == "down"
    assert obs["observedAt"] == "2024-03-27T23:59:59Z"
    assert obs["detail"]["peakDay"] == "2024-03-31" and obs["severity"] == "high"
    assert obs["detail"]["change"]["up"] == {"previous": 70, "recent": 210}
    c.close()


@pytest.mark.parametrize("cells", [1 << 16, 1])
def test_convergence_on_shared_rising_entity(monkeypatch, cells):
    # cells=1: one (topic, entity) pair a block, so the two topics' rising rows meet across blocks
    monkeypatch.setattr(observations, "ENTITY_CELLS", cells)
    c, f = fresh()
    for name in ("x", "y", "z"):
        f.topic(name, f"Beat {name.upper()}")
    f.entity("Nvidia", "org")
    f.entity("Quiet", "org")
    with c.transaction():
        for d in days("2024-02-20", "2024-03-31"):
            for topic in ("x", "y"):
                f.records(5, d, topics=(topic,), score=0.0)
                f.record(d, topics=(topic,), entities={"Quiet": 1})
                if d in ("2024-02-28", "2024-03-06", "2024-03-13", "2024-03-20"):
                    f.record(d, topics=(topic,), entities={"Nvidia": 1})
                if d >= "2024-03-27":
                    f.records(3, d, topics=(topic,), entities={"Nvidia": 1})
            f.record(d, topics=("z",), entities={"Quiet": 1})
        f.record("2024-03-01", topics=("z",), entities={"Nvidia": 1})
    build_observations(c, "analyse-1")
    found = of_type(c, "convergence")
    assert len(found) == 1
    obs = found[0]
    assert obs["detail"]["topics"] == ["x", "y"]
    assert obs["detail"]["sharedEntities"] == ["Nvidia"]
    assert obs["observedAt"] == "2024-03-28T23:59:59Z"
    assert obs["detail"]["sigma"] >= 4.5 and obs["severity"] in ("high", "medium")
    assert "Nvidia" in obs["headline"]
    c.close()


def test_milestones_total_and_record_day_bounded_by_clock():
    c, f = fresh()
    f.topic("big", "Big Beat")
    with c.transaction():
        for d in days("2024-02-20", "2024-03-31"):
            f.records(60 if d == "2024-03-31" else 25, d, topics=("big",), score=0.0)
    build_observations(c, "analyse-1")
    found = {o["detail"]["metric"]: o for o in of_type(c, "milestone")}
    assert set(found) == {"totalRecords", "dailyVolume"}
    total = found["totalRecords"]
    assert total["detail"] == {"topic": "big", "metric": "totalRecords", "threshold": 1000,
                               "value": 1000}
    assert total["observedAt"] == "2024-03-30T23:59:59Z" and total["severity"] == "low"
    record = found["dailyVolume"]
    assert record["detail"]["value"] == 60 and record["detail"]["previousRecord"] == 25
    assert record["observedAt"] == NOW  # the day is not over by the corpus clock
    assert record["severity"] == "medium"
    c.close()


def trend_corpus(weekly: dict):
    c, f = fresh()
    with c.transaction():
        for name, counts in weekly.items():
            f.topic(name, name.title())
            for w, total in enumerate(counts):
                monday = date(2024, 3, 4) + timedelta(weeks=w)
                for i in range(7):
                    n = total // 7 + (1 if i < total % 7 else 0)
                    f.records(n, (monday + timedelta(days=i)).isoformat(), topics=(name,), score=0.0)
    return c, f


def test_rising_and_falling_trends_and_rerun_updates():
    c, f = trend_corpus({"grow": [10, 20, 40, 80], "shrink": [80, 40, 20, 10],
                         "flat": [30, 31, 29, 30]})
    first = build_observations(c, "analyse-1")
    trends = {o["detail"]["topic"]: o for o in of_type(c, "trend")}
    assert set(trends) == {"grow", "shrink"}
    grow = trends["grow"]
    assert grow["detail"]["direction"] == "rising" and grow["detail"]["changePct"] == 700.0
    assert [w["count"] for w in grow["detail"]["weeks"]] == [10, 20, 40, 80]
    assert grow["detail"]["weeks"][0]["weekStart"] == "2024-03-04"
    assert grow["observedAt"] == NOW and grow["severity"] == "high"
    assert trends["shrink"]["detail"]["direction"] == "falling"

    again = build_observations(c, "analyse-2")
    assert again["new"] == again["updated"] == again["deleted"] == 0
    assert again["unchanged"] == sum(first["byType"].values())
    with c.transaction():
        f.records(40, "2024-03-29", topics=("grow",), score=0.0)
    third = build_observations(c, "analyse-3")
    assert third["updated"] >= 1
    keys = [r[0] for r in c.conn.execute(
        "SELECT observation_key FROM observations WHERE type = 'trend'")]
    assert len(keys) == len(set(keys)) == 2
    grow = {o["detail"]["topic"]: o for o in of_type(c, "trend")}["grow"]
    assert [w["count"] for w in grow["detail"]["weeks"]] == [10, 20, 40, 120]
    c.close()


def test_no_observations_on_a_steady_corpus():
    c, f = fresh()
    f.topic("p")
    f.topic("q")
    f.entity("E")
    with c.transaction():
        for d in days("2024-02-01", "2024-03-31"):
            f.records(8, d, topics=("p",), score=0.1)
            f.records(8, d, topics=("q",), score=0.1, entities={"E": 1})
            f.record(d, topics=("p", "q"), entities={"E": 1})
    out = build_observations(c, "analyse-1")
    assert out["byType"] == {"convergence": 0, "divergence": 0, "anomaly": 0, "milestone": 0,
                             "trend": 0}
    c.close()


def test_listing_filters_order_and_paging():
    c, _ = trend_corpus({"grow": [10, 20, 40, 80], "shrink": [80, 40, 20, 10]})
    build_observations(c, "analyse-1")
    everything = list_observations(c)
    total = everything["pagination"]["total"]
    assert total == len(everything["data"]) >= 2
    stamps = [o["observedAt"] for o in everything["data"]]
    assert stamps == sorted(stamps, reverse=True)
    assert set(everything["data"][0]) == {"type", "headline", "detail", "severity", "observedAt"}
    page = list_observations(c, limit=1, offset=1)
    assert page["data"] == everything["data"][1:2]
    assert page["pagination"] == {"total": total, "limit": 1, "offset": 1, "hasMore": total > 2}
    assert list_observations(c, limit=1, offset=total - 1)["pagination"]["hasMore"] is False
    assert all(o["type"] == "trend" for o in list_observations(c, type="trend")["data"])
    assert all(o["severity"] == "high" for o in list_observations(c, severity="high")["data"])
    assert list_observations(c, since="2024-04-01")["data"] == []
    assert list_observations(c, since="2024-03-31T00:00:00Z")["pagination"]["total"] >= 2
    for bad in ({"type": "rumour"}, {"severity": "critical"}, {"since": "soon"},
                {"limit": 0}, {"offset": -1}, {"limit": "many"}):
        with pytest.raises(ValidationError):
            list_observations(c, **bad)
    c.close()


def test_same_input_gives_identical_tables():
    tables = []
    for _ in range(2):
        c, _f = trend_corpus({"grow": [10, 20, 40, 80], "shrink": [80, 40, 20, 10]})
        build_observations(c, "analyse-1")
        tables.append(table_rows(c, "observations", "id"))
        c.close()
    assert tables[0] == tables[1] and len(tables[0]) >= 2


def test_entity_pairs_scored_in_blocks_match_the_whole_matrix(demo_corpus, monkeypatch):
    """The convergence z's in blocks of one pair, of a few pairs, and all at once: the same observations,
    and every sparse row made dense holds the pair's summed mentions by day."""
    series = observations._Series(demo_corpus)
    assert len(series.entity_keys) > 10
    whole = series.entity_block(0, len(series.entity_keys))
    index = {d: i for i, d in enumerate(series.days)}
    tid, eid = series.entity_keys[len(series.entity_keys) // 2]
    expected = [0.0] * len(series.days)
    for day, n in demo_corpus.conn.execute(
            "SELECT r.day, sum(m.mention_count) FROM mentions m JOIN records r ON r.id = m.record_id "
            "JOIN topic_assignments ta ON ta.record_id = m.record_id WHERE ta.topic_id = ? AND m.entity_id = ? "
            "GROUP BY r.day", (tid, eid)):
        expected[index[day]] = float(n)
    assert whole[len(series.entity_keys) // 2].tolist() == expected
    z = observations._rising_z(whole)
    rows, days = (z >= observations.OPEN_SIGMA).nonzero()
    reference = sorted(zip(days.tolist(), rows.tolist(), z[rows, days].tolist()))
    assert reference, "the demo has rising entities"
    runs = []
    for cells in (1, 5 * len(series.days), 1 << 30):
        monkeypatch.setattr(observations, "ENTITY_CELLS", cells)
        assert observations._rising_hits(series) == reference
        runs.append(compute_observations(demo_corpus))
    assert runs[0] == runs[1] == runs[2]
    assert any(o["type"] == "convergence" for o in runs[0])
