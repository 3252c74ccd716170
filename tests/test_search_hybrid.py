"""Hybrid search: reciprocal-rank fusion on its own, the mode plumbing with a stand-in BM25 ranker, the
``query=`` filter, and the ``/api/v1/search`` extensions.

The keyword ranking comes from the full-text index (``corpuskit.query.fulltext.bm25_ranking``) and the
filter from the query-language compiler (``corpuskit.query.compile_query``). Most tests inject a
stand-in ranker through monkeypatch: one that returns the records whose text holds every
word of the query (a SQL scan, best = most occurrences), honouring the read layer's ``Where``. The
tests at the end need the real index and skip without it.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from corpuskit import open_corpus, search as search_module
from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from corpuskit.errors import ValidationError
from corpuskit.query import CompiledQuery, Where
from corpuskit.search import (FUSION_DEPTH, NAME_KEYWORD_WEIGHT, RRF_K, name_like, rank, relevance_floor,
                              rrf_fuse, search, search_index)
from tests.openapi_check import checked_call


# -- reciprocal-rank fusion ------------------------------------------------------------------------
def test_rrf_fuse_sums_reciprocal_ranks():
    fused = rrf_fuse([[1, 2, 3], [3, 1]])
    assert [rid for rid, _ in fused] == [1, 3, 2]
    scores = dict(fused)
    assert scores[1] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[3] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[2] == pytest.approx(1 / 62)


def test_rrf_fuse_ties_pairs_repeats_and_k():
    # (id, score) pairs are read by position; a tie is broken by the smaller id
    fused = rrf_fuse([[(9, 0.9), (4, 0.1)], [(4, 5.0), (9, 1.0)]])
    assert [r for r, _ in fused] == [4, 9] and fused[0][1] == pytest.approx(fused[1][1])
    assert rrf_fuse([[5, 5, 6]]) == [(5, 1 / 61), (6, 1 / 62)]      # a repeat counts at its first rank
    assert rrf_fuse([]) == [] and rrf_fuse([[], []]) == []
    assert rrf_fuse([[1], [2]], k=1) == [(1, 0.5), (2, 0.5)]
    assert RRF_K == 60
    for bad in (0, -1, "60", True):
        with pytest.raises(ValidationError, match="k must be a positive number"):
            rrf_fuse([[1]], k=bad)


# -- a stand-in keyword ranker ---------------------------------------------------------------------
def fake_bm25(conn, text, limit, where=None):
    words = [w.lower() for w in re.findall(r"\w+", text)]
    cond = " AND ".join("instr(lower(r.title || ' ' || r.content_text), ?) > 0" for _ in words)
    sql = ("SELECT r.id, r.title || ' ' || r.content_text FROM records r LEFT JOIN enrichment e "
           f"ON e.record_id = r.id WHERE {cond}" + (" AND " + where.joined() if where else ""))
    rows = conn.execute(sql, [*words, *(where.args if where else [])]).fetchall()
    scored = [(rid, float(sum(body.lower().count(w) for w in words))) for rid, body in rows]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:limit]


@pytest.fixture
def keyword(monkeypatch):
    calls = []

    def ranker():
        def rank(conn, text, limit, where=None):
            calls.append((text, limit, where))
            return fake_bm25(conn, text, limit, where)
        return rank

    monkeypatch.setattr(search_module, "_keyword_ranker", ranker)
    return calls


def test_modes_on_the_demo(demo_corpus, keyword):
    q = "vaccine rollout"
    semantic = search(demo_corpus, q, limit=10)
    again = search(demo_corpus, q, limit=10, mode="semantic")
    assert (again.rows, again.total_matched) == (semantic.rows, semantic.total_matched) and not keyword
    kw = search(demo_corpus, q, limit=10, mode="keyword")
    expected = fake_bm25(demo_corpus.conn, q, FUSION_DEPTH)
    assert [h["id"] for h in kw.rows] == [rid for rid, _ in expected[:10]]
    assert [h["relevance"] for h in kw.rows] == [round(s, 4) for _, s in expected[:10]]
    assert kw.total_matched == min(len(expected), FUSION_DEPTH) and keyword[-1][1] == FUSION_DEPTH
    hybrid = search(demo_corpus, q, limit=10, mode="hybrid")
    index = search_index(demo_corpus)
    vector = index.embedder.transform([q])[0].astype(np.float32)
    sem_ids = rank(index, vector, limit=FUSION_DEPTH, floor=relevance_floor(index.embedder))[0].tolist()
    assert len(sem_ids) > 50
    fused = rrf_fuse([sem_ids, [rid for rid, _ in expected]])
    assert [h["id"] for h in hybrid.rows] == [rid for rid, _ in fused[:10]]
    assert [h["relevance"] for h in hybrid.rows] == [round(s, 6) for _, s in fused[:10]]
    assert hybrid.total_matched == len(fused) and hybrid.has_more


def test_hybrid_answers_from_keywords_where_the_vectors_see_nothing(demo_corpus, monkeypatch):
    # words no embedder vocabulary of the demo holds: an all-zero query vector, so no semantic ranking
    monkeypatch.setattr(search_module, "_keyword_ranker", lambda: lambda conn, text, limit, where=None:
                        [(7, 3.5), (5, 1.0)])
    assert search(demo_corpus, "Şahin Türeci", mode="semantic").rows == []
    hits = search(demo_corpus, "Şahin Türeci", mode="hybrid")
    # a name-like query: the keyword ranking weighs NAME_KEYWORD_WEIGHT
    w = NAME_KEYWORD_WEIGHT
    assert [(h["id"], h["relevance"]) for h in hits.rows] == [(7, round(w / 61, 6)), (5, round(w / 62, 6))]
    assert hits.total_matched == 2 and not hits.has_more
    keyword = search(demo_corpus, "Şahin Türeci", mode="keyword", limit=1)
    assert [(h["id"], h["relevance"]) for h in keyword.rows] == [(7, 3.5)] and keyword.has_more


def test_filters_reach_the_keyword_ranker(demo_corpus, keyword):
    hits = search(demo_corpus, "vaccine", mode="hybrid", source="reddit", days=20, limit=20)
    assert hits.rows and {h["source"] for h in hits.rows} == {"reddit"}
    since = (demo_corpus.now().timestamp() - 20 * 86400)
    from corpuskit.clock import from_iso
    assert all(from_iso(h["publishedAt"]).timestamp() >= since for h in hits.rows)
    where = keyword[-1][2]
    assert "r.source = ?" in where.conditions and "reddit" in where.args


def test_query_filter_in_every_mode(demo_corpus, keyword, monkeypatch):
    compiled = []

    def compile_query(text):
        compiled.append(text)
        return CompiledQuery(text, "r.source = ?", (text.split(":", 1)[1],))

    monkeypatch.setattr(search_module, "_compile_query", compile_query)
    for mode in ("semantic", "keyword", "hybrid"):
        hits = search(demo_corpus, "vaccine rollout", mode=mode, query="source:news", limit=15)
        assert hits.rows and {h["source"] for h in hits.rows} == {"news"}, mode
    assert compiled == ["source:news"] * 3
    semantic = search(demo_corpus, "vaccine rollout", mode="semantic", query="source:news", limit=15)
    assert [h["id"] for h in semantic.rows] == [h["id"] for h in search(demo_corpus, "vaccine rollout",
                                                                        source="news", limit=15).rows]


def test_bad_mode_and_query(demo_corpus):
    with pytest.raises(ValidationError, match="mode must be one of semantic, hybrid, keyword"):
        search(demo_corpus, "vaccine", mode="fuzzy")
    with pytest.raises(ValidationError, match="query must be"):
        search(demo_corpus, "vaccine", query="  ")


# -- /api/v1/search extensions ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(demo_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("hybrid-api") / "demo.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    key = corpus.create_key("enterprise", name="hybrid", per_minute=10**7, per_day=10**8)
    app = create_app(corpus)
    yield lambda p: checked_call(app, "keyed", p, {"x-api-key": key})
    clear_cache()
    corpus.close()


def test_api_default_stays_semantic_and_modes_are_validated(api, keyword, monkeypatch):
    status, _, plain = api("/api/v1/search?q=vaccine+rollout&limit=5")
    status2, _, explicit = api("/api/v1/search?q=vaccine+rollout&limit=5&mode=semantic")
    assert status == status2 == 200
    drop = lambda b: {k: v for k, v in b.items() if k not in ("embeddingMs", "searchMs")}  # noqa: E731
    assert drop(plain) == drop(explicit) and not keyword
    status, _, body = api("/api/v1/search?q=vaccine+rollout&limit=5&mode=hybrid")
    assert status == 200 and len(body["results"]) == 5
    assert all(0 < r["relevance"] <= 2 / (RRF_K + 1) for r in body["results"])
    status, _, body = api("/api/v1/search?q=vaccine&mode=bm25")
    assert status == 400 and "mode" in body["error"]
    def bad_syntax(text):
        raise ValidationError("query: unexpected ')' at position 3")

    monkeypatch.setattr(search_module, "_compile_query", bad_syntax)
    status, _, body = api("/api/v1/search?q=vaccine&query=abc)")
    assert status == 400 and "position 3" in body["error"]


def _search_parameters() -> dict:
    from corpuskit.api import openapi

    openapi._built.cache_clear()      # the document is built once per process; rebuild it here
    openapi.document_bytes.cache_clear()
    return {p["name"]: p for p in openapi.document("keyed")["paths"]["/api/v1/search"]["get"]["parameters"]}


def test_api_documents_every_mode_and_the_query_filter(api):
    params = _search_parameters()
    assert params["mode"]["schema"]["enum"] == ["semantic", "hybrid", "keyword"] and "query" in params
    for mode in params["mode"]["schema"]["enum"]:
        status, _, body = api(f"/api/v1/search?q=vaccine&mode={mode}&query=source:news")
        assert status == 200 and {r["source"] for r in body["results"]} <= {"news"}, mode


# -- with the real full-text index (after the merge) -------------------------------------------------
def test_hybrid_with_the_real_index_finds_a_non_ascii_name(corpus):
    pytest.importorskip("corpuskit.query.fulltext")
    rows = [f"Uğur Şahin spoke about vaccines number {i}" for i in range(5)] + \
           [f"weather report for city {i} with rain and wind" for i in range(40)]
    for i, text in enumerate(rows):
        corpus.conn.execute("INSERT INTO records(source, source_id, content_hash, content_text, published_at, "
                            "captured_at) VALUES ('news', ?, ?, ?, '2021-01-01T00:00:00Z', '2021-01-01T00:00:00Z')",
                            (str(i), str(i), text))
    from corpuskit.store import fulltext

    fulltext.sync(corpus.conn)          # rows written by raw SQL are indexed by sync, as imports index theirs
    corpus.enrich(progress=False)
    hits = search(corpus, "Sahin", mode="hybrid", limit=10)
    assert {h["id"] for h in hits.rows} >= set(range(1, 6))
    assert np.all(np.diff([h["relevance"] for h in hits.rows]) <= 0)


def test_rrf_fuse_weights():
    fused = rrf_fuse([[1, 2], [2, 3]], k=1, weights=(1, 4))
    assert fused == [(2, 1 / 3 + 4 / 2), (3, 4 / 3), (1, 1 / 2)]
    assert rrf_fuse([[1, 2], [2, 1]], weights=None) == rrf_fuse([[1, 2], [2, 1]], weights=(1, 1))
    for bad in ((1,), (1, 0), (1, -2), (1, True), (1, "2")):
        with pytest.raises(ValidationError, match="weights"):
            rrf_fuse([[1], [2]], weights=bad)


@pytest.mark.parametrize("q, expected", [
    ("Donald Trump", True), ("T-Mobile", True), ("NASA", True), ("3M", True), ("AT&T", True),
    ("Uğur Şahin", True), ("donald trump", False), ("vaccine rollout", False), ("Trump says no", False),
    ("A B C D E", False), ("", False), ("Trump!", False)])
def test_name_like(q, expected):
    assert name_like(q) is expected


def test_hybrid_weights_keywords_for_names(demo_corpus, keyword):
    q = "Vaccine Rollout"  # name-like: the keyword ranking weighs NAME_KEYWORD_WEIGHT
    hybrid = search(demo_corpus, q, limit=10, mode="hybrid")
    index = search_index(demo_corpus)
    vector = index.embedder.transform([q])[0].astype(np.float32)
    sem_ids = rank(index, vector, limit=FUSION_DEPTH, floor=relevance_floor(index.embedder))[0].tolist()
    kw = [rid for rid, _ in fake_bm25(demo_corpus.conn, q, FUSION_DEPTH)]
    fused = rrf_fuse([sem_ids, kw], weights=(1, NAME_KEYWORD_WEIGHT))
    assert [h["id"] for h in hybrid.rows] == [rid for rid, _ in fused[:10]]
    assert fused[:10] != rrf_fuse([sem_ids, kw])[:10]
