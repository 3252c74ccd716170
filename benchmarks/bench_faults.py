"""Faults and load against a running ``server.py``: does anything answer 5xx, slow down or get lost?

    PYTHONPATH=. python benchmarks/bench_faults.py [--rows 400000] [--stage-rows 5000] [--idle 5000]
        [--stage-file /work/shared/datasets/reddit_2019_science_technology.csv] [--only run,kill-stages]

Every scenario starts ``server.py`` (2 worker processes) on a corpus file and
keeps keyed clients (``x-api-key``, 4 threads, each request in turn:
``/api/v1/topics``, ``/api/v1/discourse?limit=5``, ``/api/v1/status``)
calling it while the fault happens:

- ``idle connections``: ``--idle`` idle TCP connections (a third of them
  slow: headers started, never finished) held open;
- ``import beside readers``: ``corpuskit import`` of a generated ``--rows``-row
  CSV into the served file;
- ``run beside readers``: ``corpuskit run`` (every stage) on a
  ``--stage-rows``-record corpus (or the real file ``--stage-file``);
- ``kill -9 import``: the same import, killed half-way;
- ``kill -9 enrich|analyse|narrate``: each stage on its own input, killed
  half-way through its measured duration.

After a kill the note says whether worker processes of the killed command
outlived it by 2 s, and how many runs are ``failed`` and ``running`` once the
file is opened again (a killed run must be marked failed, none left running).

The table: requests made, 5xx answers (and connection errors), p50/p99
latency of keyed requests during the fault, ``PRAGMA integrity_check`` after,
and the record count before and after (an import adds ``--rows``; a killed
import or a killed stage must leave it unchanged). The machine may be shared:
the figures are wall-clock times under whatever else runs.
"""
from __future__ import annotations

import argparse
import csv
import http.client
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PATHS = ("/api/v1/topics", "/api/v1/discourse?limit=5", "/api/v1/status")
MAP = ["--map", "sourceId=id", "--map", "title=title", "--map", "contentText=text", "--map", "author=author",
       "--map", "publishedAt=published_at", "--map", "url=url"]
START = datetime(2026, 1, 1)
WORDS = ("vaccine model market climate policy rally storm court league startup chip launch vote protest "
         "price rate study data senator drought flood merger layoffs strike index inflation shipping "
         "satellite battery grid wildfire election ruling tariff").split()


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "CORPUSKIT_HEARTBEAT_SECONDS": "5"}


def write_csv(path: Path, rows: int, seed: int = 16) -> None:
    """``rows`` distinct posts over 90 days, one CSV with named columns (imported with --map)."""
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "title", "text", "author", "published_at", "url"])
        for i in range(rows):
            words = [rng.choice(WORDS) for _ in range(14)]
            moment = START + timedelta(days=i % 90, hours=(i * 7) % 24, minutes=i % 60)
            stamp = moment.strftime("%Y-%m-%dT%H:%M:00Z")
            out.writerow([f"p{i}", " ".join(words[:6]).capitalize(), " ".join(words) + f" (post {i})",
                          f"user{i % 997}", stamp, f"https://example.org/p/{i}"])


def cli(*args, check=True, **kw):
    return subprocess.run([sys.executable, "-m", "corpuskit", *map(str, args)], env=env(), cwd=ROOT,
                          capture_output=True, text=True, check=check, **kw)


def start_cli(*args):
    return subprocess.Popen([sys.executable, "-m", "corpuskit", *map(str, args)], env=env(), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def records(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
    try:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]
    finally:
        conn.close()


def integrity(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
    try:
        return ",".join(r[0] for r in conn.execute("PRAGMA integrity_check").fetchall())
    finally:
        conn.close()


def base_corpus(db: Path, fixture: bool = True) -> str:
    """A corpus with an enterprise key (and the small hand-built API fixture unless told not); returns the key."""
    from corpuskit import open_corpus
    from tests.api_fixtures import NOW, build_api_corpus

    corpus = open_corpus(db, now=NOW)
    if fixture:
        build_api_corpus(corpus)
    key = corpus.create_key(tier="enterprise", per_minute=10**6, per_day=10**8)
    corpus.close()
    return key


class Server:
    def __init__(self, db: Path, workers: int = 2, threads: int = 16):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py"), "--db", str(db), "--port", str(self.port),
             "--workers", str(workers), "--threads", str(threads), "--no-key"],
            env=env(), cwd=db.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/api/v1/status")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("server.py did not start")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class Load:
    """Keyed clients calling the server until stopped; latency and status of every request."""

    def __init__(self, port: int, key: str, threads: int = 4, pause: float = 0.02):
        self.port, self.key, self.pause = port, key, pause
        self.results: list[tuple[float, int]] = []  # (seconds, status; 0 = connection error)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(threads)]

    def __enter__(self):
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for t in self._threads:
            t.join(timeout=90)

    def _client(self, n: int):
        conn = None
        i = n
        while not self._stop.is_set():
            path = PATHS[i % len(PATHS)]
            i += 1
            started = time.perf_counter()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                conn.request("GET", path, headers={"x-api-key": self.key})
                answer = conn.getresponse()
                answer.read()
                status = answer.status
                if answer.getheader("connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException):
                status = 0
                if conn is not None:
                    conn.close()
                conn = None
            with self._lock:
                self.results.append((time.perf_counter() - started, status))
            time.sleep(self.pause)
        if conn is not None:
            conn.close()

    def summary(self) -> dict:
        with self._lock:
            results = list(self.results)
        times = sorted(t for t, _ in results)

        def pct(q):
            return times[min(len(times) - 1, int(q * len(times)))] * 1000 if times else float("nan")

        return {"requests": len(results), "5xx": sum(1 for _, s in results if s >= 500),
                "errors": sum(1 for _, s in results if s == 0), "p50": pct(0.50), "p99": pct(0.99),
                "max": times[-1] * 1000 if times else float("nan")}


def orphaned(db: Path) -> list[int]:
    """Pids of ``corpuskit`` command processes (not server.py) still working on ``db``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(db).encode() in argv and b"corpuskit" in argv and not any(a.endswith(b"server.py") for a in argv):
            found.append(int(entry.name))
    return found


def reopened_runs(db: Path) -> str:
    """Open ``db`` as the next command would (which marks runs of dead processes failed); say what is left."""
    from corpuskit import open_corpus

    corpus = open_corpus(db, timeout=60)
    try:
        running = corpus.conn.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0]
        failed = corpus.conn.execute("SELECT count(*) FROM runs WHERE status = 'failed'").fetchone()[0]
    finally:
        corpus.close()
    return f"on reopen {failed} run(s) failed, {running} running"


ROWS: list[dict] = []


def report(scenario: str, load: Load, db: Path, before: int, note: str = "") -> None:
    row = {"scenario": scenario, **load.summary(), "integrity": integrity(db), "before": before,
           "after": records(db), "note": note}
    ROWS.append(row)
    print(f"  {scenario}: {row['requests']} requests, {row['5xx']} 5xx, {row['errors']} connection errors, "
          f"p99 {row['p99']:.0f} ms, integrity {row['integrity']}, records {before} -> {row['after']} {note}",
          flush=True)


def scenario_idle(work: Path, count: int, seconds: float) -> None:
    db = work / "idle.db"
    key = base_corpus(db)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    count = min(count, hard - 200)
    server = Server(db)
    held = []
    try:
        for i in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            if i % 3 == 0:
                sock.sendall(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n")
            held.append(sock)
        before = records(db)
        with Load(server.port, key) as load:
            time.sleep(seconds)
        alive = server.proc.poll() is None
        report(f"{count} idle connections", load, db, before, "" if alive else "SERVER DIED")
    finally:
        for sock in held:
            sock.close()
        server.stop()


def running_runs(db: Path, stage: str) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
    try:
        return conn.execute("SELECT count(*) FROM runs WHERE stage = ? AND status = 'running'",
                            (stage,)).fetchone()[0]
    finally:
        conn.close()


def beside_readers(db: Path, key: str, label: str, command: list, kill_after: float | None = None) -> float:
    """Serve ``db`` under load while ``corpuskit <command>`` runs (``kill -9`` after ``kill_after`` s); report a row.

    A stage (not an import) is killed only once its run has started (its ``running``
    row is there): half of a short stage's wall time can be Python starting up.
    Returns the command's wall-clock seconds.
    """
    server = Server(db)
    try:
        before = records(db)
        with Load(server.port, key) as load:
            time.sleep(1)
            started = time.monotonic()
            proc = start_cli(*command)
            note = ""
            out = err = ""
            if kill_after:
                time.sleep(kill_after)
                if command[0] != "import":
                    while proc.poll() is None and not running_runs(db, command[0]):
                        time.sleep(0.05)
                if proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)
                    note = f"killed after {time.monotonic() - started:.0f} s"
                else:
                    note = "finished before the kill"
                proc.wait()
                # worker processes the killed command forked hold its pipes open: never wait on them
                proc.stdout.close()
                proc.stderr.close()
                time.sleep(2)
                orphans = orphaned(db)
                if orphans:
                    note += f"; {len(orphans)} of its worker processes still alive 2 s later (ended now)"
                    for pid in orphans:
                        os.kill(pid, signal.SIGKILL)
                note += "; " + reopened_runs(db)
            else:
                out, err = proc.communicate()
            took = time.monotonic() - started
            time.sleep(1)
        if not kill_after:
            last = out.strip().splitlines()[-1] if out.strip() and command[0] == "import" else ""
            note = (f"{command[0]} {took:.0f} s, exit {proc.returncode}"
                    + (f" ({last.split(': ', 1)[-1]})" if last else "")
                    + (f": {err.strip()[-200:]}" if proc.returncode else ""))
        report(label, load, db, before, note)
        return took
    finally:
        server.stop()


def scenario_import(work: Path, rows_csv: Path, rows: int, kill_after: float | None = None) -> float:
    db = work / ("import.db" if kill_after is None else "killed-import.db")
    key = base_corpus(db)
    label = f"import {rows:,} rows beside readers" if kill_after is None else "kill -9 import"
    return beside_readers(db, key, label, ["import", "--db", db, "--source", "reddit", "--quiet", *MAP, rows_csv],
                          kill_after)


def scenario_stage(work: Path, source_db: Path, stage: str, kill_after: float | None, key: str,
                   label: str | None = None) -> tuple[float, Path]:
    """Run ``stage`` (``run``, ``enrich``, ...) on a copy of ``source_db`` under load; kill it after ``kill_after`` s."""
    db = work / f"{stage}-{'kill' if kill_after else 'full'}.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(str(source_db) + suffix).exists():
            shutil.copy(str(source_db) + suffix, str(db) + suffix)
    label = label or (f"kill -9 {stage}" if kill_after else f"{stage} beside readers")
    return beside_readers(db, key, label, [stage, "--db", db, "--quiet"], kill_after), db


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=400_000, help="rows in the imported CSV")
    parser.add_argument("--stage-rows", type=int, default=5_000, help="records the stage scenarios run on")
    parser.add_argument("--stage-file", type=Path,
                        help="a real CSV/JSONL file (a layout corpuskit detects) for the stage scenarios, "
                             "instead of --stage-rows generated posts")
    parser.add_argument("--idle", type=int, default=5_000, help="idle connections held open")
    parser.add_argument("--idle-seconds", type=float, default=15.0)
    parser.add_argument("--only", help="comma-separated: idle,import,run,kill-import,kill-stages")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else {"idle", "import", "run", "kill-import", "kill-stages"}
    print(f"bench_faults: {os.cpu_count()} CPUs (shared with other work); server.py 2 processes x 16 threads; "
          "4 keyed client threads", flush=True)
    work = Path(tempfile.mkdtemp(prefix="corpuskit-faults-"))
    try:
        if "idle" in only:
            scenario_idle(work, args.idle, args.idle_seconds)
        import_seconds = None
        if only & {"import", "kill-import"}:
            rows_csv = work / "rows.csv"
            write_csv(rows_csv, args.rows)
            if "import" in only:
                import_seconds = scenario_import(work, rows_csv, args.rows)
            if "kill-import" in only:
                scenario_import(work, rows_csv, args.rows, kill_after=max(1.0, (import_seconds or 20) / 2))
        if only & {"run", "kill-stages"}:
            base = work / "stage-base.db"
            key = base_corpus(base, fixture=False)
            if args.stage_file:
                cli("import", "--db", base, "--quiet", args.stage_file.resolve())
            else:
                stage_csv = work / "stage.csv"
                write_csv(stage_csv, args.stage_rows, seed=17)
                cli("import", "--db", base, "--source", "reddit", "--quiet", *MAP, stage_csv)
            label = f"run ({records(base):,} records{', ' + args.stage_file.name if args.stage_file else ''})"
            if "run" in only:
                scenario_stage(work, base, "run", None, key, label=label + " beside readers")
            if "kill-stages" in only:
                source = base
                for stage in ("enrich", "analyse", "narrate"):
                    took, done = scenario_stage(work, source, stage, None, key)
                    scenario_stage(work, source, stage, max(1.0, took / 2), key)
                    source = done
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"{'scenario':44} {'requests':>8} {'5xx':>4} {'conn err':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'integrity':>9} {'records before':>14} {'after':>8}  note")
    for r in ROWS:
        print(f"{r['scenario']:44} {r['requests']:>8} {r['5xx']:>4} {r['errors']:>8} {r['p50']:>7.0f} "
              f"{r['p99']:>7.0f} {r['integrity']:>9} {r['before']:>14} {r['after']:>8}  {r['note']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
