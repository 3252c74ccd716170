"""The full-text index's cost at import: a CSV (default the 20,099-row Hacker News file) into a fresh corpus file.

    python benchmarks/bench_import_index.py [--path ../shared/datasets/hacker_news_2015_2016.csv] [--repeat 3]
    (also run by ``bench_import.py --index-cost``)

Prints records/s for the first import, the time of a re-import (all duplicates) and the file size, with
the full-text index (as shipped) and without it (the index table, its triggers and the staging of its
columns switched off in this process): the index's cost, measured in the same run on the same machine.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from corpuskit import open_corpus
from corpuskit.ingest import staging
from corpuskit.store import driver_name, fulltext

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "hacker_news_2015_2016.csv"


@contextmanager
def index_off(corpus):
    """Import as before the index existed: no FTS table or triggers, nothing staged for it."""
    corpus.conn.execute("DROP TRIGGER records_fts_delete")
    corpus.conn.execute("DROP TRIGGER records_fts_update")
    corpus.conn.execute("DROP TABLE records_fts")
    saved = fulltext.document, staging.Stage._index
    fulltext.document = lambda title, text: (None, None, None)
    staging.Stage._index = lambda self, before, added: None
    try:
        yield
    finally:
        fulltext.document, staging.Stage._index = saved


def one(path: Path, indexed: bool) -> tuple[int, float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        corpus = open_corpus(db)
        with (index_off(corpus) if not indexed else _nothing()):
            t0 = time.perf_counter()
            report = corpus.import_file(path)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            again = corpus.import_file(path)
            second = time.perf_counter() - t0
        assert again.added == 0
        corpus.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        corpus.close()
        return report.added, first, second, os.path.getsize(db)


@contextmanager
def _nothing():
    yield


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.path.exists():
        print(f"{args.path} not found", file=sys.stderr)
        return 1
    index_cost(args.path, args.repeat)
    return 0


def index_cost(path: Path, repeat: int) -> None:
    """Import ``path`` ``repeat`` times with the index and without it, alternated; print the table."""
    print(f"driver: {driver_name()}  file: {path.name}")
    print(f"{'run':>4} {'index':>6} {'records':>8} {'seconds':>8} {'records/s':>10} {'reimport s':>11} {'MB':>7}")
    times = {False: [], True: []}
    for run in range(1, repeat + 1):
        for indexed in (False, True):   # alternated, so both see the same machine load
            added, first, second, size = one(path, indexed)
            times[indexed].append(first)
            print(f"{run:>4} {'on' if indexed else 'off':>6} {added:>8} {first:>8.2f} {added / first:>10.0f} "
                  f"{second:>11.2f} {size / 1e6:>7.1f}")
    best = {k: min(v) for k, v in times.items()}
    median = {k: statistics.median(v) for k, v in times.items()}
    print(f"full-text index cost: {median[True] / median[False] - 1:+.0%} import time (median of "
          f"{repeat}), {best[True] / best[False] - 1:+.0%} (best of {repeat})")


if __name__ == "__main__":
    sys.exit(main())
