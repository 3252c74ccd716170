"""How long ``/`` and ``/docs`` take to make, and how big they are, on one corpus file.

    PYTHONPATH=$PWD python benchmarks/bench_pages.py --db corpus.db [--repeat 5]

Prints, through the in-process WSGI client: the summary queries behind the landing
page (uncached, median of ``--repeat``), a whole landing page (HTML, then the JSON index),
``/docs`` the first time (built from the OpenAPI documents) and after (cached), and the
page sizes. Read-only; the corpus is opened as it is.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.http_client import call  # noqa: E402

from corpuskit import open_corpus  # noqa: E402
from corpuskit.api import create_app  # noqa: E402
from corpuskit.api.pages.summary import corpus_summary  # noqa: E402

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Host": "127.0.0.1:8000"}


def _ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = open_corpus(args.db)
    app = create_app(corpus)
    start = time.perf_counter()
    status, _, docs = call(app, "GET", "/docs")
    docs_first = (time.perf_counter() - start) * 1000
    assert status == 200
    summary_ms = _ms(lambda: corpus_summary(corpus), args.repeat)
    landing = call(app, "GET", "/", BROWSER)[2]
    print(f"corpus: {corpus.count():,} records, {corpus_summary(corpus)['topicCount']} topics")
    print(f"summary queries (uncached, median of {args.repeat}): {summary_ms:.1f} ms")
    print(f"GET / HTML (summary cached 5 s): {_ms(lambda: call(app, 'GET', '/', BROWSER), args.repeat):.2f} ms, "
          f"{len(landing):,} bytes")
    print(f"GET / JSON index: {_ms(lambda: call(app, 'GET', '/'), args.repeat):.2f} ms")
    print(f"GET /docs first: {docs_first:.0f} ms; after: "
          f"{_ms(lambda: call(app, 'GET', '/docs'), args.repeat):.2f} ms, {len(docs):,} bytes")
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
