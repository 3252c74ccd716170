"""Embedders: the offline TF-IDF + SVD default and a sentence-transformers backend.

Every embedder gives 512-dimension, L2-normalised float32 vectors (the width
of the ``record_vectors`` vec0 table). The default is fitted on the corpus
itself and saved in the ``models`` table, so a query is embedded with the
very model that embedded the records, offline, in well under a millisecond.
"""
from __future__ import annotations

import io
import json
from numbers import Integral

import numpy as np

from corpuskit.enrich.base import Embedder, l2_normalise, record_text
from corpuskit.enrich.estimator import InstanceOf, Interval, Pair
from corpuskit.errors import MissingDependencyError, ValidationError
from corpuskit.numerics import as64, stored, unit_rows
from corpuskit.text import analysis_text
from corpuskit.text.unicode import word_tokens

VECTOR_DIMENSIONS = 512


def embedding_text(title: str, text: str) -> str:
    """The text a record is embedded from: the analysis text (:func:`corpuskit.text.analysis_text`:
    HTML entities decoded, URLs and handles removed, hashtags split into words) of :func:`record_text`."""
    return analysis_text(record_text(title, text))


def _stop_words():
    """The words the embedder's vocabulary leaves out: scikit-learn's English list, and the stop words of
    the corpus's other languages while :func:`~corpuskit.text.stopwords.vocabulary_languages` is in
    effect (folded and split as the tokenizer splits them), so a Spanish corpus's vectors are not drawn
    together by "de, la, que"."""
    from corpuskit.text.stopwords import current_languages, stop_words

    languages = current_languages()
    if not languages:
        return "english"
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    words = {t for w in stop_words(languages) for t in word_tokens(w)}
    return sorted(ENGLISH_STOP_WORDS | words)


class TfidfSvdEmbedder(Embedder):
    """TF-IDF (words and word bigrams) reduced to 512 dimensions by a seeded TruncatedSVD.

    Words of every script count, matched with their diacritics folded; Chinese and Japanese
    runs count as overlapping character pairs (:mod:`corpuskit.text.unicode`).

    Fitted on at most ``fit_sample`` documents (a seeded sample), so fitting
    cost stays flat on big corpora. When the corpus has fewer terms than
    ``dimensions`` the TF-IDF vector itself is used; missing dimensions are
    zero either way, so every vector has ``dimensions`` entries.

    Parameters
    ----------
    dimensions : int
        Output width (512 to match the vector table).
    max_features : int
        Vocabulary cap (most frequent terms kept).
    ngram_range : tuple
        Word n-gram range (unigrams by default: bigrams double the fitting time
        for little gain in retrieval on short posts).
    min_df : int
        Minimum document frequency of a term (relaxed to 1 for tiny corpora).
    fit_sample : int
        Documents used to fit the model at most.
    n_iter : int
        Power iterations of the randomized SVD.
    seed : int
        Random state of the sample and the SVD.
    """

    model_name = "corpuskit-tfidf-svd-512"
    _parameter_constraints = {
        "dimensions": [Interval(Integral, 1)], "max_features": [Interval(Integral, 1)],
        "ngram_range": [Pair()], "min_df": [Interval(Integral, 1)], "fit_sample": [Interval(Integral, 1)],
        "n_iter": [Interval(Integral, 0)], "seed": [Interval(Integral, 0)]}

    def __init__(self, dimensions: int = VECTOR_DIMENSIONS, max_features: int = 20000,
                 ngram_range=(1, 1), min_df: int = 2, fit_sample: int = 20000, n_iter: int = 2,
                 seed: int = 0):
        self.dimensions = dimensions
        self.max_features = max_features
        self.ngram_range = ngram_range
        self.min_df = min_df
        self.fit_sample = fit_sample
        self.n_iter = n_iter
        self.seed = seed

    # -- fitting ------------------------------------------------------------
    def _vectorizer(self, min_df, vocabulary=None):
        from sklearn.feature_extraction.text import CountVectorizer

        # words of every script, diacritics folded (a query "Sahin" finds "Şahin"), CJK as
        # character pairs: :func:`corpuskit.text.unicode.word_tokens`
        return CountVectorizer(lowercase=False, tokenizer=word_tokens, token_pattern=None,
                               stop_words="english" if vocabulary is not None else _stop_words(),
                               ngram_range=tuple(self.ngram_range), min_df=min_df,
                               max_df=1.0,
                               max_features=None if vocabulary is not None else self.max_features,
                               vocabulary=vocabulary, dtype=np.float64)

    def fit(self, texts):
        """Learn the vocabulary, IDF weights and the SVD basis from ``texts``; returns self."""
        self._validate_params()
        texts = [analysis_text(t or "") for t in texts]
        self.fit_transform_ = None
        if len(texts) > self.fit_sample:
            rng = np.random.default_rng(self.seed)
            keep = np.sort(rng.choice(len(texts), self.fit_sample, replace=False))
            texts = [texts[i] for i in keep]
        counts, vocabulary = None, []
        for min_df in sorted({max(1, min(self.min_df, len(texts) // 2)), 1}, reverse=True):
            try:
                vectorizer = self._vectorizer(min_df)
                counts = vectorizer.fit_transform(texts)
                vocabulary = vectorizer.get_feature_names_out().tolist()
                break
            except ValueError:  # empty vocabulary (no words, or every term filtered out)
                continue
        self.vocabulary_ = vocabulary
        n_docs = max(len(texts), 1)
        if not vocabulary:
            self.idf_ = np.zeros(0, dtype=np.float32)
            self.components_ = np.zeros((0, 0), dtype=np.float32)
            return self
        df = np.bincount(counts.indices, minlength=len(vocabulary))
        # fitted and applied in float64, kept as the float32 values the corpus stores (a model fitted
        # now and one loaded from the corpus embed alike): :mod:`corpuskit.numerics`
        self.idf_ = stored(np.log((1 + n_docs) / (1 + df)) + 1)
        weighted = self._weight(counts)
        n_terms = len(vocabulary)
        if n_terms <= self.dimensions:
            self.components_ = np.eye(n_terms, dtype=np.float32)
        else:
            from sklearn.decomposition import TruncatedSVD

            k = max(1, min(self.dimensions, n_docs - 1))
            svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=self.n_iter,
                               random_state=self.seed)
            svd.fit(weighted)
            self.components_ = stored(_sign_fixed(svd.components_))
        self.projection_ = np.ascontiguousarray(as64(self.components_).T)
        return self

    def _weight(self, counts):
        from sklearn.preprocessing import normalize

        counts = counts.astype(np.float64)
        counts.data = 1.0 + np.log(counts.data)
        counts = counts.multiply(as64(self.idf_)).tocsr()
        return normalize(counts, norm="l2", copy=False)

    # -- embedding ----------------------------------------------------------
    def transform(self, texts) -> np.ndarray:
        """Embed ``texts``: an ``(n, dimensions)`` float32 array of unit (or zero) rows.

        Each text is read as its analysis text (a search query is embedded the way records were)."""
        texts = [analysis_text(t or "") for t in texts]
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not getattr(self, "vocabulary_", None) or not texts:
            return out
        vectorizer = getattr(self, "vectorizer_", None)
        if vectorizer is None:
            vectorizer = self.vectorizer_ = self._vectorizer(1, vocabulary=self.vocabulary_)
        reduced = unit_rows(self._weight(vectorizer.transform(texts)) @ self.projection_)
        out[:, : reduced.shape[1]] = reduced
        return out

    # -- persistence --------------------------------------------------------
    def settings(self) -> dict:
        return {"dimensions": self.dimensions, "max_features": self.max_features,
                "ngram_range": list(self.ngram_range), "min_df": self.min_df,
                "fit_sample": self.fit_sample, "n_iter": self.n_iter, "seed": self.seed}

    def to_state(self) -> bytes:
        """The fitted state as an ``.npz`` blob (no pickle: safe to load)."""
        buf = io.BytesIO()
        np.savez(buf, vocabulary=np.array(self.vocabulary_, dtype=str), idf=self.idf_,
                 components=self.components_,
                 settings=np.array(json.dumps(self.settings(), sort_keys=True)))
        return buf.getvalue()

    @classmethod
    def from_state(cls, state: bytes, settings: dict | None = None):
        with np.load(io.BytesIO(state), allow_pickle=False) as data:
            params = json.loads(str(data["settings"]))
            params["ngram_range"] = tuple(params["ngram_range"])
            self = cls(**params)
            self.vocabulary_ = data["vocabulary"].tolist()
            self.idf_ = data["idf"]
            self.components_ = data["components"]
        self.projection_ = np.ascontiguousarray(as64(self.components_).T)
        return self


def _sign_fixed(components: np.ndarray) -> np.ndarray:
    """Flip each component so its largest-magnitude loading is positive (stable output)."""
    idx = np.abs(components).argmax(axis=1)
    signs = np.sign(components[np.arange(len(components)), idx])
    signs[signs == 0] = 1
    return components * signs[:, None]


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model, fitted to 512 dimensions.

    Models narrower than 512 are zero-padded; wider ones are reduced by a
    seeded random orthogonal projection (saved with the corpus, so queries
    and records share it). Needs the ``transformers`` extra.

    Parameters
    ----------
    model : str
        A sentence-transformers model name or local path.
    dimensions : int
        Output width (512).
    batch_size : int
        Encoding batch size.
    seed : int
        Seed of the projection for wide models.
    """

    _parameter_constraints = {"model": [InstanceOf(str)], "dimensions": [Interval(Integral, 1)],
                              "batch_size": [Interval(Integral, 1)], "seed": [Interval(Integral, 0)]}

    def __init__(self, model: str = "all-MiniLM-L6-v2", dimensions: int = VECTOR_DIMENSIONS,
                 batch_size: int = 64, seed: int = 0):
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.seed = seed

    @property
    def model_name(self) -> str:
        return f"sentence-transformers/{self.model}"

    def _encoder(self):
        encoder = getattr(self, "encoder_", None)
        if encoder is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise MissingDependencyError(
                    "the sentence-transformers embedder needs the transformers extra: "
                    "pip install 'corpuskit[transformers]'"
                ) from exc
            encoder = self.encoder_ = SentenceTransformer(self.model)
        return encoder

    def fit(self, texts=None):
        """Read the model's width and draw the projection of a wide model (the texts teach it
        nothing); returns self."""
        self._validate_params()
        width = self._encoder().get_sentence_embedding_dimension()
        self.width_ = int(width)
        self.projection_ = None
        if self.width_ > self.dimensions:
            rng = np.random.default_rng(self.seed)
            q, _ = np.linalg.qr(rng.standard_normal((self.width_, self.dimensions)))
            self.projection_ = q
        return self

    def transform(self, texts) -> np.ndarray:
        if not hasattr(self, "width_"):
            self.fit()
        vectors = np.asarray(self._encoder().encode(list(texts), batch_size=self.batch_size,
                                                    show_progress_bar=False), dtype=np.float64)
        if self.projection_ is not None:
            vectors = vectors @ self.projection_
        out = np.zeros((len(vectors), self.dimensions), dtype=np.float32)
        out[:, : vectors.shape[1]] = vectors
        return l2_normalise(out)

    def to_state(self) -> bytes:
        return json.dumps({"model": self.model, "dimensions": self.dimensions,
                           "batch_size": self.batch_size, "seed": self.seed}).encode()

    @classmethod
    def from_state(cls, state: bytes, settings: dict | None = None):
        return cls(**json.loads(state.decode()))


EMBEDDERS = {
    TfidfSvdEmbedder.model_name: TfidfSvdEmbedder,
}


def embedder_from_state(kind: str, state: bytes, settings: dict | None = None) -> Embedder:
    """Rebuild a saved embedder from its ``models`` row (``kind`` is its model name)."""
    if kind.startswith("sentence-transformers/"):
        return SentenceTransformerEmbedder.from_state(state, settings)
    cls = EMBEDDERS.get(kind)
    if cls is None:
        raise ValidationError(f"unknown saved embedder {kind!r}; refit with enrich(refit=True)")
    return cls.from_state(state, settings)
