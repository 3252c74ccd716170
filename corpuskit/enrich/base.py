"""The small base classes behind each swappable enrichment step.

Pass your own subclass to :func:`corpuskit.enrich.pipeline.enrich_corpus`
(``scorer=``, ``extractor=``, ``embedder=``) to replace a default: a
transformer sentiment model, spaCy, a sentence-transformers model. Each base
class states the one or two methods a replacement must provide; the pipeline
calls a step only through the methods declared here. Each step is an
:class:`~corpuskit.enrich.estimator.Estimator`: ``__init__`` stores parameters,
``_parameter_constraints`` declares them, ``fit`` returns self, and fitted
state ends in ``_``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from corpuskit.enrich.estimator import Estimator
from corpuskit.numerics import stored, unit_rows
from corpuskit.query.values import ENTITY_TYPES, SENTIMENT_LABELS  # noqa: F401  (re-exported to extractors)


def sentiment_label(score: float, cut: float = 0.05) -> str:
    """``positive`` / ``neutral`` / ``negative`` at the usual ``±cut`` on a [-1, 1] score."""
    if score >= cut:
        return "positive"
    if score <= -cut:
        return "negative"
    return "neutral"


class SentimentScorer(Estimator):
    """Scores text sentiment on [-1, 1].

    Subclasses implement :meth:`score`; :meth:`score_many` may be overridden
    for batching. ``model_name`` names the model in run records; ``languages``
    lists the language codes the scorer covers (None: any). A probabilistic
    scorer also implements :meth:`predict_proba` and labels by it in
    :meth:`score_and_label_many`.
    """

    model_name = "sentiment"
    #: ISO 639-1 codes of the languages the scorer covers, or None for every language; records in
    #: another (detected or given) language get a NULL score and are counted as skipped
    languages: frozenset | None = None

    def fit(self, texts=None):
        """Nothing to learn: check the parameters and return self."""
        self._validate_params()
        return self

    def score(self, text: str) -> float:
        """Sentiment of ``text`` in [-1, 1]; empty text must give 0.0."""
        raise NotImplementedError

    def score_many(self, texts) -> np.ndarray:
        """Scores of many texts, as a float array."""
        return np.array([self.score(t) for t in texts], dtype=float)

    def score_and_label_many(self, texts) -> tuple[np.ndarray, list[str]]:
        """Scores and labels of many texts (what enrichment stores); here labels are
        :func:`sentiment_label` of the score."""
        scores = self.score_many(texts)
        return scores, [sentiment_label(float(s)) for s in scores]

    def predict_proba(self, texts) -> np.ndarray:
        """Optional: probabilities of ``negative``, ``neutral``, ``positive`` (columns in that
        order), one row per text."""
        raise NotImplementedError(f"{type(self).__name__} gives no class probabilities")


@dataclass(frozen=True)
class Mention:
    """One entity found in one text.

    ``key`` is the canonical slug the mention resolves to; ``positions`` are
    character offsets of every occurrence (first character), ascending.
    """

    key: str
    name: str
    type: str
    surface: str
    positions: tuple = field(default_factory=tuple)
    aliases: tuple = field(default_factory=tuple)

    @property
    def mention_count(self) -> int:
        return len(self.positions)


class EntityExtractor(Estimator):
    """Finds entity mentions in text.

    Subclasses implement :meth:`extract`, returning one :class:`Mention` per
    distinct canonical entity in the text (all its positions collected). An
    extractor that learns from the corpus sets ``learns_from_corpus`` and
    implements :meth:`fit`, :meth:`settings` and :meth:`restore_fit`: the
    pipeline fits it on every record when the corpus is (re)fitted, saves its
    settings as the ``entities`` model, and an incremental run restores them.
    """

    model_name = "entities"
    #: ISO 639-1 codes of the languages the extractor covers, or None for every language; records in
    #: another language get no mentions and are counted as skipped
    languages: frozenset | None = None
    #: whether :meth:`fit` learns from the corpus (the pipeline then fits, saves and restores it)
    learns_from_corpus = False

    def fit(self, texts, authors=None, days=None):
        """Learn from ``texts`` (with their authors and days, aligned iterables or None); returns
        self. The base extractor learns nothing: it checks the parameters."""
        self._validate_params()
        return self

    def settings(self) -> dict:
        """The parameters and fitted state saved as the corpus's ``entities`` model (default: nothing)."""
        return {}

    def restore_fit(self, saved: dict):
        """Take the fitted state from ``saved`` (what :meth:`settings` gave) unless already fitted;
        returns self. The base extractor has none."""
        return self

    def extract(self, text: str) -> list[Mention]:
        raise NotImplementedError

    def extract_many(self, texts) -> list[list[Mention]]:
        return [self.extract(t) for t in texts]


class Embedder(Estimator):
    """Maps texts to fixed-size, L2-normalised float vectors.

    Subclasses implement :meth:`fit` (may do nothing for a pretrained model),
    :meth:`transform`, and, to be saved with the corpus, :meth:`to_state` /
    :meth:`from_state`. ``model_name`` and ``dimensions`` are recorded with
    every run and checked against the ``record_vectors`` table (512).
    """

    model_name = "embedder"
    dimensions = 512

    def fit(self, texts):
        """Learn from ``texts`` (a pretrained model learns nothing: it checks the parameters); returns self."""
        self._validate_params()
        return self

    def settings(self) -> dict:
        """The settings saved beside the state in the corpus's ``embedder`` model (default: nothing)."""
        return {}

    def transform(self, texts) -> np.ndarray:
        raise NotImplementedError

    def fit_transform(self, texts) -> np.ndarray:
        return self.fit(texts).transform(texts)

    def to_state(self) -> bytes:
        """Serialised fitted state (stored in the ``models`` table)."""
        raise NotImplementedError(f"{type(self).__name__} cannot be saved with the corpus")

    @classmethod
    def from_state(cls, state: bytes, settings: dict):
        raise NotImplementedError(f"{cls.__name__} cannot be loaded from the corpus")


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero) in float64, returned as float32 (as stored)."""
    return stored(unit_rows(matrix))


def record_text(title: str | None, text: str | None) -> str:
    """The text enrichment analyses: ``title + "\\n" + contentText``, or ``contentText`` alone
    when the title is empty or equal to the text. Entity positions are offsets into it."""
    title = title or ""
    text = text or ""
    if not title or title == text:
        return text
    return f"{title}\n{text}"
