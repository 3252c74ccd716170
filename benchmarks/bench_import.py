"""Import speed: the 20,099-row Hacker News CSV into a fresh corpus file (storing only).

    python benchmarks/bench_import.py [--path ../shared/datasets/hacker_news_2015_2016.csv] [--repeat 3]

Prints records/s for the first import and the time of a re-import (all duplicates).
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

from corpuskit import open_corpus
from corpuskit.store import driver_name

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "hacker_news_2015_2016.csv"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.path.exists():
        print(f"{args.path} not found", file=sys.stderr)
        return 1
    print(f"driver: {driver_name()}  file: {args.path.name}")
    print(f"{'run':>4} {'records':>8} {'seconds':>8} {'records/s':>10} {'reimport s':>11}")
    for run in range(1, args.repeat + 1):
        with tempfile.TemporaryDirectory() as tmp:
            corpus = open_corpus(Path(tmp) / "bench.db")
            t0 = time.perf_counter()
            report = corpus.import_file(args.path)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            again = corpus.import_file(args.path)
            second = time.perf_counter() - t0
            assert again.added == 0
            corpus.close()
        print(f"{run:>4} {report.added:>8} {first:>8.2f} {report.added / first:>10.0f} {second:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
