"""The read layer: filters compiled to SQL, lookups by name/slug/id, value lists, paging.

It imports only ``corpuskit.store``, ``corpuskit.errors``, ``corpuskit.clock``
and ``corpuskit.text``; everything that reads the corpus for a caller
(``frames``, ``plot``, ``search``, ``ingest.export``, both HTTP interfaces)
goes through it. JSON shapes and API paths are not built here: they belong
to ``corpuskit.api``.
"""
from corpuskit.query.lookups import (EntityNotFound, SignalNotFound, StoryNotFound, TopicNotFound,
                                     entities_named, entity_hashtags, entity_id, entity_row, parse_story_id,
                                     record_hashtags,
                                     resolve_entity_key, resolve_story_slug, signal_row,
                                     source_in_corpus, story_version_by_slug, topic_by_name,
                                     topic_names, topic_rows)
from corpuskit.query.fulltext import bm25_ranking
from corpuskit.query.language import (FIELDS, MAX_QUERY_LENGTH, CompiledQuery, QuerySyntaxError,
                                      compile_query)
from corpuskit.query.membership import ENTITY_NAMES, PRIMARY_TOPIC_RULE
from corpuskit.query.paging import Page
from corpuskit.query.record_filter import RECORDS_FROM, RecordFilter
from corpuskit.query.stored_counts import (stored_day_source_counts, stored_record_count, stored_topic_days,
                                          stored_topic_totals, topic_days)
from corpuskit.query.values import (ENTITY_TYPES, OBSERVATION_TYPES, SENTIMENT_LABELS, SEVERITIES,
                                    SIGNAL_STATUSES, SOURCE_KINDS, STORY_KINDS, is_source_name)
from corpuskit.query.where import Where

__all__ = ["CompiledQuery", "FIELDS", "MAX_QUERY_LENGTH", "QuerySyntaxError", "bm25_ranking", "compile_query",
           "ENTITY_NAMES", "ENTITY_TYPES", "EntityNotFound", "OBSERVATION_TYPES", "PRIMARY_TOPIC_RULE",
           "Page", "RECORDS_FROM", "RecordFilter", "SENTIMENT_LABELS", "SEVERITIES",
           "SIGNAL_STATUSES", "SOURCE_KINDS", "STORY_KINDS",
           "SignalNotFound", "StoryNotFound", "TopicNotFound", "Where", "entities_named", "entity_hashtags",
           "entity_id", "record_hashtags",
           "entity_row", "is_source_name", "parse_story_id", "resolve_entity_key", "resolve_story_slug",
           "signal_row", "source_in_corpus", "stored_day_source_counts", "stored_record_count",
           "stored_topic_days", "stored_topic_totals", "topic_days",
           "story_version_by_slug", "topic_by_name", "topic_names", "topic_rows"]
