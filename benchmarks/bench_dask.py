"""Enrichment on Dask against the local path: time, peak memory of the writing process, identical tables.

    python benchmarks/bench_dask.py --db DEMO.db [--workers 2] [--address tcp://host:8786]

``--db`` is an unenriched corpus (``python -m corpuskit demo --records N --no-pipeline --db X``); it is copied
twice and left untouched. One copy is enriched locally (``corpuskit enrich``), the other on Dask: a
``LocalCluster`` of ``--workers`` single-threaded worker processes, or the scheduler at ``--address``. Each
enrichment runs in its own child process so its peak RSS is its own. Prints both runs and, per enrichment
table, whether the two copies hold the same rows (vectors compared byte for byte).
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
print(json.dumps({"seconds": summary["seconds"], "rps": summary["recordsPerSecond"],
                  "records": summary["recordsEnriched"], "clusterStart": round(started, 1),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an unenriched corpus file (copied, not changed)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--address", help="use this Dask scheduler instead of a LocalCluster")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from corpuskit import open_corpus

    with tempfile.TemporaryDirectory() as tmp:
        local, remote = Path(tmp) / "local.db", Path(tmp) / "dask.db"
        shutil.copy(args.db, local)
        shutil.copy(args.db, remote)
        a = run(local, "local", "-")
        b = run(remote, "dask", args.address or str(args.workers))
        where = args.address or f"LocalCluster({args.workers} processes x 1 thread)"
        print(f"local: {a['records']} records in {a['seconds']} s ({a['rps']} rec/s), peak RSS {a['peakMiB']} MiB")
        print(f"dask on {where}: {b['records']} records in {b['seconds']} s ({b['rps']} rec/s), "
              f"client peak RSS {b['peakMiB']} MiB (cluster start {b['clusterStart']} s, not counted)")
        ca, cb = open_corpus(local), open_corpus(remote)
        for table, cols, order in TABLES:
            q = f"SELECT {cols} FROM {table} ORDER BY {order}"
            ra, rb = ca.conn.execute(q).fetchall(), cb.conn.execute(q).fetchall()
            print(f"{table}: {len(ra)} rows, identical: {[tuple(r) for r in ra] == [tuple(r) for r in rb]}")
        q = "SELECT record_id, embedding FROM record_vectors ORDER BY record_id"
        va, vb = ca.conn.execute(q).fetchall(), cb.conn.execute(q).fetchall()
        same = [(r[0], bytes(r[1])) for r in va] == [(r[0], bytes(r[1])) for r in vb]
        print(f"record_vectors: {len(va)} vectors, identical (byte for byte): {same}")
        ca.close()
        cb.close()


if __name__ == "__main__":
    main()
