"""The :class:`Corpus`: one SQLite file and everything corpuskit does with it."""
from __future__ import annotations

from datetime import datetime

import pandas as pd

from corpuskit.clock import wall_clock
from corpuskit.errors import ValidationError
from corpuskit.store.corpus_file import ClosesOnExit, CorpusFile


class Corpus(ClosesOnExit):
    """A corpus file: records and every table the stages derive from them.

    Parameters
    ----------
    path : str or path-like
        The SQLite file (created when missing) or ``":memory:"``.
    now : datetime or str, optional
        Fixes the corpus clock. Otherwise the clock is the newest record's
        timestamp for a frozen corpus (imported files, the demo) or the wall
        clock for a live one (being collected).
    driver : {"sqlite3", "sqlean"}, optional
        Force a SQLite driver; by default ``sqlite3`` when it can load
        extensions, else ``sqlean``.
    timeout : float
        Seconds a write waits for another process's write to finish before
        :class:`~corpuskit.errors.CorpusBusyError` (default 30).

    Opening refuses another application's SQLite file
    (:class:`~corpuskit.errors.NotACorpusError`) and a file this user cannot
    write (:class:`~corpuskit.errors.ReadOnlyCorpusError`), and marks
    ``failed`` the runs whose process is gone (see :mod:`corpuskit.store.runs`).

    The file itself (connection, transactions, meta, clock, runs) is ``corpus.file``, a
    :class:`~corpuskit.store.corpus_file.CorpusFile`; the methods here hand it to the
    store, the read layer and the stages, which take nothing more.
    """

    def __init__(self, path=":memory:", now=None, driver: str | None = None,
                 timeout: float = 30.0):
        #: The :class:`~corpuskit.store.corpus_file.CorpusFile` under the facade: what the
        #: store, the read layer and the stages are given.
        self.file = CorpusFile(path, now=now, driver=driver, timeout=timeout)

    # -- the corpus file (connection, meta, clock, runs): corpuskit.store.corpus_file ---------
    @property
    def path(self):
        """The corpus file's path (a :class:`~pathlib.Path`), or ``":memory:"``."""
        return self.file.path

    @property
    def uri(self) -> str:
        """What the file is opened as: its path, or a shared-memory name of its own for ``":memory:"``."""
        return self.file.uri

    @property
    def driver(self) -> str | None:
        """The SQLite driver asked for (None: the default choice)."""
        return self.file.driver

    @property
    def timeout(self) -> float:
        """Seconds a write waits for another process's write."""
        return self.file.timeout

    @property
    def conn(self):
        """This thread's connection to the corpus file (opened on first use)."""
        return self.file.conn

    def transaction(self):
        """Context manager: the block's writes all land or none do."""
        return self.file.transaction()

    def close(self) -> None:
        """Close this thread's connection (and the in-memory anchor)."""
        self.file.close()

    def get_meta(self, key: str, default=None):
        """A value from the corpus's ``meta`` table (JSON-decoded)."""
        return self.file.get_meta(key, default)

    def set_meta(self, key: str, value) -> None:
        """Store a JSON-serialisable value in the ``meta`` table."""
        self.file.set_meta(key, value)

    @property
    def clock_mode(self) -> str:
        """``fixed`` (``now`` given), ``frozen`` (newest record) or ``live`` (wall clock)."""
        return self.file.clock_mode

    def set_clock_mode(self, mode: str) -> None:
        """Mark the corpus ``frozen`` (a finished collection) or ``live`` (still collected)."""
        self.file.set_clock_mode(mode)

    def now(self) -> datetime:
        """The corpus clock: what "now" means for every window and default."""
        return self.file.now()

    def run_stage(self, stage: str, settings: dict | None = None, model: str | None = None):
        """Record a stage run; yields its id. Ids are ``<stage>-<n>``, deterministic per corpus.

        The meta key ``versions:<id>`` holds :func:`corpuskit.manifest.run_environment` (package
        versions, and the BLAS and OpenMP libraries with their kernels and thread counts), written
        when the run starts and again when it ends, so it lists what the stage loaded."""
        return self.file.run_stage(stage, settings, model)

    # -- records ----------------------------------------------------------
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

    # -- stages -----------------------------------------------------------
    def enrich(self, **kwargs):
        """Run the enrichment stage (sentiment, entities, topics, embeddings)."""
        from corpuskit.enrich.pipeline import enrich_corpus

        return enrich_corpus(self.file, **kwargs)

    def analyse(self, **kwargs):
        """Run the analysis stage (clusters, signals, snapshots, observations, aggregates)."""
        from corpuskit.analysis.pipeline import analyse_corpus

        return analyse_corpus(self.file, **kwargs)

    def narrate(self, **kwargs):
        """Run the narrative stage (stories, versions, arcs).

        ``period=`` (``2016-03``), ``since=``/``until=`` or ``every=`` (day, week, month, year)
        write the stories of those periods of the corpus's history instead, each as at the
        period's end (see :mod:`corpuskit.narrate.periods`).
        """
        from corpuskit.narrate.pipeline import narrate_corpus

        return narrate_corpus(self.file, **kwargs)

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

    def run(self, progress: bool = True, stages=None, n_topics=None, seed: int | None = None,
            refit: bool = False, seed_words=None, beats=None, merge_topics: bool | None = None) -> dict:
        """Run every stage in order (enrich, analyse, narrate); returns ``{stage: summary}``.

        ``stages`` picks a subset, still run in the given order. The topic options go to the
        enrich stage (see :class:`~corpuskit.enrich.settings.EnrichSettings`): ``n_topics`` (a
        number or ``"auto"``), ``seed``, ``refit``, ``seed_words`` (guided topics: a file, list or
        dict of a few words per expected topic), ``beats`` (a beat file instead of discovery) and
        ``merge_topics`` (``False``: keep every discovered topic, so ``n_topics`` topics).
        """
        known = ("enrich", "analyse", "narrate")
        topic_options = {k: v for k, v in (("n_topics", n_topics), ("seed", seed), ("seed_words", seed_words),
                                           ("beats", beats), ("merge_topics", merge_topics)) if v is not None}
        if refit:
            topic_options["refit"] = True
        results = {}
        for name in stages or known:
            if name not in known:
                raise ValidationError(f"unknown stage {name!r}; stages are {', '.join(known)}")
            options = topic_options if name == "enrich" else {}
            results[name] = self._run_stage(name, progress, options)
        enriched = results.get("enrich")
        if enriched and enriched.get("nonEnglishShare", 0) > 0.5:
            from corpuskit.methods import language_note

            results["languageNote"] = language_note(self, enriched["nonEnglishShare"])
        return results

    def _run_stage(self, name: str, progress: bool, options: dict):
        """One stage of :meth:`run`; analyse and narrate leave out the stop words of every language of
        the corpus from their terms, as topic discovery does (:mod:`corpuskit.text.stopwords`)."""
        if name == "enrich":
            return self.enrich(progress=progress, **options)
        from corpuskit.enrich.pipeline import language_counts
        from corpuskit.text.stopwords import corpus_languages, vocabulary_languages

        with vocabulary_languages(corpus_languages(language_counts(self.conn))):
            return getattr(self, name)(progress=progress, **options)

    # -- derived tables as DataFrames ---------------------------------------
    # Thin doors onto corpuskit.frames; the columns are documented here and in
    # docs/api.md ("The DataFrame API"). Timestamps are UTC pandas datetimes.
    def topics(self, level: float = 0.95) -> pd.DataFrame:
        """Every topic (beat), by name.

        Columns: ``id, name, displayName, description, category, keywords``
        (list), ``subreddits`` (list), ``active``, ``discovered`` (True when
        found from the corpus text rather than a beat file), ``recordCount``
        (records whose primary topic it is), ``assignedCount`` (every
        assignment, so a record on two beats counts in both), ``createdAt``, then
        ``share, share_low, share_high``: ``recordCount`` over all records, with its Wilson
        interval at ``level`` (see ``docs/uncertainty.md``).
        """
        from corpuskit import frames

        return frames.topics(self, level=level)

    def topics_over_time(self, freq: str = "M", terms: int = 5, since=None, until=None,
                         level: float = 0.95) -> pd.DataFrame:
        """Each active topic per period: its records, its share of the period and its distinctive terms then.

        ``freq`` is ``D``, ``W`` (weeks from Monday), ``M``, ``Q`` or ``Y`` (UTC calendar periods);
        ``since``/``until`` bound the records (inclusive). Columns: ``period`` (the
        period's first instant), ``topic`` (name), ``label`` (display name), ``count`` (records
        whose primary topic it is), ``total`` (the period's enriched records), ``share,
        share_low, share_high`` (Wilson interval at ``level``) and ``terms``: at most ``terms``
        terms the topic's records of that period use more than the period's other records
        (log-likelihood G², word-for-word copies counted once, title formats left out). One row per
        topic and period, zeros included, sorted by period then topic.
        """
        from corpuskit import frames

        return frames.topics_over_time(self, freq=freq, terms=terms, since=since, until=until, level=level)

    def topic_document_matrix(self, active_only: bool = True) -> pd.DataFrame:
        """The document-topic confidences: one row per enriched record (index ``record``, its id),
        one column per topic name (sorted), the stored assignment confidence or 0.0, for fitting
        a model of one's own on them. ``active_only=False`` adds retired topics' columns."""
        from corpuskit import frames

        return frames.topic_document_matrix(self, active_only=active_only)

    # -- steering the topics (docs/topics.md) ---------------------------------
    def merge_topics(self, a: str, b: str) -> dict:
        """Merge topic ``b`` into topic ``a``: ``b``'s records and assignments go to ``a``, ``b`` is
        retired. Recorded, replayed by every later enrich run (new records of ``b`` go to ``a``) and
        listed in ``manifest()["topicEdits"]``. Returns the edit with ``records`` moved."""
        from corpuskit.enrich.topic_edits import merge_topics

        return merge_topics(self.file, a, b)

    def rename_topic(self, a: str, label: str) -> dict:
        """Give topic ``a`` the display name ``label`` (its ``name`` stays); recorded and kept by later
        runs like :meth:`merge_topics`. Returns the edit."""
        from corpuskit.enrich.topic_edits import rename_topic

        return rename_topic(self.file, a, label)

    def reassign_outliers(self, strategy: str = "embeddings", threshold: float | None = None) -> dict:
        """Give the records that fit no topic the nearest one: ``strategy="embeddings"`` (cosine to the
        topic centroid at least ``threshold``, default 0.3) or ``"confidence"`` (the topic model's
        score at least ``threshold``, default 0.1). Recorded; later runs reassign their new outliers
        by the same rule. Returns the edit with ``records`` given a topic."""
        from corpuskit.enrich.topic_edits import reassign_outliers

        return reassign_outliers(self.file, strategy=strategy, threshold=threshold)

    def topic_edits(self) -> list[dict]:
        """The recorded topic edits (merge, rename, reassign_outliers), oldest first."""
        from corpuskit.enrich.topic_edits import recorded_edits

        return recorded_edits(self.file)

    def topic_overview(self, examples: int = 2) -> pd.DataFrame:
        """The active topics, largest first, then one ``(outliers)`` row for records that fit none.

        Columns: ``topic`` (name), ``label`` (display name), ``records`` (primary), ``share``,
        ``terms`` (top 10, comma-separated), ``examples`` (titles of the ``examples`` most
        confidently assigned records, `` | ``-separated).
        """
        from corpuskit.enrich.topic_quality import topic_overview

        return topic_overview(self.file, examples=examples)

    def topic_quality(self, seed: int = 0) -> pd.DataFrame:
        """Quality of the topics beside plain TF-IDF + k-means with the same k.

        Rows: topics, diversity (share of unique words among all topics' top-10 terms), NPMI
        coherence of the top-10 terms, assignments per record, outlier share, debris top terms and,
        where records carry subreddits, the NMI of the primary topic against the subreddit. Columns
        ``corpuskit`` and ``tfidf+kmeans``. The same figures as ``benchmarks/bench_topics.py``.
        """
        from corpuskit.enrich.topic_quality import quality_table

        return quality_table(self.file, seed=seed)

    def signals(self, kind: str | None = None, topic: str | None = None,
                severity: str | None = None, status: str | None = None,
                since=None, until=None) -> pd.DataFrame:
        """Detected signals, oldest detection first.

        Columns: ``id, kind`` (volume_spike, sentiment_shift, novelty,
        divergence), ``topic`` (name or None), ``entity`` (the entity a novelty
        is about), ``source`` (the source a per-source series is about),
        ``severity`` (high, medium, low), ``sigmaScore, headline, detail``
        (dict; keys per kind: baseline, test, sigma, peakDay, ...),
        ``detectedAt, status`` (open, resolved), ``resolvedAt, acknowledged,
        narrativeId`` (the story it triggered), ``runId``, ``event`` (the id of
        the linked event the signal belongs to: the ``signal_key`` of the event's
        strongest signal, or the signal's own key when nothing is linked to it; see
        :mod:`corpuskit.analysis.signals.linking`).

        Filters: ``kind`` (``velocity``, the ``/v1`` name, means
        volume_spike), ``topic`` (a topic name), ``severity``, ``status``,
        ``since``/``until`` (on ``detectedAt``, inclusive).
        :class:`ValidationError` for a value outside its set.
        """
        from corpuskit import frames

        return frames.signals(self, kind=kind, topic=topic, severity=severity, status=status,
                              since=since, until=until)

    def signal_evidence(self, signal_id: int) -> pd.DataFrame:
        """The evidence one signal keeps: one row per record, entity, topic and story.

        Columns: ``kind`` (record, entity, topic, story), ``id``, ``label`` (a
        record's title or text start, an entity's name, a topic's display
        name, a story's headline), ``source`` and ``sentimentScore`` (records),
        ``entityType`` (entities). Records come oldest first; the signal's own
        entity is the first entity. :class:`NotFoundError` for an unknown id.
        """
        from corpuskit import frames

        return frames.signal_evidence(self, signal_id)

    def clusters(self, topic: str | None = None, run: str | None = None) -> pd.DataFrame:
        """Clusters of one clustering run (the latest by default), largest first.

        Columns: ``id, runId, topic, clusterLabel, lineageId`` (follows a
        cluster across runs), ``recordCount, topTerms`` (list, class-based
        TF-IDF), ``summaryLabel`` (a readable label built from the top terms, "Head: second, third";
        the title nearest the centroid is ``metadata["centralTitle"]``),
        ``silhouette`` (-1..1), ``x, y`` (centroid on the 2-D map),
        ``metadata`` (dict), ``createdAt``. :class:`ValidationError` for an
        unknown topic or a run that made no clusters.
        """
        from corpuskit import frames

        return frames.clusters(self, topic=topic, run=run)

    def cluster_points(self, topic: str, run: str | None = None) -> pd.DataFrame:
        """Every record of ``topic`` on its clustering's 2-D map (what :func:`corpuskit.plot.cluster_map` draws).

        Columns: ``record_id, clusterLabel`` (-1 for records HDBSCAN left as
        noise), ``x, y``, ``title``.
        """
        from corpuskit import frames

        return frames.cluster_points(self, topic, run=run)

    def entities(self, type: str | None = None, since=None, limit: int | None = None) -> pd.DataFrame:
        """Entities ranked by mentions (most first, then id).

        Columns: ``id, name, type`` (person, org, product, place, concept),
        ``slug, mentions`` and ``records`` (mentions and mentioning records
        since ``since``, or ever), ``mentionCount`` (all time),
        ``recentMentions`` (the 7 days to the corpus clock), ``growthFactor``
        (recent weekly rate over the 28 days before, add-one smoothed),
        ``firstSeen, lastSeen`` (the ``slug`` is what the ``/v1`` by-slug path takes).
        ``limit`` keeps the top N. :class:`ValidationError` for an unknown
        type, a bad ``since`` or a ``limit`` below 1.
        """
        from corpuskit import frames

        return frames.entities(self, type=type, since=since, limit=limit)

    def entity_profile(self, name_or_slug: str, level: float = 0.95) -> dict:
        """One entity by name, slug, alias or id: a dict.

        Keys: ``id, name, type, types, slug, lede,
        mentionCount, recentMentions, baselineMentions, growthFactor,
        sentimentDistribution, prominenceRank, noveltyActive, sourceDiversity,
        firstSeen, lastSeen, beats`` (topic names, most mentions first),
        ``narrative`` (its current story or None), ``mentionTrend`` (a
        DataFrame ``day, mentions, mentions_low, mentions_high``: the 30 days to the
        corpus clock, oldest first, with Poisson intervals) and ``sentimentTrend`` (a
        DataFrame ``weekStart, avgScore, sampleSize, avgScore_low, avgScore_high``: t
        intervals). Intervals at ``level``. :class:`NotFoundError` when nothing matches.
        """
        from corpuskit import frames

        return frames.entity_profile(self, name_or_slug, level=level)

    def entity_aliases(self, name: str) -> pd.DataFrame:
        """The extracted entities resolution folded into one entity (by name, slug, alias or id).

        Columns: ``name, type`` (as extracted), ``reason`` (diacritics, spelling, handle, hashtag,
        surname, first name, short form, absorbed fragment, user merge) and ``mentions``, most
        first. Empty when the entity stands alone; :class:`NotFoundError` when nothing matches.
        """
        from corpuskit import frames

        return frames.entity_aliases(self, name)

    def merge_entities(self, a: str, b: str) -> dict:
        """Merge the extracted entity ``b`` into ``a`` (names or slugs as extracted, or any alias) and
        re-resolve; the override is kept for every later ``enrich``. Returns the resolution counts.
        :class:`ValidationError` for an unknown name."""
        from corpuskit.enrich.resolve import add_override, resolve_entities

        add_override(self.file, "merge", a, b)
        return resolve_entities(self.file)

    def split_entity(self, name: str, alias: str) -> dict:
        """Split the extracted entity ``alias`` off ``name``: it joins no entity by resolution's rules
        again (a ``merge_entities`` still may) and the override is kept for every later ``enrich``.
        Returns the resolution counts. :class:`ValidationError` for an unknown name."""
        from corpuskit.enrich.resolve import add_override, resolve_entities

        add_override(self.file, "split", name, alias)
        return resolve_entities(self.file)

    def hashtags(self, since=None, limit: int | None = None) -> pd.DataFrame:
        """Hashtags, most records first: ``tag`` (lower case, no ``#``), ``written`` (the most used
        spelling), ``records``, ``firstSeen, lastSeen`` and ``entities`` (slugs of the entities the
        tag resolves to; empty for a tag that names no thing). ``since`` counts records from then on."""
        from corpuskit import frames

        return frames.hashtags(self, since=since, limit=limit)

    def mentions(self, entity: str | None = None) -> pd.DataFrame:
        """Entity mentions, one row per (record, entity), oldest record first.

        Columns: ``recordId, entityId, entity`` (canonical name),
        ``entityType, surface`` (as written), ``mentionCount`` (in that
        record), ``source, publishedAt``. ``entity`` (a name, slug, alias or
        id) keeps one entity's; :class:`ValidationError` when it matches none.
        """
        from corpuskit import frames

        return frames.mentions(self, entity=entity)

    # -- networks and coordination ------------------------------------------
    def network(self, kind: str, since=None, until=None, query=None, min_weight: int = 1) -> pd.DataFrame:
        """The ``kind`` interaction network as an edge list: ``source, target, weight, first, last,
        records`` (record ids), heaviest first, ties by source then target.

        Kinds: mention, reply, repost, quote, cohashtag, coentity, shared_url, coauthor_topic
        (see :mod:`corpuskit.networks.edges` and docs/api.md, "Networks"). ``since``/``until``
        bound ``publishedAt``; ``query`` is a query-language text or a :meth:`query` Subcorpus;
        ``min_weight`` drops lighter edges. :class:`ValidationError` for a bad kind or value.
        """
        from corpuskit.networks import network

        return network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight).edges

    def network_nodes(self, kind: str, since=None, until=None, query=None, min_weight: int = 1) -> pd.DataFrame:
        """The nodes of :meth:`network` (same arguments): ``node, type, records, first, last,
        dominantTopic, meanSentiment``, most records first, ties by node."""
        from corpuskit.networks import network

        return network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight).nodes

    def export_network(self, path, kind: str = "mention", format: str | None = None, since=None, until=None,
                       query=None, min_weight: int = 1):
        """Write :meth:`network` to ``path`` as gexf or graphml (networkx: the ``networks`` extra) or
        csv (edges, and ``<stem>_nodes.csv``); ``format`` defaults to the extension. Returns the path."""
        from corpuskit.networks import network, write_network

        net = network(self.conn, kind, since=since, until=until, query=query, min_weight=min_weight)
        return write_network(net, path, format=format)

    def coordination(self, window=None, min_repeats: int = 2, by: str = "text", since=None, until=None,
                     query=None, n_null: int = 20, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
        """Coordinated groups: one row per (group, author) with ``group, author, records, shared,
        first, last, evidence``.

        Accounts are linked when they post the same normalised text, URL or hashtag set (``by``)
        within ``window`` seconds (estimated from the corpus as CooRnet does when None) on at least
        ``min_repeats`` items, more often than ``n_null`` seeded draws that shuffle each account's
        posting times among its own posts allow (Benjamini–Hochberg at ``alpha``); groups are the
        connected components. ``attrs`` holds the window and the test's counts. See
        :mod:`corpuskit.networks.coordination` and docs/api.md, "Coordination".
        """
        from corpuskit.networks import coordination

        return coordination(self.conn, window=window, min_repeats=min_repeats, by=by, since=since,
                            until=until, query=query, n_null=n_null, alpha=alpha, seed=seed)

    def signal_coordination(self, groups: pd.DataFrame | None = None, mostly: float = 0.5, **settings) -> pd.DataFrame:
        """Which signals a coordinated group drives: per signal with evidence records among a group's
        coordinated posts, ``signalId, kind, group, accounts, records, groupRecords, share, mostly``
        (``share >= mostly``). ``groups`` is a :meth:`coordination` result (computed with
        ``settings`` when None). See :mod:`corpuskit.networks.signal_ties`."""
        from corpuskit.networks.signal_ties import signal_coordination

        return signal_coordination(self.conn, self.coordination(**settings) if groups is None else groups,
                                   mostly=mostly)

    def stories(self, kind: str | None = None, current: bool = True, period: str | None = None) -> pd.DataFrame:
        """Stories, newest ``publishAt`` first (only current versions unless ``current=False``).

        ``period`` (``2016``, ``2016-03``, ``2016-W09``, ``2016-03-05``): only the stories written
        for that period by ``narrate(period=...)`` or ``narrate(every=...)``.

        Columns: ``id, slug, kind`` (lead_story, beat_narrative, dispatch,
        entity_narrative), ``version, isCurrent, headline, lede, topic,
        entity, signalSeverity, triggerSignalId, featured, citationCount,
        sourceCount, readMin, publishAt, generatedAt``.
        :class:`ValidationError` for an unknown kind.
        """
        from corpuskit import frames

        return frames.stories(self, kind=kind, current=current, period=period)

    def story_quality(self) -> pd.DataFrame:
        """What a reader gets from each current story, one row per story (see :mod:`corpuskit.narrate.quality`).

        Columns: ``id, storyKey, kind, headline, writer, quotes, onSubject``
        (quotes that name the story's subject), ``offSubject`` (those that do
        not), ``nearDuplicates`` (pairs of near-duplicate quotes),
        ``fragments``, ``debris`` (findings in the prose fields) and
        ``authors`` (distinct quoted authors). ``df.attrs["summary"]`` holds
        the corpus figures: ``onSubjectShare, nearDuplicatePairs, fragments,
        storiesWithDebris, authorsPerStory``.
        """
        from corpuskit.narrate.quality import story_quality, summarise

        rows = story_quality(self.conn)
        frame = pd.DataFrame(rows, columns=["id", "storyKey", "kind", "headline", "writer", "quotes", "onSubject",
                                            "offSubject", "nearDuplicates", "fragments", "debris", "authors"])
        frame.attrs["summary"] = summarise(rows)
        return frame

    def story(self, slug: str) -> dict:
        """One story version by its slug (another spelling of a known slug gives the current version): a dict.

        Keys: ``id, slug, kind, version, isCurrent, currentSlug`` (the slug
        of the current version), ``headline, lede, body`` (``[n]`` markers
        cite records), ``topic, entity, signalSeverity, triggerSignal,
        publishAt, generatedAt, metadata`` (framing sentences and what they
        are traced to), ``untraced`` (problems tracing the body to its
        records and framing: an empty list when every sentence is found),
        ``externalCitations``, ``versions`` (a DataFrame ``slug, version,
        generatedAt``, newest first) and ``citations``: a DataFrame
        ``ordinal`` (the ``[n]``), ``recordId, source, title, url,
        sentimentScore, inferred, confidence, credibilityScore``.
        :class:`NotFoundError` for an unknown slug.
        """
        from corpuskit import frames

        return frames.story(self, slug)

    def arcs(self) -> pd.DataFrame:
        """Arcs (the stories of one beat, entity or cluster lineage over time), most recently updated first.

        Columns: ``id, slug, title, arcStatus`` (active, dormant, concluded),
        ``storyCount, lastUpdatedAt, stories`` (list of ``{id, headline,
        publishAt, kind}`` for the current versions, oldest first).
        """
        from corpuskit import frames

        return frames.arcs(self)

    def snapshots(self, topic: str | None = None, since=None, until=None, level: float = 0.95) -> pd.DataFrame:
        """One row per topic per UTC day, zero rows included, by topic then date.

        Columns: ``topic, date, totalRecords, volumeBySource`` (dict),
        ``sentimentPositive, sentimentNeutral, sentimentNegative,
        avgSentiment`` (float, NaN on a day without a scored record),
        ``platformCount, topEntities`` (list of ``{name, mentions, type}``),
        ``signalCount``, then the intervals at ``level``: ``totalRecords_low, totalRecords_high``
        (Poisson), ``topicShare`` (of the day's records) and ``positiveShare``,
        ``negativeShare`` (of its labelled records), each with ``_low, _high`` (Wilson),
        ``avgSentiment_low, avgSentiment_high`` (Student's t); see ``docs/uncertainty.md``.
        A record counts in every topic it is assigned to.
        Window: ``since``/``until`` days (``YYYY-MM-DD``, inclusive); with
        neither, the whole corpus up to the clock's day; with one, see
        :func:`corpuskit.analysis.snapshots.resolve_range`.
        """
        from corpuskit import frames

        return frames.snapshots(self, topic=topic, since=since, until=until, level=level)

    def trends(self, topic: str, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """Records per day of one topic: ``topic, day, count, count_low, count_high`` (an exact
        Poisson interval at ``level``) for the ``days`` days to the clock."""
        from corpuskit import frames

        return frames.trends(self, topic, days=days, level=level)

    def compare(self, topics, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """2 to 5 topics' snapshot rows (the :meth:`snapshots` columns, intervals included) over
        the last ``days`` days (at most 90), stacked: filter or pivot on ``topic``. The tests
        between the topics are :meth:`compare_tests`."""
        from corpuskit import frames

        return frames.compare(self, topics, days=days, level=level)

    def compare_tests(self, topics, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """Each pair of 2 to 5 topics over the last ``days`` days (at most 90), one row per measure.

        Columns: ``topic, referenceTopic, days, measure`` (``records, positiveShare,
        negativeShare, avgSentiment``), ``value, value_low, value_high, reference,
        reference_low, reference_high, change`` (records: rate ratio; else the difference),
        ``test, p_value`` (exact conditional binomial for counts, two-proportion z or
        Fisher's exact for shares, Welch's t for means). See :mod:`corpuskit.analysis.changes`.
        """
        from corpuskit import frames

        return frames.compare_tests(self, topics, days=days, level=level)

    def week_over_week(self, topic: str | None = None, since=None, until=None,
                       level: float = 0.95) -> pd.DataFrame:
        """Each topic's ISO weeks against the week before, one row per measure, with a test.

        Columns: ``topic, weekStart, days, referenceDays`` (days of each week inside the
        window), then the :meth:`compare_tests` columns from ``measure`` on; counts are
        compared as daily rates. Window as :meth:`snapshots` (default: the whole corpus).
        """
        from corpuskit import frames

        return frames.week_over_week(self, topic=topic, since=since, until=until, level=level)

    def observations(self, type: str | None = None, severity: str | None = None,
                     since=None) -> pd.DataFrame:
        """Cross-topic observations, newest first.

        Columns: ``observedAt, type`` (convergence, divergence, anomaly,
        milestone, trend), ``severity, headline, detail`` (dict), ``topic``
        (from the detail, when it names one), ``test, p_value`` (a trend's last week against
        its first, a volume divergence's two topics: the exact two-rate test; else None, NaN).
        """
        from corpuskit import frames

        return frames.observations(self, type=type, severity=severity, since=since)

    def runs(self, stage: str | None = None) -> pd.DataFrame:
        """Every stage run, oldest first: ``id, stage, status, settings`` (dict), ``model,
        startedAt, finishedAt``. Every derived row names the run that made it."""
        from corpuskit import frames

        return frames.runs(self, stage=stage)

    def manifest(self) -> dict:
        """What produced this corpus's tables, for a paper's methods section.

        See :func:`corpuskit.manifest.build_manifest`: the record count and a
        content digest, a digest per derived table, each stage's last run
        (id, settings, model, package versions) and the current environment.
        """
        from corpuskit.manifest import build_manifest

        return build_manifest(self)

    def methods(self) -> str:
        """A methods paragraph to paste into a paper, written from this corpus's runs: each
        instrument the last enrich run used (language detector, sentiment scorer, entity extractor,
        embedder) with its version, training data, measured accuracy and the benchmark it came
        from, what to cite, the corpus's digests and how to cite corpuskit. See
        :func:`corpuskit.methods.methods`."""
        from corpuskit.methods import methods

        return methods(self)

    def compare_with(self, other, tables=None, examples: int = 3):
        """How this corpus (A) and ``other`` (B: a :class:`Corpus` or a corpus file's path, opened
        read-only) differ, table by table; a :class:`~corpuskit.compare.Comparison`.

        For the records and every table the manifest digests, rows are matched by the table's key
        and counted as same, changed, only in A or only in B; ``.summary`` is a DataFrame (one row
        per table: ``table, rowsA, rowsB, same, changed, onlyA, onlyB, digestEqual``), ``.columns``
        the changed columns with the largest numeric difference, ``.examples(table)`` up to
        ``examples`` rows of each kind with the differing values side by side, ``.identical``,
        ``.to_text()`` and ``.to_dict()``. ``tables`` limits it to some tables (names as in the
        manifest, plus ``records``). See :mod:`corpuskit.compare`.
        """
        from corpuskit.compare import compare

        return compare(self, other, tables=tables, examples=examples, driver=self.driver)

    # -- validation (docs/validate.md) ---------------------------------------
    def sample(self, n: int, by: str | None = None, seed: int = 0, name: str | None = None, ids=None,
               since=None, until=None, source: str | None = None, topic: str | None = None,
               allocation: str = "proportional", codebook=None, query=None):
        """Draw a random sample of ``n`` records for hand coding; stored under ``name`` when given.

        ``by``: None (simple random sample), ``topic``, ``source``, ``sentiment``
        (label) or a period ``D``/``W``/``M`` (stratified; ``allocation``
        ``proportional`` with largest-remainder rounding, or ``equal``: stratum
        sizes are exact and sum to ``n``). ``ids`` (record ids), ``since``/``until``,
        ``source``, ``topic`` and ``query`` (the query language, as :meth:`query` takes it)
        restrict what is drawn from. Reproducible from
        ``seed``. A stored sample keeps its design (created at the corpus clock)
        and its records in coding order; ``codebook`` (a YAML/JSON path, mapping
        or :class:`~corpuskit.validate.Codebook`) is stored with it. Returns a
        :class:`~corpuskit.validate.Sample`; ValidationError when too few records match.
        """
        from corpuskit.validate import draw_sample

        return draw_sample(self.file, n, by=by, seed=seed, name=name, ids=ids, since=since, until=until,
                           source=source, topic=topic, allocation=allocation, codebook=codebook,
                           query=query)

    def coding_sheet(self, sample: str, path, codebook=None) -> int:
        """Write ``sample``'s coding sheet (CSV: recordId, text, an empty column per codebook
        variable, note); returns the rows. ``codebook`` is stored with the sample first."""
        from corpuskit.validate import write_coding_sheet

        return write_coding_sheet(self.file, sample, path, codebook=codebook)

    def codebook(self, sample: str, codebook=None):
        """The codebook of ``sample``; with ``codebook`` (path, mapping, Codebook) store it first."""
        from corpuskit.validate import sample_codebook, set_codebook

        if codebook is not None:
            return set_codebook(self.file, sample, codebook)
        return sample_codebook(self.file, sample)

    def import_codes(self, path, sample: str, coder: str, replace: bool = False) -> int:
        """Import ``coder``'s filled coding sheet (CSV) into ``sample``; returns the codes stored.

        One transaction: any bad cell (a value outside the codebook, an unknown
        record, one outside the sample, a code given twice) rejects the sheet with
        :class:`~corpuskit.validate.CodeError` naming each failing line.
        """
        from corpuskit.validate import import_sheet

        return import_sheet(self.file, path, sample, coder, replace=replace)

    def add_codes(self, sample: str, coder: str, codes, replace: bool = False) -> int:
        """Store ``coder``'s codes: ``{record_id: {variable: value}}`` or rows
        ``(record_id, variable, value[, note])``; all or none (see :meth:`import_codes`)."""
        from corpuskit.validate import add_codes

        if isinstance(codes, dict):
            rows = [(rid, var, value, "") for rid, values in codes.items() for var, value in values.items()]
        else:
            rows = [tuple(r) + ("",) * (4 - len(r)) for r in codes]
        return add_codes(self.file, sample, coder, [(i + 1, *r) for i, r in enumerate(rows)], replace=replace)

    def codes(self, sample: str | None = None) -> pd.DataFrame:
        """Codes: ``sample, recordId, coder, variable, value, note, codedAt`` (every sample's when None)."""
        from corpuskit.validate import codes_frame

        return codes_frame(self.file, sample)

    def coder(self, sample: str, coder: str, codebook=None):
        """The ipywidgets coder of ``coder`` on ``sample`` (display ``.widget``); resumes where they stopped."""
        from corpuskit.validate import Coder

        return Coder(self.file, sample, coder, codebook=codebook)

    def agreement(self, sample: str, variable: str | None = None, resamples: int = 1000,
                  seed: int = 0) -> pd.DataFrame:
        """Krippendorff's alpha, percent agreement and (two coders) Cohen's kappa per variable,
        each with a seeded 95% bootstrap interval over records."""
        from corpuskit.validate import agreement

        return agreement(self.file, sample, variable=variable, resamples=resamples, seed=seed)

    def disagreements(self, sample: str, variable: str | None = None) -> pd.DataFrame:
        """Records where coders differ: ``recordId, variable`` and each coder's value."""
        from corpuskit.validate import disagreements

        return disagreements(self.file, sample, variable=variable)

    def adjudicate(self, sample: str, method: str = "majority", variable: str | None = None,
                   decisions: dict | None = None, by: str | None = None,
                   tie_break: str | None = None) -> pd.DataFrame:
        """Store a gold value per record (``majority``, ``coder:NAME`` or explicit ``decisions`` by
        ``by``), with how each was reached; see :func:`corpuskit.validate.adjudicate`."""
        from corpuskit.validate import adjudicate

        return adjudicate(self.file, sample, method=method, variable=variable, decisions=decisions, by=by,
                          tie_break=tie_break)

    def gold(self, sample: str | None = None) -> pd.DataFrame:
        """Stored gold values: ``sample, recordId, variable, value, method, decidedBy, codes, decidedAt``."""
        from corpuskit.validate import gold

        return gold(self.file, sample)

    def validate(self, kind: str, sample: str, variable: str | None = None, resamples: int = 1000,
                 seed: int = 0):
        """corpuskit's ``kind`` labels (sentiment, topic, entities) against the gold values of ``sample``:
        per-class precision/recall/F1, macro-F1, confusion matrix, alpha and the corrected corpus
        shares, each with a bootstrap interval (a :class:`~corpuskit.validate.ValidationResult`)."""
        from corpuskit.validate import validate_labels

        return validate_labels(self.file, kind, sample, variable=variable, resamples=resamples, seed=seed)

    # -- keys ---------------------------------------------------------------
    def create_key(self, tier: str = "free", name: str = "", per_minute: int | None = None,
                   per_day: int | None = None, prefix: str = "ck_") -> str:
        """Create an API key starting with ``prefix`` and return it (the only time it is available)."""
        from corpuskit.store.api_keys import create_key

        return create_key(self.conn, tier=tier, name=name, per_minute=per_minute,
                          per_day=per_day, now=wall_clock(), prefix=prefix)


def open_corpus(path=":memory:", now=None, driver: str | None = None,
                timeout: float = 30.0) -> Corpus:
    """Open or create the corpus at ``path``; see :class:`Corpus`."""
    return Corpus(path, now=now, driver=driver, timeout=timeout)
