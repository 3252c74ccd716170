"""Import speed against a generic loader: corpuskit, ``sqlite-utils insert`` and the raw ``executemany`` ceiling.

    python benchmarks/bench_import.py [--rows 500000] [--path ../shared/datasets/hacker_news_2015_2016.csv]
                                      [--repeat 1] [--index-cost]

Runs, in the same run on the same CSV files (the real Hacker News file, and a ``--rows`` file made from
it: its rows repeated, each copy with ids of its own, so every row is a new record):

- ``corpuskit import`` (parse, normalise, deduplicate, store, full-text index), as the command runs it;
- ``sqlite-utils insert DB hn FILE --csv`` (stores the raw columns into a table with no index), a
  dev dependency found on ``PATH`` or next to this Python (``pip install -e '.[dev]'``; a missing one
  is an error, not a skipped column);
- the ``executemany`` ceiling: the rows corpuskit stored, already normalised and held in memory,
  written by one ``executemany`` into a fresh corpus file (same tables, indexes and full-text table,
  the 256 MiB page cache of the import's store step) in one transaction; only the write is timed. It is what SQLite's write path costs for these rows,
  however fast the Python before it; the same rows into one bare table are shown too.

Each contender runs in its own process; rows/s is over wall time, CPU s and peak RSS come from that
process's ``rusage`` (CPU time is the steadier figure on a shared machine: ``rows/CPU s`` uses it).
``--index-cost`` adds the earlier comparison of corpuskit with and without its full-text index.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peers import peer

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "hacker_news_2015_2016.csv"
ROOT = Path(__file__).resolve().parents[1]

_OURS = """
import sys
from corpuskit.cli import main
sys.exit(main(["import", sys.argv[1], "--db", sys.argv[2]]))
"""

# the ceiling: rows as corpuskit stored them, read back into memory, then written by executemany
_CEILING = """
import sys, time
from corpuskit import open_corpus
from corpuskit.ingest.records import BASE_COLUMNS
import sqlite3
stored, target, bare = sys.argv[1], sys.argv[2], sys.argv[3] == "bare"
src = sqlite3.connect(stored)
cols = [c for c in BASE_COLUMNS if c != "run_id"]
rows = src.execute(f"SELECT {', '.join(cols)} FROM records ORDER BY id").fetchall()
fts = src.execute("SELECT rowid, title, body, tags FROM records_fts ORDER BY rowid").fetchall()
src.close()
marks = ",".join("?" * len(cols))
if bare:
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"CREATE TABLE hn ({', '.join(cols)})")
    t0, c0 = time.perf_counter(), time.process_time()
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO hn VALUES ({marks})", rows)
    conn.execute("COMMIT")
else:
    corpus = open_corpus(target)
    conn = corpus.conn
    conn.execute("PRAGMA cache_size = -262144")   # as the import's store step sets it
    t0, c0 = time.perf_counter(), time.process_time()
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(f"INSERT INTO records ({', '.join(cols)}) VALUES ({marks})", rows)
    conn.executemany("INSERT INTO records_fts (rowid, title, body, tags) VALUES (?, ?, ?, ?)", fts)
    conn.execute("COMMIT")
print(len(rows), time.perf_counter() - t0, time.process_time() - c0)
"""


def make_csv(source: Path, rows: int, target: Path) -> int:
    """``source``'s rows repeated until there are ``rows``; copy k adds k * 10^9 to each id. Returns the count."""
    with open(source, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        body = list(reader)
    key = header.index("id")
    written = 0
    with open(target, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        copy = 0
        while written < rows:
            for row in body[:rows - written]:
                row = list(row)
                row[key] = str(int(row[key]) + copy * 1_000_000_000)
                writer.writerow(row)
            written += min(len(body), rows - written)
            copy += 1
    return written


def run(argv: list[str]) -> tuple[float, float, int, str]:
    """Run ``argv`` to completion: (wall s, CPU s, peak RSS bytes, stdout); fails loudly on an error."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} ... failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def count_rows(db: Path, table: str) -> int:
    import sqlite3
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def compare(csv_path: Path, tmp: Path, sqlite_utils: str) -> list[tuple]:
    """One round on one file: (name, rows, wall, cpu, rss, file bytes) for each contender."""
    results = []
    ours_db = tmp / "ours.db"
    wall, cpu, rss, _ = run([sys.executable, "-c", _OURS, str(csv_path), str(ours_db)])
    results.append(("corpuskit import", count_rows(ours_db, "records"), wall, cpu, rss, _size(ours_db)))
    peer_db = tmp / "peer.db"
    wall, cpu, rss, _ = run([sqlite_utils, "insert", str(peer_db), "hn", str(csv_path), "--csv"])
    results.append(("sqlite-utils insert --csv", count_rows(peer_db, "hn"), wall, cpu, rss, _size(peer_db)))
    for kind in ("corpus", "bare"):
        target = tmp / f"ceiling-{kind}.db"
        _, _, rss, out = run([sys.executable, "-c", _CEILING, str(ours_db), str(target), kind])
        n, wall, cpu = out.split()
        name = "executemany, corpus schema" if kind == "corpus" else "executemany, bare table"
        results.append((name, int(n), float(wall), float(cpu), None, _size(target)))
    for db in (ours_db, peer_db, tmp / "ceiling-corpus.db", tmp / "ceiling-bare.db"):
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    return results


def _size(db: Path) -> int:
    return sum(os.path.getsize(str(db) + s) for s in ("", "-wal") if os.path.exists(str(db) + s))


def report(label: str, results: list[tuple]) -> None:
    print(f"\n{label}")
    print(f"{'':28} {'rows':>8} {'wall s':>7} {'rows/s':>8} {'CPU s':>7} {'rows/CPU s':>10} "
          f"{'peak MB':>8} {'file MB':>8}")
    for name, n, wall, cpu, rss, size in results:
        rss_text = f"{rss / 2**20:>8.0f}" if rss is not None else f"{'(1)':>8}"
        print(f"{name:28} {n:>8} {wall:>7.2f} {n / wall:>8.0f} {cpu:>7.2f} {n / cpu:>10.0f} "
              f"{rss_text} {size / 1e6:>8.1f}")
    ours, peer_row = results[0], results[1]
    print(f"corpuskit / sqlite-utils: {ours[1] / ours[2] / (peer_row[1] / peer_row[2]):.2f}x rows/s, "
          f"{ours[1] / ours[3] / (peer_row[1] / peer_row[3]):.2f}x rows/CPU s "
          f"(target 2x); corpuskit {ours[1] / ours[2]:,.0f} rows/s (target 50,000), "
          f"peak {ours[4] / 2**20:,.0f} MB (target < 1,024)")
    print("(1) write only, timed inside a process that first holds every row in memory")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT)
    parser.add_argument("--rows", type=int, default=500_000, help="rows of the generated file (0: none)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--index-cost", action="store_true",
                        help="also import the file with and without the full-text index")
    args = parser.parse_args()
    if not args.path.exists():
        print(f"{args.path} not found", file=sys.stderr)
        return 1
    if args.rows < 0:
        parser.error("--rows must be 0 or more")
    sqlite_utils = peer("sqlite-utils")
    print(f"python {sys.version.split()[0]}; sqlite-utils at {sqlite_utils}; load {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = [(args.path.name, args.path)]
        if args.rows:
            big = tmp / f"hn_{args.rows}.csv"
            make_csv(args.path, args.rows, big)
            files.append((f"{big.name} ({args.path.name} repeated with distinct ids)", big))
        for run_no in range(1, args.repeat + 1):
            for label, path in files:
                report(f"run {run_no}: {label}", compare(path, tmp, sqlite_utils))
    if args.index_cost:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_import_index import index_cost
        index_cost(args.path, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
