"""The :class:`Corpus`: one SQLite file and everything corpuskit does with it."""
from __future__ import annotations

import itertools
import json
import os
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pandas as pd

from corpuskit.clock import from_iso, iso, parse_timestamp, utc, wall_clock
from corpuskit.errors import ValidationError
from corpuskit.store import connect, migrate, transaction
from corpuskit.store.runs import fail_abandoned_runs, this_process

_memory_ids = itertools.count(1)


class Corpus:
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
    """

    def __init__(self, path=":memory:", now=None, driver: str | None = None,
                 timeout: float = 30.0):
        self.path = path if str(path) == ":memory:" else Path(path)
        self.driver = driver
        self.timeout = timeout
        self._now = utc(parse_timestamp(now)) if now is not None else None
        self._local = threading.local()
        self._anchor = None
        if str(path) == ":memory:":
            self._uri = f"file:corpuskit-mem-{os.getpid()}-{next(_memory_ids)}?mode=memory&cache=shared"
            self._anchor = connect(self._uri, driver=driver)
        else:
            self._uri = str(self.path)
        migrate(self.conn, label=str(self.path))
        fail_abandoned_runs(self.conn)

    # -- connection -----------------------------------------------------
    @property
    def conn(self):
        """This thread's connection to the corpus file (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self._uri, driver=self.driver, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def transaction(self):
        """Context manager: the block's writes all land or none do."""
        return transaction(self.conn)

    def close(self) -> None:
        """Close this thread's connection (and the in-memory anchor)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        if self._anchor is not None:
            self._anchor.close()
            self._anchor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"Corpus({str(self.path)!r})"

    # -- metadata and the clock -------------------------------------------
    def get_meta(self, key: str, default=None):
        """A value from the corpus's ``meta`` table (JSON-decoded)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value) -> None:
        """Store a JSON-serialisable value in the ``meta`` table."""
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value, sort_keys=True)),
        )

    @property
    def clock_mode(self) -> str:
        """``fixed`` (``now`` given), ``frozen`` (newest record) or ``live`` (wall clock)."""
        if self._now is not None:
            return "fixed"
        return self.get_meta("clock", "frozen")

    def set_clock_mode(self, mode: str) -> None:
        """Mark the corpus ``frozen`` (a finished collection) or ``live`` (still collected)."""
        if mode not in ("frozen", "live"):
            raise ValidationError(f"clock mode must be frozen or live, not {mode!r}")
        self.set_meta("clock", mode)

    def now(self) -> datetime:
        """The corpus clock: what "now" means for every window and default."""
        if self._now is not None:
            return self._now
        if self.get_meta("clock", "frozen") == "frozen":
            row = self.conn.execute("SELECT max(published_at) FROM records").fetchone()
            if row and row[0]:
                return from_iso(row[0])
        return wall_clock()

    # -- runs -------------------------------------------------------------
    @contextmanager
    def run_stage(self, stage: str, settings: dict | None = None, model: str | None = None):
        """Record a stage run; yields its id. Ids are ``<stage>-<n>``, deterministic per corpus."""
        conn = self.conn
        pid, host, started = this_process()
        with transaction(conn):
            n = conn.execute("SELECT count(*) FROM runs WHERE stage = ?", (stage,)).fetchone()[0] + 1
            run_id = f"{stage}-{n}"
            conn.execute(
                "INSERT INTO runs(id, stage, settings, model, started_at, pid, host, "
                "process_started) VALUES (?,?,?,?,?,?,?,?)",
                (run_id, stage, json.dumps(settings or {}, sort_keys=True, default=str), model,
                 iso(wall_clock()), pid, host, started),
            )
        try:
            yield run_id
        except BaseException:
            try:
                with transaction(conn):
                    conn.execute("UPDATE runs SET status='failed', finished_at=? WHERE id=?",
                                 (iso(wall_clock()), run_id))
            except Exception:  # e.g. the lock is held elsewhere: once this process
                pass           # has exited, the next open marks the run failed
            raise
        with transaction(conn):
            conn.execute("UPDATE runs SET status='done', finished_at=? WHERE id=?",
                         (iso(wall_clock()), run_id))

    # -- records ----------------------------------------------------------
    def count(self) -> int:
        """Number of records."""
        return self.conn.execute("SELECT count(*) FROM records").fetchone()[0]

    def records(self, source: str | None = None, topic: str | None = None,
                since=None, until=None) -> pd.DataFrame:
        """Records as a DataFrame, oldest first, optionally filtered.

        ``topic`` matches a topic assignment (after enrichment) or the import
        hint; ``since``/``until`` bound ``publishedAt`` inclusively.
        """
        where, args = [], []
        if source is not None:
            where.append("r.source = ?")
            args.append(source)
        if since is not None:
            where.append("r.published_at >= ?")
            args.append(iso(parse_timestamp(since)))
        if until is not None:
            where.append("r.published_at <= ?")
            args.append(iso(parse_timestamp(until)))
        if topic is not None:
            where.append(
                "(r.topic = ? OR r.id IN (SELECT ta.record_id FROM topic_assignments ta "
                "JOIN topics t ON t.id = ta.topic_id WHERE t.name = ?))"
            )
            args += [topic, topic]
        sql = (
            "SELECT r.id, r.source, r.source_id AS sourceId, r.content_type AS contentType, r.title, "
            "r.content_text AS contentText, r.url, r.author, r.published_at AS publishedAt, "
            "r.captured_at AS capturedAt, r.subreddit, r.language, r.topic, r.metadata, "
            "e.sentiment_score AS sentimentScore, e.sentiment_label AS sentimentLabel "
            "FROM records r LEFT JOIN enrichment e ON e.record_id = r.id"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY r.published_at, r.id"
        rows = self.conn.execute(sql, args).fetchall()
        columns = ["id", "source", "sourceId", "contentType", "title", "contentText", "url",
                   "author", "publishedAt", "capturedAt", "subreddit", "language", "topic",
                   "metadata", "sentimentScore", "sentimentLabel"]
        frame = pd.DataFrame([tuple(r) for r in rows], columns=columns)
        frame["metadata"] = frame["metadata"].map(json.loads)
        for col in ("publishedAt", "capturedAt"):
            frame[col] = pd.to_datetime(frame[col], utc=True)
        return frame

    def import_file(self, path, source: str | None = None, mapping: dict | None = None,
                    topic: str | None = None, strict: bool = False, progress: bool = False,
                    dedupe: str = "auto", encoding: str | None = None, **options):
        """Import a JSONL, CSV or Parquet file; returns an :class:`ImportReport`.

        ``dedupe``: ``auto`` (sourceId when a row has one, else source + author + title +
        text + publishedAt), ``id``, ``content`` or ``none``; ``encoding``: the
        text file's encoding (default UTF-8, following a byte-order mark). See
        :func:`corpuskit.ingest.importers.import_file` for the other options.
        """
        from corpuskit.ingest.importers import import_file

        return import_file(self, path, source=source, mapping=mapping, topic=topic,
                           strict=strict, progress=progress, dedupe=dedupe, encoding=encoding,
                           **options)

    def add_records(self, records, source: str | None = None, topic: str | None = None,
                    strict: bool = False, stage: str = "import", dedupe: str = "auto"):
        """Add record dicts (the record model); returns an :class:`ImportReport`."""
        from corpuskit.ingest.importers import import_rows

        return import_rows(self, ((i + 1, r) for i, r in enumerate(records)), source=source,
                           topic=topic, strict=strict, stage=stage, label="records",
                           dedupe=dedupe)

    def export(self, path, format: str | None = None) -> int:
        """Write every record to ``path`` (jsonl, csv or parquet); returns the count."""
        from corpuskit.ingest.export import export_records

        return export_records(self, path, format=format)

    # -- stages -----------------------------------------------------------
    def enrich(self, **kwargs):
        """Run the enrichment stage (sentiment, entities, topics, embeddings)."""
        from corpuskit.enrich.pipeline import enrich_corpus

        return enrich_corpus(self, **kwargs)

    def analyse(self, **kwargs):
        """Run the analysis stage (clusters, signals, snapshots, observations, aggregates)."""
        from corpuskit.analysis.pipeline import analyse_corpus

        return analyse_corpus(self, **kwargs)

    def narrate(self, **kwargs):
        """Run the narrative stage (stories, versions, arcs)."""
        from corpuskit.narrate.pipeline import narrate_corpus

        return narrate_corpus(self, **kwargs)

    def search(self, q: str, source: str | None = None, topic: str | None = None,
               days: int | None = None, limit: int = 20, min_relevance: float | None = None) -> dict:
        """Semantic search; the answer has the shape of ``/api/v1/search``.

        Records match when their cosine reaches ``min_relevance`` (default
        :data:`corpuskit.search.RELEVANCE_FLOOR`, 0.2); see :func:`corpuskit.search.search`.
        """
        from corpuskit.search import search

        return search(self, q, source=source, topic=topic, days=days, limit=limit,
                      min_relevance=min_relevance)

    def run(self, progress: bool = True, stages=None) -> dict:
        """Run every stage in order (enrich, analyse, narrate); returns ``{stage: summary}``.

        ``stages`` picks a subset, still run in the given order.
        """
        known = ("enrich", "analyse", "narrate")
        results = {}
        for name in stages or known:
            if name not in known:
                raise ValidationError(f"unknown stage {name!r}; stages are {', '.join(known)}")
            results[name] = getattr(self, name)(progress=progress)
        return results

    # -- keys ---------------------------------------------------------------
    def create_key(self, tier: str = "free", name: str = "", per_minute: int | None = None,
                   per_day: int | None = None) -> str:
        """Create an API key and return it (the only time it is available)."""
        from corpuskit.store.keys import create_key

        return create_key(self.conn, tier=tier, name=name, per_minute=per_minute,
                          per_day=per_day, now=wall_clock())


def open_corpus(path=":memory:", now=None, driver: str | None = None,
                timeout: float = 30.0) -> Corpus:
    """Open or create the corpus at ``path``; see :class:`Corpus`."""
    return Corpus(path, now=now, driver=driver, timeout=timeout)
