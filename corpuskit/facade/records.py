"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Records: count, select, query, import, add,
export and search."""
from __future__ import annotations

import pandas as pd


class RecordMethods:
    """Records: count, select, query, import, add, export and search."""

    def count(self) -> int:
        """Number of records."""
        return self.file.count()

    def records(self, source: str | None = None, topic: str | None = None,
                since=None, until=None, q: str | None = None) -> pd.DataFrame:
        """Records as a DataFrame, oldest first (``publishedAt``, then ``id``), optionally filtered.

        Columns: ``id, source, sourceId, contentType, title, contentText, url,
        author, publishedAt, capturedAt`` (UTC timestamps), ``subreddit,
        language``, ``topic`` (the primary topic's name after enrichment, else
        the ``--topic`` hint the record was imported with, else None),
        ``metadata`` (dict), ``sentimentScore`` (the enrich run's scorer, -1..1; ``corpus.methods()`` names it),
        ``sentimentLabel`` (positive, neutral, negative) and ``entities`` (the
        canonical names of the entities it mentions, most mentioned first);
        the last three are None for a record not yet enriched. Then the typed
        engagement columns (docs/corpus_file.md): ``likes, reposts, replies,
        quotes, views`` (nullable integers, ``<NA>`` where the source gives none),
        ``replyTo, quoteOf, repostOf`` (platform ids or None) and ``isRepost`` (bool).

        ``topic`` keeps the records whose ``topic`` column is that topic: the
        one membership rule of ``docs/api.md`` that ``/api/v1/discourse?topic=``
        also uses (a record on two beats is listed under its primary one).
        ``since``/``until`` bound ``publishedAt`` inclusively (any timestamp
        form). ``q`` keeps the records matching a query (the language of :meth:`query`).
        :class:`ValidationError` for an unknown topic or a bad bound;
        :class:`~corpuskit.query.QuerySyntaxError` for a malformed query.
        """
        from corpuskit import frames

        return frames.records(self, source=source, topic=topic, since=since, until=until, q=q)

    def query(self, q: str, since=None, until=None, stem: str | None = None):
        """The records matching the query ``q`` as a lazy :class:`~corpuskit.subcorpus.Subcorpus`.

        Lucene / Media Cloud syntax: terms, "phrases", AND/OR/NOT and -term (bare terms are AND-ed),
        parentheses, trailing wildcards (vacc*), proximity ("pfizer booster"~5) and the fields
        source:, author:, lang:, topic:, entity:, sentiment:, published:[a TO b] (docs/query.md).
        ``since``/``until`` bound ``publishedAt`` inclusively. Raises
        :class:`~corpuskit.query.QuerySyntaxError` (with the column) for a malformed query. ``stem``
        (a language code: ``"de"``, ``"es"``, ...) matches each bare word by its Snowball stem as a
        prefix, so ``query("laschet", stem="de")`` finds "Laschets" (:mod:`corpuskit.text.stemming`).
        """
        from corpuskit.subcorpus import Subcorpus

        return Subcorpus(self, q, since=since, until=until, stem=stem)

    def explore(self, a: str = "", b: str = "", freq: str = "W", mode: str = "share"):
        """The notebook explorer on this corpus (:func:`corpuskit.explore`, docs/explore.md): display
        the result in a notebook. ``a``/``b`` are the first queries, ``freq`` the chart's period
        (``D``, ``W``, ``M``), ``mode`` ``share`` or ``count``."""
        from corpuskit.explorer import explore

        return explore(self, a=a, b=b, freq=freq, mode=mode)

    def import_file(self, path, source: str | None = None, mapping: dict | None = None,
                    topic: str | None = None, strict: bool = False, progress: bool = False,
                    dedupe: str = "auto", encoding: str | None = None, **options):
        """Import a JSONL, CSV or Parquet file; returns an :class:`ImportReport`.

        ``dedupe``: ``auto`` (sourceId when a row has one, else source + author + title +
        text + publishedAt), ``id``, ``content`` or ``none``; ``encoding``: the
        text file's encoding (default UTF-8, following a byte-order mark);
        ``date_format=`` (strptime) and ``dayfirst=`` override the file-wide date
        guess. The platform JSON formats (Twitter, Pushshift, Bluesky, Mastodon,
        Telegram, YouTube) and 4CAT or common-name CSVs need no mapping; ``source``
        is any lower-case slug. See :func:`corpuskit.ingest.importers.import_file`
        for the other options and docs/corpus_file.md for the formats.
        """
        from corpuskit.ingest.importers import import_file

        return import_file(self.file, path, source=source, mapping=mapping, topic=topic,
                           strict=strict, progress=progress, dedupe=dedupe, encoding=encoding,
                           **options)

    def add_records(self, records, source: str | None = None, topic: str | None = None,
                    strict: bool = False, stage: str = "import", dedupe: str = "auto"):
        """Add record dicts (the record model); returns an :class:`ImportReport`."""
        from corpuskit.ingest.importers import add_records

        return add_records(self.file, records, source=source, topic=topic, strict=strict, stage=stage,
                           dedupe=dedupe)

    def export(self, path, format: str | None = None, table: str = "records", source: str | None = None,
               topic: str | None = None, since=None, until=None, pseudonymise: bool = False,
               salt: str | None = None, query: str | None = None) -> int:
        """Write one table to ``path`` as jsonl, csv or parquet; returns the rows written.

        ``format`` defaults to the file's extension. ``table`` is one of
        :data:`corpuskit.ingest.export_columns.TABLES` (records by default;
        signals, topics, topic_assignments, clusters, cluster_members,
        entities, mentions, signal_evidence, stories, story_citations,
        snapshots, codes, gold). Every table carries the keys that join it to the others
        (``recordId``, ``entityId``, ``topicId``, ``clusterId``, ``signalId``,
        ``storyId``); the records table imports back into a corpus exactly.
        ``source``, ``topic``, ``since``, ``until`` and ``query`` (the query
        language, see :meth:`query`) select records and the rows that name them; ``pseudonymise`` hashes authors with ``salt`` (random
        when None) and removes handles and profile links. See ``docs/export.md``.
        """
        from corpuskit.ingest.export import export_table

        return export_table(self.file, path, format=format, table=table, source=source, topic=topic,
                            since=since, until=until, pseudonymise=pseudonymise, salt=salt, query=query)

    def export_bundle(self, path, format: str = "parquet", source: str | None = None,
                      topic: str | None = None, since=None, until=None, pseudonymise: bool = False,
                      salt: str | None = None, store_salt: bool = False, query: str | None = None):
        """Write every table, ``manifest.json`` and ``codebook.md`` into the new directory ``path``.

        Returns a :class:`~corpuskit.ingest.export.BundleReport` (rows per
        table, the filters, and the salt a pseudonymised bundle used: it is
        written into the bundle only with ``store_salt``). Filters and
        pseudonymisation as in :meth:`export`; see ``docs/export.md``.
        """
        from corpuskit.ingest.export import export_bundle

        return export_bundle(self.file, path, format=format, source=source, topic=topic, since=since,
                             until=until, pseudonymise=pseudonymise, salt=salt, store_salt=store_salt,
                             query=query, manifest=self.manifest)

    def search(self, q: str, source: str | None = None, topic: str | None = None,
               days: int | None = None, limit: int = 20, min_relevance: float | None = None,
               quantised_from: int | None = None, mode: str = "semantic", query: str | None = None) -> dict:
        """Search: ``{results, query, totalMatched, hasMore, embeddingMs, searchMs}``.

        ``results`` are the matching records, most relevant first, as plain
        dicts with :data:`corpuskit.search.HIT_FIELDS` (``id`` the integer
        record id, ``relevance`` the cosine); ``totalMatched`` counts every
        record that reached the floor, of which ``results`` are the first
        ``limit``. Records match when their cosine reaches ``min_relevance``
        (default :data:`corpuskit.search.RELEVANCE_FLOOR`, 0.2); see
        :func:`corpuskit.search.search` (also for ``quantised_from``, ``mode`` --
        semantic, keyword or hybrid -- and the ``query`` filter). ``/api/v1/search``
        serves the same hits shaped for the API (string ids, ``resultType``, ``href``).
        """
        from corpuskit.search import search

        hits = search(self, q, source=source, topic=topic, days=days, limit=limit,
                      min_relevance=min_relevance, quantised_from=quantised_from, mode=mode, query=query)
        return {"results": hits.rows, "query": hits.query, "totalMatched": hits.total_matched,
                "hasMore": hits.has_more, "embeddingMs": hits.embedding_ms, "searchMs": hits.search_ms}
