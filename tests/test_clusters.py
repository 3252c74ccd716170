"""Clusters on a small seeded fixture: three topics, three planted sub-themes each."""
from __future__ import annotations

import json

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.analysis.clusters import (TopicClusterer, cluster_corpus, cluster_points, latest_clusters,
                                         match_lineages, read_vectors, reduce_dimensions)
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.enrich.topic_terms import class_tfidf_terms
from tests.signal_fixture import build_fixture


@pytest.fixture(scope="module")
def clustered(tmp_path_factory):
    path = tmp_path_factory.mktemp("clusters") / "fixture.db"
    c = open_corpus(path)
    build_fixture(c, days=14, per_day=25, vectors=True, events=False)
    summary = cluster_corpus(c, "analyse-1", seed=0)
    c.close()
    return path, summary


@pytest.fixture
def corpus_copy(clustered, tmp_path):
    src = open_corpus(clustered[0])
    src.conn.execute(f"VACUUM INTO '{tmp_path / 'copy.db'}'")
    src.close()
    c = open_corpus(tmp_path / "copy.db")
    yield c
    c.close()


def _truth(c):
    """Planted (topic, sub-theme) of each record (written by the fixture in its metadata)."""
    return {rid: (tid, json.loads(meta)["sub"]) for rid, tid, meta in c.conn.execute(
        "SELECT r.id, e.topic_id, r.metadata FROM records r JOIN enrichment e ON e.record_id = r.id")}


def test_clusters_recover_planted_subthemes(clustered, corpus_copy):
    from sklearn.metrics import adjusted_rand_score

    _, summary = clustered
    assert summary["fitted"] == 3 and summary["clusters"] >= 6
    assert summary["clustered"] / summary["records"] >= 0.8
    label = dict(corpus_copy.conn.execute(
        "SELECT m.record_id, c.id FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id"))
    truth = _truth(corpus_copy)
    ids = sorted(label)
    assert adjusted_rand_score([str(truth[i]) for i in ids], [label[i] for i in ids]) >= 0.8


def test_latest_clusters_shape(corpus_copy):
    rows = latest_clusters(corpus_copy)
    assert rows and all(r["runId"] == "analyse-1" for r in rows)
    counts = [r["recordCount"] for r in rows]
    assert counts == sorted(counts, reverse=True)
    for r in rows:
        assert set(r) == {"id", "runId", "topic", "clusterLabel", "recordCount", "topTerms",
                          "summaryLabel", "metadata", "createdAt"}
        assert isinstance(r["clusterLabel"], int) and r["clusterLabel"] >= 0
        assert -1 <= r["metadata"]["silhouetteScore"] <= 1
        assert r["metadata"]["lineageId"].startswith("lin-")
        assert 1 <= len(r["topTerms"]) <= 8 and r["summaryLabel"]
        # the top terms come from the cluster's own vocabulary (the topic's prefix)
        assert all(t.startswith(r["topic"].split("-")[0]) for t in r["topTerms"][:3])
        assert r["createdAt"] == corpus_copy.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    mean_sil = np.mean([r["metadata"]["silhouetteScore"] for r in rows])
    assert mean_sil >= 0.3
    only = latest_clusters(corpus_copy, topic="climate", limit=2)
    assert len(only) == 2 and {r["topic"] for r in only} == {"climate"}
    assert latest_clusters(corpus_copy, topic="no-such-topic") == []
    with pytest.raises(ValidationError, match="limit"):
        latest_clusters(corpus_copy, limit=0)


def test_unchanged_rerun_carries_and_keeps_lineage(corpus_copy):
    first = {r["metadata"]["lineageId"]: r["recordCount"] for r in latest_clusters(corpus_copy)}
    summary = cluster_corpus(corpus_copy, "analyse-2", seed=0)
    assert summary["carried"] == 3 and summary["fitted"] == 0
    rows = latest_clusters(corpus_copy)
    assert {r["runId"] for r in rows} == {"analyse-2"}
    assert {r["metadata"]["lineageId"]: r["recordCount"] for r in rows} == first
    assert all(r["metadata"]["refit"] is False for r in rows)
    # every run is kept
    runs = {r[0] for r in corpus_copy.conn.execute("SELECT DISTINCT run_id FROM clusters")}
    assert runs == {"analyse-1", "analyse-2"}


def test_refit_keeps_lineages_of_surviving_clusters(corpus_copy):
    first = {r["metadata"]["lineageId"] for r in latest_clusters(corpus_copy)}
    summary = cluster_corpus(corpus_copy, "analyse-2", seed=0, min_cluster_size=12)  # new settings: refit
    assert summary["fitted"] == 3
    rows = latest_clusters(corpus_copy)
    assert all(r["metadata"]["refit"] is True for r in rows)
    assert len(first & {r["metadata"]["lineageId"] for r in rows}) >= len(first) - 1


def test_small_growth_is_carried_large_growth_refits(corpus_copy):
    c = corpus_copy
    top = c.conn.execute("SELECT max(id) FROM records").fetchone()[0]
    vec = np.zeros(512, dtype=np.float32)
    vec[0] = 1.0

    def add(n, start):
        with c.transaction():
            for i in range(n):
                rid = start + i
                c.conn.execute("INSERT INTO records(id, source, source_id, content_hash, title, content_text, "
                               "published_at, captured_at) VALUES (?,?,?,?,?,?,?,?)",
                               (rid, "news", f"g{rid}", f"g{rid}", "t", "ai0 ai1 ai2", "2025-01-15T10:00:00Z",
                                "2025-01-15T10:00:00Z"))
                c.conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                               "run_id) VALUES (?, 0, 'neutral', 1, 'e')", (rid,))
                c.conn.execute("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)",
                               (rid, vec.tobytes()))

    add(5, top + 1)
    summary = cluster_corpus(c, "analyse-2", seed=0)
    assert summary["carried"] == 3
    add(200, top + 10)
    summary = cluster_corpus(c, "analyse-3", seed=0)
    assert summary["fitted"] == 1 and summary["carried"] == 2


def test_deterministic(clustered, tmp_path):
    a = open_corpus(clustered[0])
    rows_a = [(r["topic"], r["clusterLabel"], r["recordCount"], r["topTerms"], r["summaryLabel"],
               r["metadata"]) for r in latest_clusters(a)]
    a.close()
    b = open_corpus(tmp_path / "again.db")
    build_fixture(b, days=14, per_day=25, vectors=True, events=False)
    cluster_corpus(b, "analyse-1", seed=0)
    rows_b = [(r["topic"], r["clusterLabel"], r["recordCount"], r["topTerms"], r["summaryLabel"],
               r["metadata"]) for r in latest_clusters(b)]
    b.close()
    assert rows_a == rows_b


def test_cluster_points(corpus_copy):
    points = cluster_points(corpus_copy, "markets")
    assert len(points) == corpus_copy.conn.execute(
        "SELECT count(*) FROM enrichment WHERE topic_id = 3").fetchone()[0]
    assert set(points.columns) >= {"record_id", "clusterLabel", "x", "y"}
    assert (points["clusterLabel"] >= 0).mean() >= 0.8
    with pytest.raises(NotFoundError):
        cluster_points(corpus_copy, "nope")


def test_helpers_and_edges(corpus):
    assert cluster_corpus(corpus, "analyse-1") ["clusters"] == 0
    assert latest_clusters(corpus) == []
    ids, matrix = read_vectors(corpus.conn, [1, 2])
    assert len(ids) == 0 and matrix.shape == (0, 512)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 512)).astype(np.float32)
    r = reduce_dimensions(x, 10)
    assert r.shape == (50, 10) and np.allclose(np.linalg.norm(r, axis=1), 1)
    assert np.allclose(reduce_dimensions(x, 10), r)
    with pytest.raises(ValidationError, match="at least 3"):
        TopicClusterer().fit(x[:2])
    assert match_lineages({0: {1, 2, 3}, 1: {7, 8}}, {"lin-a": {1, 2, 3, 4}, "lin-b": {9}}, 0.3) == {0: "lin-a"}
    terms = class_tfidf_terms(["apple banana", "apple cherry", "zebra yak"], np.array([0, 0, 1]), top_n=2)
    assert terms[0] == ["apple banana", "cherry"] and terms[1] == ["zebra yak"]  # phrases said
    terms = class_tfidf_terms(["apple banana pie", "apple cherry", "apple pear", "apple fig", "zebra"],
                              np.array([0, 0, 0, 0, 1]), top_n=2)
    assert terms[0][0] == "apple"  # "apple banana" is a quarter of the uses of apple: not a phrase
    assert class_tfidf_terms(["a"], np.array([-1])) == {}


def test_terms_read_a_capped_seeded_sample_of_each_cluster():
    import numpy as np

    from corpuskit.analysis.clusters import _terms_sample

    labels = np.array([0] * 50 + [1] * 7 + [-1] * 30 + [0] * 10)
    picked = _terms_sample(labels, size=20)
    assert list(picked) == sorted(picked)
    counts = {int(k): int(v) for k, v in zip(*np.unique(labels[picked], return_counts=True))}
    assert counts == {0: 20, 1: 7, -1: 20}
    assert list(_terms_sample(labels, size=20)) == list(picked)  # seeded
    assert list(_terms_sample(labels, size=1000)) == list(range(len(labels)))  # small clusters: all of them


def test_a_big_topic_is_clustered_on_a_sample_and_every_record_assigned():
    import numpy as np
    from sklearn.metrics import adjusted_rand_score

    from corpuskit.analysis.clusters import TopicClusterer

    rng = np.random.default_rng(3)
    centres = rng.normal(size=(3, 64)) * 4
    truth = np.repeat(np.arange(3), 1200)
    vectors = (centres[truth] + rng.normal(size=(len(truth), 64))).astype(np.float32)
    whole = TopicClusterer(fit_sample=10_000).fit(vectors)
    sampled = TopicClusterer(fit_sample=900).fit(vectors)
    assert len(set(sampled.labels_.tolist()) - {-1}) == 3
    assert (sampled.labels_ >= 0).mean() > 0.9  # the records outside the sample are assigned too
    assert adjusted_rand_score(truth, sampled.labels_) > 0.9
    assert adjusted_rand_score(whole.labels_, sampled.labels_) > 0.9
    again = TopicClusterer(fit_sample=900).fit(vectors)
    assert (again.labels_ == sampled.labels_).all()  # seeded


def test_read_vectors_by_id_and_by_scan_match_the_stored_rows(corpus_copy):
    conn = corpus_copy.conn
    stored = {rid: np.frombuffer(blob, dtype=np.float32)
              for rid, blob in conn.execute("SELECT record_id, embedding FROM record_vectors")}
    present = sorted(stored)
    wanted = present[::7] + [max(present) + 5, -3] + present[3:40]  # unsorted, repeated, missing ids
    expect = sorted(set(wanted) & set(stored))
    for scan_all in (True, False):
        for batch in (3, 4096):  # rows missing from a batch, and one batch for everything
            ids, matrix = read_vectors(conn, wanted, scan_all=scan_all, batch=batch)
            assert ids.tolist() == expect and matrix.dtype == np.float32
            assert matrix.shape == (len(expect), 512)
            assert np.array_equal(matrix, np.stack([stored[i] for i in expect]))
    ids, matrix = read_vectors(conn, [])
    assert len(ids) == 0 and matrix.shape == (0, 512)


def test_read_vectors_reads_the_chunk_tables_and_falls_back_when_their_layout_differs(corpus_copy,
                                                                                     monkeypatch):
    import corpuskit.analysis.clusters as C

    conn = corpus_copy.conn
    stored = {rid: np.frombuffer(blob, dtype=np.float32)
              for rid, blob in conn.execute("SELECT record_id, embedding FROM record_vectors")}
    present = sorted(stored)
    wanted = present[::5] + [max(present) + 5, -3] + present[3:40]
    expect = sorted(set(wanted) & set(stored))
    direct = C._read_chunks(conn, np.unique(wanted))
    assert direct is not None and direct[0].sum() == len(expect)  # the chunk path is the one taken
    ids, matrix = read_vectors(conn, wanted)
    assert ids.tolist() == expect and np.array_equal(matrix, np.stack([stored[i] for i in expect]))
    monkeypatch.setattr(C, "VECTOR_CHUNKS", "no_such_chunks")  # another layout: read through vec0
    assert C._read_chunks(conn, np.unique(wanted)) is None
    ids, again = read_vectors(conn, wanted)
    assert ids.tolist() == expect and np.array_equal(again, matrix)
    monkeypatch.undo()
    first = present[0]  # a chunk row that disagrees with the virtual table is caught by the probe
    real = conn.execute(f"SELECT chunk_offset FROM {C.VECTOR_ROWIDS} WHERE rowid = ?", (first,)).fetchone()[0]
    monkeypatch.setattr(C, "VECTOR_ROWIDS", "shifted_rowids")
    conn.execute(f"CREATE TEMP TABLE shifted_rowids AS SELECT rowid AS rowid, id, chunk_id, "
                 f"chunk_offset + (rowid = {first}) AS chunk_offset FROM record_vectors_rowids")
    assert real is not None and C._read_chunks(conn, np.array([first, present[1]])) is None
    ids, again = read_vectors(conn, [first, present[1]])
    assert np.array_equal(again, np.stack([stored[first], stored[present[1]]]))


def test_a_cluster_whose_words_are_all_stop_words_or_debris_is_not_reported(corpus_copy):
    from corpuskit.analysis.clusters import STATE_KEY

    c = corpus_copy
    truth = _truth(c)
    planted = sorted(set(truth.values()))[0]
    junk = sorted(rid for rid, v in truth.items() if v == planted)
    c.conn.executemany("UPDATE records SET title = ?, content_text = ? WHERE id = ?",
                       [("the and of it", "https://t.co/x &amp; don't we're &quot;", rid) for rid in junk])
    c.conn.commit()
    before = {rid for (rid,) in c.conn.execute("SELECT record_id FROM cluster_members")}
    assert len(before & set(junk)) >= 0.8 * len(junk)            # clustered while they had words
    c.set_meta(STATE_KEY, None)     # refit every topic
    cluster_corpus(c, "analyse-2", seed=0)
    members = {rid for (rid,) in c.conn.execute(
        "SELECT m.record_id FROM cluster_members m JOIN clusters k ON k.id = m.cluster_id WHERE k.run_id = ?",
        ("analyse-2",))}
    assert members and not members & set(junk)                  # the debris sub-theme is no cluster
    others = {rid for rid, v in truth.items() if v[0] == planted[0] and v != planted}
    assert len(members & others) >= 0.8 * len(others)           # its topic's other sub-themes still are
    for terms, label in c.conn.execute("SELECT top_terms, summary_label FROM clusters WHERE run_id = 'analyse-2'"):
        assert json.loads(terms) and label


def test_cluster_terms_read_the_record_text_enrichment_reads(corpus_copy, monkeypatch):
    import corpuskit.analysis.clusters as clusters_module
    from corpuskit.analysis.clusters import STATE_KEY

    c = corpus_copy
    ids = [r for (r,) in c.conn.execute("SELECT record_id FROM cluster_members ORDER BY record_id LIMIT 40")]
    c.conn.executemany("UPDATE records SET title = '' WHERE id = ?", [(i,) for i in ids[:20]])
    c.conn.executemany("UPDATE records SET title = content_text WHERE id = ?", [(i,) for i in ids[20:]])
    c.conn.commit()
    seen = []
    real = clusters_module.class_tfidf_terms

    def spy(docs, labels, **kw):
        seen.extend(docs)
        return real(docs, labels, **kw)

    monkeypatch.setattr(clusters_module, "class_tfidf_terms", spy)
    c.set_meta(STATE_KEY, None)
    cluster_corpus(c, "analyse-3", seed=0)
    texts = {t for (t,) in c.conn.execute(
        f"SELECT content_text FROM records WHERE id IN ({','.join(map(str, ids))})")}
    assert seen and not any(d.startswith(" ") for d in seen)       # an empty title adds nothing
    assert texts & set(seen)                                       # a title equal to the text is read once
    assert not any(d == f"{t} {t}" for t in texts for d in seen)


def test_a_topic_over_the_sample_is_reduced_in_batches_from_its_sample_pca(corpus_copy, monkeypatch):
    """reduce_topic: at most fit_sample records read whole and reduced exactly as before; a bigger
    topic fits its PCA on a seeded sample and projects the rest batch by batch (the batch size, a
    constant, changes a coordinate by float rounding at most), and cluster_corpus clusters it with every record assigned."""
    import corpuskit.analysis.clusters as C

    conn = corpus_copy.conn
    ids = [r[0] for r in conn.execute("SELECT record_id FROM enrichment WHERE topic_id = 1 ORDER BY record_id")]
    found, vectors = read_vectors(conn, ids)
    small_ids, small, fitted = C.reduce_topic(conn, ids, 15, fit_sample=len(ids))
    assert small_ids.tolist() == found.tolist() and fitted.all()
    assert np.array_equal(small, reduce_dimensions(vectors, 15))  # unchanged at or under the sample
    big_ids, big, fitted = C.reduce_topic(conn, ids, 15, fit_sample=40, seed=3)
    assert big_ids.tolist() == found.tolist() and int(fitted.sum()) == 40
    assert np.allclose(np.linalg.norm(big, axis=1), 1.0)
    monkeypatch.setattr(C, "REDUCE_BATCH", 7)
    again_ids, again, again_fitted = C.reduce_topic(conn, ids, 15, fit_sample=40, seed=3)
    assert np.allclose(again, big, rtol=0, atol=1e-12) and np.array_equal(again_fitted, fitted)
    # the sample's PCA: the same projection as one fitted on the sampled vectors alone
    mean, components = C.fit_reduction(vectors[fitted], 15)
    assert np.allclose(big, C.apply_reduction(vectors, mean, components))
    first = cluster_corpus(corpus_copy, "sampled-1", seed=0, fit_sample=40)
    second = cluster_corpus(corpus_copy, "sampled-2", seed=0, fit_sample=40, refit_growth=-1.0)
    assert first["fitted"] == 3 and first["clusters"] >= 3 and first["clustered"] > 0.8 * first["records"]
    members = lambda run: conn.execute(
        "SELECT c.cluster_label, m.record_id FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id "
        "WHERE c.run_id = ? ORDER BY 1, 2", (run,)).fetchall()
    assert [tuple(r) for r in members("sampled-1")] == [tuple(r) for r in members("sampled-2")]  # seeded


def test_assign_nearest_keeps_the_noise_rule_and_is_deterministic():
    from corpuskit.analysis.clusters import assign_nearest

    rng = np.random.default_rng(5)
    a = rng.normal(0, 0.1, size=(200, 3))
    b = rng.normal(0, 0.1, size=(200, 3)) + [5, 0, 0]
    stray = np.array([[0, 9, 0]])
    points = np.vstack([a, b, stray])
    labels = np.array([0] * 200 + [1] * 200 + [-1])
    queries = np.array([[0.01, 0.02, 0.0],   # inside cluster 0
                        [5.02, 0.01, 0.0],   # inside cluster 1
                        [0, 9.01, 0],        # nearest point is noise
                        [2.5, 0, 0],         # between the clusters, farther than either's spread
                        [0, 0, 30]])         # far from everything
    out = assign_nearest(points, labels, queries, min_samples=5, batch=2)
    assert out.tolist() == [0, 1, -1, -1, -1]
    assert (assign_nearest(points, labels, queries, 5) == out).all()
    # a query at a member's own position is that member's cluster; all-noise points give all noise
    assert assign_nearest(points, labels, points[:400], 5).tolist() == labels[:400].tolist()
    assert assign_nearest(points, np.full(len(points), -1), queries, 5).tolist() == [-1] * 5
    assert assign_nearest(points, labels, np.zeros((0, 3)), 5).shape == (0,)


def test_apply_reduction_widens_the_float32_difference_bit_for_bit():
    """The projection writes the float32 difference straight into float64 (no float32 copy of the
    matrix): the same bits as widening ``x - mean`` afterwards, not a float64 subtraction."""
    from corpuskit.analysis.clusters import apply_reduction, fit_reduction

    x = (np.random.default_rng(3).standard_normal((700, 64)) * 3).astype(np.float32)
    mean, components = fit_reduction(x, 5)
    reduced = (x - mean).astype(np.float64) @ components
    norms = np.linalg.norm(reduced, axis=1, keepdims=True)
    assert np.array_equal(apply_reduction(x, mean, components), reduced / np.where(norms > 0, norms, 1.0))
    wide = (x.astype(np.float64) - mean.astype(np.float64)) @ components
    assert not np.array_equal(reduced, wide)  # the float64 subtraction would give other bits
    assert np.array_equal(apply_reduction(x.astype(np.float64), mean, components),
                          apply_reduction(x, mean, components))
