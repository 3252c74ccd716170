"""Throughput and tail latency of the /v1 interface on the demo corpus.

    python benchmarks/bench_api_v1.py [--db demo.db] [--seconds 10] [--connections 16]
                                      [--workers N] [--server-threads N]

Starts ``server.py`` (waitress; ``--workers`` processes, default one per CPU, each
with ``--server-threads`` threads, default server.py's) on the corpus (building the
default demo corpus, 20,000 records, first when ``--db`` is missing), creates an enterprise key with a
limit high enough not to refuse, and drives three endpoints with ``wrk``
(Debian package; one load thread so it leaves the server most of the CPU):
the record list, a filtered record list and a record detail. Each request is
authenticated and counted by the rate limiter (one SQLite write per request).
``--all-lists`` drives every list and detail endpoint of both interfaces instead (``/v1`` and
``/api/v1``, lists with totals, each for ``--seconds``), and first times one request to every GET endpoint of both
(lists, details, timelines) on a cold server, to show that none takes over a second; that is
the scale check of issue 17 (``--db`` the million-record file). Without ``--all-lists``
the same file's ``records`` table is served by Datasette (a dev dependency, found on ``PATH`` or
next to this Python, or ``--datasette PATH``; missing, the benchmark stops and names
``pip install -e '.[dev]'``) and measured in the same run. Prints one table.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import peer  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, headers=None, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=2).read()
            return
        except Exception:
            time.sleep(0.3)
    raise SystemExit(f"server at {url} did not come up")


def wrk(url: str, seconds: int, connections: int, headers=None) -> dict:
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        value, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rps, "p50": ms("50"), "p99": ms("99"), "errors": int(non2xx.group(1)) if non2xx else 0}


def every_endpoint(base: str, auth: dict) -> tuple[list, list]:
    """(list routes, every other GET route) of both interfaces, with ids taken from the lists."""
    def get(route):
        return json.loads(urllib.request.urlopen(urllib.request.Request(base + route, headers=auth),
                                                 timeout=120).read())

    topic = get("/api/v1/topics")["topics"][0]["name"]
    topics = ",".join(t["name"] for t in get("/api/v1/topics")["topics"][:3])
    lists = [
        "/v1/records?limit=20", "/v1/records?limit=20&source=reddit&sentiment=positive",
        "/v1/stories?limit=20", "/v1/stories/count", "/v1/signals?limit=20", "/v1/signals/feed",
        "/v1/topics?limit=20", "/v1/entities?limit=20", "/v1/entities?limit=20&type=person",
        "/v1/entities/slugs", "/v1/entities/sitemap-pages", "/v1/sources", "/v1/arcs?limit=20",
        "/v1/stats/global/timeline", "/v1/stats/sentiment/timeline", "/v1/stats/entities/trending",
        "/v1/stats/topics/distribution",
        "/api/v1/narratives", "/api/v1/topics", "/api/v1/discourse", f"/api/v1/discourse?topic={topic}",
        "/api/v1/signals", "/api/v1/entities", f"/api/v1/entities?topic={topic}", "/api/v1/observations",
        "/api/v1/clusters", f"/api/v1/snapshots?topic={topic}", f"/api/v1/trends?topic={topic}",
        f"/api/v1/compare?topics={topics}", "/api/v1/status",
    ]
    record = get("/v1/records?limit=1")["items"][0]["id"]
    v1_topic = get("/v1/topics?limit=1")["items"][0]["id"]
    entity = get("/v1/entities?limit=1")["items"][0]
    story = get("/v1/stories?limit=1")["items"][0]
    signal = get("/v1/signals?limit=1")["items"][0]["id"]
    arc = get("/v1/arcs?limit=1")["items"][0]["slug"]
    narrative = get("/api/v1/narratives?limit=1")["data"][0]["slug"]
    entity_name = get("/api/v1/entities?limit=1")["data"][0]["name"]
    source = get("/v1/sources")["sources"][0]["id"]
    details = [
        f"/v1/records/{record}", f"/v1/records/{record}/embedding", f"/v1/records/{record}/entities",
        f"/v1/records/{record}/topics", "/v1/stories/lead", f"/v1/stories/by-slug/{story['slug']}",
        f"/v1/stories/by-topic/{v1_topic}", f"/v1/stories/by-entity/{entity['id']}", f"/v1/stories/{story['id']}",
        f"/v1/stories/{story['id']}/versions", f"/v1/stories/{story['id']}/sources", f"/v1/signals/{signal}",
        f"/v1/signals/{signal}/evidence", f"/v1/topics/{v1_topic}", f"/v1/entities/{entity['id']}",
        f"/v1/entities/by-slug/{entity['slug']}", f"/v1/stats/sources/{source}/timeline",
        f"/v1/stats/topics/{v1_topic}/timeline", f"/v1/arcs/{arc}",
        f"/api/v1/narratives/{narrative}", f"/api/v1/topics/{topic}",
        f"/api/v1/entities/{urllib.parse.quote(entity_name)}", "/api/v1/search?q=battery+recall",
    ]
    return lists, details


def time_once(base: str, route: str, auth: dict) -> tuple[float, int]:
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(base + route, headers=auth), timeout=120) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    return (time.perf_counter() - t0) * 1000, status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(ROOT / "benchmarks" / ".cache" / "demo.db"),
                        help="corpus file (default: the default demo corpus, built once)")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server processes")
    parser.add_argument("--server-threads", type=int, default=96, help="threads per server process")
    parser.add_argument("--datasette", help="the datasette command (default: on PATH or next to this Python)")
    parser.add_argument("--all-lists", action="store_true",
                        help="every list and detail endpoint of both interfaces, and one cold request to every GET endpoint")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    datasette = None if args.all_lists else peer("datasette", args.datasette)   # before any work

    sys.path.insert(0, str(ROOT))
    from corpuskit import open_corpus
    from corpuskit.store.api_keys import create_key

    path = Path(args.db)
    path.parent.mkdir(parents=True, exist_ok=True)
    corpus = open_corpus(path)
    if corpus.count() == 0:
        from corpuskit.demo import build_demo

        print(f"building the default demo corpus in {path} ...", flush=True)
        build_demo(corpus, run_stages=True, progress=True)
    key = create_key(corpus.conn, tier="enterprise", name="bench", per_minute=10**9, per_day=10**9)
    n_records = corpus.count()
    corpus.close()

    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    port = free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--db", str(path), "--port", str(port),
                               "--no-key", "--threads", str(args.server_threads), "--workers", str(args.workers)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    results = []
    try:
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {key}"}
        wait_for(base + "/v1/records?limit=1", auth)
        first = json.loads(urllib.request.urlopen(
            urllib.request.Request(base + "/v1/records?limit=1", headers=auth)).read())["items"][0]
        if args.all_lists:
            lists, details = every_endpoint(base, auth)
            cold = [(route, *time_once(base, route, auth)) for route in lists + details]
            print(f"one request to each of {len(cold)} GET endpoints, cold server ({n_records:,} records):")
            for route, ms, status in sorted(cold, key=lambda c: -c[1]):
                print(f"  {ms:>9.1f} ms  {status}  {route}")
            slow = [c for c in cold if c[1] > 1000 or c[2] >= 500]
            print(f"  slowest {max(c[1] for c in cold):.0f} ms; over 1 s or 5xx: {len(slow)}")
            cases = [(f"{route}", route) for route in lists + details]
        else:
            cases = [("corpuskit /v1/records?limit=20", "/v1/records?limit=20"),
                     ("corpuskit /v1/records?limit=20&source=reddit&sentiment=positive",
                      "/v1/records?limit=20&source=reddit&sentiment=positive"),
                     ("corpuskit /v1/records/{id}", f"/v1/records/{first['id']}")]
        for label, route in cases:
            wrk(base + route, 1, args.connections, auth)  # warm-up: every server process, every cache
            results.append((label, wrk(base + route, args.seconds, args.connections, auth)))
    finally:
        server.terminate()
        server.wait(10)

    if datasette is not None:
        # Datasette's Python cannot load sqlite-vec, and a file whose schema names vec0 fails its
        # start-up check; so it serves a byte-for-byte copy of the records without the vector table.
        from corpuskit.store import connect

        copy = path.with_name(path.stem + "-datasette.db")
        copy.unlink(missing_ok=True)
        source = connect(path)
        source.execute("VACUUM INTO ?", (str(copy),))
        source.close()
        target = connect(copy)
        target.execute("DROP TABLE record_vectors")
        target.execute("PRAGMA journal_mode=DELETE")
        target.close()
        port = free_port()
        ds = subprocess.Popen([datasette, "serve", "-i", str(copy), "--port", str(port),
                               "--setting", "num_sql_threads", "3"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            db = copy.stem
            base = f"http://127.0.0.1:{port}/{db}"
            wait_for(base + "/records.json?_size=1", seconds=30)
            results.append(("datasette /records.json?_size=20", wrk(base + "/records.json?_size=20&_shape=array",
                                                                     args.seconds, args.connections)))
            results.append(("datasette /records.json?source=reddit&_size=20",
                            wrk(base + "/records.json?source=reddit&_size=20&_shape=array", args.seconds,
                                args.connections)))
            results.append(("datasette /records/{id}.json", wrk(base + "/records/1.json", args.seconds,
                                                                 args.connections)))
        finally:
            ds.terminate()
            ds.wait(10)

    print(f"\n{n_records} records, {args.connections} connections, {args.seconds} s each, wrk -t1, "
          f"server {args.workers} processes x {args.server_threads} threads, {os.cpu_count()} CPUs, "
          f"load average before: {load_before}")
    print(f"{'endpoint':<66} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8}")
    for label, r in results:
        print(f"{label:<66} {r['rps']:>8.0f} {r['p50']:>8.2f} {r['p99']:>8.2f} {r['errors']:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
