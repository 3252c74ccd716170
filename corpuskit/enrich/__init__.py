"""Enrichment: sentiment, entities, topics and embeddings for every record.

Each step is an estimator (:mod:`corpuskit.enrich.estimator`) behind a small base
class (:mod:`corpuskit.enrich.base`); :func:`~corpuskit.enrich.pipeline.enrich_corpus`
(``Corpus.enrich``) runs them with the options of :class:`EnrichSettings`. The
``default_*`` functions return exactly the steps a run uses when none is given.
"""
from corpuskit.enrich.base import Embedder, EntityExtractor, Mention, SentimentScorer
from corpuskit.enrich.defaults import (default_assigner, default_embedder, default_extractor,
                                       default_scorer, make_extractor, make_scorer)
from corpuskit.enrich.embeddings import SentenceTransformerEmbedder, TfidfSvdEmbedder
from corpuskit.enrich.entities import GazetteerExtractor, SpacyExtractor
from corpuskit.enrich.entity_extractor import HybridExtractor
from corpuskit.enrich.estimator import Estimator
from corpuskit.enrich.sentiment import VaderScorer
from corpuskit.enrich.settings import EnrichSettings
from corpuskit.enrich.topics import Beat, BeatAssigner
from corpuskit.enrich.tweet_model import TweetSentimentScorer

__all__ = ["Beat", "BeatAssigner", "Embedder", "EnrichSettings", "EntityExtractor", "Estimator",
           "GazetteerExtractor", "HybridExtractor", "Mention", "SentenceTransformerEmbedder",
           "SentimentScorer", "SpacyExtractor", "TfidfSvdEmbedder", "TweetSentimentScorer", "VaderScorer",
           "default_assigner", "default_embedder", "default_extractor", "default_scorer", "make_extractor",
           "make_scorer"]
