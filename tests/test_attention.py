"""Attention over time: counts and shares per period, with Poisson and Wilson intervals."""
import numpy as np
import pandas as pd
import pytest

from corpuskit.analysis.attention import ATTENTION_COLUMNS, over_time
from corpuskit.errors import ValidationError
from corpuskit.stats.intervals import poisson_interval, wilson_interval


def _vaccine_ids(c):
    return [r[0] for r in c.conn.execute("SELECT id FROM records WHERE content_text LIKE '%vaccine%'")]


def test_daily_attention_counts_every_day_to_the_corpus_clock(demo_corpus):
    ids = _vaccine_ids(demo_corpus)
    frame = over_time(demo_corpus, ids)
    assert list(frame.columns) == list(ATTENTION_COLUMNS)
    assert frame["count"].sum() == len(ids)
    days = pd.date_range(frame["period"].iloc[0], frame["period"].iloc[-1], freq="D")
    assert len(frame) == len(days) and frame["period"].is_monotonic_increasing
    assert frame["period"].iloc[-1].date() == demo_corpus.now().date()
    per_day = dict(demo_corpus.conn.execute("SELECT day, count(*) FROM records GROUP BY day").fetchall())
    assert [per_day.get(p.strftime("%Y-%m-%d"), 0) for p in frame["period"]] == frame["total"].tolist()
    row = frame.iloc[len(frame) // 2]
    assert row["share"] == pytest.approx(row["count"] / row["total"])
    assert (row["count_low"], row["count_high"]) == pytest.approx(poisson_interval(row["count"]))
    assert (row["share_low"], row["share_high"]) == pytest.approx(wilson_interval(row["count"], row["total"]))
    assert (frame["share_low"] <= frame["share"]).all() and (frame["share"] <= frame["share_high"]).all()


def test_weekly_and_monthly_periods_sum_the_days(demo_corpus):
    ids = _vaccine_ids(demo_corpus)
    daily = over_time(demo_corpus, ids)
    first = daily["period"].iloc[0]
    before = demo_corpus.conn.execute("SELECT count(*) FROM records WHERE published_at < ?",
                                      (first.strftime("%Y-%m-%dT%H:%M:%SZ"),)).fetchone()[0]
    for freq in ("W", "M"):
        frame = over_time(demo_corpus, ids, freq=freq, since=first)
        assert frame["count"].sum() == len(ids) and frame["total"].sum() == daily["total"].sum()
        assert frame["count"].tolist() == daily.groupby(
            daily["period"].dt.tz_convert(None).dt.to_period("W-SUN" if freq == "W" else "M"))["count"].sum().tolist()
    assert before == 0 or over_time(demo_corpus, ids, freq="W")["total"].sum() > daily["total"].sum()
    weekly = over_time(demo_corpus, ids, freq="W")
    assert (weekly["period"].dt.day_of_week == 0).all()   # weeks start on Monday
    assert (over_time(demo_corpus, ids, freq="M")["period"].dt.day == 1).all()


def test_counts_only_and_edges(demo_corpus):
    ids = _vaccine_ids(demo_corpus)
    counts = over_time(demo_corpus, ids, normalise=False, freq="M")
    assert list(counts.columns) == list(ATTENTION_COLUMNS[:4])
    day = demo_corpus.now().strftime("%Y-%m-%d")
    one = over_time(demo_corpus, ids, since=day, until=day + "T23:59:59Z")
    assert len(one) == 1 and one["total"].iloc[0] > 0
    empty = over_time(demo_corpus, [], since=day)
    assert len(empty) == 1 and empty["count"].iloc[0] == 0 and empty["share"].iloc[0] == 0
    assert empty["count_high"].iloc[0] == pytest.approx(3.689, abs=1e-3)
    before = over_time(demo_corpus, ids, since="2001-01-01", until="2001-01-03")
    assert before["count"].tolist() == [0, 0, 0] and np.isnan(before["share"]).all()
    with pytest.raises(ValidationError, match="freq must be one of D, W, M"):
        over_time(demo_corpus, ids, freq="Y")
    with pytest.raises(ValidationError, match="after until"):
        over_time(demo_corpus, ids, since="2030-01-01", until="2029-01-01")
    with pytest.raises(ValidationError, match="since"):
        over_time(demo_corpus, ids, since="not a date")
    with pytest.raises(ValidationError, match="integer record ids"):
        over_time(demo_corpus, ["a", "b"])


def test_empty_corpus(corpus):
    frame = over_time(corpus, [])
    assert frame.empty and list(frame.columns) == list(ATTENTION_COLUMNS)
