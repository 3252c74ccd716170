"""A local HTTP server that replays recorded API answers, for tests and offline demos.

>>> with ReplayServer() as server:                                   # doctest: +SKIP
...     server.add("/api/v1/search_by_date", {"hits": [], "nbPages": 0})
...     collect(corpus, "hackernews", "x", base_url=server.url + "/api/v1")

Routes match on the path and, optionally, on some query parameters (the most
specific matching route wins). Several answers added to the same route are
served in order, the last one repeating, so a test can script "429, then
200". A cassette (JSON) lists routes with their recorded files, so the same
recordings drive the tests and the notebook.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: Where each collector's API lives below a replay server's address: the public
#: APIs' own paths, so one server (and one cassette) can stand in for all of them.
API_PATHS = {
    "hackernews": "/api/v1", "reddit": "", "bluesky": "", "gdelt": "/api/v2/doc/doc",
    "google_news": "/rss/search", "arxiv": "/api/query", "youtube": "/youtube/v3",
}


class ReplayServer:
    """Recorded answers on ``127.0.0.1``; ``url`` is its base address once started."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host = host
        self.port = port
        self.routes = []          # [(path, match dict, [answers])]
        self.requests = []        # [(path, params dict, headers dict)]
        self._lock = threading.Lock()
        self._server = None
        self._thread = None

    # -- routes ---------------------------------------------------------------
    def add(self, path: str, body=b"", status: int = 200, headers: dict | None = None,
            delay: float = 0.0, match: dict | None = None,
            content_type: str | None = None) -> "ReplayServer":
        """Queue one answer for ``path`` (and query parameters ``match``).

        A ``None`` value in ``match`` requires the parameter to be absent.
        ``body`` may be bytes, text, or a dict/list (sent as JSON). ``delay``
        makes the server wait before answering (to provoke client timeouts).
        """
        if isinstance(body, (dict, list)):
            payload = json.dumps(body).encode("utf-8")
            content_type = content_type or "application/json"
        elif isinstance(body, str):
            payload = body.encode("utf-8")
        else:
            payload = bytes(body)
        answer = {"status": status, "body": payload, "delay": delay,
                  "headers": {"Content-Type": content_type or "application/octet-stream",
                              **(headers or {})}}
        match = {k: (None if v is None else str(v)) for k, v in (match or {}).items()}
        with self._lock:
            for route_path, route_match, answers in self.routes:
                if route_path == path and route_match == match:
                    answers.append(answer)
                    return self
            self.routes.append((path, match, [answer]))
        return self

    def load_cassette(self, path) -> "ReplayServer":
        """Add the routes of a cassette file.

        A cassette is ``{"routes": [{"path", "file" | "body", "status", "headers",
        "match", "delay", "contentType"}]}``; ``file`` is relative to the cassette.
        """
        path = Path(path)
        spec = json.loads(path.read_text(encoding="utf-8"))
        for route in spec["routes"]:
            body = (path.parent / route["file"]).read_bytes() if "file" in route \
                else route.get("body", b"")
            self.add(route["path"], body, status=route.get("status", 200),
                     headers=route.get("headers"), delay=route.get("delay", 0.0),
                     match=route.get("match"), content_type=route.get("contentType"))
        return self

    def clear(self) -> None:
        """Forget every route and logged request."""
        with self._lock:
            self.routes.clear()
            self.requests.clear()

    def _answer_for(self, path: str, params: dict):
        with self._lock:
            candidates = [(len(m), answers) for p, m, answers in self.routes
                          if p == path and all(params.get(k) == v for k, v in m.items())]
            # a ``None`` in ``match`` means "this parameter is absent"
            if not candidates:
                return None
            candidates.sort(key=lambda c: -c[0])
            answers = candidates[0][1]
            return answers.pop(0) if len(answers) > 1 else answers[0]

    # -- serving ----------------------------------------------------------------
    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the replay server is not started")
        return f"http://{self.host}:{self._server.server_address[1]}"

    def base_url(self, source: str) -> str:
        """The ``base_url`` to give the ``source`` collector to reach this server."""
        return self.url + API_PATHS[source]

    def start(self) -> "ReplayServer":
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the http.server API)
                parts = urllib.parse.urlsplit(self.path)
                params = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
                with replay._lock:
                    replay.requests.append((parts.path, params, dict(self.headers)))
                answer = replay._answer_for(parts.path, params)
                if answer is None:
                    answer = {"status": 404, "delay": 0, "headers": {"Content-Type": "application/json"},
                              "body": json.dumps({"error": f"no recording for {parts.path}"}).encode()}
                if answer["delay"]:
                    time.sleep(answer["delay"])
                try:
                    self.send_response(answer["status"])
                    for name, value in answer["headers"].items():
                        self.send_header(name, str(value))
                    self.send_header("Content-Length", str(len(answer["body"])))
                    self.end_headers()
                    self.wfile.write(answer["body"])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer((self.host, self.port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
