"""The explorer's answers from a selection's times held in memory (``corpuskit.explorer.timeline``) are
the answers of the SQL they replace: the chart's counts (``Subcorpus.over_time``), a period's count and
ids (``corpus.query(q, since=, until=)``) and its pages of records (``Subcorpus.records``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from corpuskit.explorer.record_times import RecordTimes
from corpuskit.explorer.state import ExplorerState
from corpuskit.explorer.timeline import Timeline

QUERIES = ('stablecoin OR "bond yields"', '"language model" OR gpu', "telescope", "vaccine AND trial")


@pytest.mark.parametrize("freq", ["D", "W", "M"])
def test_the_chart_and_every_period_match_the_sql_path(demo_corpus, freq):
    state = ExplorerState(demo_corpus, a=QUERIES[0], b=QUERIES[1], freq=freq)
    since, until = state.range()
    for which, q in (("a", QUERIES[0]), ("b", QUERIES[1])):
        assert state.timeline(which) is not None, "the demo's timestamps have the stored form"
        pd.testing.assert_frame_equal(state.attention()[which],
                                      demo_corpus.query(q).over_time(freq=freq, since=since, until=until))
    counts = state.attention()["a"]["count"].to_numpy()
    busy = [int(i) for i in np.flatnonzero(counts)]
    assert busy, "query A matches demo records"
    # every period with records, and one empty one when there is one
    periods = busy + [int(i) for i in np.flatnonzero(counts == 0)[:1]]
    for index in periods:
        state.select_period(index)
        lo, hi = state.bounds()
        for which, q in (("a", QUERIES[0]), ("b", QUERIES[1])):
            expected = demo_corpus.query(q, since=lo, until=hi)
            assert state.counts()[which] == expected.count()
            assert state.subcorpus(which).ids().tolist() == expected.ids().tolist()
        for page in (0, 1):
            state.set_page(page)
            sql = demo_corpus.query(QUERIES[0], since=lo, until=hi).records(
                limit=state.page_size, offset=page * state.page_size)
            assert state.records_page()["id"].tolist() == sql["id"].tolist()


@pytest.mark.parametrize("q", QUERIES)
def test_whole_range_pages_match_the_sql_path(demo_corpus, q):
    state = ExplorerState(demo_corpus, a=q, page_size=7)
    sub = demo_corpus.query(q)
    pages = -(-sub.count() // 7)
    for page in range(pages + 1):    # and one past the end, empty
        state.set_page(page)
        got = state.records_page()
        assert got["id"].tolist() == sub.records(limit=7, offset=page * 7)["id"].tolist()
    assert got.empty


def test_a_timeline_counts_days_as_daily_counts(demo_corpus):
    from corpuskit.query.subsets import daily_counts

    ids = demo_corpus.query(QUERIES[1]).ids()
    line = Timeline.of(ids, RecordTimes(demo_corpus.conn))
    assert line.ids.tolist() == ids.tolist()
    assert line.daily() == daily_counts(demo_corpus.conn, ids)
    first, last = demo_corpus.conn.execute("SELECT min(published_at), max(published_at) FROM records").fetchone()
    middle = line.seconds[len(line.seconds) // 2]
    cut = str(np.datetime64(int(middle), "s")) + "Z"     # a bound inside a day, on a record's second
    assert line.daily(cut, last) == daily_counts(demo_corpus.conn, ids, cut, last)
    assert line.daily(first, cut) == daily_counts(demo_corpus.conn, ids, first, cut)


def test_a_timestamp_not_of_the_stored_form_leaves_the_sql_path(demo_copy):
    q = QUERIES[0]
    ids = demo_copy.query(q).ids()
    with demo_copy.transaction():
        demo_copy.conn.execute("UPDATE records SET published_at = substr(published_at, 1, 19) || '.5Z' "
                               "WHERE id = ?", (int(ids[0]),))
    assert Timeline.of(ids, RecordTimes(demo_copy.conn)) is None
    state = ExplorerState(demo_copy, a=q)
    assert state.timeline("a") is None
    assert state.records_page()["id"].tolist() == demo_copy.query(q).records(limit=20)["id"].tolist()


def test_records_published_the_same_second_page_by_id_as_the_sql_path(demo_copy):
    q = QUERIES[0]
    ids = demo_copy.query(q).ids()
    stamp = demo_copy.conn.execute("SELECT max(published_at) FROM records WHERE id = ?", (int(ids[-1]),)).fetchone()[0]
    with demo_copy.transaction():     # several matching records at one second, newest of all
        demo_copy.conn.executemany("UPDATE records SET published_at = ? WHERE id = ?",
                                   [("2099-01-01T00:00:00Z", int(i)) for i in ids[::3][:9]] +
                                   [(stamp, int(i)) for i in ids[1::3][:9]])
    state = ExplorerState(demo_copy, a=q, page_size=4)
    assert state.timeline("a") is not None
    sub = demo_copy.query(q)
    for page in range(6):
        state.set_page(page)
        assert state.records_page()["id"].tolist() == sub.records(limit=4, offset=page * 4)["id"].tolist()


def test_a_write_reads_the_selection_again(demo_copy):
    q = QUERIES[1]
    state = ExplorerState(demo_copy, a=q)
    before = state.timeline("a")
    assert before.ids.tolist() == demo_copy.query(q).ids().tolist()
    gone = int(before.ids[len(before.ids) // 2])
    with demo_copy.transaction():
        demo_copy.conn.execute("DELETE FROM records WHERE id = ?", (gone,))
    after = state.timeline("a")
    assert gone not in after.ids.tolist()
    assert after.ids.tolist() == demo_copy.query(q).ids().tolist()
    since, until = state.range()
    state.set_freq("W")     # an input changed: the chart is drawn again
    pd.testing.assert_frame_equal(state.attention()["a"], demo_copy.query(q).over_time(freq="W", since=since, until=until))
