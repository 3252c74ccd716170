"""Worker processes that die with the process that started them.

The enrichment stage scores sentiment and entities in a small process pool
(``fork``). Forked workers wait on a pipe whose write end they share, so when
the parent is killed outright (``kill -9``, an out-of-memory kill) they would
keep working through every queued chunk, for minutes, holding the corpus
file's descriptors. Each worker therefore arranges to exit as soon as its
parent is gone:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (through ``ctypes``) asks the
  kernel to kill it the moment the thread that forked it ends;
- everywhere, a daemon thread checks once a second that its parent pid has
  not changed (a child whose parent died is re-parented) and exits otherwise.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
_POLL_SECONDS = 1.0


def die_with_parent(parent_pid: int, poll_seconds: float = _POLL_SECONDS) -> str:
    """Make the calling (child) process exit when process ``parent_pid`` ends.

    Returns how: ``"pdeathsig+watchdog"`` on Linux, else ``"watchdog"``.
    Exits at once when the parent is already gone.
    """
    how = "watchdog"
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                how = "pdeathsig+watchdog"
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid, poll_seconds), daemon=True,
                     name="corpuskit-parent-watchdog").start()
    return how


def _watch(parent_pid: int, poll_seconds: float) -> None:
    while os.getppid() == parent_pid:
        time.sleep(poll_seconds)
    os._exit(1)
