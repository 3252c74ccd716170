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
skipped. Each open stream holds one server thread.
"""
from __future__ import annotations

import time

from corpuskit.api.bearer import queries, shapes
from corpuskit.api.errors import abort_json, encode_json
from corpuskit.api.ids import encode_id
from corpuskit.clock import iso, wall_clock

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
    rows = conn.execute(
        "SELECT ev.id AS event_id, s.id, s.kind, s.severity, s.sigma_score, s.detected_at "
        "FROM signal_events ev JOIN signals s ON s.id = ev.signal_id WHERE ev.id > ? "
        "ORDER BY ev.id LIMIT ?", (after, limit)).fetchall()
    newest = rows[-1]["event_id"] if rows else after
    return [r for r in rows if r["kind"] in queries.STORED_TO_V1_KIND], newest


def signal_stream(corpus, request, response, heartbeat_seconds: float, poll_seconds: float = POLL_SECONDS):
    """Validate ``Last-Event-ID`` and return the event generator (bytes chunks)."""
    header = request.get_header("Last-Event-ID")
    if header is not None and header.strip():
        header = header.strip()
        if not header.isdigit() or len(header) > _MAX_EVENT_ID_DIGITS:
            abort_json(400, "Last-Event-ID must be an event id sent by this stream")
        start = int(header)
    else:
        start = queries.last_signal_event(corpus.conn)
    disconnected = request.environ.get("waitress.client_disconnected")
    response.content_type = "text/event-stream; charset=utf-8"
    response.set_header("Cache-Control", "no-cache")
    response.set_header("X-Accel-Buffering", "no")

    def generate():
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

    return generate()
