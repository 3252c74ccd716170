"""The TF-IDF + SVD embedder: width, unit length, determinism, save and reload, query speed."""
import importlib.util
import time

import numpy as np
import pytest

from corpuskit.enrich.embeddings import (SentenceTransformerEmbedder, TfidfSvdEmbedder,
                                         embedder_from_state)
from corpuskit.errors import MissingDependencyError, ValidationError

GROUPS = [g.split() for g in ("solar grid battery turbine wind emissions",
                                "rocket orbit launch satellite capsule astronaut",
                                "market rates inflation bond yields earnings")]


def corpus_texts(n=800, seed=3):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(GROUPS[i % 3], size=rng.integers(4, 10))) + f" doc{i % 97}"
            for i in range(n)]


@pytest.fixture(scope="module")
def fitted():
    return TfidfSvdEmbedder(seed=1).fit(corpus_texts())


def test_width_and_unit_length(fitted):
    X = fitted.transform(corpus_texts(50, seed=9))
    assert X.shape == (50, 512) and X.dtype == np.float32
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-5)


def test_unknown_or_empty_text_gives_zero_vector(fitted):
    X = fitted.transform(["", "zzzz qqqq", None])
    assert not X.any()


def test_similar_texts_are_closer(fitted):
    a, b, c = fitted.transform(["rocket launch orbit satellite", "satellite launch on a rocket",
                                "inflation and bond market rates"])
    assert a @ b > a @ c + 0.2


def test_deterministic(fitted):
    texts = corpus_texts()
    again = TfidfSvdEmbedder(seed=1).fit(texts)
    assert np.array_equal(fitted.transform(texts[:100]), again.transform(texts[:100]))


def test_save_and_reload_gives_identical_vectors(fitted):
    state = fitted.to_state()
    assert b"pickle" not in state[:100]
    loaded = embedder_from_state(fitted.model_name, state)
    texts = corpus_texts(40, seed=5)
    assert np.array_equal(fitted.transform(texts), loaded.transform(texts))
    with pytest.raises(ValidationError, match="unknown saved embedder"):
        embedder_from_state("mystery-model", state)


def test_tiny_corpus_pads_to_512():
    e = TfidfSvdEmbedder().fit(["one rocket", "two rockets launch"])
    X = e.transform(["rocket launch"])
    assert X.shape == (1, 512) and np.isclose(np.linalg.norm(X), 1.0)
    empty = TfidfSvdEmbedder().fit(["", "!!!"])
    assert empty.transform(["anything"]).shape == (1, 512)


def test_query_embedding_is_not_pathologically_slow(fitted):
    # The speed figure is benchmarks/bench_search.py's "query embedding only" line (about 1 ms); this only
    # guards against a query path that refits or rescans the corpus, with room for a loaded CI machine.
    fitted.transform(["warm up query"])
    t0 = time.perf_counter()
    for i in range(50):
        fitted.transform([f"rocket launch window number {i}"])
    assert (time.perf_counter() - t0) / 50 < 0.05


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None,
                    reason="sentence-transformers is installed")
def test_transformers_backend_names_the_install_line():
    with pytest.raises(MissingDependencyError, match=r"pip install 'corpuskit\[transformers\]'"):
        SentenceTransformerEmbedder().fit(["x"])
