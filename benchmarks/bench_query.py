"""Query speed: 20 fixed queries on a demo corpus, beside a LIKE scan and Datasette on the same file.

    python benchmarks/bench_query.py [--records 100000] [--repeat 20] [--db PATH] [--no-datasette]

Builds (or reuses, with --db) a demo corpus of --records records over 365 days (records only, no
stages: the fields entity:/sentiment:/topic: need enrichment and are left out), then times, per
query:

- p50/p99 of ``Subcorpus.count()``, and of the first page of ``Subcorpus.records(limit=20)``;
- ``Subcorpus.over_time()`` over the last year (daily attention with intervals) for every query;
- for the single-term and phrase queries: a ``LIKE '%...%'`` count over title and text on the same
  file, and Datasette (a dev dependency: ``pip install -e '.[dev]'``; missing, the benchmark stops with that line) serving the same file on
  127.0.0.1, timed over HTTP as ``/<db>/records_fts.json?_search=...&_searchmode=raw&_size=0``
  (facets and suggestions off; the count is Datasette's ``filtered_table_rows_count``; ``--no-datasette`` leaves it out);
- correctness for the single-term and phrase queries: ``.count()`` against a Python regex scan of
  every record's title and text (whole words, case and diacritics folded, as
  ``corpuskit.analysis.kwic`` matches), and Datasette's count against ``.count()``.

Every query uses the demo's vocabulary (``corpuskit/ingest/demo_vocab.py``), so all 20 find records.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpuskit import open_corpus  # noqa: E402
from corpuskit.analysis.kwic import fold, term_pattern  # noqa: E402
from corpuskit.clock import iso  # noqa: E402
from corpuskit.enrich.base import record_text  # noqa: E402
from corpuskit.text import display_text  # noqa: E402
from peers import peer  # noqa: E402

TERMS = ["vaccine", "booster", "inflation", "telescope", "solar", "stablecoin", "gpu", "galaxy"]
PHRASES = ['"offshore wind"', '"rate decision"', '"language model"', '"heat pump"']
OTHERS = ["booster AND launch", "solar OR turbine", "inflation -earnings", "vacc*", '"mortgage rates"~3',
          "source:reddit AND telescope", "(solar OR grid) AND NOT source:hackernews"]
#: The date-range query; {since} and {until} are the last 30 days before the corpus clock.
RANGE = "inflation AND published:[{since} TO {until}]"


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


def regex_counts(corpus, texts):
    """``{query: records}`` for the single-term and phrase queries by a regex scan of every record."""
    patterns = {q: term_pattern(q.strip('"')) for q in texts}
    counts = dict.fromkeys(texts, 0)
    last = -1
    while True:
        rows = corpus.conn.execute("SELECT id, title, content_text FROM records WHERE id > ? ORDER BY id "
                                   "LIMIT 20000", (last,)).fetchall()
        if not rows:
            return counts
        for _, title, content in rows:
            text = fold(display_text(record_text(title, content)))
            for q, pattern in patterns.items():
                if pattern.search(text):
                    counts[q] += 1
        last = rows[-1][0]


class Datasette:
    """``datasette serve FILE`` on a free local port, for the run's duration.

    The corpus file holds a sqlite-vec table, which Datasette must load the ``vec0`` extension to
    open; where the interpreter's ``sqlite3`` cannot load extensions, Datasette is pointed (through
    its own ``pysqlite3`` hook, a two-line module in a temporary directory) at the SQLite build
    corpuskit itself runs on (``sqlean``), so both read the file with the same engine.
    """

    def __init__(self, path: Path):
        import sqlite_vec

        exe = peer("datasette")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.db = path.stem
        self.shim = tempfile.TemporaryDirectory()
        env = dict(os.environ)
        try:
            import sqlean  # noqa: F401

            (Path(self.shim.name) / "pysqlite3").mkdir()
            (Path(self.shim.name) / "pysqlite3" / "__init__.py").write_text(
                "from sqlean import *  # noqa\nfrom sqlean import dbapi2  # noqa\n")
            env["PYTHONPATH"] = self.shim.name
        except ImportError:
            pass
        self.proc = subprocess.Popen([exe, "serve", str(path), "--host", "127.0.0.1", "--port", str(self.port),
                                      "--setting", "sql_time_limit_ms", "60000",
                                      f"--load-extension={sqlite_vec.loadable_path()}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/versions.json", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        self.close()
        raise RuntimeError("datasette did not start")

    def count(self, fts_query: str) -> int:
        url = (f"http://127.0.0.1:{self.port}/{self.db}/records_fts.json?"
               + urllib.parse.urlencode({"_search": fts_query, "_searchmode": "raw", "_size": "0",
                                        "_nofacet": "1", "_nosuggest": "1"}))
        with urllib.request.urlopen(url, timeout=120) as answer:
            return json.load(answer)["filtered_table_rows_count"]

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.shim.cleanup()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--no-datasette", action="store_true")
    args = parser.parse_args()
    tmp = None
    path = args.db
    if path is None:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "bench.db"
    corpus = open_corpus(path)
    if corpus.count() == 0:
        from corpuskit.demo import build_demo

        t0 = time.perf_counter()
        build_demo(corpus, records=args.records, days=365, run_stages=False, progress=False)
        print(f"built {corpus.count()} demo records in {time.perf_counter() - t0:.0f} s")
    clock = corpus.now()
    queries = TERMS + PHRASES + OTHERS + [RANGE.format(since=(clock - timedelta(days=30)).date(),
                                                       until=clock.date())]
    year = iso(clock - timedelta(days=365))
    datasette = None
    if not args.no_datasette:
        datasette = Datasette(Path(path))
    t0 = time.perf_counter()
    truth = regex_counts(corpus, TERMS + PHRASES)
    print(f"{corpus.count()} records, {args.repeat} runs per query (ms); regex scan of the single-term and "
          f"phrase queries took {time.perf_counter() - t0:.0f} s")
    head = (f"{'query':<44} {'hits':>7} {'regex':>7} {'count p50':>9} {'p99':>6} {'page p50':>8} {'p99':>6} "
            f"{'trend p50':>9} {'LIKE p50':>8} {'DS p50':>7} {'DS p99':>7} {'DS hits':>7}")
    print(head)
    print("-" * len(head))
    all_counts, ds_all, wrong = [], [], []
    for text in queries:
        sub = corpus.query(text)
        hits = sub.count()
        counts = timed(sub.count, args.repeat)
        pages = timed(lambda: sub.records(limit=20), max(3, args.repeat // 4))
        trend = timed(lambda: sub.over_time(since=year), 3)
        all_counts += counts
        plain = text in truth
        like = ds = ds99 = ds_hits = regex = ""
        if plain:
            regex = truth[text]
            if regex != hits:
                wrong.append(f"{text}: index {hits}, regex {regex}")
            pattern = f"%{text.strip(chr(34))}%"
            like_ms = timed(lambda: corpus.conn.execute(
                "SELECT count(*) FROM records WHERE title LIKE ? OR content_text LIKE ?",
                (pattern, pattern)).fetchone(), 3)
            like = f"{statistics.median(like_ms):.1f}"
            if datasette is not None:
                ds_hits = datasette.count(text)
                if ds_hits != hits:
                    wrong.append(f"{text}: index {hits}, Datasette {ds_hits}")
                ds_ms = timed(lambda: datasette.count(text), args.repeat)
                ds_all += ds_ms
                ds, ds99 = f"{statistics.median(ds_ms):.1f}", f"{pct(ds_ms, .99):.1f}"
        print(f"{text[:44]:<44} {hits:>7} {regex:>7} {statistics.median(counts):>9.1f} {pct(counts, .99):>6.1f} "
              f"{statistics.median(pages):>8.1f} {pct(pages, .99):>6.1f} {statistics.median(trend):>9.1f} "
              f"{like:>8} {ds:>7} {ds99:>7} {ds_hits:>7}", flush=True)
    print(f"all queries: count p50 {statistics.median(all_counts):.1f} ms, p99 {pct(all_counts, .99):.1f} ms "
          "(targets at 1M: p50 <= 20, p99 <= 100)")
    plain_counts = [c for q in TERMS + PHRASES for c in timed(corpus.query(q).count, args.repeat)]
    print(f"single-term and phrase queries: count p50 {statistics.median(plain_counts):.1f} ms"
          + (f"; Datasette _search count p50 {statistics.median(ds_all):.1f} ms, p99 {pct(ds_all, .99):.1f} ms"
             if ds_all else ""))
    print("counts: " + ("all equal the regex scan" + (" and Datasette" if ds_all else "") if not wrong
                        else "MISMATCH " + "; ".join(wrong)))
    if datasette is not None:
        datasette.close()
    corpus.close()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
