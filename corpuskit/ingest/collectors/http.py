"""A small, polite HTTP client for the collectors (stdlib ``urllib`` only).

Every request carries a descriptive User-Agent and a timeout. Requests to one
source are spaced by at least ``min_interval`` seconds. A 429 or 5xx answer,
a timeout or a dropped connection is retried with exponential backoff,
honouring ``Retry-After`` (capped); after ``max_attempts`` the client raises
:class:`~corpuskit.errors.CollectorError` naming the source and the URL.
``sleep`` and ``clock`` are injectable so tests never wait.
"""
from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import parsedate_to_datetime

from corpuskit.clock import wall_clock
from corpuskit.errors import CollectorError
from corpuskit.ingest.readers import loads_json

USER_AGENT_URL = "https://github.com/corpuskit/corpuskit"
SECRET_PARAMS = ("key", "api_key", "apikey", "access_token", "token")


def user_agent() -> str:
    """``corpuskit/<version> (+<project url>)``."""
    from corpuskit.version import __version__

    return f"corpuskit/{__version__} (+{USER_AGENT_URL})"


def redact(url: str) -> str:
    """``url`` with secret query parameters (API keys) replaced by ``***``."""
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    clean = [(k, "***" if k.lower() in SECRET_PARAMS else v) for k, v in pairs]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(clean)))


def build_url(base: str, params: dict | None = None) -> str:
    """``base`` with ``params`` (``None`` values dropped) appended as a query string."""
    if not params:
        return base
    query = urllib.parse.urlencode([(k, v) for k, v in params.items() if v is not None])
    return base + ("&" if "?" in base else "?") + query


class HttpClient:
    """HTTP GET with politeness, retries and clear errors, for one source.

    Parameters
    ----------
    source : str
        Source name, used in error messages.
    timeout : float
        Seconds before one request is abandoned (then retried).
    max_attempts : int
        Attempts per URL before giving up.
    backoff : float
        First backoff delay in seconds; doubled after each failed attempt.
    max_backoff : float
        Upper bound of one backoff delay.
    retry_after_cap : float
        Upper bound on a server's ``Retry-After``.
    min_interval : float
        Minimum seconds between the starts of two requests (the source's rate limit).
    sleep, clock : callables
        ``time.sleep`` and ``time.monotonic`` unless given (tests inject fakes).
    headers : dict
        Extra request headers.
    """

    def __init__(self, source: str, timeout: float = 30.0, max_attempts: int = 4,
                 backoff: float = 2.0, max_backoff: float = 60.0, retry_after_cap: float = 120.0,
                 min_interval: float = 0.0, sleep=None, clock=None, headers: dict | None = None):
        self.source = source
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retry_after_cap = retry_after_cap
        self.min_interval = min_interval
        self.sleep = sleep
        self.clock = clock
        self.headers = headers
        self.requests_ = 0
        self.waits_ = []          # (reason, seconds) of every deliberate pause
        self._last_start = None

    # -- public -------------------------------------------------------------
    def get(self, url: str, params: dict | None = None, accept: str = "*/*") -> bytes:
        """GET ``url`` (with ``params``); return the body of the 200 answer."""
        full = build_url(url, params)
        shown = redact(full)
        last_problem = ""
        for attempt in range(1, self.max_attempts + 1):
            self._space_out()
            request = urllib.request.Request(full, headers={
                "User-Agent": user_agent(), "Accept": accept, **(self.headers or {})})
            self.requests_ += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                status = exc.code
                body = _peek(exc)
                if status == 429 or 500 <= status < 600:
                    last_problem = f"HTTP {status}"
                    if attempt < self.max_attempts:
                        self._wait_retry(attempt, exc.headers.get("Retry-After"), last_problem)
                    continue
                raise CollectorError(
                    f"{self.source}: HTTP {status} from {shown}: {body}".rstrip(": ")
                ) from exc
            except (socket.timeout, TimeoutError):
                last_problem = f"timed out after {self.timeout:g} s"
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                    last_problem = f"timed out after {self.timeout:g} s"
                else:
                    last_problem = f"connection failed ({exc.reason})"
            except (ConnectionError, OSError, http.client.HTTPException) as exc:
                last_problem = f"connection failed ({exc.__class__.__name__}: {exc})"
            if attempt < self.max_attempts:
                self._wait_retry(attempt, None, last_problem)
        raise CollectorError(
            f"{self.source}: gave up on {shown} after {self.max_attempts} attempts: {last_problem}"
        )

    def get_json(self, url: str, params: dict | None = None):
        """GET and decode a JSON answer; malformed JSON raises CollectorError."""
        body = self.get(url, params, accept="application/json")
        try:
            return loads_json(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            snippet = body[:120].decode("utf-8", "replace").strip()
            raise CollectorError(
                f"{self.source}: malformed JSON from {redact(build_url(url, params))}: {exc} "
                f"(answer began {snippet!r})"
            ) from exc

    # -- internals ------------------------------------------------------------
    def _now(self) -> float:
        return (self.clock or time.monotonic)()

    def _pause(self, seconds: float, reason: str) -> None:
        if seconds <= 0:
            return
        self.waits_.append((reason, seconds))
        (self.sleep or time.sleep)(seconds)

    def _space_out(self) -> None:
        if self._last_start is not None and self.min_interval > 0:
            gap = self.min_interval - (self._now() - self._last_start)
            self._pause(gap, "rate limit")
        self._last_start = self._now()

    def _wait_retry(self, attempt: int, retry_after, problem: str) -> None:
        delay = min(self.backoff * 2 ** (attempt - 1), self.max_backoff)
        given = parse_retry_after(retry_after)
        if given is not None:
            delay = min(given, self.retry_after_cap)
        self._pause(delay, f"retry after {problem}")


def parse_retry_after(value) -> float | None:
    """Seconds from a ``Retry-After`` header (delta seconds or an HTTP date), else None."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, (when - wall_clock()).total_seconds())


def _peek(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read()[:200].decode("utf-8", "replace").strip()
    except Exception:  # the body of an error answer is a courtesy, never required
        return ""
