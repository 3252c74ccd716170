"""Per-key rate limits, shared by every server process through the rate-limit file.

The counters live in ``<corpus>.limits.db`` (:mod:`corpuskit.store.limits`),
not in the corpus: no import or stage holding the corpus's write lock can make
a keyed request wait.

Each key has two allowances, set by its tier (``corpuskit.store.api_keys.TIERS``;
enterprise limits are set at creation): requests per minute and per day.
The minute window starts at the top of each minute and the day window at
midnight UTC, both on the **wall clock** (never the corpus clock: a frozen
corpus still lets a key through again tomorrow).

Counting rule, applied by one SQL write statement per request
(:func:`corpuskit.store.limits.count_request`: an implicit transaction that
takes the write lock before reading, as ``BEGIN IMMEDIATE`` does), so N
processes or threads hitting one key let exactly the allowance through:

1. read the key's counters for the current minute and day windows;
2. if the day counter has reached ``per_day``: refuse ('Daily request limit
   reached', ``Retry-After`` = seconds to midnight UTC);
3. else if the minute counter has reached ``per_minute``: refuse ('Rate limit
   exceeded', ``Retry-After`` = seconds to the next minute);
4. else count the request in both windows.

A key's last use is stamped (to the second, in the rate-limit file's
``key_usage`` table) at most once per second per process, and a key's finished
windows are dropped once per minute.

A refused request consumes nothing, in either window. The same allowance is
shared by ``/v1`` and ``/api/v1``: both call :func:`check_and_count`.

Every answer to a keyed request carries ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` for the window that is closer
to running out (the one with fewer requests left; the minute window on a tie),
plus ``RateLimit-Policy`` describing both windows. The counts behind
``RateLimit-Remaining`` come from the counting statement itself
(``RETURNING``), so two concurrent requests never report the same value.
"""
from __future__ import annotations

import math
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from corpuskit.api.pages.negotiation import origin
from corpuskit.clock import iso, utc
from corpuskit.store.limits import count_request, drop_other_windows, stamp_use, window_counts

DAILY_MESSAGE = "Daily request limit reached"
MINUTE_MESSAGE = "Rate limit exceeded"
#: The rate-limit part of the server's own reference page (``/docs``), made absolute against the request's own host
#: when no upgrade URL is configured.
DEFAULT_UPGRADE_PATH = "/docs#keyed-headers"


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


def upgrade_url(corpus, configured: str | None = None, base: str | None = None) -> str:
    """Where a refused client learns about higher tiers: always an absolute URL.

    ``configured`` (``server.py --upgrade-url``, else its ``CORPUSKIT_UPGRADE_URL``),
    else the corpus's ``upgrade_url`` meta value, else the rate-limit section of
    the API documentation on ``base`` (the server's own ``scheme://host``;
    ``http://127.0.0.1:8000`` when unknown). A relative configured value is
    resolved against ``base`` too.
    """
    from urllib.parse import urljoin

    value = configured
    if not value:
        try:
            value = corpus.get_meta("upgrade_url")
        except Exception:  # a corpus without meta access still gets an answer
            value = None
    root = (base or "http://127.0.0.1:8000").rstrip("/") + "/"
    return urljoin(root, value or DEFAULT_UPGRADE_PATH)


#: corpus -> {key id: [minute window this process last cleaned up, last-use stamp it last wrote]}
_memos: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def consume(conn, key_id: int, per_minute: int, per_day: int, now: datetime, lock=None,
            memo: list | None = None) -> RateDecision:
    """Count one request for ``key_id`` at ``now`` if its allowances permit.

    ``conn`` is a connection (autocommit mode) to the rate-limit file
    (:func:`counters_conn`). The check and the count are one SQL statement,
    so they are exact under any number of concurrent connections and
    processes, and the counts it returns (the headers' figures) are the ones
    this request made. ``lock`` (optional) is held around each write so that
    threads of one process queue on it rather than on SQLite's lock. Then the
    key's finished windows are dropped and its last use stamped (to the
    second); a refusal reads the counters back instead. ``memo``
    (optional, ``[minute window, stamp]`` shared by one process's calls for
    this key) skips the cleanup and the stamp when this process already did
    them this minute / this second.
    """
    now = utc(now)
    minute_name, day_name = window_names(now)
    to_minute, to_day = seconds_to_resets(now)
    counted = count_request(conn, key_id, minute_name, day_name, per_minute, per_day, lock)
    allowed = bool(counted)
    if allowed:
        if memo is None:
            memo = [None, None]
        if memo[0] != minute_name:
            drop_other_windows(conn, key_id, minute_name, day_name, lock)
            memo[0] = minute_name
        stamp = iso(now)
        if memo[1] != stamp:
            stamp_use(conn, key_id, stamp, lock)
            memo[1] = stamp
    # an allowed request's counts are the ones its own statement wrote; a refusal reads them
    counts = counted if allowed else window_counts(conn, key_id, minute_name, day_name)
    minute_used = counts.get(minute_name, 0)
    day_used = counts.get(day_name, 0)
    if not allowed:
        if day_used >= per_day:
            return RateDecision(False, "day", per_day, 0, to_day, per_minute, per_day,
                                minute_used, day_used, DAILY_MESSAGE)
        return RateDecision(False, "minute", per_minute, 0, to_minute, per_minute, per_day,
                            max(minute_used, per_minute), day_used, MINUTE_MESSAGE)
    minute_used, day_used = max(minute_used, 1), max(day_used, 1)
    minute_left, day_left = max(per_minute - minute_used, 0), max(per_day - day_used, 0)
    if day_left < minute_left:
        return RateDecision(True, "day", per_day, day_left, to_day, per_minute, per_day,
                            minute_used, day_used)
    return RateDecision(True, "minute", per_minute, minute_left, to_minute, per_minute, per_day,
                        minute_used, day_used)


def counters_conn(corpus):
    """This thread's connection to ``corpus``'s rate-limit file."""
    from corpuskit.store.limits import limit_store

    return limit_store(corpus).conn


def usage(conn, key_id: int, now: datetime) -> dict[str, int]:
    """Requests counted for ``key_id`` in the minute and day windows containing ``now``.

    ``conn`` is a connection to the rate-limit file (:func:`counters_conn`).
    """
    minute_name, day_name = window_names(now)
    counts = window_counts(conn, key_id, minute_name, day_name)
    return {"minute": counts.get(minute_name, 0), "day": counts.get(day_name, 0)}


_write_locks: dict = {}
_write_locks_guard = threading.Lock()


def write_lock(corpus) -> threading.Lock:
    """One lock per corpus file in this process, held around the limiter's writes.

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


def request_upgrade_url(corpus, request) -> str:
    """:func:`upgrade_url` for ``request``: the app's ``upgrade_url`` setting (``server.py
    --upgrade-url``), else the documentation on the scheme and host the client called.

    The host comes from a ``Host`` header only when it is a plain host name or
    address with an optional port (else the server's own address), as on the HTML
    pages: whatever a client sends there never makes the URL invalid.
    """
    configured = request.app.config.get("corpuskit.upgrade_url") if "bottle.app" in request.environ else None
    return upgrade_url(corpus, configured, origin(request.environ))


def check_and_count(corpus, key_info, now=None, request=None) -> dict[str, str]:
    """Count one authenticated request; return the headers to add to the answer.

    Raises the 429 JSON answer (``{error, upgradeUrl}`` with ``Retry-After``
    and the ``RateLimit-*`` headers) when the key is past either allowance.
    ``now`` is a callable returning the wall-clock time (default
    :data:`clock`); ``request`` (the Bottle request being answered) makes the
    ``upgradeUrl`` point at the host it called (see :func:`request_upgrade_url`).
    """
    from corpuskit.api.errors import JsonResponse

    moment = (now or clock)()
    memos = _memos.get(corpus)
    if memos is None:
        memos = _memos.setdefault(corpus, {})
    memo = memos.get(key_info.id)
    if memo is None:
        memo = memos.setdefault(key_info.id, [None, None])
    decision = consume(counters_conn(corpus), key_info.id, key_info.per_minute, key_info.per_day, moment,
                       lock=write_lock(corpus), memo=memo)
    if not decision.allowed:
        raise JsonResponse({"error": decision.message,
                            "upgradeUrl": request_upgrade_url(corpus, request) if request is not None
                            else upgrade_url(corpus)},
                           status=429, headers=decision.headers())
    return decision.headers()
