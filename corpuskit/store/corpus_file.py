"""The :class:`CorpusFile`: what the store, the read layer and the stages take.

One SQLite file seen as a corpus: this thread's connection, transactions, the ``meta`` table,
the corpus clock, the record count and stage runs. Nothing else: the records, topics, signals
and stories as DataFrames, imports, exports, searches and the stages themselves are the
:class:`~corpuskit.corpus.Corpus` facade's, which wraps one of these as ``corpus.file`` and
passes it down. A function below the facade uses only the attributes here (``conn``,
``transaction``, ``get_meta``, ``set_meta``, ``now``, ``clock_mode``, ``set_clock_mode``,
``count``, ``run_stage``, ``path``, ``uri``, ``driver``, ``timeout``, ``close``), so it accepts a
``Corpus`` as well; ``tests/test_corpus_file.py`` keeps it so.
"""
from __future__ import annotations

import itertools
import json
import os
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from corpuskit.clock import from_iso, iso, parse_timestamp, utc, wall_clock
from corpuskit.errors import ValidationError
from corpuskit.store.connection import connect
from corpuskit.store.runs import fail_abandoned_runs, this_process
from corpuskit.store.schema import migrate
from corpuskit.store.transaction import transaction

_memory_ids = itertools.count(1)

#: The modes :meth:`CorpusFile.set_clock_mode` accepts (``fixed`` comes only from ``now=``).
CLOCK_MODES = ("frozen", "live")


class ClosesOnExit:
    """A ``with`` block closes it (``self.close()``); its repr is its class and ``self.path``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"


class CorpusFile(ClosesOnExit):
    """A corpus file: connection, transactions, meta, the clock and runs.

    Parameters are those of :class:`~corpuskit.corpus.Corpus`: ``path`` (a file, created when
    missing, or ``":memory:"``), ``now`` (fixes the corpus clock), ``driver`` (``sqlite3`` or
    ``sqlean``) and ``timeout`` (seconds a write waits for another process's write).

    Opening refuses another application's SQLite file
    (:class:`~corpuskit.errors.NotACorpusError`) and a file this user cannot
    write (:class:`~corpuskit.errors.ReadOnlyCorpusError`), migrates the schema, and marks
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
        # ``uri``: what the file is opened as, and known by in this process (the search index
        # cache's key): the path, or a shared-memory name of its own for ":memory:"
        if str(path) == ":memory:":
            self.uri = f"file:corpuskit-mem-{os.getpid()}-{next(_memory_ids)}?mode=memory&cache=shared"
            self._anchor = connect(self.uri, driver=driver)
        else:
            self.uri = str(self.path)
        migrate(self.conn, label=str(self.path))
        fail_abandoned_runs(self.conn)

    # -- connection -----------------------------------------------------
    @property
    def conn(self):
        """This thread's connection to the corpus file (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.uri, driver=self.driver, timeout=self.timeout)
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
        if mode not in CLOCK_MODES:
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

    def count(self) -> int:
        """Number of records."""
        return self.conn.execute("SELECT count(*) FROM records").fetchone()[0]

    # -- runs -------------------------------------------------------------
    @contextmanager
    def run_stage(self, stage: str, settings: dict | None = None, model: str | None = None):
        """Record a stage run; yields its id. Ids are ``<stage>-<n>``, deterministic per corpus.

        The meta key ``versions:<id>`` holds :func:`corpuskit.manifest.run_environment` (package
        versions, and the BLAS and OpenMP libraries with their kernels and thread counts), written
        when the run starts and again when it ends, so it lists what the stage loaded."""
        conn = self.conn
        from corpuskit.store.environment import run_environment

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
            # what the manifest reports: the versions, and the numeric libraries loaded so far ...
            self.set_meta(f"versions:{run_id}", run_environment())
        try:
            yield run_id
        except BaseException:
            try:
                with transaction(conn):
                    conn.execute("UPDATE runs SET status='failed', finished_at=? WHERE id=?",
                                 (iso(wall_clock()), run_id))
                    self.set_meta(f"versions:{run_id}", run_environment())
            except Exception:  # e.g. the lock is held elsewhere: once this process
                pass           # has exited, the next open marks the run failed
            raise
        with transaction(conn):
            conn.execute("UPDATE runs SET status='done', finished_at=? WHERE id=?",
                         (iso(wall_clock()), run_id))
            # ... and again as the run ends: every kernel the stage loaded, and its thread counts then
            self.set_meta(f"versions:{run_id}", run_environment())
