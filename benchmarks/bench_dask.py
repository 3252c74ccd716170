"""Enrichment on Dask against the local path: time, records/s per worker, peak memory, identical tables.

    python benchmarks/bench_dask.py --db DEMO.db [--workers 1,2,4] [--address tcp://host:8786]

``--db`` is an unenriched corpus (``python -m corpuskit demo --records N --no-pipeline --db X``); it is copied
once per run and left untouched. One copy is enriched locally (``corpuskit enrich``), the others on Dask: a
``LocalCluster`` of N single-threaded worker processes for each N of ``--workers``, or the scheduler at
``--address``. Each enrichment runs in its own child process so its peak RSS is its own. Prints one row per
run (wall seconds, records/s, records/s per worker, CPU seconds of the calling process and of its children,
the local cluster's workers included) and, per enrichment table, whether each Dask copy holds the same rows
as the local one (vectors compared byte for byte).

Linear scaling means records/s per worker stays flat as workers are added; on a machine with fewer free
cores than workers it cannot, and the CPU columns show whether the work itself grew (it should not).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
from corpuskit import open_corpus
path, mode, arg = sys.argv[1], sys.argv[2], sys.argv[3]
def cpu(who):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime
if mode == "local":
    summary = open_corpus(path).enrich(progress=False)
    started = 0.0
else:
    from distributed import Client, LocalCluster
    t0 = time.perf_counter()
    if arg.isdigit():
        cluster = LocalCluster(n_workers=int(arg), threads_per_worker=1, processes=True,
                               dashboard_address=":0", host="127.0.0.1")
        client = Client(cluster)
    else:
        client = Client(arg)
    started = time.perf_counter() - t0
    summary = open_corpus(path).enrich(progress=False, client=client)
    client.close()
    if arg.isdigit():
        cluster.close()
print(json.dumps({"seconds": summary["seconds"], "rps": summary["recordsPerSecond"],
                  "records": summary["recordsEnriched"], "clusterStart": round(started, 1),
                  "cpuSelf": round(cpu(resource.RUSAGE_SELF), 1),
                  "cpuChildren": round(cpu(resource.RUSAGE_CHILDREN), 1),
                  "peakMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""

TABLES = (("enrichment", "record_id, sentiment_score, sentiment_label, topic_id, themes", "record_id"),
          ("topic_assignments", "*", "record_id, topic_id"), ("topics", "*", "id"),
          ("entities", "id, slug, name, type, mention_count, first_seen, last_seen", "id"),
          ("mentions", "*", "record_id, entity_id"), ("entity_aliases", "*", "alias_key"))


def run(path: Path, mode: str, arg: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, arg], capture_output=True, text=True,
                         cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode:
        sys.exit(f"{mode} enrichment failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _workers(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers takes counts separated by commas (1,2,4), not {text!r}")
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"worker counts must be positive, not {text!r}")
    return counts


def _same(a: Path, b: Path) -> list[str]:
    """The enrichment tables (and vectors) whose rows differ between corpus files ``a`` and ``b``."""
    from corpuskit import open_corpus

    ca, cb = open_corpus(a), open_corpus(b)
    differ = []
    for table, cols, order in TABLES:
        q = f"SELECT {cols} FROM {table} ORDER BY {order}"
        if [tuple(r) for r in ca.conn.execute(q)] != [tuple(r) for r in cb.conn.execute(q)]:
            differ.append(table)
    q = "SELECT record_id, embedding FROM record_vectors ORDER BY record_id"
    if [(r[0], bytes(r[1])) for r in ca.conn.execute(q)] != [(r[0], bytes(r[1])) for r in cb.conn.execute(q)]:
        differ.append("record_vectors")
    ca.close()
    cb.close()
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an unenriched corpus file (copied, not changed)")
    parser.add_argument("--workers", type=_workers, default=[2],
                        help="LocalCluster worker processes, one run per count (default 2; e.g. 1,2,4)")
    parser.add_argument("--address", help="use this Dask scheduler instead of a LocalCluster")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "local.db"
        shutil.copy(args.db, local)
        runs = [("local (in-process pool)", local, run(local, "local", "-"), None)]
        for target in ([args.address] if args.address else [str(n) for n in args.workers]):
            remote = Path(tmp) / f"dask-{len(runs)}.db"
            shutil.copy(args.db, remote)
            where = target if args.address else f"dask LocalCluster {target} x 1 thread"
            runs.append((where, remote, run(remote, "dask", target), int(target) if target.isdigit() else None))
        print(f"{'run':<34} {'records':>8} {'wall s':>8} {'rec/s':>8} {'rec/s/worker':>12} "
              f"{'CPU s':>7} {'rec/CPU-s':>9} {'peak MiB':>8}  identical to local")
        for where, path, r, n in runs:
            cpu = r["cpuSelf"] + r["cpuChildren"]
            per = f"{r['rps'] / n:,.0f}" if n and r["rps"] else "-"
            same = "-" if path == local else ("yes" if not (d := _same(local, path)) else "NO: " + ", ".join(d))
            print(f"{where:<34} {r['records']:>8} {r['seconds']:>8.1f} {r['rps'] or 0:>8,.0f} {per:>12} "
                  f"{cpu:>7.1f} {r['records'] / cpu if cpu else 0:>9,.0f} {r['peakMiB']:>8}  {same}")
        print("(cluster start not counted in wall s; CPU s = calling process + its children, workers included)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
