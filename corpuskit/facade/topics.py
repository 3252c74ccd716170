"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Topics: the catalogue, over time, steering
edits, quality, and the clusters within them."""
from __future__ import annotations

import pandas as pd


class TopicMethods:
    """Topics: the catalogue, over time, steering edits, quality, and the clusters within them."""

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
