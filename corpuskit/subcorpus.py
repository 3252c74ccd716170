"""A subcorpus: the records a query selects, read lazily.

``corpus.query('"mRNA" AND (pfizer OR moderna) NOT booster', since=..., until=...)`` compiles the query
once (:func:`corpuskit.query.compile_query`, so a syntax error is raised at once) and reads nothing
until asked: :meth:`Subcorpus.count`, :meth:`~Subcorpus.records`, :meth:`~Subcorpus.ids`,
:meth:`~Subcorpus.sample`, :meth:`~Subcorpus.export`, and the studies of
:mod:`corpuskit.analysis`: :meth:`~Subcorpus.over_time` (attention), :meth:`~Subcorpus.kwic`,
:meth:`~Subcorpus.terms` and :meth:`~Subcorpus.compare` (keyness).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.query import RecordFilter, Where, compile_query


class Subcorpus:
    """The records of ``corpus`` that match the query ``q``, published within ``since``..``until``.

    Attributes: ``corpus``, ``q`` (the query text), ``since`` and ``until`` (ISO timestamps or None).
    """

    def __init__(self, corpus, q: str, since=None, until=None, stem: str | None = None):
        from corpuskit.frames import timestamp

        self.corpus = corpus
        self.q = q
        self.compiled = compile_query(q, stem=stem)
        self.since = timestamp(since, "since")
        self.until = timestamp(until, "until")
        self._ids = None    # (data version, ids) once read

    @property
    def filter(self) -> RecordFilter:
        """The :class:`~corpuskit.query.RecordFilter` that selects these records."""
        return RecordFilter(query=self.compiled, since=self.since, until=self.until)

    def where(self) -> Where:
        """The read layer's filter for these records (over ``records r LEFT JOIN enrichment e``)."""
        return self.filter.where(self.corpus.conn)

    def count(self) -> int:
        """How many records match."""
        from corpuskit.query.subsets import query_count

        return query_count(self.corpus.conn, self.compiled, self.since, self.until)

    def __len__(self) -> int:
        return self.count()

    def records(self, limit: int | None = None, offset: int = 0) -> pd.DataFrame:
        """The matching records, newest first (``publishedAt``, then ``id``, descending).

        The columns of ``Corpus.records()``; ``limit``/``offset`` page them.
        """
        from corpuskit import frames

        return frames.records(self.corpus, q=self.compiled, since=self.since, until=self.until,
                              newest_first=True, limit=limit, offset=offset)

    def ids(self) -> np.ndarray:
        """The matching record ids, ascending (an int64 array).

        Remembered while nothing at all is written to the corpus file (by this connection or another),
        so :meth:`over_time`, :meth:`kwic` and the keyness methods called one after the other select
        once; a write of any kind, a deleted record included, selects again."""
        from corpuskit.query.subsets import query_ids

        conn = self.corpus.conn
        version = self._version()
        if version is not None and self._ids is not None and self._ids[0] == version:
            return self._ids[1]
        ids = query_ids(conn, self.compiled, self.since, self.until)
        ids.setflags(write=False)
        self._ids = None if version is None else (version, ids)
        return ids

    def remember_ids(self, ids: np.ndarray) -> None:
        """Take ``ids`` (ascending int64, read-only) as the matching ids until the corpus is written to,
        for a caller that already holds them (the explorer slices a period's ids out of its
        whole-range selection rather than selecting again)."""
        version = self._version()
        if version is not None:
            self._ids = (version, ids)

    def _version(self):
        """What the remembered ids hold for: the data version and this connection's changes (None
        while a stage runs, when nothing is remembered)."""
        from corpuskit.query.remembered import data_version

        conn = self.corpus.conn
        stamp = data_version(conn)
        return None if stamp is None else \
            (stamp, conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """``n`` matching records drawn without replacement (all of them when fewer), newest first.

        The same ``seed`` on the same records draws the same sample.
        """
        from corpuskit.analysis.windows import check_int

        n = check_int(n, "n", 0)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValidationError(f"seed must be an integer, not {seed!r}")
        ids = self.ids()
        if n < len(ids):
            ids = np.sort(np.random.default_rng(int(seed)).choice(ids, size=n, replace=False))
        from corpuskit import frames

        return frames.records(self.corpus, newest_first=True, ids=ids)

    def over_time(self, freq: str = "D", normalise: bool = True, since=None, until=None) -> pd.DataFrame:
        """Attention: the matching records per period and their share of all records, with 95%
        intervals (:func:`corpuskit.analysis.attention.over_time`). ``since``/``until`` default to
        the subcorpus's own bounds (then the first record's period and the corpus clock)."""
        from corpuskit.analysis.attention import over_time

        return over_time(self.corpus, self.ids(), freq=freq, normalise=normalise,
                         since=self.since if since is None else since,
                         until=self.until if until is None else until)

    def kwic(self, term: str, window: int = 8, limit: int | None = None) -> pd.DataFrame:
        """A keyword-in-context concordance of ``term`` in the matching records
        (:func:`corpuskit.analysis.kwic.kwic`): recordId, left, match, right, publishedAt, source."""
        from corpuskit.analysis.kwic import kwic

        return kwic(self.corpus, self.ids(), term, window=window, limit=limit)

    def terms(self, n: int | None = 20, min_freq: int | None = None, progress=None) -> pd.DataFrame:
        """The ``n`` terms most distinctive of the matching records against the rest of the corpus
        (:func:`corpuskit.analysis.keyterms.distinctive_terms`: G², log ratio, BH-adjusted p).
        ``progress``, when given, is called as texts are read with the records read and to read."""
        from corpuskit.analysis.keyterms import MIN_FREQ, distinctive_terms

        return distinctive_terms(self.corpus, self.ids(), n=n, min_freq=MIN_FREQ if min_freq is None else min_freq,
                                 progress=progress)

    def compare(self, other, n: int | None = 20, min_freq: int | None = None, progress=None) -> pd.DataFrame:
        """Keyness of terms between these records (side ``a``) and ``other`` (side ``b``, a
        :class:`Subcorpus` of the same corpus): :func:`corpuskit.analysis.keyterms.compare_terms`,
        the ``n`` most key terms of each side. ``progress``, when given, is called as texts are read
        with the records read and to read."""
        from corpuskit.analysis.keyterms import MIN_FREQ, compare_terms

        if not isinstance(other, Subcorpus):
            raise ValidationError(f"compare() takes another Subcorpus (corpus.query(...)), not {type(other).__name__}")
        if other.corpus is not self.corpus:
            raise ValidationError("compare() needs two subcorpora of the same corpus")
        return compare_terms(self.corpus, self.ids(), other.ids(), n=n,
                             min_freq=MIN_FREQ if min_freq is None else min_freq, progress=progress)

    def export(self, path, format: str | None = None, table: str = "records", **options) -> int:
        """Write ``table`` (records by default) for the matching records to ``path`` (jsonl, csv or
        parquet, by extension unless ``format``), as :meth:`Corpus.export` does with ``query=``;
        ``options`` are its other keywords (``source``, ``topic``, ``pseudonymise``, ``salt``).
        Returns the rows written."""
        from corpuskit.ingest.export import export_table

        return export_table(self.corpus, path, format=format, table=table, query=self.compiled,
                            since=self.since, until=self.until, **options)

    def __repr__(self) -> str:
        bounds = "".join(f", {k}={v!r}" for k, v in (("since", self.since), ("until", self.until)) if v)
        return f"Subcorpus({self.q!r}{bounds})"
