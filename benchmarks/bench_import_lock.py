"""How long an import holds the corpus's write lock, seen by another writer and a reader.

Writes an N-row CSV (default 400,000 synthetic headlines, no id column), imports it into a
fresh corpus, and meanwhile runs a probe process that every 50 ms (a) takes the write lock
(``BEGIN IMMEDIATE``, then ``ROLLBACK``) and (b) reads ``count(*)``, timing each wait. Prints the
import time, the time the import held the write lock (its final store step), the longest and the
99th-percentile wait of the probe's writes, and the longest read.

``--one-transaction`` wraps the whole import in one corpus transaction, as imports were
before staging: the lock is then held for the whole import.

``--stage analyse|narrate --db DB`` measures a stage instead, on a copy of the enriched corpus
DB: how long another writer waits while the stage runs.

    PYTHONPATH=$PWD python benchmarks/bench_import_lock.py [--rows 400000] [--one-transaction]
    PYTHONPATH=$PWD python benchmarks/bench_import_lock.py --stage analyse --db demo.db
"""
from __future__ import annotations

import argparse
import multiprocessing
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np


def write_csv(path: Path, rows: int) -> None:
    words = ("market", "vaccine", "election", "storm", "court", "budget", "league", "chip", "rally",
             "strike", "merger", "climate", "launch", "recall", "outage", "verdict")
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(words), size=(rows, 4))
    minutes = np.sort(rng.integers(0, 365 * 24 * 60, size=rows))
    base = np.datetime64("2021-01-01T00:00")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("headline,date,publisher\n")
        for i in range(rows):
            w = picks[i]
            when = str(base + np.timedelta64(int(minutes[i]), "m")).replace("T", " ")
            fh.write(f"{words[w[0]]} {words[w[1]]} report {i % 9973}: {words[w[2]]} and {words[w[3]]},"
                     f"{when},outlet{i % 40}\n")


def probe(db: str, stop, out) -> None:
    """Every 50 ms: time taking the write lock, and a read."""
    writes, reads = [], []
    conn = sqlite3.connect(db, isolation_level=None, timeout=600)
    while not stop.is_set():
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        t1 = time.perf_counter()
        conn.execute("SELECT count(*) FROM records").fetchone()
        t2 = time.perf_counter()
        writes.append(t1 - t0)
        reads.append(t2 - t1)
        time.sleep(0.05)
    out.put((writes, reads))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--one-transaction", action="store_true",
                        help="hold one transaction for the whole import (the old behaviour)")
    parser.add_argument("--stage", choices=("analyse", "narrate"))
    parser.add_argument("--db", help="an enriched corpus (copied, never changed) for --stage")
    args = parser.parse_args()
    if args.stage:
        return measure_stage(args.stage, args.db)

    from corpuskit import open_corpus
    from corpuskit.ingest import staging

    held = []
    real_store = staging.Stage.store

    def timed_store(self, run_id):
        t0 = time.perf_counter()
        try:
            return real_store(self, run_id)
        finally:
            held.append(time.perf_counter() - t0)

    staging.Stage.store = timed_store
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, db = Path(tmp) / "headlines.csv", Path(tmp) / "c.db"
        t0 = time.perf_counter()
        write_csv(csv_path, args.rows)
        print(f"wrote {args.rows:,} rows in {time.perf_counter() - t0:.1f} s "
              f"({csv_path.stat().st_size / 1e6:.0f} MB)")
        corpus = open_corpus(db)
        ctx = multiprocessing.get_context("spawn")
        stop, out = ctx.Event(), ctx.Queue()
        proc = ctx.Process(target=probe, args=(str(db), stop, out))
        proc.start()
        time.sleep(1.0)
        t0 = time.perf_counter()
        mapping = ["title=headline", "publishedAt=date", "author=publisher"]
        if args.one_transaction:
            t_lock = time.perf_counter()
            with corpus.transaction():
                report = corpus.import_file(csv_path, source="news", mapping=mapping)
            held[:] = [time.perf_counter() - t_lock]   # the whole transaction, not just its store step
        else:
            report = corpus.import_file(csv_path, source="news", mapping=mapping)
        seconds = time.perf_counter() - t0
        time.sleep(1.0)
        stop.set()
        writes, reads = out.get(timeout=120)
        proc.join()
    writes_ms, reads_ms = np.array(writes) * 1000, np.array(reads) * 1000
    mode = "one transaction (old)" if args.one_transaction else "staged (new)"
    print(f"import [{mode}]: {report.summary()}")
    print(f"import {seconds:.1f} s; write lock held by the import {sum(held):.2f} s "
          f"({100 * sum(held) / seconds:.0f}% of the import)")
    print(f"another writer: {len(writes_ms)} lock attempts, longest wait {writes_ms.max():.0f} ms, "
          f"p99 {np.percentile(writes_ms, 99):.0f} ms, median {np.median(writes_ms):.1f} ms")
    print(f"a reader: {len(reads_ms)} reads, longest {reads_ms.max():.0f} ms, "
          f"p99 {np.percentile(reads_ms, 99):.0f} ms")


def run_probe(db: str, work):
    """Run ``work()`` while the probe times another writer and a reader; returns (result, s, waits)."""
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=probe, args=(db, stop, out))
    proc.start()
    time.sleep(1.0)
    t0 = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - t0
    time.sleep(1.0)
    stop.set()
    writes, reads = out.get(timeout=600)
    proc.join()
    return result, seconds, np.array(writes) * 1000, np.array(reads) * 1000


def measure_stage(stage: str, source_db: str) -> None:
    import shutil

    from corpuskit import open_corpus

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "c.db"
        src = sqlite3.connect(f"file:{source_db}?mode=ro", uri=True)
        dst = sqlite3.connect(db)
        src.backup(dst)
        src.close()
        dst.close()
        corpus = open_corpus(db)
        _, seconds, writes_ms, reads_ms = run_probe(
            str(db), lambda: getattr(corpus, stage)(progress=False))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{stage} on a copy of {source_db}: {seconds:.1f} s")
    print(f"another writer: {len(writes_ms)} lock attempts, longest wait {writes_ms.max():.0f} ms, "
          f"p99 {np.percentile(writes_ms, 99):.0f} ms")
    print(f"a reader: {len(reads_ms)} reads, longest {reads_ms.max():.0f} ms, "
          f"p99 {np.percentile(reads_ms, 99):.0f} ms")


if __name__ == "__main__":
    main()
