"""Interval columns on the DataFrames and the tests of compare_tests and week_over_week.

Hand-made corpora give figures worked out by hand; the demo corpus checks the
columns against the records they summarise; the real Reddit file (when
``../shared/datasets`` is present) checks every interval holds its figure.
"""

import numpy as np
import pandas as pd
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ValidationError
from corpuskit.analysis.changes import COMPARE_COLUMNS, WEEKLY_COLUMNS
from corpuskit.analysis.uncertainty import SNAPSHOT_INTERVAL_COLUMNS
from corpuskit.stats.comparisons import FISHER_TEST, RATE_TEST, WELCH_TEST, two_proportion_test, two_rate_test, welch_test
from corpuskit.stats.intervals import mean_interval, poisson_interval, wilson_interval
from tests.analysis_fixture import Fixture

NOW = "2024-03-31T12:00:00Z"


@pytest.fixture
def weeks():
    """Topic a: 10 records in the week of 4 March, 30 in the week of 11 March; topic b: 20 each week."""
    c = open_corpus(":memory:", now=NOW)
    f = Fixture(c)
    f.topic("a")
    f.topic("b")
    for i in range(10):
        f.record(f"2024-03-{4 + i % 7:02d}", topics=["a"], score=0.5 if i < 3 else -0.2)
    for i in range(30):
        f.record(f"2024-03-{11 + i % 7}", topics=["a"], score=0.5 if i < 21 else -0.2)
    for week in (4, 11):
        for i in range(20):
            f.record(f"2024-03-{week + i % 7:02d}", topics=["b"], score=0.0 if i % 2 else 0.3)
    c.conn.commit()
    yield c
    c.close()


def _row(frame, **match):
    keep = np.ones(len(frame), dtype=bool)
    for col, value in match.items():
        keep &= (frame[col] == value).to_numpy()
    assert keep.sum() == 1, match
    return frame[keep].iloc[0]


def test_week_over_week_by_hand(weeks):
    w = weeks.week_over_week(topic="a", since="2024-03-04", until="2024-03-17")
    assert list(w.columns) == WEEKLY_COLUMNS and len(w) == 4          # one pair of weeks, four measures
    rec = _row(w, measure="records")
    assert (rec["value"], rec["reference"], rec["change"]) == (30, 10, 3.0)
    assert rec["p_value"] == pytest.approx(two_rate_test(30, 10)[0]) and rec["test"] == RATE_TEST
    assert (rec["value_low"], rec["value_high"]) == pytest.approx(poisson_interval(30))
    pos = _row(w, measure="positiveShare")
    assert (pos["value"], pos["reference"]) == pytest.approx((0.7, 0.3))
    assert pos["p_value"] == pytest.approx(two_proportion_test(21, 30, 3, 10)[0])
    assert (pos["reference_low"], pos["reference_high"]) == pytest.approx(wilson_interval(3, 10))
    mean = _row(w, measure="avgSentiment")
    after = np.array([0.5] * 21 + [-0.2] * 9)
    before = np.array([0.5] * 3 + [-0.2] * 7)
    assert mean["change"] == pytest.approx(after.mean() - before.mean())
    assert (mean["value_low"], mean["value_high"]) == pytest.approx(mean_interval(after))
    assert mean["p_value"] == pytest.approx(welch_test(30, after.mean(), after.std(ddof=1), 10, before.mean(),
                                                       before.std(ddof=1))[0])
    assert mean["test"] == WELCH_TEST and mean["p_value"] < 0.05


def test_week_over_week_compares_partial_weeks_as_rates(weeks):
    # from Wednesday 6 March: the first week has 5 days inside the window
    w = weeks.week_over_week(topic="b", since="2024-03-06", until="2024-03-17")
    rec = _row(w, measure="records")
    assert (rec["days"], rec["referenceDays"]) == (7, 5)
    held = sum(1 for i in range(20) if 4 + i % 7 >= 6)
    assert rec["reference"] == held and rec["change"] == pytest.approx((20 / 7) / (held / 5))
    assert rec["p_value"] == pytest.approx(two_rate_test(20, held, 7, 5)[0])


def test_week_over_week_every_topic_and_the_empty_week(weeks):
    w = weeks.week_over_week(since="2024-03-04", until="2024-03-24")
    assert sorted(w["topic"].unique()) == ["a", "b"] and len(w) == 2 * 2 * 4
    quiet = _row(w, topic="a", weekStart=pd.Timestamp("2024-03-18", tz="UTC"), measure="records")
    assert quiet["value"] == 0 and quiet["value_low"] == 0 and quiet["change"] == 0
    share = _row(w, topic="a", weekStart=pd.Timestamp("2024-03-18", tz="UTC"), measure="positiveShare")
    assert np.isnan(share["value"]) and np.isnan(share["p_value"])


def test_compare_tests_by_hand(weeks):
    t = weeks.compare_tests(["a", "b"], days=90)
    assert list(t.columns) == COMPARE_COLUMNS and len(t) == 4
    rec = _row(t, measure="records")
    assert (rec["topic"], rec["referenceTopic"], rec["value"], rec["reference"]) == ("a", "b", 40, 40)
    assert rec["p_value"] == pytest.approx(1.0) and rec["change"] == 1.0
    neg = _row(t, measure="negativeShare")
    assert neg["value"] == pytest.approx(16 / 40) and neg["reference"] == 0.0
    assert neg["p_value"] == pytest.approx(two_proportion_test(16, 40, 0, 40)[0])


def test_bad_inputs(weeks):
    with pytest.raises(ValidationError, match="level"):
        weeks.week_over_week(level=1.5)
    with pytest.raises(ValidationError, match="unknown topic"):
        weeks.week_over_week(topic="nope")
    with pytest.raises(ValidationError, match="2 to 5"):
        weeks.compare_tests(["a"])
    with pytest.raises(ValidationError, match="days"):
        weeks.compare_tests(["a", "b"], days=0)
    with pytest.raises(ValidationError, match="level"):
        weeks.trends("a", level=0)


def test_small_tables_use_fishers_test(corpus):
    f = Fixture(corpus)
    f.topic("x")
    f.topic("y")
    for i in range(4):
        f.record("2024-03-04", topics=["x"], score=0.5 if i < 3 else 0.0)
        f.record("2024-03-04", topics=["y"], score=0.5 if i < 1 else 0.0)
    from corpuskit.analysis.changes import topic_pairs

    t = topic_pairs(corpus.conn, [(f.topics["x"], "x"), (f.topics["y"], "y")], "2024-03-04", "2024-03-04")
    pos = _row(t, measure="positiveShare")
    assert pos["test"] == FISHER_TEST and pos["p_value"] == pytest.approx(34 / 70)


def test_an_empty_corpus_has_the_columns(corpus):
    assert list(corpus.week_over_week().columns) == WEEKLY_COLUMNS
    assert corpus.topics().columns[-3:].tolist() == ["share", "share_low", "share_high"]


def test_snapshot_intervals_on_the_demo(demo_corpus):
    s = demo_corpus.snapshots()
    assert list(s.columns[-len(SNAPSHOT_INTERVAL_COLUMNS):]) == SNAPSHOT_INTERVAL_COLUMNS
    busy = s[s["totalRecords"] > 0]
    assert (busy["totalRecords_low"] <= busy["totalRecords"]).all()
    assert (busy["totalRecords"] <= busy["totalRecords_high"]).all()
    for name in ("topicShare", "positiveShare", "negativeShare"):
        assert ((busy[f"{name}_low"] <= busy[name]) & (busy[name] <= busy[f"{name}_high"])).all(), name
    scored = busy[busy["avgSentiment"].notna() & busy["avgSentiment_low"].notna()]
    assert len(scored) > 0.9 * len(busy)
    assert ((scored["avgSentiment_low"] <= scored["avgSentiment"])
            & (scored["avgSentiment"] <= scored["avgSentiment_high"])).all()
    # one topic-day recomputed from its records
    row = busy.iloc[len(busy) // 2]
    day = row["date"].strftime("%Y-%m-%d")
    scores = [r[0] for r in demo_corpus.conn.execute(
        "SELECT e.sentiment_score FROM records r JOIN topic_assignments ta ON ta.record_id = r.id "
        "JOIN topics t ON t.id = ta.topic_id JOIN enrichment e ON e.record_id = r.id "
        "WHERE t.name = ? AND r.day = ?", (row["topic"], day))]
    low, high = mean_interval(scores)
    # centred on the snapshot's mean, which is kept to 4 decimals: half a unit of the last place, plus float error
    half_unit = 5e-5 + 1e-12
    assert (row["avgSentiment_low"], row["avgSentiment_high"]) == (pytest.approx(low, abs=half_unit),
                                                                   pytest.approx(high, abs=half_unit))
    day_total = demo_corpus.conn.execute("SELECT count(*) FROM records WHERE day = ?", (day,)).fetchone()[0]
    assert row["topicShare"] == pytest.approx(row["totalRecords"] / day_total)
    narrow = demo_corpus.snapshots(topic=row["topic"], level=0.5)
    narrow = narrow[narrow["date"] == row["date"]].iloc[0]
    assert row["totalRecords_low"] < narrow["totalRecords_low"] < narrow["totalRecords_high"] < row["totalRecords_high"]
    # compare carries the same columns and figures as snapshots
    cmp = demo_corpus.compare([row["topic"], s["topic"].iloc[-1]], days=90)
    same = cmp[(cmp["topic"] == row["topic"]) & (cmp["date"] == row["date"])].iloc[0]
    assert same["avgSentiment_high"] == pytest.approx(row["avgSentiment_high"])


def test_week_over_week_on_the_demo_agrees_with_snapshots(demo_corpus):
    topic = demo_corpus.topics()["name"].iloc[0]
    w = demo_corpus.week_over_week(topic=topic)
    snaps = demo_corpus.snapshots(topic=topic)
    rec = w[w["measure"] == "records"].iloc[-2]
    week = snaps[(snaps["date"] >= rec["weekStart"]) & (snaps["date"] < rec["weekStart"] + pd.Timedelta(days=7))]
    assert rec["value"] == week["totalRecords"].sum()
    assert w["p_value"].between(0, 1).all() and set(w["measure"]) == {"records", "positiveShare",
                                                                       "negativeShare", "avgSentiment"}


def test_every_interval_holds_its_figure_on_real_reddit(reddit_two_months_run):
    """The Reddit file's first two months, every stage run (the session's shared build; read only)."""
    c = reddit_two_months_run
    w = c.week_over_week()
    assert len(w) > 0 and w["p_value"].dropna().between(0, 1).all()
    for prefix in ("value", "reference"):
        ok = w[prefix].notna() & w[f"{prefix}_low"].notna()
        assert ok.sum() > 0.9 * len(w)
        assert ((w.loc[ok, f"{prefix}_low"] <= w.loc[ok, prefix] + 1e-12)
                & (w.loc[ok, prefix] <= w.loc[ok, f"{prefix}_high"] + 1e-12)).all()
    assigned = c.conn.execute("SELECT count(*) FROM topic_assignments").fetchone()[0]
    weeks = w[w["measure"] == "records"]
    first = weeks.groupby("topic")["reference"].first().sum()
    assert weeks["value"].sum() + first == assigned


def test_observations_carry_a_test_where_their_detail_holds_counts(demo_corpus):
    from corpuskit.analysis.changes import observation_test

    trend = {"metric": "weeklyVolume", "weeks": [{"weekStart": "2024-03-04", "count": c} for c in (10, 14, 19, 30)]}
    assert observation_test(trend) == (RATE_TEST, pytest.approx(two_rate_test(30, 10)[0]))
    diverge = {"metric": "volume", "change": {"a": {"previous": 10.0, "recent": 40.0},
                                              "b": {"previous": 30.0, "recent": 12.0}}}
    test, p = observation_test(diverge)
    assert test == RATE_TEST and p == pytest.approx(two_rate_test(12, 30)[0])
    assert p > two_rate_test(40, 10)[0]        # the weaker of the two moves
    for detail in ({"metric": "volume", "deviation": 4.0}, {"metric": "sentiment", "change": {}}, None):
        test, p = observation_test(detail)
        assert test is None and np.isnan(p)
    o = demo_corpus.observations()
    assert o.columns[-2:].tolist() == ["test", "p_value"]
    tested = o[o["test"].notna()]
    assert len(tested) == (o["type"] == "trend").sum() > 0 and (tested["p_value"] < 0.05).all()
