"""Throughput and latency of the keyed interface over real HTTP, with the rate limiter on.

    python benchmarks/bench_api_keyed.py [--db demo.db] [--seconds 10] [--workers N] [--threads N]

Serves the corpus with ``server.py`` in separate processes (``--workers``,
default one per CPU, each with ``--threads`` waitress threads), creates an enterprise key with a
huge allowance (every request still goes through the rate-limit transaction),
then drives keep-alive connections from client threads:

- ``GET /api/v1/search?q=...`` at 8 connections (rotating queries);
- ``GET /api/v1/discourse?limit=50`` at 16 connections (target: >= 800
  requests/s with p99 <= 60 ms);
- ``GET /api/v1/topics`` at 16 connections (a small answer: the fixed cost
  of auth + rate limit + routing).

The load comes from ``wrk`` when it is installed (one thread, so the server
keeps the CPU), else from Python threads. Besides requests/s and p50/p99 it
reports the server processes' CPU time per request, a figure that does not
depend on what else the machine is running.

Without ``--db`` the default demo corpus (20,000 records, 60 days, every
stage) is built once into ``benchmarks/.cache/demo.db``. Also prints the cost
of the rate-limit transaction alone. Prints one table.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCH_QUERIES = (
    "new chip export rules", "heat wave electricity demand", "open source model release",
    "election polling results", "vaccine trial results", "interest rates and inflation",
    "wildfire smoke in cities", "data centre power use",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/v1/status")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


def drive(port: int, paths, connections: int, seconds: float, headers: dict) -> dict:
    """Keep-alive clients looping over ``paths`` for ``seconds``; latencies in ms."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    start = threading.Barrier(connections + 1)
    stop_at = [0.0]

    def client(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = latencies[i]
        seen: dict[int, int] = {}
        n = i
        start.wait()
        while time.perf_counter() < stop_at[0]:
            path = paths[n % len(paths)]
            n += connections
            t0 = time.perf_counter()
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - t0) * 1000)
            seen[response.status] = seen.get(response.status, 0) + 1
        conn.close()
        with lock:
            for status, count in seen.items():
                statuses[status] = statuses.get(status, 0) + count

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    every = sorted(x for lat in latencies for x in lat)
    return {
        "requests": len(every),
        "rps": len(every) / elapsed,
        "p50": statistics.median(every) if every else float("nan"),
        "p99": every[min(len(every) - 1, int(len(every) * 0.99))] if every else float("nan"),
        "statuses": statuses,
    }


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def drive_wrk(port: int, paths, connections: int, seconds: float, headers: dict) -> dict:
    """The same measurement with ``wrk`` (one load thread, so the server keeps the CPU)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write("local paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n"
                     "local i = 0\n"
                     "request = function()\n  i = i + 1\n"
                     "  return wrk.format('GET', paths[(i % #paths) + 1])\nend\n")
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency",
               "-s", script.name]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run(command + [f"http://127.0.0.1:{port}/"], capture_output=True,
                         text=True, check=True).stdout
    Path(script.name).unlink()

    def percentile(label):
        match = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        return float(match.group(1)) * _UNITS[match.group(2)] if match else float("nan")

    requests = int(re.search(r"(\d+) requests in", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    statuses = {"2xx/3xx": requests - (int(bad.group(1)) if bad else 0)}
    if bad:
        statuses["other"] = int(bad.group(1))
    if errors:
        statuses["socket errors"] = errors.group(1).strip()
    return {"requests": requests, "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": percentile("50"), "p99": percentile("99"), "statuses": statuses}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its children (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, IndexError, ValueError):
        return float("nan")
    return total + sum(cpu_seconds(int(child)) for child in children)


def limiter_cost(db: str, n: int = 2000) -> float:
    """Microseconds per rate-limit transaction on the corpus file."""
    from corpuskit import open_corpus
    from corpuskit.api.ratelimit import consume
    from corpuskit.store.api_keys import lookup_key

    corpus = open_corpus(db)
    key = corpus.create_key("enterprise", name="bench-limiter", per_minute=10**9, per_day=10**9)
    info = lookup_key(corpus.conn, key)
    now = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    memo = [None, None]  # as the server passes it: cleanup once a minute, last_used_at once a second
    for _ in range(n):
        consume(corpus.conn, info.id, info.per_minute, info.per_day, now, memo=memo)
    cost = (time.perf_counter() - t0) / n * 1e6
    corpus.close()
    return cost


def default_demo() -> Path:
    path = ROOT / "benchmarks" / ".cache" / "demo.db"
    if not path.exists():
        from corpuskit import open_corpus
        from corpuskit.demo import build_demo

        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"building the default demo corpus in {path} (once)...", flush=True)
        corpus = open_corpus(path)
        build_demo(corpus, progress=True)
        corpus.close()
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="corpus file (default: the demo corpus, built once)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server processes")
    parser.add_argument("--threads", type=int, default=96, help="waitress threads per server process")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto",
                        help="load generator: wrk when installed (default), else Python threads")
    args = parser.parse_args(argv)
    db = Path(args.db) if args.db else default_demo()

    from corpuskit import open_corpus

    corpus = open_corpus(db)
    records = corpus.count()
    key = corpus.create_key("enterprise", name="bench", per_minute=10**9, per_day=10**9)
    corpus.close()
    headers = {"x-api-key": key, "Connection": "keep-alive"}

    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    port = free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--db", str(db), "--port", str(port),
                               "--no-key", "--workers", str(args.workers), "--threads", str(args.threads)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_ready(port)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/api/v1/search?q=new+chip+export+rules", headers=headers)
        answer = conn.getresponse()
        probe = json.loads(answer.read())
        search_ok = answer.status == 200
        if not search_ok:
            print(f"search answers {answer.status}: {probe}", file=sys.stderr)
        runs = []
        use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk"))
        run = drive_wrk if use_wrk else drive
        drive(port, ["/api/v1/discourse?limit=50"], 4, 1.0, headers)  # warm-up

        def measured(name, paths, conns, seconds, hdrs):
            cpu0 = cpu_seconds(server.pid)
            result = run(port, paths, conns, seconds, hdrs)
            result["cpu_ms"] = (cpu_seconds(server.pid) - cpu0) * 1000 / max(result["requests"], 1)
            runs.append((name, conns, result))

        if search_ok:
            paths = ["/api/v1/search?q=" + q.replace(" ", "+") for q in SEARCH_QUERIES]
            drive(port, paths, 8, 3.0, headers)  # warm-up: every server process loads its search index
            measured("GET /api/v1/search?q=...", paths, 8, args.seconds, headers)
        measured("GET /api/v1/discourse?limit=50", ["/api/v1/discourse?limit=50"], 16,
                 args.seconds, headers)
        measured("GET /api/v1/topics", ["/api/v1/topics"], 16, args.seconds / 2, headers)
    finally:
        server.terminate()
        server.wait(10)
    cost = limiter_cost(str(db))

    print()
    print(f"corpus: {db} ({records:,} records); server: {args.workers} processes x {args.threads} threads; "
          f"{args.seconds:g} s per run; client: {'wrk' if use_wrk else 'python'}; "
          f"rate limiter on (enterprise key); load average before: {load_before}")
    print(f"{'endpoint':32} {'conns':>5} {'requests':>9} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'server CPU ms/req':>18}  statuses")
    for name, conns, r in runs:
        print(f"{name:32} {conns:5d} {r['requests']:9d} {r['rps']:8.0f} {r['p50']:7.1f} "
              f"{r['p99']:7.1f} {r['cpu_ms']:18.2f}  {r['statuses']}")
    print(f"rate limiter alone (one check-and-count write statement + reading the counters back): "
          f"{cost:.0f} us per request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
