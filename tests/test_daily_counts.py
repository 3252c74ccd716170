"""Every record's days (the denominator of each attention share) read from the counts analyse keeps
while they hold, and counted live once the corpus changed: the same answer either way."""
from corpuskit import open_corpus
from corpuskit.query import subsets
from corpuskit.query.stored_counts import usable


def _live(conn) -> dict:
    return dict(conn.execute("SELECT day, count(*) FROM records GROUP BY day").fetchall())


def test_the_stored_days_answer_while_they_hold_and_the_live_count_after(demo_corpus, tmp_path, monkeypatch):
    path = tmp_path / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    try:
        conn = corpus.conn
        assert usable(conn)
        read = []
        real = subsets.cached_rows
        monkeypatch.setattr(subsets, "cached_rows", lambda c, sql, args=(): read.append(sql) or real(c, sql, args))
        assert subsets.daily_counts(conn) == _live(conn)
        assert "record_counts" in read[-1]
        corpus.add_records([{"title": "one more", "contentText": "one more record on a new day",
                             "publishedAt": "2030-01-01T00:00:00Z", "url": "https://example.org/x"}],
                           source="news")
        assert not usable(conn)
        assert subsets.daily_counts(conn) == _live(conn) and "2030-01-01" in subsets.daily_counts(conn)
        assert "FROM records" in read[-1]
    finally:
        corpus.close()


def _live_between(conn, since, until) -> dict:
    return dict(conn.execute("SELECT day, count(*) FROM records WHERE published_at >= ? AND published_at <= ? "
                             "GROUP BY day", (since, until)).fetchall())


def test_bounded_days_read_the_stored_counts_and_count_a_cut_day_live(demo_corpus, monkeypatch):
    conn = demo_corpus.conn
    assert usable(conn)
    read = []
    real = subsets.cached_rows
    monkeypatch.setattr(subsets, "cached_rows", lambda c, sql, args=(): read.append(sql) or real(c, sql, args))
    days = sorted(_live(conn))
    first, middle, last = days[0], days[len(days) // 2], days[-1]
    bounds = [(f"{first}T00:00:00Z", f"{last}T23:59:59Z"), (f"{middle}T00:00:00Z", f"{last}T23:59:59Z"),
              (f"{first}T07:30:00Z", f"{middle}T12:00:00Z"), (f"{middle}T06:00:00Z", f"{middle}T18:00:00Z"),
              (f"{middle}T23:59:59Z", f"{middle}T23:59:59Z"), ("2001-01-01T00:00:00Z", f"{middle}T00:00:00Z")]
    for since, until in bounds:
        read.clear()
        assert subsets.daily_counts(conn, None, since, until) == _live_between(conn, since, until), (since, until)
        assert read and all("record_counts" in sql for sql in read)
    assert subsets.daily_counts(conn, None, f"{middle}T00:00:00Z", None) == \
        _live_between(conn, f"{middle}T00:00:00Z", "9999")
    assert subsets.daily_counts(conn, None, None, f"{middle}T13:00:00Z") == \
        _live_between(conn, "0000", f"{middle}T13:00:00Z")
