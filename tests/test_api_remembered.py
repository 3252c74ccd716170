"""Answers remembered until the data change: computed once, never stale, never another corpus's."""
from __future__ import annotations

from datetime import timedelta

from corpuskit.api import response_cache
from corpuskit.api.bearer import queries as bearer_queries
from tests.api_fixtures import NOW, insert_record
from tests.api_v1_common import V1


def counting(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_an_answer_is_computed_once_per_data_version(monkeypatch):
    response_cache.clear()
    v1 = V1()
    v1.ok("/v1/topics?limit=1")  # the first /v1 answer creates the corpus's id secret: a new data version
    calls = counting(monkeypatch, bearer_queries, "topic_page")
    first = v1.ok("/v1/topics?limit=3")
    assert v1.ok("/v1/topics?limit=3") == first and len(calls) == 1
    v1.ok("/v1/topics?limit=2")  # another query string is another answer
    assert len(calls) == 2
    # a stage run changes the data version: the answer is computed afresh
    with v1.corpus.run_stage("analyse"):
        v1.ok("/v1/topics?limit=3")
        v1.ok("/v1/topics?limit=3")  # while the run is in progress nothing is remembered
        assert len(calls) == 4
    v1.ok("/v1/topics?limit=3")
    v1.ok("/v1/topics?limit=3")
    assert len(calls) == 5
    v1.corpus.close()


def test_a_new_record_is_seen_at_once():
    response_cache.clear()
    v1 = V1()
    before = v1.ok("/v1/stats/global/timeline?days=3")["timeline"]
    with v1.corpus.transaction():
        insert_record(v1.corpus.conn, 999, NOW - timedelta(hours=1), source="news")
    after = v1.ok("/v1/stats/global/timeline?days=3")["timeline"]
    assert sum(d["recordCount"] for d in after) == sum(d["recordCount"] for d in before) + 1
    v1.corpus.close()


def test_two_corpora_with_the_same_counts_never_share_an_answer(tmp_path):
    response_cache.clear()
    a, b = V1(tmp_path / "a.db"), V1(tmp_path / "b.db")
    with b.corpus.transaction():
        b.corpus.conn.execute("UPDATE topics SET display_name = 'Renamed in b' WHERE id = (SELECT min(id) FROM topics)")
    labels_a = [t["label"] for t in a.ok("/v1/topics")["items"]]
    labels_b = [t["label"] for t in b.ok("/v1/topics")["items"]]
    assert "Renamed in b" in labels_b and "Renamed in b" not in labels_a
    a.corpus.close()
    b.corpus.close()


def test_the_data_version_is_counted_again_only_after_a_commit(tmp_path, monkeypatch):
    """A connection reuses its stamp until another connection or itself commits."""
    from corpuskit.store.connection import connect

    response_cache.clear()
    v1 = V1(tmp_path / "c.db")
    conn = v1.corpus.conn
    first = response_cache.data_version(conn)
    queries = []
    conn.set_trace_callback(queries.append)
    assert response_cache.data_version(conn) == first
    assert not any("max(id) FROM records" in q for q in queries)
    other = connect(v1.corpus.path)  # another process or thread commits a record
    with other:
        insert_record(other, 1001, NOW - timedelta(hours=2))
    other.close()
    second = response_cache.data_version(conn)
    assert second != first and second[0] > first[0]
    with v1.corpus.transaction():  # and so does a write on this very connection
        insert_record(conn, 1002, NOW - timedelta(hours=2))
    assert response_cache.data_version(conn)[0] > second[0]
    conn.set_trace_callback(None)
    v1.corpus.close()


def test_concurrent_requests_for_a_missing_answer_compute_it_once(tmp_path):
    """Threads asking for the same missing page wait for the one computing it (no thundering herd);
    an error is not remembered, and the next request computes afresh."""
    import threading
    import time

    from corpuskit import open_corpus

    response_cache.clear()
    path = tmp_path / "c.db"
    open_corpus(path).close()
    calls, answers = [], []

    def compute():
        calls.append(1)
        time.sleep(0.3)
        return {"n": len(calls)}

    def ask():
        corpus = open_corpus(path)
        try:
            answers.append(response_cache.cached_page(corpus.conn, ("same",), compute))
        finally:
            corpus.close()

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and answers == [{"n": 1}] * 8
    assert response_cache._inflight == {}

    def failing():
        raise RuntimeError("boom")

    corpus = open_corpus(path)
    try:
        for _ in range(2):
            try:
                response_cache.cached_page(corpus.conn, ("other",), failing)
            except RuntimeError:
                pass
        assert response_cache.cached_page(corpus.conn, ("other",), lambda: "fine") == "fine"
        assert response_cache._inflight == {}
    finally:
        corpus.close()
