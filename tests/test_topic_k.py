"""k honoured: asked for K topics, discovery keeps K (no merging unless asked) and assigns every record to
one of them; the k-means discovery (LSA k-means over the embeddings) is an option."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.enrich.settings import EnrichSettings
from corpuskit.enrich.topics import discover_beats, kmeans_classes
from corpuskit.errors import ValidationError

SPACE = ["rocket", "orbit", "satellite", "astronaut", "capsule", "launch", "lunar", "lander"]
ENERGY = ["solar", "grid", "battery", "turbine", "emissions", "heat", "offshore", "wind"]
MARKETS = ["inflation", "bond", "yields", "earnings", "payrolls", "interest", "central", "bank"]


def _texts(pools, n, seed=0):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        g = i % len(pools)
        texts.append(" ".join(rng.choice(pools[g], 4, replace=False)))
        labels.append(g)
    return texts, np.array(labels)


def _embed(texts):
    return TfidfSvdEmbedder().fit(texts).transform(texts)


def test_k_is_kept_when_it_is_given_and_merged_when_it_is_chosen():
    assert EnrichSettings.of(n_topics=20).discovery() == (False, "nmf")
    assert EnrichSettings.of().discovery() == (True, "nmf")
    assert EnrichSettings.of(n_topics=20, merge_topics=True).discovery() == (True, "nmf")
    assert EnrichSettings.of(n_topics=20, topic_method="kmeans").discovery() == (False, "kmeans")
    assert EnrichSettings.of(merge_topics=False, topic_method="nmf-kmeans").discovery() == (False, "nmf-kmeans")
    with pytest.raises(ValidationError, match="topic_method"):
        EnrichSettings.of(topic_method="lda")


def test_kmeans_finds_the_planted_topics():
    from sklearn.metrics import normalized_mutual_info_score

    texts, labels = _texts([SPACE, ENERGY, MARKETS], 300)
    vectors = _embed(texts)
    found = kmeans_classes(vectors, 3, seed=0)
    assert sorted(set(found.tolist())) == [0, 1, 2]
    assert normalized_mutual_info_score(labels, found) > 0.95
    assert np.array_equal(found, kmeans_classes(vectors, 3, seed=0))          # seeded
    assert len(set(kmeans_classes(vectors, 3, seed=0, dimensions=2).tolist())) == 3


def test_asked_for_k_topics_discovery_keeps_k():
    texts, _ = _texts([SPACE, ENERGY], 200)
    vectors = _embed(texts)
    for method in ("kmeans", "nmf", "nmf-kmeans"):
        details: dict = {}
        beats, centroids, found = discover_beats(texts, vectors, n_topics=6, seed=0, details=details,
                                                 merge=False, method=method)
        # under NMF, LSA k-means with the same k is the floor: the method used is the one it kept
        used = (details.get("floor") or {}).get("used", method)
        assert len(beats) == 6 and centroids.shape[0] == 6 and details["method"] == used
        assert sorted(set(found.tolist()) - {-1}) == list(range(6))


def test_a_run_with_topics_gives_that_many(tmp_path):
    from corpuskit import open_corpus
    from corpuskit.demo import build_demo

    corpus = open_corpus(tmp_path / "k.db")
    build_demo(corpus, seed=7, records=600, days=28, run_stages=False, progress=False)
    corpus.set_meta("beats", None)
    summary = corpus.enrich(progress=False, n_topics=12)
    active = corpus.conn.execute("SELECT count(*) FROM topics WHERE active = 1").fetchone()[0]
    assert active == 12 and summary.get("topicsNote") is None
    assert corpus.get_meta("topics.discovery")["method"] == "nmf"
    untopiced = "SELECT count(*) FROM enrichment WHERE topic_id IS NULL"
    assert corpus.conn.execute(untopiced).fetchone()[0] == 0     # every record in one of the 12
    # new records later are assigned with the cut-off the topics were fitted with
    corpus.add_records([{"title": "A brand new post", "contentText": "rocket launch and solar battery news",
                         "publishedAt": "2026-01-02T00:00:00Z", "source": "news"}], source="news")
    corpus.enrich(progress=False)
    assert corpus.conn.execute(untopiced).fetchone()[0] == 0
    corpus.close()
