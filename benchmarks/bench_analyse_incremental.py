"""Incremental analysis: re-analysing after one new day against a full analysis run.

The demo corpus (default 20,000 records over 60 days) is generated once.
Corpus A gets the first 59 days, is enriched and analysed; then the last day
is added, enriched, and the analysis stage is timed (the incremental run).
Corpus B gets all 60 days at once, is enriched, and the analysis stage is
timed (the full run). The target: incremental <= 20% of full.

    /work/venv/bin/python benchmarks/bench_analyse_incremental.py [--records N] [--days D]

Prints the seconds of each step of both runs, and the ratio.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from time import perf_counter

from corpuskit import open_corpus
from corpuskit.ingest import demo_vocab as V
from corpuskit.ingest.demo import generate_demo


def new_corpus(path: Path, rows, truth):
    corpus = open_corpus(path)
    with corpus.transaction():
        corpus.add_records(rows, stage="demo")
        corpus.set_meta("demo_ground_truth", truth)
        corpus.set_meta("beats", V.BEATS)
        corpus.set_clock_mode("frozen")
    return corpus


def timed(label: str, func):
    t0 = perf_counter()
    out = func()
    seconds = perf_counter() - t0
    print(f"  {label:<34s} {seconds:8.2f} s", flush=True)
    return out, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    rows, truth = generate_demo(seed=args.seed, records=args.records, days=args.days)
    last_day = max(r["publishedAt"][:10] for r in rows)
    earlier = [r for r in rows if r["publishedAt"][:10] < last_day]
    newest = [r for r in rows if r["publishedAt"][:10] == last_day]
    print(f"demo: {len(rows)} records over {args.days} days; last day {last_day} has "
          f"{len(newest)} records")

    with tempfile.TemporaryDirectory() as tmp:
        print("corpus A: first days, then one new day")
        a = new_corpus(Path(tmp) / "a.db", earlier, truth)
        timed("enrich (all but the last day)", lambda: a.enrich(progress=False))
        timed("analyse (all but the last day)", lambda: a.analyse(progress=False))
        with a.transaction():
            a.add_records(newest, stage="demo")
        timed("enrich (the new day)", lambda: a.enrich(progress=False))
        inc, inc_s = timed("analyse (the new day): INCREMENTAL", lambda: a.analyse(progress=False))
        a.close()

        print("corpus B: every day at once")
        b = new_corpus(Path(tmp) / "b.db", rows, truth)
        timed("enrich (all days)", lambda: b.enrich(progress=False))
        full, full_s = timed("analyse (all days): FULL", lambda: b.analyse(progress=False))
        b.close()

    print("\nstep seconds        full   incremental")
    for step in full["seconds"]:
        print(f"  {step:<14s} {full['seconds'][step]:8.2f} {inc['seconds'].get(step, 0.0):10.2f}")
    print(f"  snapshots rewritten: full {full['steps']['snapshots']['written']}, "
          f"incremental {inc['steps']['snapshots']['written']}")
    ratio = inc_s / full_s if full_s else float("nan")
    print(f"\nfull analyse: {full_s:.2f} s; incremental analyse: {inc_s:.2f} s; "
          f"ratio {ratio:.1%} (target <= 20%)")
    return 0 if ratio <= 0.2 else 1


if __name__ == "__main__":
    sys.exit(main())
