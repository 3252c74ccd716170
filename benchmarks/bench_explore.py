"""Explorer latency: how long each interaction of ``corpuskit.explore`` takes at 100k and 1M records.

    python benchmarks/bench_explore.py [--sizes 100000,1000000] [--workdir /tmp/corpuskit-explore] [--repeat 3]

The corpora are demo records (``corpuskit.ingest.demo.iter_demo_records``, a year of them) written
straight into the records table, as ``benchmarks/bench_coordination.py`` writes its synthetic ones
(the full-text index fills through its triggers; no stage runs, so there are no signals or stories
and the topic filter has nothing to choose), and then given the per-day record counts and the
corpus-wide term counts the analyse stage keeps, as a corpus that has been run has them (counting
every record's terms once takes minutes at 1M; kept in the file and reused). Building a million demo records one by one takes
longer than the measurement itself on a small machine, so a corpus of N records above the
``--base`` size (100k) holds ``N / base`` copies of the base corpus's records, each copy its own
records (new source ids) at the same times: every query then matches N / base times as many
records, which is what the latency grows with. Built files are kept in ``--workdir`` and reused.

Each interaction is the panel's own callback (``Explorer.on_*``), timed end to end in Python with
the widgets in place (no browser: what the kernel spends before the browser can draw), for a few
queries of the demo's vocabulary; the table gives the median over queries and repeats, and the
slowest. The records tab is open but while the KWIC term is typed in its tab: the panes drawn only
while their tab is open (keyness, and the KWIC lines of a term, which read every text of the
selection when the term is rare in it) are timed on their own rows. Keyness against the rest of the corpus reads the selection's texts (the rest's terms are
the stored corpus counts minus the selection's): it grows with the selection, is drawn only when its
tab is open, behind the busy line, and is reported on its own row. Opening the explorer is timed
once per size (ipywidgets and bqplot imported before), and so is the first query typed after it, which
reads every record's publication second (kept in memory while the explorer is open); the peak memory
of the process is printed.

``--sizes 1000000 --repeat 1 --workdir /tmp/lat4`` (a 1M corpus built before, reused), run twice,
the lower of the two for each cell, on a shared 2-core machine (load average 3.6 to 5.2),
milliseconds (docs/explore.md has the runs before every record's time was held in memory, before the
id index of migration 0018, and at 100k)::

    interaction                              median 1000k ms  max 1000k ms
    ---------------------------------------  ---------------  ------------
    open the explorer                        257              257
    first query (reads every record's time)  1245             1245
    type query A                             54               96
    type query B                             101              141
    click a period                           71               73
    share/records toggle                     8                8
    next page of records                     25               28
    KWIC term                                108              115
    focus query B                            30               32
    keyness A vs B (period)                  245              320
    code                                     3                7
    whole range again                        55               61
    day/week/month toggle                    75               77
    keyness vs rest (whole range; tab open)  4407             8146
    peak memory of the process: 302 MB
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from text_table import table  # noqa: E402

QUERIES = ['stablecoin OR "bond yields"', '"language model" OR gpu', "telescope", "vaccine AND trial"]
FIRST_QUERY = "stablecoin"
_COLUMNS = ("source", "source_id", "content_hash", "title", "content_text", "url", "author",
            "published_at", "captured_at", "language")


def _insert(corpus, rows) -> None:
    with corpus.transaction():
        corpus.conn.executemany(f"INSERT INTO records({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                                rows)


def build(path: Path, n: int, base: int, seed: int = 7):
    """A corpus of ``n`` demo records at ``path`` (reused when it already holds them)."""
    from corpuskit import open_corpus
    from corpuskit.ingest.demo import iter_demo_records

    if path.exists():
        corpus = open_corpus(path)
        if corpus.count() == n:
            return corpus
        corpus.close()
        path.unlink()
    corpus = open_corpus(path)
    first = min(n, base)
    rows = ((r["source"], r["sourceId"], f"{i}", r["title"], r["contentText"], r["url"], r["author"],
             r["publishedAt"], r["capturedAt"], r["language"])
            for i, r in enumerate(iter_demo_records(seed, first, 365)))
    _insert(corpus, rows)
    for copy in range(1, n // first):
        with corpus.transaction():
            corpus.conn.execute(
                f"INSERT INTO records({', '.join(_COLUMNS)}) SELECT source, source_id || '-' || ?, "
                "content_hash || '-' || ?, title, content_text, url, author, published_at, captured_at, language "
                "FROM records WHERE id <= ? ORDER BY id", (copy, copy, first))
    return corpus


def counted(corpus) -> None:
    """Keep the per-day record counts and the corpus-wide term counts analyse keeps (a corpus that has
    been run has them: the explorer reads every record's days and the rest's terms from them rather
    than counting); nothing when they hold."""
    from corpuskit.analysis.record_counts import build_record_counts
    from corpuskit.analysis.term_counts import build_term_counts

    with corpus.transaction():
        build_record_counts(corpus.file)
    build_term_counts(corpus)


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def interactions(explorer, q: str, other: str) -> dict:
    """Milliseconds of each interaction, in the order a reader makes them (the records tab open, but
    while the KWIC term is typed)."""
    from corpuskit.explorer.panel import TABS

    state = explorer.state
    out = {"type query A": _timed(lambda: explorer.on_query("a", q))}
    out["type query B"] = _timed(lambda: explorer.on_query("b", other))
    busiest = int(state.attention()["a"]["count"].to_numpy().argmax())
    out["click a period"] = _timed(lambda: explorer.on_period(busiest))
    out["share/records toggle"] = _timed(lambda: explorer.on_mode("count"))
    out["next page of records"] = _timed(lambda: explorer.on_page(1))
    term = q.split()[0].strip('"')
    explorer.w.tabs.selected_index = TABS.index("kwic")      # the term is typed in the KWIC tab
    out["KWIC term"] = _timed(lambda: explorer.on_term(term))
    explorer.w.tabs.selected_index = TABS.index("records")
    out["focus query B"] = _timed(lambda: explorer.on_focus("b"))
    explorer.on_focus("a")
    explorer.on_against("other")
    out["keyness A vs B (period)"] = _timed(explorer.draw_keyness)
    out["code"] = _timed(explorer.on_code)
    out["whole range again"] = _timed(lambda: explorer.on_period(None))
    out["day/week/month toggle"] = _timed(lambda: explorer.on_freq("M"))
    explorer.on_mode("share")
    explorer.on_freq("W")
    out["keyness vs rest (whole range; tab open)"] = _timed(lambda: explorer.on_against("rest"))
    return out


def measure(corpus, repeat: int) -> dict:
    import bqplot  # noqa: F401  (imported before the clock starts: a notebook has imported them once)
    import ipywidgets  # noqa: F401

    from corpuskit.explorer import Explorer

    times: dict = {}
    start = time.perf_counter()
    explorer = Explorer(corpus)
    times["open the explorer"] = [(time.perf_counter() - start) * 1000]
    # the first query typed reads every record's publication second (held while the explorer is open);
    # one not among those timed below, whose selections it would leave remembered
    times["first query (reads every record's time)"] = [_timed(lambda: explorer.on_query("a", FIRST_QUERY))]
    for r in range(repeat):
        for i, q in enumerate(QUERIES):
            explorer.on_query("a", "")
            explorer.on_query("b", "")
            for name, ms in interactions(explorer, q, QUERIES[(i + 1) % len(QUERIES)]).items():
                if name.startswith("keyness vs rest") and r:
                    continue      # seconds each: once per query
                times.setdefault(name, []).append(ms)
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--base", type=int, default=100_000)
    p.add_argument("--workdir", type=Path, default=Path("/tmp/corpuskit-explore"))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    results = {}
    for n in (int(s) for s in args.sizes.split(",")):
        t0 = time.perf_counter()
        corpus = build(args.workdir / f"explore_{n}.db", n, args.base)
        print(f"{n:,} records ready in {time.perf_counter() - t0:.0f} s", flush=True)
        t0 = time.perf_counter()
        counted(corpus)
        print(f"record and term counts as analyse keeps them, in {time.perf_counter() - t0:.0f} s", flush=True)
        results[n] = measure(corpus, args.repeat)
        corpus.close()
    sizes = list(results)
    rows = []
    for name in results[sizes[0]]:
        row = [name]
        for n in sizes:
            values = results[n][name]
            row += [f"{statistics.median(values):.0f}", f"{max(values):.0f}"]
        rows.append(row)
    print(table(rows, ["interaction"] + [f"{h} {n // 1000}k ms" for n in sizes for h in ("median", "max")]))
    print(f"peak memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
