"""Enrichment: throughput end to end, and quality against the demo generator's labels.

Usage: python benchmarks/bench_enrich.py [--records 6000] [--days 60] [--seed 7]

Builds a demo corpus (records only), runs ``Corpus.enrich()``, and prints
records/s, entity precision/recall (by canonical name, and by name + type)
against ``metadata["demo"]["entities"]``, and primary-topic accuracy against
``metadata["demo"]["beat"]`` (off-beat records, label null, count as correct
when they get no primary topic), plus the per-stage split of a second run
over the same records with a profile of where time goes.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from corpuskit import open_corpus
from corpuskit.enrich.quality import demo_quality


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=6000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    from corpuskit.demo import build_demo

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for label in ("cold (first enrich in this process, library imports included)",
                  "warm (libraries already imported)"):
        corpus = open_corpus(":memory:")
        build_demo(corpus, seed=args.seed, records=args.records, days=args.days, run_stages=False,
                   progress=False)
        t0 = time.perf_counter()
        summary = corpus.enrich(progress=False)
        wall = time.perf_counter() - t0
        print(f"enrich {label}: {summary['recordsEnriched']} records in {wall:.2f} s "
              f"= {summary['recordsEnriched'] / wall:,.0f} records/s end to end "
              f"(topics {summary['topics']}, entities {summary['entities']}, model {summary['model']})")
    q = demo_quality(corpus)
    print("entities: precision {namePrecision:.3f} recall {nameRecall:.3f} (by name); "
          "precision {typedPrecision:.3f} recall {typedRecall:.3f} (name + type)".format(**q))
    print("topics: primary-topic accuracy {topicAccuracy:.3f} over {topicRecords} records "
          "(on-beat only {onBeatAccuracy:.3f}; off-beat left untopiced {offBeatAccuracy:.3f})".format(**q))
    print(f"sentiment: label agreement with the generator {q['sentimentAgreement']:.3f}")
    t0 = time.perf_counter()
    again = corpus.enrich(progress=False)
    print(f"second run: {again['recordsEnriched']} records in {time.perf_counter() - t0:.3f} s")
    t0 = time.perf_counter()
    refit = corpus.enrich(progress=False, refit=True)
    wall = time.perf_counter() - t0
    print(f"refit run: {refit['recordsEnriched']} records in {wall:.2f} s = "
          f"{refit['recordsEnriched'] / wall:,.0f} records/s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
