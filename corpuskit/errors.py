"""Every exception corpuskit raises on purpose, in one place.

Each failure has its own class so callers (the CLI, the HTTP layer, tests)
can tell them apart; all derive from :class:`CorpusKitError`.
"""


class CorpusKitError(Exception):
    """Base class of every corpuskit error."""


class StoreError(CorpusKitError):
    """The corpus file cannot be opened or used (missing directory, not SQLite, ...)."""


class SchemaVersionError(StoreError):
    """The corpus file was written by a newer corpuskit than this one."""


class ExtensionError(StoreError):
    """No SQLite build that can load sqlite-vec was found."""


class NotACorpusError(StoreError):
    """The file is an SQLite database of another application; corpuskit will not change it."""


class ReadOnlyCorpusError(StoreError):
    """The corpus file (or its directory) cannot be written by this process."""


class CorpusBusyError(StoreError):
    """Another process held the corpus's write lock for longer than the wait allowed."""


class ImportFormatError(CorpusKitError):
    """An input file cannot be read: unknown format, unknown layout, bad --map, bad encoding."""


class RowRejected(CorpusKitError):
    """One input row is unusable (no text, unparseable date); carries the reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class StrictImportError(CorpusKitError):
    """An import in strict mode met a bad row and wrote nothing."""


class ValidationError(CorpusKitError, ValueError):
    """A parameter given to the library is out of range or malformed."""


class BeatDefinitionError(CorpusKitError, ValueError):
    """A beat (topic) definition file or list is unreadable or malformed."""


class StageNotRunError(CorpusKitError):
    """An operation needs a stage's output (e.g. search needs enrich) that the corpus lacks."""


class NotFoundError(CorpusKitError, LookupError):
    """A record, story, topic, entity, signal or arc does not exist."""


class KeyStoreError(CorpusKitError):
    """An API key cannot be created, found or revoked."""


class MissingDependencyError(CorpusKitError, ImportError):
    """An optional backend was asked for but its package is not installed.

    The message always carries the exact install line.
    """


class CollectorError(CorpusKitError):
    """A live collector failed (network, HTTP status, malformed answer)."""


class ClusterError(CorpusKitError):
    """A Dask cluster asked to run a stage cannot be reached or is not running."""
