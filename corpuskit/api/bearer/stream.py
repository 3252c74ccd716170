"""``GET /v1/stream/signals``: new and updated signals as server-sent events.

Each change to a signal is a row of ``signal_events`` (written by the analysis
stage, in any process). A stream polls that table every
:data:`POLL_SECONDS` on its own connection and sends, oldest first::

    event: signal
    id: <signal_events.id>
    data: {"id": "sig_…", "kind": "velocity", "severity": "high", "sigmaScore": 4.2, "detectedAt": "…"}

and every ``heartbeat_seconds`` an ``event: heartbeat`` with ``{"ts": <wall-clock time>}``.
A client that sends ``Last-Event-ID: n`` gets every event after ``n``; without
it the stream starts at connection time (only later changes are sent).
Changes to ``sentiment_shift`` signals (a kind ``/v1`` does not serve) are
skipped.

Each open stream holds one server thread, so a :class:`StreamGate` caps them:
per API key (a further stream answers JSON 429 with ``Retry-After``) and per
process (JSON 503 with ``Retry-After``), so ordinary requests always find a
free thread.
"""
from __future__ import annotations

import threading
import time
import weakref

from corpuskit.api.bearer import queries, shapes
from corpuskit.api.errors import abort_json, encode_json
from corpuskit.api.ids import encode_id
from corpuskit.clock import iso, wall_clock
from corpuskit.query.signals import signal_events_after

POLL_SECONDS = 0.5
RETRY_MILLISECONDS = 2000
_MAX_EVENT_ID_DIGITS = 18


def _event(name: str, data: dict, event_id: int | None = None) -> bytes:
    lines = [f"event: {name}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + encode_json(data).decode("utf-8"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def _events_after(conn, after: int, limit: int = 500):
    """``(served rows, newest event id looked at)`` after event ``after``."""
    rows = signal_events_after(conn, after, limit)
    newest = rows[-1]["event_id"] if rows else after
    return [r for r in rows if r["kind"] in queries.STORED_TO_V1_KIND], newest


DEFAULT_MAX_STREAMS = 32
DEFAULT_MAX_STREAMS_PER_KEY = 8
STREAM_RETRY_SECONDS = 5


class StreamGate:
    """Counts the open signal streams of one process, in total and per key.

    :meth:`open` takes a slot or raises the JSON refusal; the returned
    callable gives the slot back (idempotent).
    """

    def __init__(self, max_streams: int = DEFAULT_MAX_STREAMS,
                 max_per_key: int = DEFAULT_MAX_STREAMS_PER_KEY):
        self.max_streams = int(max_streams)
        self.max_per_key = int(max_per_key)
        self._lock = threading.Lock()
        self._total = 0
        self._per_key: dict = {}

    def open(self, key_id):
        """Take a slot for ``key_id``; 429 past the per-key cap, 503 past the process cap."""
        with self._lock:
            if self._per_key.get(key_id, 0) >= self.max_per_key:
                abort_json(429, f"this key already has {self.max_per_key} open signal streams, "
                                "the most one server process allows per key; close one first",
                           {"Retry-After": str(STREAM_RETRY_SECONDS)})
            if self._total >= self.max_streams:
                abort_json(503, f"the server has {self.max_streams} open signal streams per process, "
                                "its limit; retry later", {"Retry-After": str(STREAM_RETRY_SECONDS)})
            self._total += 1
            self._per_key[key_id] = self._per_key.get(key_id, 0) + 1
        released = []

        def release():
            with self._lock:
                if released:
                    return
                released.append(True)
                self._total -= 1
                left = self._per_key[key_id] - 1
                if left:
                    self._per_key[key_id] = left
                else:
                    del self._per_key[key_id]

        return release


def last_event_id(request) -> int | None:
    """The ``Last-Event-ID`` header as an event id, None when absent; 400 when malformed."""
    try:
        header = request.get_header("Last-Event-ID")
    except UnicodeError:
        header = "?"
    if header is None or not header.strip():
        return None
    header = header.strip()
    # ASCII digits only: str.isdigit() also accepts '²' and other digits int() refuses
    if not (header.isascii() and header.isdigit()) or len(header) > _MAX_EVENT_ID_DIGITS:
        abort_json(400, "Last-Event-ID must be an event id sent by this stream")
    return int(header)


def signal_stream(corpus, request, response, heartbeat_seconds: float, poll_seconds: float = POLL_SECONDS,
                  gate: StreamGate | None = None, key_id=None):
    """Validate ``Last-Event-ID``, take a slot of ``gate`` and return the event generator (bytes chunks)."""
    start = last_event_id(request)
    if start is None:
        start = queries.last_signal_event(corpus.conn)
    release = gate.open(key_id) if gate is not None else (lambda: None)
    disconnected = request.environ.get("waitress.client_disconnected")
    response.content_type = "text/event-stream; charset=utf-8"
    response.set_header("Cache-Control", "no-cache")
    response.set_header("X-Accel-Buffering", "no")

    def generate():
        try:
            yield from _events(corpus, start, heartbeat_seconds, poll_seconds, disconnected)
        finally:
            release()

    stream = generate()
    weakref.finalize(stream, release)  # a stream dropped before it started still gives its slot back
    return stream


def _events(corpus, start, heartbeat_seconds, poll_seconds, disconnected):
    """The stream's chunks: the retry hint, then signal events and heartbeats until the client leaves."""
    conn = corpus.conn  # the serving thread's own connection
    cursor = start
    yield f"retry: {RETRY_MILLISECONDS}\n\n".encode("ascii")
    next_beat = time.monotonic() + heartbeat_seconds
    while True:
        rows, cursor = _events_after(conn, cursor)
        for row in rows:
            yield _event("signal", {
                "id": encode_id(corpus, "sig", row["id"]),
                "kind": queries.STORED_TO_V1_KIND[row["kind"]],
                "severity": row["severity"],
                "sigmaScore": shapes.score(row["sigma_score"]),
                "detectedAt": row["detected_at"],
            }, event_id=row["event_id"])
        now = time.monotonic()
        if now >= next_beat:
            yield _event("heartbeat", {"ts": iso(wall_clock())})
            next_beat = now + heartbeat_seconds
        if disconnected is not None and disconnected():
            return
        time.sleep(max(0.01, min(poll_seconds, next_beat - time.monotonic())))
