"""Query speed: 20 fixed queries on a demo corpus, beside a LIKE scan of the same file.

    python benchmarks/bench_query.py [--records 100000] [--repeat 20] [--db PATH]

Builds (or reuses, with --db) a demo corpus of --records records (records only, no stages: the
fields entity:/sentiment:/topic: need enrichment and are left out), then times, per query, p50/p99 of
``Subcorpus.count()`` and of the first page of ``Subcorpus.records(limit=20)``, and for the single-term
queries a ``LIKE '%term%'`` count over title and text on the same file.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corpuskit import open_corpus

QUERIES = [
    "vaccine", "pfizer", "battery", "election", "climate", "recall", "moderna", "tesla",
    '"vaccine rollout"', '"battery recall"', '"supply chain"', '"interest rates"',
    "pfizer AND booster", "vaccine OR moderna", "climate -policy", "vacc*",
    '"pfizer booster"~5', "source:reddit AND vaccine", "(tesla OR battery) AND NOT source:hackernews",
    "vaccine AND published:[2026-09-01 TO 2026-09-30]",
]


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def timed(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    tmp = None
    path = args.db
    if path is None:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "bench.db"
    corpus = open_corpus(path)
    if corpus.count() == 0:
        from corpuskit.ingest.demo import build_demo

        t0 = time.perf_counter()
        build_demo(corpus, records=args.records, days=365, run_stages=False, progress=False)
        print(f"built {corpus.count()} demo records in {time.perf_counter() - t0:.0f} s")
    print(f"{corpus.count()} records, {args.repeat} runs per query (ms)")
    print(f"{'query':<52} {'hits':>7} {'count p50':>9} {'p99':>7} {'page p50':>9} {'p99':>7} {'LIKE p50':>9}")
    all_counts = []
    for text in QUERIES:
        sub = corpus.query(text)
        hits = sub.count()
        counts = timed(sub.count, args.repeat)
        pages = timed(lambda: sub.records(limit=20), max(3, args.repeat // 4))
        all_counts += counts
        like = ""
        if text.isalpha():
            pattern = f"%{text}%"
            like_ms = timed(lambda: corpus.conn.execute(
                "SELECT count(*) FROM records WHERE title LIKE ? OR content_text LIKE ?",
                (pattern, pattern)).fetchone(), 3)
            like = f"{statistics.median(like_ms):>9.1f}"
        print(f"{text[:52]:<52} {hits:>7} {statistics.median(counts):>9.1f} {pct(counts, .99):>7.1f} "
              f"{statistics.median(pages):>9.1f} {pct(pages, .99):>7.1f} {like:>9}")
    print(f"all queries: count p50 {statistics.median(all_counts):.1f} ms, p99 {pct(all_counts, .99):.1f} ms")
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
