"""Semantic search: the /api/v1/search shape, filters before the top-k cut, exactness, errors."""
import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.api.keyed.queries import search_json
from corpuskit.errors import StageNotRunError, ValidationError
from corpuskit.demo import build_demo
from corpuskit.search import HIT_FIELDS, RELEVANCE_FLOOR, build_index, rank, search_index

FIELDS = {"id", "resultType", "source", "contentType", "title", "excerpt", "url", "href", "author",
          "topic", "topicDisplayName", "category", "relevance", "publishedAt", "subreddit",
          "sentimentLabel"}


@pytest.fixture(scope="module")
def searchable():
    c = open_corpus(":memory:")
    build_demo(c, seed=5, records=1500, days=30, run_stages=False, progress=False)
    c.enrich(progress=False)
    yield c
    c.close()


def test_envelope_and_result_shape(searchable):
    answer = search_json(searchable, "gpu inference chips for language models", limit=5)
    assert set(answer) == {"results", "query", "totalMatched", "hasMore", "embeddingMs", "searchMs"}
    assert answer["query"] == "gpu inference chips for language models"
    assert isinstance(answer["embeddingMs"], int) and isinstance(answer["searchMs"], int)
    assert len(answer["results"]) == 5 and answer["hasMore"] and answer["totalMatched"] > 5
    for r in answer["results"]:
        assert set(r) == FIELDS
        assert r["resultType"] == "record" and r["id"].isdigit()
        assert r["href"].startswith("/api/v1/discourse?source=")
        assert 0 < r["relevance"] <= 1.0001
    rel = [r["relevance"] for r in answer["results"]]
    assert rel == sorted(rel, reverse=True)
    assert sum(r["topic"] == "ai-models" for r in answer["results"]) >= 4


def test_corpus_search_is_plain_data_of_the_same_hits(searchable):
    """The library answers plain data (no API path); /api/v1/search is shaped from the same hits."""
    plain = searchable.search("gpu inference chips for language models", limit=5)
    answer = search_json(searchable, "gpu inference chips for language models", limit=5)
    assert all(list(r) == list(HIT_FIELDS) and isinstance(r["id"], int) for r in plain["results"])
    assert [str(r["id"]) for r in plain["results"]] == [r["id"] for r in answer["results"]]
    assert [r["relevance"] for r in plain["results"]] == [r["relevance"] for r in answer["results"]]
    assert {k: plain[k] for k in ("query", "totalMatched", "hasMore")} == {
        k: answer[k] for k in ("query", "totalMatched", "hasMore")}


def test_results_are_exact(searchable):
    from corpuskit.search import search_index

    index = search_index(searchable)
    q = index.embedder.transform(["offshore wind and battery storage"])[0]
    ids, scores, matched = rank(index, q, limit=10, floor=RELEVANCE_FLOOR)
    full = index.matrix @ q
    best = np.argsort(-full, kind="stable")[:10]
    assert np.allclose(np.sort(scores)[::-1], np.sort(full[best])[::-1], atol=1e-6)
    assert set(ids) == set(index.ids[best]) and matched == int((full >= RELEVANCE_FLOOR).sum())


@pytest.mark.parametrize("filters", [{"source": "arxiv"}, {"topic": "space"}, {"days": 2},
                                     {"source": "reddit", "topic": "health-biotech", "days": 10}])
def test_filters_apply_before_the_top_k_cut(searchable, filters):
    # (min_relevance=0: every record sharing a term matches, enough to fill pages and test the cut)
    answer = search_json(searchable, "new results this week", limit=50, min_relevance=0, **filters)
    where, args = ["1=1"], []
    if "source" in filters:
        where.append("r.source = ?")
        args.append(filters["source"])
    if "topic" in filters:
        where.append("t.name = ?")
        args.append(filters["topic"])
    if "days" in filters:
        from datetime import timedelta
        from corpuskit.clock import iso
        where.append("r.published_at >= ?")
        args.append(iso(searchable.now() - timedelta(days=filters["days"])))
    eligible = searchable.conn.execute(
        "SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
        "LEFT JOIN topics t ON t.id = e.topic_id WHERE " + " AND ".join(where), args).fetchone()[0]
    assert answer["totalMatched"] <= eligible
    assert len(answer["results"]) == min(50, answer["totalMatched"])
    assert answer["totalMatched"] >= min(50, eligible) * 0.5  # most eligible records share some term
    for r in answer["results"]:
        if "source" in filters:
            assert r["source"] == filters["source"]
        if "topic" in filters:
            assert r["topic"] == filters["topic"]
        if "days" in filters:
            assert r["publishedAt"] >= args[-1]


def test_rare_filter_still_fills_the_page(searchable):
    # a source with few records: the filtered search returns limit results, not the few that
    # would survive a global top-k
    answer = search_json(searchable, "orbit launch rocket", source="youtube", limit=20, min_relevance=0)
    assert len(answer["results"]) == 20 and {r["source"] for r in answer["results"]} == {"youtube"}


def test_source_the_corpus_lacks_matches_nothing(searchable):
    # source names are open (any lower-case slug): one the corpus lacks is an empty answer
    answer = search_json(searchable, "rockets", source="myspace")
    assert answer["results"] == [] and answer["totalMatched"] == 0


def test_unknown_topic_matches_nothing(searchable):
    answer = search_json(searchable, "rockets", topic="no-such-topic")
    assert answer["results"] == [] and answer["totalMatched"] == 0 and not answer["hasMore"]


@pytest.mark.parametrize("kwargs,match", [
    ({"q": "ab"}, "at least 3"), ({"q": "   ab   "}, "at least 3"), ({"q": "x" * 501}, "at most 500"),
    ({"q": None}, "q parameter is required"), ({"q": "rockets", "limit": 0}, "limit"),
    ({"q": "rockets", "days": 0}, "days"), ({"q": "rockets", "days": "7"}, "days"),
    ({"q": "rockets", "source": "My Space"}, "invalid source"),
])
def test_bad_parameters(searchable, kwargs, match):
    with pytest.raises(ValidationError, match=match):
        search_json(searchable, **kwargs)


def test_limit_is_clamped_and_boundaries_accepted(searchable):
    assert len(search_json(searchable, "rockets and orbit", limit=500, min_relevance=0)["results"]) == 50
    assert search_json(searchable, "abc")["query"] == "abc"
    search_json(searchable, "x" * 500)


def test_index_follows_new_enrichment():
    c = open_corpus(":memory:")
    rec = {"source": "reddit", "title": "", "publishedAt": "2026-01-01T00:00:00Z"}
    c.add_records([dict(rec, sourceId=str(i), contentText=f"rocket launch number {i} to orbit")
                   for i in range(20)])
    with pytest.raises(StageNotRunError, match="enrich"):
        search_json(c, "rocket launch")
    c.enrich(progress=False)
    assert search_json(c, "rocket launch")["totalMatched"] == 20
    c.add_records([dict(rec, sourceId="new", contentText="rocket launch from the new pad")])
    c.enrich(progress=False)
    assert search_json(c, "rocket launch")["totalMatched"] == 21


def test_build_index_orders_rows_by_source(searchable):
    index = build_index(searchable.conn)
    spans = sorted(index.spans.values())
    assert spans[0][0] == 0 and spans[-1][1] == len(index.ids)
    for start, end in spans:
        assert np.all(np.diff(index.published[start:end]) >= 0)


def test_cli_search(tmp_path, capsys):
    from corpuskit.cli import main

    db = tmp_path / "c.db"
    c = open_corpus(db)
    c.add_records([{"source": "hackernews", "sourceId": str(i), "title": f"Rocket launch {i}",
                    "contentText": f"A rocket launch to orbit, attempt {i}.",
                    "publishedAt": "2026-02-01T00:00:00Z"} for i in range(12)])
    c.close()
    assert main(["enrich", "--db", str(db), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["search", "rocket orbit", "--db", str(db), "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 of 12 matching records" in out and "hackernews" in out
    assert main(["search", "ab", "--db", str(db)]) == 2
    assert "at least 3" in capsys.readouterr().err


def test_load_vectors_matches_the_virtual_table(corpus):
    from corpuskit.search import load_vectors

    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((1500, 512)).astype(np.float32)
    with corpus.transaction():
        corpus.conn.executemany("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)",
                                [(i + 1, v.tobytes()) for i, v in enumerate(vecs)])
        corpus.conn.execute("DELETE FROM record_vectors WHERE record_id IN (5, 1100)")
    ids, matrix = load_vectors(corpus.conn)
    plain = dict(corpus.conn.execute("SELECT record_id, embedding FROM record_vectors").fetchall())
    assert sorted(ids.tolist()) == sorted(plain) and len(ids) == 1498 and 5 not in ids
    for rid, row in zip(ids.tolist(), matrix):
        assert np.array_equal(row, np.frombuffer(plain[rid], np.float32))


def test_total_matched_counts_records_above_the_relevance_floor(searchable):
    """Not every record with a positive cosine (about half the corpus for any query)."""
    index = search_index(searchable)
    q = "vaccine trial results"
    full = index.matrix @ index.embedder.transform([q])[0]
    answer = search_json(searchable, q, limit=50)
    assert answer["totalMatched"] == int((full >= RELEVANCE_FLOOR).sum())
    assert 0 < answer["totalMatched"] < 0.25 * int((full > 0).sum())
    assert all(r["relevance"] >= RELEVANCE_FLOOR for r in answer["results"])
    assert answer["hasMore"] == (answer["totalMatched"] > len(answer["results"]))
    everything = search_json(searchable, q, limit=50, min_relevance=0)
    assert everything["totalMatched"] == int((full > 0).sum())
    assert search_json(searchable, "ukulele marmalade cathedral")["totalMatched"] == 0
    with pytest.raises(ValidationError, match="min_relevance"):
        search_json(searchable, q, min_relevance=1.5)


def test_an_embedder_may_state_its_own_floor(searchable):
    index = search_index(searchable)
    q = "vaccine trial results"
    full = index.matrix @ index.embedder.transform([q])[0]
    index.embedder.relevance_floor = 0.5
    try:
        assert search_json(searchable, q)["totalMatched"] == int((full >= 0.5).sum())
    finally:
        del index.embedder.relevance_floor


def test_a_large_file_corpus_searches_through_the_mapped_index(tmp_path, monkeypatch):
    """Past QUANTISED_FROM vectors a file corpus is searched through <corpus>.search/, shared by processes;
    with the candidate pool larger than the filtered rows its answers equal the exact path's."""
    import corpuskit.search as S
    from corpuskit.vector_index import index_dir

    c = open_corpus(tmp_path / "big.db")
    build_demo(c, seed=5, records=1200, days=30, run_stages=False, progress=False)
    c.enrich(progress=False)
    exact = {q: search_json(c, q, limit=10, source=src, days=days) for q, src, days in
             [("offshore wind and battery storage", None, None), ("gpu chips", "reddit", 7)]}
    monkeypatch.setattr(S, "QUANTISED_FROM", 1)
    S._indexes.clear()
    index = S.search_index(c)
    assert index.quantised is not None and index_dir(c.path).is_dir()
    assert isinstance(index.matrix, np.memmap)
    for (q, src, days), answer in zip([("offshore wind and battery storage", None, None),
                                       ("gpu chips", "reddit", 7)], exact.values()):
        mapped = search_json(c, q, limit=10, source=src, days=days)
        assert [r["id"] for r in mapped["results"]] == [r["id"] for r in answer["results"]]
        assert mapped["totalMatched"] == answer["totalMatched"]
    # a later enrichment writes a new stamp: the folder is rebuilt, not reused stale
    c.add_records([{"source": "news", "title": "Offshore wind auction sets a record", "contentText": "",
                    "publishedAt": "2026-10-30T10:00:00Z", "sourceId": "new-1"}])
    c.enrich(progress=False)
    answer = search_json(c, "offshore wind auction record", limit=3)
    assert S.search_index(c).quantised.size == c.count()
    assert answer["results"][0]["title"] == "Offshore wind auction sets a record"
    S._indexes.clear()
    c.close()
