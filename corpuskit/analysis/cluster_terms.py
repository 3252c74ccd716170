"""Cluster terms: the words that set one cluster apart from the others of its topic.

Clusters use the topics' terms and labels (:mod:`corpuskit.enrich.topic_terms`):
class-based TF-IDF (BERTopic's formula) over the normalised text's words and
bigrams, made distinct, and a readable label built from them.
"""
from __future__ import annotations

from corpuskit.enrich.topic_terms import class_tfidf_terms, format_prefixes, readable_label

__all__ = ["class_tfidf_terms", "format_prefixes", "readable_label"]
