"""A subcorpus: the records a query selects, read lazily.

``corpus.query('"mRNA" AND (pfizer OR moderna) NOT booster', since=..., until=...)`` compiles the query
once (:func:`corpuskit.query.compile_query`, so a syntax error is raised at once) and reads nothing
until asked: :meth:`Subcorpus.count`, :meth:`~Subcorpus.records`, :meth:`~Subcorpus.ids`,
:meth:`~Subcorpus.sample`, :meth:`~Subcorpus.export`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.query import Where, compile_query


class Subcorpus:
    """The records of ``corpus`` that match the query ``q``, published within ``since``..``until``.

    Attributes: ``corpus``, ``q`` (the query text), ``since`` and ``until`` (ISO timestamps or None).
    """

    def __init__(self, corpus, q: str, since=None, until=None):
        from corpuskit.frames import timestamp

        self.corpus = corpus
        self.q = q
        self.compiled = compile_query(q)
        self.since = timestamp(since, "since")
        self.until = timestamp(until, "until")

    def where(self) -> Where:
        """The read layer's filter for these records (over ``records r LEFT JOIN enrichment e``)."""
        return (Where().text_query(self.compiled).bound("r.published_at", "since", self.since)
                .bound("r.published_at", "until", self.until))

    def count(self) -> int:
        """How many records match."""
        where = self.where()
        return self.corpus.conn.execute("SELECT count(*) FROM records r" + where.sql(),
                                        where.args).fetchone()[0]

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
        """The matching record ids, ascending (an int64 array)."""
        where = self.where()
        rows = self.corpus.conn.execute("SELECT r.id FROM records r" + where.sql() + " ORDER BY r.id",
                                        where.args).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

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

        where = Where().add("r.id IN (SELECT value FROM json_each(?))",
                            "[" + ",".join(str(int(i)) for i in ids) + "]")
        return frames.records(self.corpus, q=None, newest_first=True, where=where)

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
