"""Time the demo corpus: generation, insertion, and build_demo with every stage that exists.

    python benchmarks/bench_demo.py [--records 20000] [--days 60] [--seed 7] [--no-stages]

Prints one line per measurement (seconds) and the record count per source.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from time import perf_counter, process_time

from corpuskit import open_corpus
from corpuskit.demo import build_demo
from corpuskit.ingest.demo import generate_demo


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-stages", action="store_true", help="skip the build_demo run with stages")
    args = parser.parse_args(argv)

    t0, c0 = perf_counter(), process_time()
    records, truth = generate_demo(args.seed, args.records, args.days)
    generate_s, generate_cpu = perf_counter() - t0, process_time() - c0
    print(f"generate_demo: {len(records)} records, {len(truth['events'])} events in {generate_s:.2f} s "
          f"wall, {generate_cpu:.2f} s CPU ({len(records) / generate_s:,.0f} records/s)")

    with tempfile.TemporaryDirectory() as tmp:
        corpus = open_corpus(Path(tmp) / "insert.db")
        t0 = perf_counter()
        corpus.add_records(records, stage="demo")
        insert_s = perf_counter() - t0
        print(f"insert (file corpus, one transaction): {insert_s:.2f} s "
              f"({len(records) / insert_s:,.0f} records/s)")
        corpus.close()

        if not args.no_stages:
            corpus = open_corpus(Path(tmp) / "demo.db")
            t0 = perf_counter()
            summary = build_demo(corpus, seed=args.seed, records=args.records, days=args.days,
                                 run_stages=True, progress=False)
            total_s = perf_counter() - t0
            print(f"build_demo with stages: {total_s:.2f} s")
            for step, seconds in summary["timings"].items():
                state = summary["stages"].get(step, "")
                print(f"  {step:<10} {seconds:8.2f} s  {state}")
            print("sources:", json.dumps(summary["sources"], sort_keys=True))
            corpus.close()


if __name__ == "__main__":
    main()
