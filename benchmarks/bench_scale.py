"""Scale: every stage on an N-record demo corpus, with wall time and peak memory (RSS) per stage.

    python benchmarks/bench_scale.py --records 100000 --days 365 [--workdir /tmp/corpuskit-scale] [--keep]
    python benchmarks/bench_scale.py --records 100000 300000    # both sizes, then the ratio table

Each stage runs as its own process (the `corpuskit` command, or a short Python child), so its peak RSS is
measured on its own (``os.wait4``'s ``ru_maxrss``). The last day of the corpus is held out, imported after
the full run and processed by ``corpuskit run`` (incremental), to show what a new day costs against a full
run. Prints: the stage table, the file's bytes per record and what dominates them, and search latency
(p50/p99 over seeded queries, with filters) with recall@10 against an exact scan.

Given several ``--records`` sizes, runs them one after the other (each in its own sub-folder of the work
folder) and ends with the peak RSS of every stage at each size and the ratio of the largest size's to the
smallest's: memory that stays flat as the corpus grows shows a ratio near 1.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_measured(args: list[str]) -> tuple[float, float, str]:
    """Run ``args``; return (seconds, the child's own peak RSS in MiB via wait4, stdout). Exits on failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    chunks = []
    for line in proc.stdout:
        chunks.append(line)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        sys.exit(f"{' '.join(args)} failed with exit {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024, "".join(chunks)


WRITE_JSONL = """
import json, sys
from corpuskit.ingest.demo import iter_demo_records
records, days, seed, main_path, last_path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = iter_demo_records(seed, records, days)
last_day, held, main_n = None, [], 0
with open(main_path, "w", encoding="utf-8") as out:
    pending = []
    for rec in rows:
        day = rec["publishedAt"][:10]
        if day != last_day:
            for r in pending:
                out.write(json.dumps(r) + "\\n"); main_n += 1
            pending, last_day = [], day
        pending.append(rec)
with open(last_path, "w", encoding="utf-8") as out:
    for r in pending:
        out.write(json.dumps(r) + "\\n")
print(json.dumps({"main": main_n, "last": len(pending), "lastDay": last_day}))
"""

SEARCH_PROBE = """
import json, sys, time
import numpy as np
from corpuskit import open_corpus
from corpuskit import search as S
corpus = open_corpus(sys.argv[1])
queries = ["battery recall", "climate policy", "new vaccine trial", "open source model", "election results",
           "chip shortage", "heat pump prices", "space launch", "privacy lawsuit", "streaming service"]
rng = np.random.default_rng(11)
t0 = time.perf_counter(); index = S.search_index(corpus); build = time.perf_counter() - t0
sources = sorted(index.spans)
lat, recalls = [], []
for i in range(200):
    q = queries[i % len(queries)]
    source = sources[int(rng.integers(len(sources)))] if i % 2 else None
    days = [None, 7, 30, 90][i % 4]
    t0 = time.perf_counter()
    corpus.search(q, source=source, days=days, limit=10)
    lat.append((time.perf_counter() - t0) * 1000)
lat = np.array(lat)
# what serving cost this process: its own memory, and the mapped index pages it has touched (the page
# cache's, one copy for every server process)
status = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/self/status")
          if l.startswith(("RssAnon:", "RssFile:"))} if sys.platform.startswith("linux") else {}
# exact scan on the same vectors, and recall@10 of the served ranking against it: the ten queries above and
# 40 more from seeded records' texts; a result counts when its exact cosine reaches the 10th best (ties
# between near-identical records are not misses)
top_id = corpus.conn.execute("SELECT max(id) FROM records").fetchone()[0]
texts = [corpus.conn.execute("SELECT content_text FROM records WHERE id >= ? ORDER BY id LIMIT 1", (int(i),)).fetchone()[0]
         for i in np.random.default_rng(5).integers(1, top_id + 1, 40)]
recall_queries = queries + [" ".join((t or "").split()[:8]) for t in texts]
vec_all = index.embedder.transform(recall_queries).astype(np.float32)
vec = vec_all[:len(queries)]
t0 = time.perf_counter(); scores = index.matrix @ vec.T; exact_ms = (time.perf_counter() - t0) * 1000 / len(queries)
row_of = {int(r): i for i, r in enumerate(index.ids.tolist())}
for j, q in enumerate(recall_queries):
    if not np.any(vec_all[j]):
        continue  # nothing in the vocabulary: no ranking to compare
    exact = np.concatenate([index.matrix[lo:lo + 65536] @ vec_all[j] for lo in range(0, len(index.ids), 65536)])
    kth = np.partition(exact, len(exact) - 10)[len(exact) - 10]
    got = [int(r["id"]) for r in corpus.search(q, limit=10, min_relevance=0.0)["results"]]
    recalls.append(sum(exact[row_of[g]] >= kth - 1e-5 for g in got) / min(10, int((exact > 0).sum()) or 1))
vec0_ms = float("nan")
try:
    blob = vec[0].tobytes()
    t0 = time.perf_counter()
    for _ in range(5):
        corpus.conn.execute("SELECT record_id FROM record_vectors WHERE embedding MATCH ? AND k = 10", (blob,)).fetchall()
    vec0_ms = (time.perf_counter() - t0) * 1000 / 5
except Exception as exc:
    print("vec0 knn failed:", exc, file=sys.stderr)
print(json.dumps({"indexBuildS": build, "p50": float(np.percentile(lat, 50)), "p99": float(np.percentile(lat, 99)),
                  "exactScanMs": exact_ms, "vec0KnnMs": vec0_ms, "recall10": float(np.nanmean(recalls)),
                  "recallQueries": len(recalls), "servingAnonMiB": status.get("RssAnon", 0) / 1024,
                  "servingFileMiB": status.get("RssFile", 0) / 1024, "vectors": int(len(index.ids)), "matrixMiB": index.matrix.nbytes / 2**20}))
"""

FILE_BREAKDOWN = """
import json, sys
from corpuskit import open_corpus
c = open_corpus(sys.argv[1])
try:
    rows = c.conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
except Exception as exc:
    rows = [("dbstat unavailable: " + str(exc), 0)]
print(json.dumps({"tables": [list(r) for r in rows[:8]], "records": c.count()}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, nargs="+", default=[100_000],
                        help="corpus size; several sizes run one after the other and end with a ratio table")
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the corpus file and JSONL afterwards")
    parser.add_argument("--from-analyse", action="store_true",
                        help="reuse --workdir's enriched scale.db and last_day.jsonl (from an earlier run, "
                             "e.g. one stopped during analyse) and run from the full analyse on")
    args = parser.parse_args()
    if any(n < 1 for n in args.records):
        parser.error("--records must be positive")
    if len(args.records) > 1 and args.from_analyse:
        parser.error("--from-analyse takes one --records size")
    base = args.workdir or Path(tempfile.mkdtemp(prefix="corpuskit-scale-"))
    peaks = {}
    for records in args.records:
        work = base if len(args.records) == 1 else base / f"r{records}"
        peaks[records] = run_size(args, records, work)
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
        print()
    if len(args.records) > 1:
        print(ratio_table(peaks))
    if not args.keep and not args.workdir:
        shutil.rmtree(base, ignore_errors=True)
    return 0


def ratio_table(peaks: dict[int, dict[str, float]]) -> str:
    """Markdown table: each stage's peak RSS (MiB) at every size, and the largest size's over the smallest's."""
    sizes = sorted(peaks)
    lo, hi = sizes[0], sizes[-1]
    stages = [s for s in peaks[lo] if all(s in peaks[n] for n in sizes)]
    head = "| stage | " + " | ".join(f"{n:,} rec (MiB)" for n in sizes) + f" | ratio {hi:,}/{lo:,} |"
    lines = [head, "|" + "---|" * (len(sizes) + 2)]
    for s in stages:
        ratio = peaks[hi][s] / peaks[lo][s] if peaks[lo][s] else float("nan")
        lines.append(f"| {s} | " + " | ".join(f"{peaks[n][s]:,.0f}" for n in sizes) + f" | {ratio:.2f} |")
    return "\n".join(lines)


def run_size(args, records: int, work: Path) -> dict[str, float]:
    """One scale run of ``records`` records in ``work``; returns each stage's peak RSS (MiB) by stage key."""
    work.mkdir(parents=True, exist_ok=True)
    db, main_jsonl, last_jsonl = work / "scale.db", work / "main.jsonl", work / "last_day.jsonl"
    if args.from_analyse and not (db.exists() and last_jsonl.exists()):
        sys.exit(f"--from-analyse needs {db} and {last_jsonl} from an earlier run")
    if not args.from_analyse:
        for p in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
            p.unlink(missing_ok=True)
    py = sys.executable
    cli = [py, "-m", "corpuskit"]
    rows = []
    peaks = {}

    def stage(name, argv, n=None, key=None):
        seconds, rss, out = run_measured(argv)
        rate = f"{n / seconds:,.0f}" if n else ""
        rows.append((name, seconds, rss, rate))
        peaks[key or name] = rss
        print(f"  {name:<28} {seconds:>9.1f} s {rss:>9.0f} MiB {rate:>12}", flush=True)
        return out

    print(f"corpuskit scale run: {records:,} records over {args.days} days, seed {args.seed}, in {work}")
    print(f"  {'stage':<28} {'wall':>11} {'peak RSS':>13} {'records/s':>12}")
    if args.from_analyse:
        import sqlite3

        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as ro:
            n_main = ro.execute("SELECT count(*) FROM records").fetchone()[0]
        with open(last_jsonl, encoding="utf-8") as fh:
            info = {"main": n_main, "last": sum(1 for _ in fh)}
        print(f"  (generate, import and enrich: from the earlier run; {n_main:,} records)")
    else:
        info = json.loads(stage("generate demo JSONL", [py, "-c", WRITE_JSONL, str(records), str(args.days),
                                                        str(args.seed), str(main_jsonl), str(last_jsonl)],
                                records))
        n_main = info["main"]
        stage("import (storing only)", cli + ["import", str(main_jsonl), "--db", str(db), "--quiet"], n_main)
        stage("enrich", cli + ["enrich", "--db", str(db), "--quiet"], n_main)
    analyse_s = None
    t_before = len(rows)
    stage("analyse (full)", cli + ["analyse", "--db", str(db), "--quiet"], n_main)
    analyse_s = rows[t_before][1]
    stage("narrate", cli + ["narrate", "--db", str(db), "--quiet"])
    stage(f"import new day ({info['last']} rec)", cli + ["import", str(last_jsonl), "--db", str(db), "--quiet"],
          info["last"], key="import new day")
    stage("enrich new day", cli + ["enrich", "--db", str(db), "--quiet"], info["last"])
    t_before = len(rows)
    stage("analyse new day", cli + ["analyse", "--db", str(db), "--quiet"])
    new_day_s = rows[t_before][1]
    stage("narrate new day", cli + ["narrate", "--db", str(db), "--quiet"])
    print(f"  new day's analyse / full analyse: {100 * new_day_s / analyse_s:.0f}%")

    size = sum(p.stat().st_size for p in (db, Path(str(db) + "-wal")) if p.exists())
    _, _, out = run_measured([py, "-c", FILE_BREAKDOWN, str(db)])
    breakdown = json.loads(out)
    print(f"\nfile: {size / 2**20:,.0f} MiB, {size / breakdown['records']:,.0f} bytes per record; largest parts:")
    for name, nbytes in breakdown["tables"]:
        print(f"  {name:<40} {nbytes / 2**20:>9.1f} MiB {100 * nbytes / max(size, 1):>5.1f}%")

    _, rss, out = run_measured([py, "-c", SEARCH_PROBE, str(db)])
    peaks["search probe"] = rss
    s = json.loads(out)
    print(f"\nsearch over {s['vectors']:,} vectors (index build {s['indexBuildS']:.1f} s, "
          f"in-process matrix {s['matrixMiB']:,.0f} MiB, probe peak RSS {rss:,.0f} MiB):")
    print(f"  served search, 200 queries with source/days filters: p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms")
    print(f"  recall@10 against an exact scan ({s['recallQueries']} queries, ties counted): {s['recall10']:.3f}")
    print(f"  after the 200 served queries, the process held {s['servingAnonMiB']:,.0f} MiB of its own memory "
          f"and {s['servingFileMiB']:,.0f} MiB of mapped index pages (shared page cache)")
    print(f"  exact numpy scan: {s['exactScanMs']:.1f} ms/query; plain vec0 KNN: {s['vec0KnnMs']:.1f} ms/query")
    return peaks


if __name__ == "__main__":
    sys.exit(main())
