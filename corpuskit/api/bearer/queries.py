"""What each ``/v1`` list and lookup reads: ``/v1``'s names turned into the read layer's calls.

No SQL here: the records filters become a :class:`~corpuskit.query.RecordFilter`, a ``/v1``
signal kind its stored kind (and the lists keep to the kinds ``/v1`` serves), and each function is
one call into :mod:`corpuskit.query` (``records``, ``stories``, ``signals``, ``topics``,
``entities``), which holds the SQL, the sort orders and the keyset rule. List functions take
``after`` (the sort key of the previous page's last row, or None) and ``limit`` and return
``limit + 1`` rows so the caller knows whether a next page exists.
"""
from __future__ import annotations

import json

from corpuskit.analysis.signals.kinds import STORED_TO_V1, V1_KINDS
from corpuskit.query import RecordFilter
from corpuskit.query import entities as entity_reads
from corpuskit.query import records as record_reads
from corpuskit.query import signals as signal_reads
from corpuskit.query import stories as story_reads
from corpuskit.query import topics as topic_reads

# /v1 signal kind -> stored kind, and back: the registered kinds that declare a /v1 name (live views of
# corpuskit.analysis.signals.kinds; a kind without one, as sentiment_shift, is not served there).
V1_SIGNAL_KINDS = V1_KINDS
STORED_TO_V1_KIND = STORED_TO_V1
SITEMAP_PAGE_SIZE = 500

# one record, a topic, a story or arc page, an entity: the read layer's functions as they are
record_row = record_reads.record_row
record_exists = record_reads.record_exists
record_embedding = record_reads.record_embedding
mention_page = record_reads.mention_page
record_topics = record_reads.record_topics
story_count = story_reads.story_count
story_page = story_reads.story_page
arc_page = story_reads.arc_page
topic_page = topic_reads.topic_page
topic_row = topic_reads.topic_list_row
topic_exists = topic_reads.topic_exists
topic_story_count = topic_reads.topic_story_count
entity_page = entity_reads.entity_page
entity_slug_page = entity_reads.entity_slug_page
last_signal_event = signal_reads.last_signal_event
signal_evidence = signal_reads.signal_evidence_rows


def record_page(conn, source=None, sentiment=None, since=None, until=None, after=None, limit=20, q=None):
    """``(rows, total)`` of records, newest first; ``q`` a query (:func:`corpuskit.query.compile_query`)."""
    flt = RecordFilter(source=source, sentiment=sentiment, since=since, until=until, query=q)
    return record_reads.record_page(conn, flt, after, limit)


def signal_page(conn, kind=None, severity=None, status=None, after=None, limit=20):
    """``(rows, total)`` of signals served by ``/v1`` (``kind`` a ``/v1`` name), newest first."""
    return signal_reads.signal_page(conn, kinds=V1_SIGNAL_KINDS.values(),
                                    kind=V1_SIGNAL_KINDS.get(kind) if kind else None,
                                    severity=severity, status=status, after=after, limit=limit)


def signal_feed(conn, limit: int):
    """The newest signals ``/v1`` serves, open ones first."""
    return signal_reads.signal_feed(conn, V1_SIGNAL_KINDS.values(), limit)


def topic_sample_records(conn, topic_id: int, n: int = 5):
    """The topic's ``n`` most confident records (:func:`corpuskit.query.topics.topic_sample_records`)."""
    return topic_reads.topic_sample_records(conn, topic_id, n)


def entity_sitemap_pages(conn, page_size: int = SITEMAP_PAGE_SIZE):
    """``(pages, total)``: the slug-ordered public entities cut into pages of ``page_size``."""
    return entity_reads.entity_sitemap_pages(conn, page_size)


def json_field(text, default):
    """Decode a stored JSON column, falling back to ``default`` on NULL or bad JSON."""
    if text is None:
        return default
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default
