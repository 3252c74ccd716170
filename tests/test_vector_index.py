"""The memory-mapped binary-code index: exact when the filtered rows fit the candidates, high recall past it."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.vector_index import index_dir, read_index, write_index


def _corpus(n=6000, d=128, seed=3):
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(24, d))
    vectors = rng.normal(size=(n, 24)) @ basis + 0.3 * rng.normal(size=(n, d))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    published = np.concatenate([np.sort(rng.integers(0, 10**6, n // 3)), np.sort(rng.integers(0, 10**6, n - n // 3))])
    topics = rng.integers(0, 5, n)
    spans = {"news": (0, n // 3), "reddit": (n // 3, n)}
    return vectors, np.arange(1, n + 1), published, topics, spans


@pytest.fixture
def built(tmp_path):
    vectors, ids, published, topics, spans = _corpus()
    folder = index_dir(tmp_path / "c.db")
    write_index(folder, ["v1"], ids, published, topics, spans,
                (vectors[i:i + 1000] for i in range(0, len(vectors), 1000)), vectors.shape[1])
    return read_index(folder, ["v1"]), vectors, ids, published, topics


def _exact(vectors, ids, rows, q, k):
    scores = vectors[rows] @ q
    order = np.lexsort((ids[rows], -scores))[:k]
    return ids[rows][order]


def test_exact_when_the_filters_leave_few_rows(built):
    index, vectors, ids, published, topics = built
    q = vectors[17]
    got, scores, _ = index.rank(q, source="news", topic_id=2, limit=10, candidates=4096)
    rows = np.flatnonzero((np.arange(len(ids)) < len(ids) // 3) & (topics == 2))
    assert got.tolist() == _exact(vectors, ids, rows, q, 10).tolist()
    assert np.all(np.diff(scores) <= 0)


def test_binary_first_pass_keeps_recall(built):
    index, vectors, ids, *_ = built
    rng = np.random.default_rng(5)
    recalls = []
    for r in rng.choice(len(ids), 40, replace=False):
        q = vectors[r] + 0.05 * rng.normal(size=vectors.shape[1]).astype(np.float32)
        q /= np.linalg.norm(q)
        got, _, _ = index.rank(q, limit=10, candidates=600)
        truth = _exact(vectors, ids, np.arange(len(ids)), q, 10)
        recalls.append(len(set(got.tolist()) & set(truth.tolist())) / 10)
    assert np.mean(recalls) >= 0.98


def test_since_filter_and_empty_answers(built):
    index, vectors, ids, published, _ = built
    since = int(np.median(published))
    got, _, _ = index.rank(vectors[0], source="reddit", since=since, limit=50)
    chosen = np.isin(ids, got)
    assert np.all(published[chosen] >= since) and np.all(np.arange(len(ids))[chosen] >= len(ids) // 3)
    assert index.rank(vectors[0], source="youtube")[2] == 0
    assert index.rank(vectors[0], source="news", since=10**9)[0].size == 0


def test_stale_or_missing_index_is_not_read(built, tmp_path):
    assert read_index(index_dir(tmp_path / "c.db"), ["v2"]) is None
    assert read_index(tmp_path / "nowhere.search", ["v1"]) is None


def test_rebuild_replaces_the_folder(built, tmp_path):
    vectors, ids, published, topics, spans = _corpus(n=300)
    folder = index_dir(tmp_path / "c.db")
    write_index(folder, ["v2"], ids, published, topics, {"news": (0, 100), "reddit": (100, 300)}, [vectors], 128)
    index = read_index(folder, ["v2"])
    assert index.size == 300 and read_index(folder, ["v1"]) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db.search"]
    with pytest.raises(ValueError, match="expected 300"):
        write_index(folder, ["v3"], ids, published, topics, spans, [vectors[:10]], 128)
    assert read_index(folder, ["v2"]).size == 300  # a failed rebuild leaves the old index


def test_int8_pass_keeps_recall_and_scores_exactly(built):
    """Past ``exact_rows`` rows the int8 pass picks the rows scored exactly: recall stays, the cosines
    returned are the exact ones, and the matched count is within a few rows of the exact count."""
    index, vectors, ids, *_ = built
    rng = np.random.default_rng(8)
    recalls, gaps = [], []
    for r in rng.choice(len(ids), 40, replace=False):
        q = vectors[r] + 0.05 * rng.normal(size=vectors.shape[1]).astype(np.float32)
        q /= np.linalg.norm(q)
        got, scores, matched = index.rank(q, limit=10, candidates=3000, exact_rows=500, rerank=100, floor=0.2)
        truth = _exact(vectors, ids, np.arange(len(ids)), q, 10)
        recalls.append(len(set(got.tolist()) & set(truth.tolist())) / 10)
        np.testing.assert_allclose(scores, vectors[got - 1] @ q, rtol=1e-5, atol=1e-6)
        hamming_rows = index._hamming_nearest(index.encode(q), 0, len(ids), None, 3000)
        exact_matched = int((vectors[hamming_rows] @ q >= 0.2).sum())
        gaps.append(abs(matched - exact_matched) / max(exact_matched, 1))
    assert np.mean(recalls) >= 0.98
    assert max(gaps) <= 0.02


def test_hamming_pass_is_deterministic_and_sized(built):
    index, vectors, ids, *_ = built
    code = index.encode(vectors[5])
    a = index._hamming_nearest(code, 0, len(ids), None, 777)
    b = index._hamming_nearest(code, 0, len(ids), None, 777)
    assert len(a) == 777 and a.tolist() == b.tolist() and np.all(np.diff(a) > 0)
    subset = np.arange(0, len(ids), 3)
    c = index._hamming_nearest(code, 0, len(ids), subset, 100)
    assert len(c) == 100 and set(c.tolist()) <= set(subset.tolist())
