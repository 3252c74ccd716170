"""Open a corpus file with sqlite-vec loaded.

The standard library's ``sqlite3`` is used when it can load extensions;
otherwise ``sqlean`` (PyPI ``sqlean.py``), which bundles an extension-capable
SQLite with the same DB-API. Either way the connection is in WAL mode and
answers rows as :class:`sqlite3.Row`-like objects.

A corpus file holds key hashes and id secrets: a new one is created with mode
0600 (owner only), and SQLite gives its ``-wal`` and ``-shm`` files the same
mode. A file this process cannot write is refused with
:class:`ReadOnlyCorpusError`. :func:`connect_read_only` reads an existing corpus
without writing or creating anything (``corpuskit compare``).
"""
from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

import sqlite_vec

from corpuskit.errors import CorpusBusyError, ExtensionError, NotACorpusError, ReadOnlyCorpusError, StoreError
from corpuskit.store.schema import inspect_file, latest_version

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _driver(prefer: str | None = None):
    """Return the DB-API module to use: ``sqlite3`` if it loads extensions, else ``sqlean``."""
    if prefer not in (None, "", "sqlite3", "sqlean"):
        raise ExtensionError(f"unknown SQLite driver {prefer!r}: use sqlite3 or sqlean")
    if prefer in (None, "", "sqlite3"):
        probe = sqlite3.connect(":memory:")
        can_load = hasattr(probe, "enable_load_extension")
        probe.close()
        if can_load:
            return sqlite3
        if prefer == "sqlite3":
            raise ExtensionError("this Python's sqlite3 cannot load extensions; install sqlean.py")
    try:
        import sqlean
    except ImportError as exc:  # pragma: no cover - sqlean is a base dependency
        raise ExtensionError(
            "this Python's sqlite3 cannot load extensions and sqlean is missing: "
            "pip install sqlean.py"
        ) from exc
    return sqlean


def driver_name(prefer: str | None = None) -> str:
    """Name of the driver :func:`connect` would use (``sqlite3`` or ``sqlean``)."""
    return _driver(prefer).__name__


# Files whose header was already read by this process. Reading it again would be
# harmful: closing any descriptor of a file drops every POSIX lock this process
# holds on it, so other connections' locks vanish and another process may then
# checkpoint and delete the WAL under them (a corrupted database).
_HEADER_CHECKED: set[str] = set()


#: Mode of a new corpus file (and, through SQLite, of its -wal and -shm files).
FILE_MODE = 0o600
#: The suffixes of the files SQLite keeps beside a corpus file.
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")


def create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (an empty file is an empty database)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return
    except OSError as exc:
        raise _os_error(path, exc) from exc
    os.close(fd)


def _os_error(path: Path, exc: OSError) -> StoreError:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return ReadOnlyCorpusError(
            f"cannot create corpus {path}: {exc.strerror} (the directory {path.parent} is not "
            "writable)")
    return StoreError(f"cannot open corpus {path}: {exc.strerror or exc}")


def _read_only(path: Path) -> ReadOnlyCorpusError:
    return ReadOnlyCorpusError(
        f"corpus {path} is read-only for this user: corpuskit writes to the corpus file and "
        f"creates {path.name}-wal and {path.name}-shm beside it. Make it writable "
        f"(chmod u+w {path}) or work on a copy")


def _check_path(path: Path) -> None:
    if not path.parent.exists():
        raise StoreError(f"cannot open corpus {path}: directory {path.parent} does not exist")
    if path.exists():
        if path.is_dir():
            raise StoreError(f"cannot open corpus {path}: it is a directory")
        # the directory must be writable too unless the -wal file exists already
        dir_ok = os.access(path.parent, os.W_OK | os.X_OK) or Path(f"{path}-wal").exists()
        if not os.access(path, os.W_OK) or not dir_ok:
            raise _read_only(path)
        key = str(path.resolve())
        if key in _HEADER_CHECKED:
            return
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head and head != _SQLITE_MAGIC:
            raise StoreError(f"cannot open corpus {path}: not an SQLite database file")
        if head:
            _HEADER_CHECKED.add(key)


def _open(module, target: str, path, timeout: float, *, uri: bool):
    """``module.connect`` to ``target`` (rows as ``module.Row``); a failure is a StoreError about
    ``path``."""
    try:
        conn = module.connect(target, timeout=timeout, isolation_level=None,
                              check_same_thread=False, uri=uri)
    except module.Error as exc:
        raise StoreError(f"cannot open corpus {path}: {exc}") from exc
    conn.row_factory = module.Row
    return conn


def connect(path: str | os.PathLike, *, driver: str | None = None, timeout: float = 30.0):
    """Open (or create) the SQLite file at ``path`` with sqlite-vec loaded, in WAL mode.

    ``path`` may be ``":memory:"`` or a ``file:`` URI (used for shared in-memory corpora). Raises :class:`StoreError` naming the file
    when its directory is missing or it is not an SQLite file.
    """
    module = _driver(driver)
    is_memory = str(path) == ":memory:" or str(path).startswith("file:")
    if not is_memory:
        path = Path(path)
        _check_path(path)
        create_private(path)
    conn = _open(module, str(path), path, timeout, uri=str(path).startswith("file:"))
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:
        conn.close()
        raise ExtensionError(f"cannot load sqlite-vec into {path}: {exc}") from exc
    try:
        if not is_memory:
            # before anything writes to it: another application's database stays untouched
            # (even its journal mode)
            inspect_file(conn, str(path))
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    except StoreError:
        conn.close()
        raise
    except module.DatabaseError as exc:
        conn.close()
        if "readonly" in str(exc) or "read-only" in str(exc):
            raise _read_only(Path(path)) from exc
        if "locked" in str(exc):
            raise busy_error(path, timeout) from exc
        raise StoreError(f"cannot open corpus {path}: {exc}") from exc
    if not is_memory:
        _HEADER_CHECKED.add(str(path.resolve()))
    return conn


def connect_read_only(path: str | os.PathLike, *, driver: str | None = None, timeout: float = 30.0):
    """Open the existing corpus file at ``path`` for reading only, with sqlite-vec loaded.

    Nothing is created or changed: a missing file is a :class:`StoreError`, not a new corpus; the
    file is not migrated, marked or switched to WAL. Without a ``-wal`` file beside it (no process
    has it open for writing) it is opened ``immutable``, so SQLite makes no ``-wal`` or ``-shm``
    file either; with one, read-only through that WAL (SQLite may then add the ``-shm`` file).
    Raises :class:`NotACorpusError` for another application's database or an empty file,
    :class:`SchemaVersionError` for a corpus newer than this code, and :class:`StoreError` for a
    corpus older than it (opening it once with :func:`connect` upgrades it), a directory or a
    file that is not SQLite.
    """
    module = _driver(driver)
    path = Path(path)
    if not path.exists():
        raise StoreError(f"cannot open corpus {path}: no such file")
    if path.is_dir():
        raise StoreError(f"cannot open corpus {path}: it is a directory")
    live = Path(f"{path}-wal").exists()
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("" if live else "&immutable=1")
    conn = _open(module, uri, path, timeout, uri=True)
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        kind = inspect_file(conn, str(path))
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except StoreError:
        conn.close()
        raise
    except module.DatabaseError as exc:
        conn.close()
        if "not a database" in str(exc):
            raise StoreError(f"cannot open corpus {path}: not an SQLite database file") from exc
        raise StoreError(f"cannot open corpus {path}: {exc}") from exc
    except Exception as exc:
        conn.close()
        raise ExtensionError(f"cannot load sqlite-vec into {path}: {exc}") from exc
    if kind == "empty":
        conn.close()
        raise NotACorpusError(f"{path} is not a corpuskit corpus: it is an empty database")
    if version < latest_version():
        conn.close()
        raise StoreError(
            f"corpus {path} has schema version {version}, older than this corpuskit's "
            f"({latest_version()}): open it once for writing (e.g. corpuskit manifest --db {path}) "
            "to upgrade it, then read it")
    return conn


def busy_error(path, timeout: float | None) -> CorpusBusyError:
    """The error for a write lock held by another process past the wait."""
    waited = f" (waited {timeout:g} s)" if timeout is not None else ""
    return CorpusBusyError(
        f"another process is writing to the corpus {path}{waited}; try again when it has "
        "finished (an import or a stage holds the write lock only while it stores its results)")
