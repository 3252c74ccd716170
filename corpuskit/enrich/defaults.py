"""The steps :func:`~corpuskit.enrich.pipeline.enrich_corpus` uses when none is given, and the
named extractors it accepts.

Each ``default_*`` function returns exactly what the pipeline builds: the same
class with the same parameters.
"""
from __future__ import annotations

from corpuskit.enrich.base import EntityExtractor, SentimentScorer
from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.enrich.entities import GazetteerExtractor, SpacyExtractor
from corpuskit.enrich.entity_extractor import HybridExtractor
from corpuskit.enrich.sentiment import VaderScorer
from corpuskit.enrich.tweet_model import TweetSentimentScorer
from corpuskit.enrich.topics import DISCOVERED_ASSIGNMENT, GIVEN_K_ASSIGNMENT, BeatAssigner
from corpuskit.errors import ValidationError


def default_scorer() -> TweetSentimentScorer:
    """The sentiment scorer enrichment uses by default: the shipped model trained on labelled
    English tweets (:class:`~corpuskit.enrich.tweet_model.TweetSentimentScorer`)."""
    return TweetSentimentScorer()


def default_extractor() -> HybridExtractor:
    """The entity extractor enrichment uses by default: gazetteers, the CRF and corpus promotion."""
    return HybridExtractor()


def default_embedder(seed: int = 0) -> TfidfSvdEmbedder:
    """The embedder enrichment fits by default (``seed`` is the run's seed): TF-IDF reduced by SVD."""
    return TfidfSvdEmbedder(seed=seed)


def default_assigner(discovered: bool = False, given_k: bool = False) -> BeatAssigner:
    """The topic assigner enrichment uses by default: tuned for discovered topics when
    ``discovered`` (every record to its nearest topic when the researcher gave the number of topics,
    ``given_k``: :data:`~corpuskit.enrich.topics.GIVEN_K_ASSIGNMENT`), else for defined beats."""
    if discovered:
        return BeatAssigner(**(GIVEN_K_ASSIGNMENT if given_k else DISCOVERED_ASSIGNMENT))
    return BeatAssigner()


EXTRACTORS = {"default": default_extractor, "hybrid": HybridExtractor, "gazetteer": GazetteerExtractor,
              "spacy": SpacyExtractor}


SCORERS = {"default": default_scorer, "model": TweetSentimentScorer, "vader": VaderScorer}


def make_scorer(scorer) -> SentimentScorer:
    """A sentiment scorer from ``None`` (:func:`default_scorer`), a name (``"default"``,
    ``"model"``: the shipped tweet model; ``"vader"``) or a
    :class:`~corpuskit.enrich.base.SentimentScorer`."""
    if scorer is None:
        return default_scorer()
    if isinstance(scorer, str):
        if scorer not in SCORERS:
            raise ValidationError(f"scorer must be one of {sorted(SCORERS)} or an object, not {scorer!r}")
        return SCORERS[scorer]()
    if not isinstance(scorer, SentimentScorer):
        raise ValidationError(f"scorer {scorer!r} is not a SentimentScorer (a subclass with score or score_many)")
    return scorer


def make_extractor(extractor) -> EntityExtractor:
    """An extractor from ``None`` (:func:`default_extractor`), a name (``"default"``,
    ``"gazetteer"``, ``"spacy"``) or an :class:`~corpuskit.enrich.base.EntityExtractor`."""
    if extractor is None:
        return default_extractor()
    if isinstance(extractor, str):
        if extractor not in EXTRACTORS:
            raise ValidationError(f"extractor must be one of {sorted(EXTRACTORS)} or an object, "
                                  f"not {extractor!r}")
        return EXTRACTORS[extractor]()
    if not isinstance(extractor, EntityExtractor):
        raise ValidationError(f"extractor {extractor!r} is not an EntityExtractor (a subclass with "
                              "extract or extract_many)")
    return extractor
