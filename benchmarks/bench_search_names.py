"""Does search find names? Semantic and hybrid top 20 against a regex count, on the real files.

Usage: python benchmarks/bench_search_names.py [--db PATH] [--names 20]

Imports the Hacker News and Reddit files of ../shared/datasets into one corpus (cached at --db,
default /tmp/corpuskit-bench-names.db) and enriches it. Candidate names are the person and
organisation entities the enrichment found, most mentioned first (then by name); a name is kept
when it has at least 3 characters and the records that say it (the ground truth: a whole-word,
case- and diacritic-insensitive regex over each record's title and text, as
``corpuskit.analysis.kwic`` matches) number 10 to 60. The first ``--names`` kept are measured.

For each name and each mode, the score is the share of the top 20 results that are the name's
records, over min(20, records): 1.0 means the top 20 holds all of its records when it has fewer
than 20, or is made only of its records when it has 20 or more. The issue's target for hybrid is
>= 0.8 for every name (1.0 where fewer than 20). Semantic runs always; keyword and hybrid run when
the full-text index (``corpuskit.query.fulltext``) is installed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.text_table import table  # noqa: E402
from corpuskit import open_corpus  # noqa: E402
from corpuskit.analysis.kwic import fold, term_pattern  # noqa: E402
from corpuskit.enrich.base import record_text  # noqa: E402
from corpuskit.errors import StageNotRunError  # noqa: E402
from corpuskit.search import search  # noqa: E402
from corpuskit.text import display_text  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
FILES = ("hacker_news_2015_2016.csv", "reddit_2019_science_technology.csv")
TOP = 20
LOW, HIGH = 10, 60


def build(path: Path):
    corpus = open_corpus(path)
    if corpus.count() == 0:
        for name in FILES:
            t0 = time.perf_counter()
            report = corpus.import_file(DATASETS / name)
            print(f"imported {name}: {report.added} records in {time.perf_counter() - t0:.1f} s", flush=True)
    if corpus.conn.execute("SELECT count(*) FROM record_vectors_rowids").fetchone()[0] == 0:
        t0 = time.perf_counter()
        corpus.enrich(progress=False)
        print(f"enriched in {time.perf_counter() - t0:.1f} s", flush=True)
    return corpus


def pick_names(corpus, wanted: int):
    """``[(name, type, sorted record ids)]``: the first ``wanted`` entities whose regex count is 10-60."""
    texts = [(rid, fold(display_text(record_text(title, text)))) for rid, title, text in
             corpus.conn.execute("SELECT id, title, content_text FROM records ORDER BY id")]
    rows = corpus.conn.execute(
        "SELECT en.name, en.type, count(DISTINCT m.record_id) AS n FROM entities en "
        "JOIN mentions m ON m.entity_id = en.id WHERE en.type IN ('person', 'org') "
        "GROUP BY en.id HAVING n >= ? ORDER BY n DESC, en.name", (LOW // 2,)).fetchall()
    picked, seen = [], set()
    for name, kind, _ in rows:
        key = fold(name)
        if len(name.strip()) < 3 or key in seen:
            continue
        seen.add(key)
        pattern = term_pattern(name)
        truth = [rid for rid, text in texts if pattern.search(text)]
        if LOW <= len(truth) <= HIGH:
            picked.append((name, kind, truth))
            if len(picked) == wanted:
                break
    return picked


def score(corpus, name: str, truth: list[int], mode: str) -> float:
    hits = search(corpus, name, limit=TOP, mode=mode, min_relevance=0.0)
    found = len({h["id"] for h in hits.rows} & set(truth))
    return found / min(TOP, len(truth))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="/tmp/corpuskit-bench-names.db")
    parser.add_argument("--names", type=int, default=20)
    args = parser.parse_args(argv)
    if not all((DATASETS / f).exists() for f in FILES):
        print(f"skipped: the real files are not in {DATASETS}")
        return 0
    corpus = build(Path(args.db))
    names = pick_names(corpus, args.names)
    modes = ["semantic"]
    try:
        search(corpus, names[0][0], mode="keyword", limit=1)
        modes += ["keyword", "hybrid"]
    except StageNotRunError as exc:
        print(f"keyword and hybrid not measured: {exc}")
    rows, passed = [], {m: 0 for m in modes}
    totals = {m: 0.0 for m in modes}
    for name, kind, truth in names:
        target = 1.0 if len(truth) < TOP else 0.8
        row = [name, kind, len(truth)]
        for mode in modes:
            s = score(corpus, name, truth, mode)
            totals[mode] += s
            passed[mode] += s >= target
            row.append(f"{s:.2f}")
        rows.append(row)
    print(f"{len(corpus.conn.execute('SELECT id FROM records').fetchall())} records; "
          f"{len(names)} names with {LOW}-{HIGH} records by regex; score = own records in the top {TOP} "
          f"/ min({TOP}, records)")
    print(table(rows, ["name", "type", "records", *modes]))
    for mode in modes:
        print(f"{mode}: mean {totals[mode] / max(len(names), 1):.2f}; names meeting the target "
              f"(>= 0.8, or all when fewer than {TOP} records): {passed[mode]} of {len(names)}")
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
