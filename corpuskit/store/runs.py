"""Which process runs a stage, and runs whose process is gone.

A run row (``runs``) is written when a stage starts and marked ``done`` or
``failed`` when it ends. A process killed outright (``kill -9``, power loss)
never marks it, and a run left ``running`` switches the HTTP layer's caches
off. So each run stores the process that runs it: pid, host name and the
process's start time (which tells a live process from a later one that was
given the same pid). :func:`fail_abandoned_runs`, called whenever a corpus is
opened, marks ``failed`` every ``running`` run of this host whose process is
gone. Runs of another host (a corpus on a shared disk) are left alone: their
process cannot be checked from here. :func:`enrich_settings` reads the settings the last
enrich run recorded.
"""
from __future__ import annotations

import json
import os
import socket
from functools import lru_cache

from corpuskit.clock import iso, wall_clock


def _start_time(pid: int) -> str | None:
    """A stable token for when process ``pid`` started, or None when it cannot be read.

    Linux: the start time in clock ticks since boot (``/proc/PID/stat`` field
    22). Elsewhere psutil's create time when psutil is installed.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
        # the command name (field 2) is in parentheses and may hold spaces
        fields = stat.rsplit(")", 1)[1].split()
        return "zombie" if fields[0] == "Z" else "ticks:" + fields[19]
    except (OSError, IndexError):
        pass
    try:
        import psutil
    except ImportError:
        return None
    try:
        return f"epoch:{psutil.Process(pid).create_time():.2f}"
    except Exception:  # no such process, access denied
        return None


@lru_cache(maxsize=1)
def _host() -> str:
    return socket.gethostname()


def this_process() -> tuple[int, str, str | None]:
    """``(pid, host, start time token)`` of the running process."""
    pid = os.getpid()
    return pid, _host(), _start_time(pid)


def process_alive(pid: int, started: str | None) -> bool:
    """Whether process ``pid`` runs and (when ``started`` is known) is the one that started then."""
    if pid is None or pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows
        try:
            import psutil
        except ImportError:
            return True  # cannot tell: leave the run alone
        if not psutil.pid_exists(pid):
            return False
    else:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # exists, owned by another user
        except OSError:
            return False
    now = _start_time(pid)
    if now == "zombie":  # exited, not yet reaped by its parent
        return False
    return started is None or now is None or now == started


def fail_abandoned_runs(conn) -> list[str]:
    """Mark ``failed`` each ``running`` run of this host whose process is gone; returns their ids."""
    rows = conn.execute("SELECT id, pid, host, process_started FROM runs "
                        "WHERE status = 'running' AND pid IS NOT NULL").fetchall()
    host = _host()
    gone = [r[0] for r in rows if r[2] == host and not process_alive(r[1], r[3])]
    if gone:
        from corpuskit.store.transaction import transaction

        with transaction(conn):
            conn.executemany(
                "UPDATE runs SET status = 'failed', finished_at = ? "
                "WHERE id = ? AND status = 'running'",
                [(iso(wall_clock()), run_id) for run_id in gone])
    return gone


def enrich_settings(conn) -> dict:
    """The settings of the corpus's last finished enrich run (``{}`` when there is none)."""
    row = conn.execute("SELECT settings FROM runs WHERE stage = 'enrich' AND status = 'done' "
                       "ORDER BY started_at DESC, rowid DESC LIMIT 1").fetchone()
    return json.loads(row[0] or "{}") if row else {}
