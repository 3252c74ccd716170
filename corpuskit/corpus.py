"""The :class:`Corpus`: one SQLite file and everything corpuskit does with it."""
from __future__ import annotations

from datetime import datetime

from corpuskit.store.corpus_file import ClosesOnExit, CorpusFile
from corpuskit.facade.entities import EntityMethods
from corpuskit.facade.keys import KeyMethods
from corpuskit.facade.networks import NetworkMethods
from corpuskit.facade.provenance import ProvenanceMethods
from corpuskit.facade.records import RecordMethods
from corpuskit.facade.series import SeriesMethods
from corpuskit.facade.signals import SignalMethods
from corpuskit.facade.stages import StageMethods
from corpuskit.facade.stories import StoryMethods
from corpuskit.facade.topics import TopicMethods
from corpuskit.facade.validation import ValidationMethods


class Corpus(ClosesOnExit, RecordMethods, StageMethods, TopicMethods, SignalMethods, EntityMethods, NetworkMethods, StoryMethods, SeriesMethods, ProvenanceMethods, ValidationMethods, KeyMethods):
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


def open_corpus(path=":memory:", now=None, driver: str | None = None,
                timeout: float = 30.0) -> Corpus:
    """Open or create the corpus at ``path``; see :class:`Corpus`."""
    return Corpus(path, now=now, driver=driver, timeout=timeout)
