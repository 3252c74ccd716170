"""Every record's publication second held in memory for the explorer (``corpuskit.explorer.record_times``):
the stored times, kept up to date as records are added while the explorer is open."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from corpuskit.explorer import record_times
from corpuskit.explorer.record_times import NOT_A_SECOND, RecordTimes
from corpuskit.explorer.state import ExplorerState

Q = '"language model" OR gpu'
_COLUMNS = ("source", "source_id", "content_hash", "content_type", "title", "content_text", "url", "author",
            "published_at", "captured_at", "language", "metadata")


def _stored(conn) -> tuple[list, list]:
    rows = conn.execute("SELECT id, published_at FROM records ORDER BY id").fetchall()
    return [r[0] for r in rows], [int(np.datetime64(r[1][:19], "s").astype(np.int64)) for r in rows]


def _add_copies(corpus, ids, published_at: str, tag: str) -> list:
    """Copies of the records ``ids`` (new source ids), published at ``published_at``; their new ids."""
    cols = ", ".join(_COLUMNS)
    chosen = ", ".join("?" if c == "published_at" else
                       (f"{c} || '-{tag}'" if c in ("source_id", "content_hash") else c) for c in _COLUMNS)
    from corpuskit.store import fulltext

    with corpus.transaction():
        before = corpus.conn.execute("SELECT max(id) FROM records").fetchone()[0]
        for i in ids:
            corpus.conn.execute(f"INSERT INTO records({cols}) SELECT {chosen} FROM records WHERE id = ?",
                                (published_at, int(i)))
        fulltext.sync(corpus.conn, before)     # indexed as the import paths index new records
    return [r[0] for r in corpus.conn.execute("SELECT id FROM records WHERE id > ? ORDER BY id", (before,))]


def test_the_times_are_every_records_stored_second_read_in_chunks(demo_corpus, monkeypatch):
    monkeypatch.setattr(record_times, "CHUNK", 97)
    seen = []
    times = RecordTimes(demo_corpus.conn)
    times.refresh(lambda done, total: seen.append((done, total)))
    ids, seconds = _stored(demo_corpus.conn)
    assert times.ids.tolist() == ids and times.seconds.tolist() == seconds
    assert len(seen) > 2 and seen[-1] == (len(ids), len(ids)) and 0 < seen[0][0] <= 97
    assert [d for d, _ in seen] == sorted({d for d, _ in seen})
    some = np.array(ids[5::7], dtype=np.int64)
    assert times.seconds_of(some).tolist() == seconds[5::7]


def test_records_added_while_the_explorer_is_open_get_their_times(demo_copy, monkeypatch):
    monkeypatch.setattr(record_times, "CHUNK", 211)
    state = ExplorerState(demo_copy, a=Q)
    since, until = state.range()
    first = state.timeline("a")
    assert first is not None
    # copies of five matching records, published at the corpus's last second: the newest, with new ids
    new = _add_copies(demo_copy, first.ids[:5], until, "added")
    assert len(new) == 5 and min(new) > int(state.times.ids[-1])
    state.set_freq("W")     # an input changed: the chart is drawn again
    line = state.timeline("a")
    assert line is not None, "the added records' times are read, not left to the database"
    assert line.ids.tolist() == demo_copy.query(Q).ids().tolist()
    pd.testing.assert_frame_equal(state.attention()["a"],
                                  demo_copy.query(Q).over_time(freq="W", since=since, until=until))
    page = state.records_page()["id"].tolist()
    assert page[:5] == new[::-1]
    # (Subcorpus.records fails on records no stage has enriched, so the order is asked of SQL here)
    newest_first = [r[0] for r in demo_copy.conn.execute(
        "SELECT id FROM records WHERE id IN (SELECT value FROM json_each(?)) ORDER BY published_at DESC, id DESC "
        "LIMIT ?", (str(line.ids.tolist()), state.page_size))]
    assert page == newest_first
    fresh = RecordTimes(demo_copy.conn)
    fresh.refresh()
    assert state.times.ids.tolist() == fresh.ids.tolist() and state.times.seconds.tolist() == fresh.seconds.tolist()


def test_the_newest_record_removed_and_its_id_given_again_reads_the_times_again(demo_copy):
    times = RecordTimes(demo_copy.conn)
    [newest] = _add_copies(demo_copy, [1], "2026-01-01T00:00:00Z", "newest")
    times.refresh()
    assert int(times.ids[-1]) == newest
    with demo_copy.transaction():
        demo_copy.conn.execute("DELETE FROM records WHERE id = ?", (newest,))
    again = _add_copies(demo_copy, [2], "2001-01-01T00:00:00Z", "again")
    assert again == [newest]     # SQLite gives the removed newest id to the next record
    times.refresh()
    second = int(np.datetime64("2001-01-01T00:00:00", "s").astype(np.int64))
    assert times.seconds_of(np.array([newest])).tolist() == [second]
    ids, seconds = _stored(demo_copy.conn)
    assert times.ids.tolist() == ids and times.seconds.tolist() == seconds


@pytest.mark.parametrize("stamp", ["2025-02-30T08:00:00Z", "2025-03-01T08:00:00+00", "2025-03-01T08:00:00.5Z",
                                   "2025-03-01T08:00:0éZ", "2025-03-01 08:00:00Z"])
def test_a_timestamp_not_of_the_stored_form_has_no_second(demo_copy, stamp):
    ids, seconds = _stored(demo_copy.conn)
    odd = ids[len(ids) // 3]
    with demo_copy.transaction():
        demo_copy.conn.execute("UPDATE records SET published_at = ? WHERE id = ?", (stamp, odd))
    times = RecordTimes(demo_copy.conn)
    times.refresh()
    expected = [NOT_A_SECOND if i == odd else s for i, s in zip(ids, seconds)]
    if stamp == "2025-03-01 08:00:00Z":     # what the database path makes of it (numpy reads the space)
        expected[ids.index(odd)] = int(np.datetime64("2025-03-01T08:00:00", "s").astype(np.int64))
    assert times.ids.tolist() == ids and times.seconds.tolist() == expected
    assert times.seconds_of(np.array([ids[0], odd])) is None or stamp == "2025-03-01 08:00:00Z"
    assert times.seconds_of(np.array([ids[0], ids[-1]])).tolist() == [seconds[0], seconds[-1]]


def test_an_empty_corpus_holds_no_times(tmp_path):
    from corpuskit import open_corpus

    corpus = open_corpus(tmp_path / "empty.db")
    try:
        times = RecordTimes(corpus.conn)
        times.refresh()
        assert times.ids.tolist() == [] and times.seconds_of(np.zeros(0, dtype=np.int64)).tolist() == []
    finally:
        corpus.close()


def test_the_first_query_shows_how_many_times_it_has_read(demo_corpus, monkeypatch):
    from corpuskit.explorer import Explorer

    monkeypatch.setattr(record_times, "CHUNK", 500)
    explorer = Explorer(demo_corpus)
    seen = []
    explorer.w.busy.observe(lambda ch: seen.append(ch["new"]), "value")
    explorer.on_query("a", Q)
    n = demo_corpus.count()
    assert n > 1000 and "publication times: <progress" in "".join(seen)
    assert f'value="{n}" max="{n}"></progress> {n:,} of {n:,} records' in "".join(seen)
    seen.clear()
    explorer.on_query("b", "telescope")     # held: read once
    assert "publication times: <progress" not in "".join(seen)


def _page_as_records_give_it(corpus, ids) -> pd.DataFrame:
    """A page of the explorer as ``frames.records`` of its ids gives it (the reference)."""
    from corpuskit import frames

    page = frames.records(corpus, newest_first=True, ids=np.asarray(ids, dtype=np.int64))
    text = page["title"].where(page["title"].notna() & (page["title"] != ""), page["contentText"])
    return page.assign(text=text)[["id", "author", "publishedAt", "source", "text", "url"]].reset_index(drop=True)


def test_a_page_of_records_is_the_frame_records_give(demo_copy):
    # a record without a title shows its text
    state = ExplorerState(demo_copy, a=Q, page_size=9)
    line = state.timeline("a")
    newest = line.newest_first(limit=1)
    with demo_copy.transaction():
        demo_copy.conn.execute("UPDATE records SET title = '', author = '' WHERE id = ?", (int(newest[0]),))
    for period in (None, int(np.argmax(state.attention()["a"]["count"].to_numpy()))):
        state.select_period(period)
        for page in range(4):
            state.set_page(page)
            got = state.records_page()
            expected = _page_as_records_give_it(demo_copy, got["id"].tolist())
            pd.testing.assert_frame_equal(got, expected)
            assert len(got) == (9 if page < 2 or period is None else len(got))
    state.set_page(10_000)
    pd.testing.assert_frame_equal(state.records_page(), _page_as_records_give_it(demo_copy, []))


def test_signals_and_stories_are_read_again_only_when_the_period_or_the_data_change(demo_copy, monkeypatch):
    state = ExplorerState(demo_copy, a=Q)
    calls = []
    for name in ("signals", "stories"):
        real = getattr(demo_copy, name)
        monkeypatch.setattr(demo_copy, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    first = state.signals(), state.stories()
    assert calls == ["signals", "stories"] and len(first[0]) and len(first[1])
    state.set_query("b", "telescope")
    assert state.signals() is first[0] and state.stories() is first[1]
    assert calls == ["signals", "stories"]
    week = int(np.argmax(state.attention()["a"]["count"].to_numpy()))
    state.select_period(week)
    in_week = state.signals(), state.stories()
    assert calls == ["signals", "stories"] * 2
    lo, hi = state.bounds()
    pd.testing.assert_frame_equal(in_week[0], demo_copy.signals(since=lo, until=hi)[
        ["id", "kind", "topic", "severity", "headline", "detectedAt"]].reset_index(drop=True))
    with demo_copy.transaction():     # a signal dismissed: the data changed
        demo_copy.conn.execute("DELETE FROM signals WHERE id = ?", (int(first[0]["id"].iloc[0]),))
    state.select_period(None)
    again = state.signals()
    assert calls[-1] == "signals" and len(again) == len(first[0]) - 1


def test_ids_far_apart_are_read_without_walking_the_gaps(tmp_path, monkeypatch):
    from corpuskit import open_corpus

    monkeypatch.setattr(record_times, "CHUNK", 10)
    corpus = open_corpus(tmp_path / "sparse.db")
    try:
        stamps = {3: "2024-02-29T23:59:59Z", 4: "2024-03-01T00:00:00Z", 10**12: "1999-12-31T12:00:00Z"}
        with corpus.transaction():
            corpus.conn.executemany(
                "INSERT INTO records(id, source, source_id, content_hash, title, content_text, published_at, "
                "captured_at) VALUES (?, 'web', ?, ?, 't', 'x', ?, ?)",
                [(i, str(i), str(i), s, s) for i, s in stamps.items()])
        statements = []
        corpus.conn.set_trace_callback(statements.append)
        times = RecordTimes(corpus.conn)
        times.refresh()
        corpus.conn.set_trace_callback(None)
        assert times.ids.tolist() == list(stamps)
        assert times.seconds.tolist() == [int(np.datetime64(s[:19], "s").astype(np.int64)) for s in stamps.values()]
        assert len(statements) < 12
    finally:
        corpus.close()
