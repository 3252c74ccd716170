"""An exclusive lock on a file, held while a block runs: one process builds a shared file, the
others wait for it."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held(lock: Path):
    """Hold an exclusive ``flock`` on ``lock`` (created with mode 0600 if missing) while the block
    runs; the system releases it if the process dies. Where the system has no ``fcntl``
    (Windows) nothing is locked, and the callers' work may run twice."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(lock, "a+") as handle:
        os.chmod(handle.name, 0o600)
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
