"""server.py under abuse: idle floods, dead workers, hostile bytes, stream floods (127.0.0.1 only).

Each test starts ``server.py`` as a subprocess on a small hand-built corpus and
talks to it over raw sockets, bounded in count and time.
"""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.store.api_keys import list_keys
from tests.api_fixtures import NOW, build_api_corpus
from tests.http_client import call

resource = pytest.importorskip("resource", reason="server.py's process model needs POSIX")

ROOT = Path(__file__).resolve().parents[1]
IDLE_CONNECTIONS = 1200  # past select()'s 1024 descriptors: enough to kill the old server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _corpus_file(folder: Path, keys=("enterprise",)) -> tuple[Path, list[str]]:
    path = folder / "corpus.db"
    corpus = open_corpus(path, now=NOW)
    build_api_corpus(corpus)
    made = [corpus.create_key(tier=tier, per_minute=10**6, per_day=10**7) if tier == "enterprise"
            else corpus.create_key(tier=tier) for tier in keys]
    corpus.close()
    return path, made


class Server:
    """``server.py`` in a subprocess (its own session, so teardown ends every worker it forked)."""

    def __init__(self, db: Path, *args: str, env: dict | None = None):
        self.port = _free_port()
        self.log = open(db.parent / f"server-{self.port}.log", "w+")
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py"), "--db", str(db), "--port", str(self.port), *args],
            cwd=db.parent, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "CORPUSKIT_HEARTBEAT_SECONDS": "1", **(env or {})})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("server.py exited at start:\n" + self.output())
            try:
                if self.get("/api/v1/status", timeout=2)[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError("server.py did not answer within 60 s:\n" + self.output())

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def get(self, path: str, headers: dict | None = None, timeout: float = 10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=headers or {})
            answer = conn.getresponse()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        finally:
            conn.close()

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        if not children.exists():
            pytest.skip("needs Linux's /proc/PID/task/PID/children to find server.py's workers")
        text = children.read_text()
        return sorted(int(pid) for pid in text.split())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        self.log.close()


def raw(port: int, request: bytes, timeout: float = 5.0) -> tuple[int, dict, bytes]:
    """Send raw bytes; return ``(status, headers, body)`` of the first final answer (timeout: AssertionError)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                raise AssertionError(f"no answer within {timeout} s; got {data[:200]!r}") from None
            if not chunk:
                break
            data += chunk
            while data.startswith(b"HTTP/1.1 100"):  # an interim answer: the final one follows
                data = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else data
                if data.startswith(b"HTTP/1.1 100"):
                    break
            if b"\r\n\r\n" in data and not data.startswith(b"HTTP/1.1 100"):
                head, body = data.split(b"\r\n\r\n", 1)
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (line.decode("latin-1").partition(":") for line in head.split(b"\r\n")[1:])}
                if len(body) >= int(headers.get("content-length", "0")):
                    return int(head.split(b" ")[1]), headers, body
    raise AssertionError(f"connection closed without an answer: {data[:200]!r}")


def assert_json_error(status: int, headers: dict, body: bytes, expected: int) -> dict:
    assert status == expected, (status, body[:200])
    assert headers["content-type"].startswith("application/json")
    payload = json.loads(body)
    assert isinstance(payload.get("error"), str) and payload["error"]
    return payload


def _raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"this process may open {hard} files; the test needs {needed}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


# -- item 1: connections ------------------------------------------------------------------
def test_server_survives_1200_idle_and_slow_connections(tmp_path):
    _raise_fd_limit(IDLE_CONNECTIONS + 200)
    db, (key,) = _corpus_file(tmp_path)
    server = Server(db, "--workers", "1", "--threads", "4")
    held = []
    try:
        worker = server.workers()
        for i in range(IDLE_CONNECTIONS):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if i % 3 == 0:  # a slow client: headers started, never finished
                sock.sendall(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n")
            held.append(sock)
        started = time.monotonic()
        answers = [server.get("/api/v1/topics", {"x-api-key": key})[0] for _ in range(10)]
        assert answers == [200] * 10
        assert time.monotonic() - started < 10
        assert server.proc.poll() is None and server.workers() == worker  # nothing died
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_connections_beyond_the_cap_get_a_json_503_and_room_comes_back(tmp_path):
    db, _ = _corpus_file(tmp_path)
    server = Server(db, "--workers", "1", "--threads", "2", "--max-connections", "40")
    held = []
    try:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(40)]
        deadline = time.monotonic() + 5  # until the server has accepted all 40 (a busy machine is slow)
        while True:
            status, headers, body = raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
            if status != 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        payload = assert_json_error(status, headers, body, 503)
        assert "connections" in payload["error"] and headers["retry-after"] == "1"
        for sock in held[:5]:
            sock.close()
        time.sleep(0.5)
        assert server.get("/api/v1/status")[0] == 200
        # waitress's own limit never engages (its log said "no longer accepting" while this server
        # went on accepting and refusing with 503); the server's own warning says what happened
        log = server.output()
        assert "no longer accepting" not in log
        assert "connection cap (40) reached" in log
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_unfinished_requests_are_closed_after_the_idle_timeout(tmp_path):
    db, _ = _corpus_file(tmp_path)
    server = Server(db, "--workers", "1", "--threads", "2", "--idle-timeout", "1")
    try:
        for sent in (b"", b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n",     # idle; headers never ended
                     b"GET /api/v1/status HTTP/1.1\nHost: x\n\n"):        # bare LF: never a complete request
            with socket.create_connection(("127.0.0.1", server.port), timeout=15) as sock:
                sock.sendall(sent)
                started = time.monotonic()
                assert sock.recv(100) == b""   # closed, without an answer
                assert time.monotonic() - started < 10
        assert server.get("/api/v1/status")[0] == 200
    finally:
        server.stop()


def test_a_killed_worker_is_replaced_and_the_service_stays_up(tmp_path):
    db, (key,) = _corpus_file(tmp_path)
    server = Server(db, "--workers", "2", "--threads", "4")
    try:
        before = server.workers()
        assert len(before) == 2
        os.kill(before[0], signal.SIGKILL)
        # the other worker answers meanwhile
        assert [server.get("/api/v1/topics", {"x-api-key": key})[0] for _ in range(5)] == [200] * 5
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (len(server.workers()) < 2 or before[0] in server.workers()):
            time.sleep(0.2)
        after = server.workers()
        assert len(after) == 2 and before[0] not in after and before[1] in after
        assert server.proc.poll() is None
        assert "ended (signal 9)" in server.output()
        assert [server.get("/api/v1/status")[0] for _ in range(6)] == [200] * 6
    finally:
        server.stop()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_exit_when_the_supervisor_is_killed(tmp_path):
    """A ``kill -9`` of server.py's supervisor leaves no worker serving on, unsupervised, holding the port."""
    db, _ = _corpus_file(tmp_path)
    server = Server(db, "--workers", "2", "--threads", "2")
    try:
        workers = server.workers()
        assert len(workers) == 2
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
        with pytest.raises(OSError):
            server.get("/api/v1/status", timeout=2)
    finally:
        try:  # workers left behind (the failure this test looks for) are in the supervisor's group
            os.killpg(server.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.stop()


# -- item 4: hostile input ------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    db, (key,) = _corpus_file(tmp_path_factory.mktemp("hostile"))
    server = Server(db, "--workers", "1", "--threads", "4")
    yield server, key.encode()
    server.stop()


def _request(path: bytes, *headers: bytes) -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n"


HOSTILE = {
    "authorization-not-utf8": (lambda k: _request(b"/v1/topics", b"Authorization: Bearer ck_\xff\xfe"), 400),
    "x-api-key-not-utf8": (lambda k: _request(b"/api/v1/topics", b"x-api-key: ck_\xe9t\xe9"), 400),
    "last-event-id-not-utf8": (lambda k: _request(b"/v1/stream/signals", b"Authorization: Bearer " + k,
                                                  b"Last-Event-ID: \xff"), 400),
    "last-event-id-superscript-two": (lambda k: _request(b"/v1/stream/signals", b"Authorization: Bearer " + k,
                                                         "Last-Event-ID: ²".encode()), 400),
    "entity-key-25-digits": (lambda k: _request(b"/v1/entities/by-slug/1234567890123456789012345",
                                                b"Authorization: Bearer " + k), 404),
    "entity-key-slug-and-25-digits": (lambda k: _request(b"/v1/entities/by-slug/openai-12345678901234567890123",
                                                         b"Authorization: Bearer " + k), 404),
    "entity-key-superscript": (lambda k: _request(b"/v1/entities/by-slug/%C2%B2",
                                                  b"Authorization: Bearer " + k), 404),
    "keyed-entity-25-digits": (lambda k: _request(b"/api/v1/entities/1234567890123456789012345",
                                                  b"x-api-key: " + k), 404),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_gets_a_json_4xx(hostile_server, case):
    server, key = hostile_server
    build, expected = HOSTILE[case]
    status, headers, body = raw(server.port, build(key))
    assert_json_error(status, headers, body, expected)
    assert server.proc.poll() is None


def test_snapshots_to_year_one_is_answered(hostile_server):
    server, key = hostile_server
    status, headers, body = raw(server.port, _request(b"/api/v1/snapshots?topic=ai&to=0001-01-01",
                                                      b"x-api-key: " + key))
    assert status == 200, body[:200]
    assert json.loads(body)["data"] == [] or all(row["date"].startswith("0001") for row in json.loads(body)["data"])


def test_a_get_with_expect_100_continue_is_answered(hostile_server):
    server, key = hostile_server
    status, headers, body = raw(server.port, _request(b"/api/v1/topics", b"x-api-key: " + key,
                                                      b"Expect: 100-continue"), timeout=5)
    assert status == 200 and "topics" in json.loads(body)


def test_the_wsgi_server_answers_malformed_http_itself(hostile_server):
    """As docs/api.md says: a bad request line and oversized headers get waitress's plain-text 4xx."""
    server, _ = hostile_server
    assert raw(server.port, b"GARBAGE\r\n\r\n")[0] == 400
    assert raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 300_000
               + b"\r\n\r\n")[0] == 431
    assert raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n")[0] == 400
    assert raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-\xff: 1\r\n\r\n")[0] == 400
    huge_body = b"POST /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 2147483648\r\n\r\n"
    assert raw(server.port, huge_body)[0] == 413
    assert raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")[0] == 400
    assert raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n")[0] == 501
    # bytes that are not UTF-8 in the path are dropped by Bottle (it decodes with errors="ignore")
    status, headers, body = raw(server.port, b"GET /api/v1/status%FF%FE HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and json.loads(body)["status"]
    assert server.get("/api/v1/status")[0] == 200


# -- item 5: signal streams ----------------------------------------------------------------
def _open_stream(port: int, key: str) -> tuple[socket.socket, int, bytes]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET /v1/stream/signals HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, rest = data.split(b"\r\n\r\n", 1)
    return sock, int(head.split(b" ")[1]), rest


def test_streams_are_capped_per_key_and_per_process_and_requests_keep_answering(tmp_path):
    db, (first, second) = _corpus_file(tmp_path, keys=("enterprise", "enterprise"))
    server = Server(db, "--workers", "1", "--threads", "6", "--max-streams", "3", "--max-streams-per-key", "2")
    streams = []
    try:
        for key in (first, first):
            sock, status, _ = _open_stream(server.port, key)
            streams.append(sock)
            assert status == 200
        stream_request = "GET /v1/stream/signals HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n"
        refused = raw(server.port, stream_request.format(first).encode())  # a third for one key
        assert "signal streams" in assert_json_error(*refused, 429)["error"]
        assert refused[1]["retry-after"]
        sock, status, _ = _open_stream(server.port, second)
        streams.append(sock)
        assert status == 200
        refused = raw(server.port, stream_request.format(second).encode())  # the process is at its cap
        assert "signal streams" in assert_json_error(*refused, 503)["error"]
        # ordinary requests still answer at once with every stream slot taken
        for _ in range(10):
            started = time.monotonic()
            assert server.get("/api/v1/topics", {"x-api-key": second})[0] == 200
            assert time.monotonic() - started < 2
        # a closed stream gives its slot back (noticed at its next heartbeat, 1 s here)
        streams.pop(0).close()
        deadline = time.monotonic() + 8
        status = None
        while time.monotonic() < deadline:
            sock, status, _ = _open_stream(server.port, second)
            if status == 200:
                streams.append(sock)
                break
            sock.close()
            time.sleep(0.5)
        assert status == 200
    finally:
        for sock in streams:
            sock.close()
        server.stop()


# -- item 9: keys at start, CORS, upgradeUrl ---------------------------------------------------
def test_server_creates_a_key_only_when_the_corpus_has_no_active_one(tmp_path):
    db, _ = _corpus_file(tmp_path, keys=())
    server = Server(db, "--workers", "1", "--threads", "2")
    try:
        lines = server.output().strip().splitlines()
        assert lines[-1].startswith("ck_") and "shown once" in lines[-2]
    finally:
        server.stop()
    again = Server(db, "--workers", "1", "--threads", "2")
    try:
        out = again.output()
        assert "none created" in out and "corpuskit keys create" in out
        assert not any(line.startswith("ck_") for line in out.splitlines())
    finally:
        again.stop()
    corpus = open_corpus(db)
    assert len([k for k in list_keys(corpus.conn) if k.active]) == 1
    corpus.close()


def test_cors_public_status_for_everyone_the_rest_only_for_configured_origins(tmp_path):
    corpus = open_corpus(tmp_path / "c.db", now=NOW)
    build_api_corpus(corpus)
    key = corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)
    plain = create_app(corpus)
    origin = {"Origin": "https://lab.example.org"}
    assert call(plain, "GET", "/api/v1/status", origin)[1]["access-control-allow-origin"] == "*"
    assert "access-control-allow-origin" not in call(plain, "GET", "/api/v1/topics",
                                                     {**origin, "x-api-key": key})[1]
    assert call(plain, "OPTIONS", "/api/v1/topics", origin)[0] == 405
    open_app = create_app(corpus, cors_origins=("https://lab.example.org",))
    status, headers, _ = call(open_app, "GET", "/api/v1/topics", {**origin, "x-api-key": key})
    assert status == 200 and headers["access-control-allow-origin"] == "https://lab.example.org"
    assert "RateLimit-Remaining" in headers["access-control-expose-headers"]
    status, headers, _ = call(open_app, "GET", "/api/v1/topics", {"Origin": "https://evil.example",
                                                                   "x-api-key": key})
    assert status == 200 and "access-control-allow-origin" not in headers
    status, headers, _ = call(open_app, "OPTIONS", "/api/v1/topics", origin)
    assert status == 204 and "x-api-key" in headers["access-control-allow-headers"]
    # an error answer carries the header too, so a browser script can read it
    status, headers, _ = call(open_app, "GET", "/api/v1/topics", origin)
    assert status == 401 and headers["access-control-allow-origin"] == "https://lab.example.org"
    corpus.close()


def test_every_documented_maximum_says_it_is_clamped():
    """The OpenAPI documents declare a ``maximum`` the server clamps to rather than rejects: each says so."""
    from corpuskit.api.openapi import document_bytes

    for interface in ("bearer", "keyed"):
        doc = json.loads(document_bytes(interface))
        shared = doc.get("components", {}).get("parameters", {})
        checked = 0
        for operations in doc["paths"].values():
            for operation in operations.values():
                for param in operation.get("parameters", []):
                    param = shared[param["$ref"].rsplit("/", 1)[-1]] if "$ref" in param else param
                    if "maximum" in param.get("schema", {}):
                        checked += 1
                        assert "clamp" in param.get("description", "").lower(), (interface, param["name"])
        assert checked > 5


def test_a_429_points_to_the_configured_absolute_upgrade_url(tmp_path, monkeypatch):
    monkeypatch.delenv("CORPUSKIT_UPGRADE_URL", raising=False)
    corpus = open_corpus(tmp_path / "c.db", now=NOW)
    build_api_corpus(corpus)
    key = corpus.create_key(tier="free")
    configured = create_app(corpus, upgrade_url="https://lab.example.org/pricing")
    answers = [call(configured, "GET", "/api/v1/topics", {"x-api-key": key}) for _ in range(6)]
    assert [a[0] for a in answers] == [200] * 5 + [429]
    assert json.loads(answers[-1][2])["upgradeUrl"] == "https://lab.example.org/pricing"
    default = create_app(corpus)
    status, _, body = call(default, "GET", "/api/v1/topics", {"x-api-key": key, "Host": "api.example.net:8443"})
    assert status == 429
    assert json.loads(body)["upgradeUrl"] == "http://api.example.net:8443/docs#keyed-headers"
    for junk in ("a b c", "\xff\xfe", "evil.example/<script>", "x:99999"):   # never printed into the URL
        status, _, body = call(default, "GET", "/api/v1/topics", {"x-api-key": key, "Host": junk})
        assert status == 429 and json.loads(body)["upgradeUrl"] == "http://127.0.0.1/docs#keyed-headers"
    page = call(default, "GET", "/docs", {"Accept": "text/html"})
    assert page[0] == 200 and b'id="keyed-headers"' in page[2]  # the default points at a real anchor
    corpus.close()


# -- item 4, swept: every route, hostile path segments and query values ------------------------
SWEEP_VALUES = ("1234567890123456789012345", "%C2%B2", "-1", "0", "%FF", "1e999", "NaN", "9" * 400,
                "0001-01-01", "9999-12-31", "%00", "..%2F..%2Fetc%2Fpasswd", "a-99999999999999999999999")
SWEEP_PARAMS = ("limit", "offset", "days", "since", "until", "from", "to", "cursor", "n", "q", "topic",
                "source", "entity", "type", "sentiment", "kind", "window", "a", "b", "version")


@pytest.fixture(scope="module")
def small_demo(tmp_path_factory) -> Path:
    """A 500-record demo corpus file, every stage run (a real embedder), never served yet."""
    from corpuskit.demo import build_demo

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    corpus = open_corpus(path)
    build_demo(corpus, seed=3, records=500, days=30, progress=False)
    corpus.close()
    return path


def _served_copy(source: Path, folder: Path, timeout: float = 30.0):
    import shutil

    path = folder / "c.db"
    shutil.copy(source, path)
    corpus = open_corpus(path, timeout=timeout)
    key = corpus.create_key(tier="enterprise", per_minute=10**9, per_day=10**9)
    return corpus, key


def test_no_route_answers_5xx_to_hostile_paths_or_parameters(small_demo, tmp_path):
    """Every GET route (streams aside): each path parameter and common query parameter set to hostile
    values (huge and non-ASCII digits, bad bytes, year 1 and 9999, traversal) answers below 500."""
    import re

    corpus, key = _served_copy(small_demo, tmp_path)
    app = create_app(corpus)
    failures, count = [], 0
    routes = [r for r in app.routes if r.method == "GET" and "/stream/" not in r.rule]
    assert len(routes) > 40
    for route in routes:
        headers = {"x-api-key": key} if route.rule.startswith("/api/") else {"Authorization": "Bearer " + key}
        paths = ([re.sub(r"<[^>]+>", value, route.rule) for value in SWEEP_VALUES] if "<" in route.rule
                 else [route.rule])
        queries = [""] + [f"?{name}={value}" for name in SWEEP_PARAMS for value in SWEEP_VALUES]
        for path in paths:
            for query in (queries if path == paths[0] else [""]):
                count += 1
                status, _, body = call(app, "GET", path + query, headers)
                if status >= 500 and status not in (501, 503):  # 501/503: not built, stage not run
                    failures.append((path + query, status, body[:120]))
    corpus.close()
    assert count > 10_000
    assert failures == []


# -- item 2, every route: no request writes the corpus -------------------------------------------
def test_no_route_waits_on_a_writer_holding_the_corpus(small_demo, tmp_path):
    """With another connection holding the corpus's write lock (as an import's store step or a stage
    does), every GET route answers at once on a corpus never served before: nothing a request does
    writes the corpus (the id and cursor secrets were created on first use, so the first /v1
    request of a fresh corpus waited for the writer, then answered 500 'database is locked')."""
    import re

    from corpuskit.store.connection import connect

    corpus, key = _served_copy(small_demo, tmp_path, timeout=1.0)   # a write would fail within 1 s
    app = create_app(corpus)
    writer = connect(corpus.path)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO meta(key, value) VALUES ('held', '1')")
    slow, failed = [], []
    try:
        ids = {"rid": call(app, "GET", "/v1/records?limit=1", {"Authorization": "Bearer " + key})}
        first = json.loads(ids["rid"][2])["items"]
        assert ids["rid"][0] == 200 and first
        for route in app.routes:
            if route.method != "GET" or "/stream/" in route.rule:
                continue
            path = re.sub(r"<rid>", first[0]["id"], route.rule)
            path = re.sub(r"<[^>]+>", "ai-models", path)
            headers = ({"x-api-key": key} if path.startswith("/api/") else {"Authorization": "Bearer " + key})
            started = time.monotonic()
            status, _, body = call(app, "GET", path + ("?q=rockets" if path.endswith("/search") else ""), headers)
            if time.monotonic() - started > 0.9:
                slow.append(path)
            if status >= 500 and status not in (501, 503):
                failed.append((path, status, body[:100]))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        corpus.close()
    assert failed == [] and slow == []


def test_a_request_without_host_is_answered_with_the_servers_own_address(hostile_server):
    from corpuskit.api.wsgi_server import server_name

    server, _ = hostile_server
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\nAccept: text/html\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 200") or answer.startswith(b"HTTP/1.1 200")
    assert b"waitress.invalid" not in answer and f"127.0.0.1:{server.port}".encode() in answer
    for host, name in (("127.0.0.1", "127.0.0.1"), ("0.0.0.0", socket.gethostname() or "127.0.0.1")):
        with socket.socket() as sock:
            sock.bind((host, 0))
            assert server_name(sock) == name
