"""Per-key rate limits, shared by every server process through the corpus file.

Each key has two allowances, set by its tier (``corpuskit.store.keys.TIERS``;
enterprise limits are set at creation): requests per minute and per day.
The minute window starts at the top of each minute and the day window at
midnight UTC, both on the **wall clock** (never the corpus clock: a frozen
corpus still lets a key through again tomorrow).

Counting rule, applied in one ``BEGIN IMMEDIATE`` transaction per request, so
N processes or threads hitting one key let exactly the allowance through:

1. read the key's counters for the current minute and day windows;
2. if the day counter has reached ``per_day``: refuse ('Daily request limit
   reached', ``Retry-After`` = seconds to midnight UTC);
3. else if the minute counter has reached ``per_minute``: refuse ('Rate limit
   exceeded', ``Retry-After`` = seconds to the next minute);
4. else count the request in both windows and stamp ``api_keys.last_used_at``.

A refused request consumes nothing, in either window. The same allowance is
shared by ``/v1`` and ``/api/v1``: both call :func:`check_and_count`.

Every answer to a keyed request carries ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` for the window that is closer
to running out (the one with fewer requests left; the minute window on a tie),
plus ``RateLimit-Policy`` describing both windows.
"""
from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from corpuskit.clock import iso, utc
from corpuskit.store.transaction import transaction

DAILY_MESSAGE = "Daily request limit reached"
MINUTE_MESSAGE = "Rate limit exceeded"
DEFAULT_UPGRADE_URL = "docs/api.md#rate-limits"


def wall_now() -> datetime:
    """The real current time (UTC, microsecond resolution)."""
    return datetime.now(timezone.utc)


#: The clock the limiter uses when none is passed; tests replace it.
clock = wall_now


@dataclass(frozen=True)
class RateDecision:
    """The outcome of counting one request against one key."""

    allowed: bool
    window: str            # 'minute' or 'day': the window reported in the headers
    limit: int
    remaining: int
    reset: int             # seconds until that window resets (>= 1)
    per_minute: int
    per_day: int
    minute_used: int       # requests counted in the current minute, this one included
    day_used: int
    message: str | None = None

    @property
    def retry_after(self) -> int | None:
        """Seconds the client should wait (refusals only)."""
        return None if self.allowed else self.reset

    def headers(self) -> dict[str, str]:
        """The ``RateLimit-*`` headers (and ``Retry-After`` on a refusal)."""
        out = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
            "RateLimit-Policy": f"{self.per_minute};w=60, {self.per_day};w=86400",
        }
        if not self.allowed:
            out["Retry-After"] = str(self.reset)
        return out


def window_names(now: datetime) -> tuple[str, str]:
    """The counter names of the minute and day windows containing ``now``."""
    now = utc(now)
    return now.strftime("m:%Y-%m-%dT%H:%M"), now.strftime("d:%Y-%m-%d")


def seconds_to_resets(now: datetime) -> tuple[int, int]:
    """Whole seconds (at least 1) until the next minute and the next UTC midnight."""
    now = utc(now)
    minute_start = now.replace(second=0, microsecond=0)
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    to_minute = (minute_start + timedelta(minutes=1) - now).total_seconds()
    to_day = (day_start + timedelta(days=1) - now).total_seconds()
    return max(1, math.ceil(to_minute)), max(1, math.ceil(to_day))


def upgrade_url(corpus) -> str:
    """Where a refused client learns about higher tiers.

    ``CORPUSKIT_UPGRADE_URL``, else the corpus's ``upgrade_url`` meta value,
    else the rate-limit section of the API documentation.
    """
    env = os.environ.get("CORPUSKIT_UPGRADE_URL")
    if env:
        return env
    try:
        value = corpus.get_meta("upgrade_url")
    except Exception:  # a corpus without meta access still gets an answer
        value = None
    return value or DEFAULT_UPGRADE_URL


def consume(conn, key_id: int, per_minute: int, per_day: int, now: datetime) -> RateDecision:
    """Count one request for ``key_id`` at ``now`` if its allowances permit.

    One ``BEGIN IMMEDIATE`` transaction on ``conn`` (a connection in
    autocommit mode): exact under any number of concurrent connections.
    """
    now = utc(now)
    minute_name, day_name = window_names(now)
    to_minute, to_day = seconds_to_resets(now)
    with transaction(conn, immediate=True):
        counts = dict(conn.execute(
            "SELECT window, count FROM rate_counters WHERE key_id = ? AND window IN (?, ?)",
            (key_id, minute_name, day_name),
        ).fetchall())
        minute_used = counts.get(minute_name, 0)
        day_used = counts.get(day_name, 0)
        if day_used >= per_day:
            return RateDecision(False, "day", per_day, 0, to_day, per_minute, per_day,
                                minute_used, day_used, DAILY_MESSAGE)
        if minute_used >= per_minute:
            return RateDecision(False, "minute", per_minute, 0, to_minute, per_minute, per_day,
                                minute_used, day_used, MINUTE_MESSAGE)
        if minute_name not in counts:
            # First request of a new minute: drop this key's finished windows.
            conn.execute("DELETE FROM rate_counters WHERE key_id = ? AND window NOT IN (?, ?)",
                         (key_id, minute_name, day_name))
        conn.execute(
            "INSERT INTO rate_counters(key_id, window, count) VALUES (?, ?, 1), (?, ?, 1) "
            "ON CONFLICT(key_id, window) DO UPDATE SET count = count + 1",
            (key_id, minute_name, key_id, day_name),
        )
        stamp = iso(now)
        # skip the page write when the stamp is already this second's
        conn.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ? "
                     "AND (last_used_at IS NULL OR last_used_at <> ?)", (stamp, key_id, stamp))
    minute_used += 1
    day_used += 1
    minute_left, day_left = per_minute - minute_used, per_day - day_used
    if day_left < minute_left:
        return RateDecision(True, "day", per_day, day_left, to_day, per_minute, per_day,
                            minute_used, day_used)
    return RateDecision(True, "minute", per_minute, minute_left, to_minute, per_minute, per_day,
                        minute_used, day_used)


def usage(conn, key_id: int, now: datetime) -> dict[str, int]:
    """Requests counted for ``key_id`` in the minute and day windows containing ``now``."""
    minute_name, day_name = window_names(now)
    counts = dict(conn.execute(
        "SELECT window, count FROM rate_counters WHERE key_id = ? AND window IN (?, ?)",
        (key_id, minute_name, day_name),
    ).fetchall())
    return {"minute": counts.get(minute_name, 0), "day": counts.get(day_name, 0)}


_write_locks: dict = {}
_write_locks_guard = threading.Lock()


def write_lock(corpus) -> threading.Lock:
    """One lock per corpus file in this process, held around the limiter's transaction.

    Server threads then queue on a Python lock (a fast hand-off) instead of
    meeting SQLite's write lock, whose busy handler sleeps for milliseconds
    between retries; other processes still meet the SQLite lock, which keeps
    the count exact across processes.
    """
    name = str(corpus.path) if str(corpus.path) != ":memory:" else f"memory:{id(corpus)}"
    lock = _write_locks.get(name)
    if lock is None:
        with _write_locks_guard:
            lock = _write_locks.setdefault(name, threading.Lock())
    return lock


def check_and_count(corpus, key_info, now=None) -> dict[str, str]:
    """Count one authenticated request; return the headers to add to the answer.

    Raises the 429 JSON answer (``{error, upgradeUrl}`` with ``Retry-After``
    and the ``RateLimit-*`` headers) when the key is past either allowance.
    ``now`` is a callable returning the wall-clock time (default
    :data:`clock`).
    """
    from corpuskit.api.errors import JsonResponse

    moment = (now or clock)()
    with write_lock(corpus):
        decision = consume(corpus.conn, key_info.id, key_info.per_minute, key_info.per_day, moment)
    if not decision.allowed:
        raise JsonResponse({"error": decision.message, "upgradeUrl": upgrade_url(corpus)},
                           status=429, headers=decision.headers())
    return decision.headers()
