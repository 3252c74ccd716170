"""The live signal stream over a real waitress server and a real socket."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

from corpuskit import open_corpus
from corpuskit.api import create_app
from tests import waitress_server
from tests.api_fixtures import NOW, build_api_corpus

WRITER = """
import sys
from corpuskit.store import connect
conn = connect(sys.argv[1])
conn.execute("INSERT INTO signal_events(signal_id, change, created_at) VALUES (?, 'updated', '2026-03-01T12:00:00Z')",
             (int(sys.argv[2]),))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = tmp_path_factory.mktemp("stream") / "corpus.db"
    corpus = open_corpus(path, now=NOW)
    keys = build_api_corpus(corpus)
    key = corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus, heartbeat_seconds=1)
    server, thread = waitress_server.start(app, threads=8)
    yield {"port": server.effective_port, "key": key, "keys": keys, "path": path, "corpus": corpus}
    time.sleep(1.5)  # let streams whose clients left notice it at their next heartbeat
    waitress_server.stop(server, thread)
    corpus.close()


class SSE:
    """A raw-socket SSE reader: sends the request, parses events as bytes arrive."""

    def __init__(self, port, key, last_event_id=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        extra = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
        self.sock.sendall((f"GET /v1/stream/signals HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                           f"Authorization: Bearer {key}\r\n{extra}\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        self.status = int(head.split(b" ")[1])
        self.headers = {k.lower(): v.strip() for k, _, v in
                        (line.decode().partition(":") for line in head.split(b"\r\n")[1:])}
        self.text = ""

    def _fill(self):
        data = self.sock.recv(4096)
        if not data:
            raise EOFError
        self.buffer += data
        # de-chunk: waitress sends chunked transfer encoding with no Content-Length
        while True:
            size_line, sep, rest = self.buffer.partition(b"\r\n")
            if not sep:
                return
            size = int(size_line, 16)
            if len(rest) < size + 2:
                return
            self.text += rest[:size].decode("utf-8")
            self.buffer = rest[size + 2:]

    def events(self, timeout):
        """Events (``{event, id, data}``) received within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.sock.settimeout(max(0.05, end - time.monotonic()))
            try:
                self._fill()
            except socket.timeout:
                break
            while "\n\n" in self.text:
                block, self.text = self.text.split("\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
                if "event" in fields:
                    yield {"event": fields["event"], "id": fields.get("id"),
                           "data": json.loads(fields["data"])}

    def close(self):
        self.sock.close()


def test_stream_heartbeats_and_delivers_an_event_from_another_process(served):
    stream = SSE(served["port"], served["key"])
    try:
        assert stream.status == 200 and stream.headers["content-type"].startswith("text/event-stream")
        first = next(stream.events(3))
        assert first["event"] == "heartbeat" and first["data"]["ts"].endswith("Z")
        signal_id = served["keys"]["signals"]["divergence"]
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", WRITER, str(served["path"]), str(signal_id)], check=True)
        got = next(e for e in stream.events(5) if e["event"] == "signal")
        assert time.monotonic() - started < 5
        assert got["data"]["kind"] == "divergence" and got["data"]["id"].startswith("sig_")
        assert set(got["data"]) == {"id", "kind", "severity", "sigmaScore", "detectedAt"}
        assert got["id"].isdigit()
    finally:
        stream.close()


def test_last_event_id_resumes_exactly_after(served):
    conn = served["corpus"].conn
    ids = [r[0] for r in conn.execute("SELECT id FROM signal_events ORDER BY id")]
    served_kinds = {r[0] for r in conn.execute(
        "SELECT ev.id FROM signal_events ev JOIN signals s ON s.id = ev.signal_id "
        "WHERE s.kind != 'sentiment_shift'")}
    stream = SSE(served["port"], served["key"], last_event_id=ids[0])
    try:
        got = [e["id"] for e in stream.events(2.5) if e["event"] == "signal"]
        assert [int(i) for i in got] == [i for i in ids[1:] if i in served_kinds]
    finally:
        stream.close()


def test_stream_needs_a_key_and_a_sane_last_event_id(served):
    import http.client

    client = http.client.HTTPConnection("127.0.0.1", served["port"], timeout=5)
    client.request("GET", "/v1/stream/signals")
    answer = client.getresponse()
    assert answer.status == 401 and json.loads(answer.read())["error"]
    client.request("GET", "/v1/stream/signals", headers={"Authorization": f"Bearer {served['key']}",
                                                         "Last-Event-ID": "'; DROP TABLE x"})
    answer = client.getresponse()
    assert answer.status == 400 and json.loads(answer.read())["error"]
    client.close()


def test_open_streams_do_not_block_other_requests(served):
    import http.client

    streams = [SSE(served["port"], served["key"]) for _ in range(5)]   # 8 threads: 5 held, 3 free
    try:
        client = http.client.HTTPConnection("127.0.0.1", served["port"], timeout=5)
        started = time.monotonic()
        for _ in range(20):
            client.request("GET", "/v1/records?limit=5", headers={"Authorization": f"Bearer {served['key']}"})
            answer = client.getresponse()
            assert answer.status == 200
            answer.read()
        assert time.monotonic() - started < 3
        client.close()
    finally:
        for stream in streams:
            stream.close()


def _median_request_seconds(port, key, n=30):
    import http.client
    import statistics

    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    for _ in range(n):
        started = time.perf_counter()
        client.request("GET", "/v1/records?limit=5", headers={"Authorization": f"Bearer {key}"})
        answer = client.getresponse()
        answer.read()
        assert answer.status == 200
        times.append(time.perf_counter() - started)
    client.close()
    return statistics.median(times)


def test_fifty_open_streams_do_not_slow_other_requests(tmp_path):
    """A thread pool of 64 holds 50 streams (caps raised to allow them) and still answers promptly."""
    corpus = open_corpus(tmp_path / "corpus.db", now=NOW)
    build_api_corpus(corpus)
    key = corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus, heartbeat_seconds=1, max_streams=50, max_streams_per_key=50)
    server, thread = waitress_server.start(app, threads=64)
    port = server.effective_port
    streams = []
    try:
        baseline = _median_request_seconds(port, key)
        streams = [SSE(port, key) for _ in range(50)]
        assert all(s.status == 200 for s in streams)
        loaded = _median_request_seconds(port, key)
        assert loaded < 3 * baseline + 0.02, (baseline, loaded)
        # every stream is alive: each receives its heartbeat
        for stream in streams[::7]:
            assert any(e["event"] == "heartbeat" for e in stream.events(3))
    finally:
        for stream in streams:
            stream.close()
        time.sleep(1.5)
        waitress_server.stop(server, thread)
        corpus.close()
