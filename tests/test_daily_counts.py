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
