"""How much should BM25 weigh in hybrid fusion for name-like queries? Chosen on one file, checked on the other.

Usage: python benchmarks/bench_search_name_weight.py [--db PATH]

Uses the corpus bench_search_names.py builds (Hacker News and Reddit, enriched; default
/tmp/corpuskit-bench-names.db). For each file separately it picks 20 person and organisation names
whose records *in that file* number 10 to 60 by the whole-word regex (as bench_search_names.py
does over both), ranks each name with the semantic and the BM25 ranking restricted to that file
(``FUSION_DEPTH`` each), and fuses them with keyword weight w in 1, 1.25, 1.5, 2, 3, 4. Protocol:
take the smallest w that brings every Hacker News name to target (>= 0.8 of the top 20, or all
when fewer than 20 records), then read Reddit's row for that w.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpuskit import open_corpus  # noqa: E402
from corpuskit.analysis.kwic import fold, term_pattern  # noqa: E402
from corpuskit.enrich.base import record_text  # noqa: E402
from corpuskit.query import Where  # noqa: E402
from corpuskit.search import FUSION_DEPTH, _keyword_ranker, rank, relevance_floor, rrf_fuse, search_index  # noqa: E402
from corpuskit.text import display_text  # noqa: E402

TOP, LOW, HIGH = 20, 10, 60
WEIGHTS = (1, 1.25, 1.5, 2, 3, 4)


def pick_in(corpus, source: str, wanted: int = 20):
    texts = [(rid, fold(display_text(record_text(t, x)))) for rid, t, x in corpus.conn.execute(
        "SELECT id, title, content_text FROM records WHERE source = ? ORDER BY id", (source,))]
    rows = corpus.conn.execute(
        "SELECT en.name, count(DISTINCT m.record_id) AS n FROM entities en "
        "JOIN mentions m ON m.entity_id = en.id JOIN records r ON r.id = m.record_id "
        "WHERE en.type IN ('person', 'org') AND r.source = ? "
        "GROUP BY en.id HAVING n >= ? ORDER BY n DESC, en.name", (source, LOW // 2)).fetchall()
    out, seen = [], set()
    for name, _ in rows:
        key = fold(name)
        if len(name.strip()) < 3 or key in seen:
            continue
        seen.add(key)
        pattern = term_pattern(name)
        truth = {rid for rid, text in texts if pattern.search(text)}
        if LOW <= len(truth) <= HIGH:
            out.append((name, truth))
            if len(out) == wanted:
                break
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="/tmp/corpuskit-bench-names.db")
    args = parser.parse_args(argv)
    if not Path(args.db).exists():
        print(f"skipped: build {args.db} with benchmarks/bench_search_names.py first")
        return 0
    corpus = open_corpus(args.db)
    index = search_index(corpus)
    floor = relevance_floor(index.embedder)
    for source in ("hackernews", "reddit"):
        names = pick_in(corpus, source)
        runs = []
        for name, truth in names:
            vector = index.embedder.transform([name])[0].astype(np.float32)
            sem = rank(index, vector, source=source, limit=FUSION_DEPTH, floor=floor)[0].tolist()
            kw = [int(r) for r, _ in _keyword_ranker()(corpus.conn, name, limit=FUSION_DEPTH,
                                                       where=Where().equal("r.source", source))]
            runs.append((name, truth, sem, kw))
        print(f"{source}: {len(names)} names: {', '.join(n for n, *_ in runs)}")

        def report(label, tops):
            scores = [len(set(top) & truth) / min(TOP, len(truth)) for top, (_, truth, _, _) in zip(tops, runs)]
            ok = [s >= (1.0 if len(t) < TOP else 0.8) for s, (_, t, _, _) in zip(scores, runs)]
            misses = " ".join(f"{n}={s:.2f}" for s, good, (n, *_) in zip(scores, ok, runs) if not good)
            print(f"  {label:<10} mean {np.mean(scores):.3f}  at target {sum(ok)}/{len(runs)}  {misses}")

        report("semantic", [sem[:TOP] for _, _, sem, _ in runs])
        report("keyword", [kw[:TOP] for _, _, _, kw in runs])
        for w in WEIGHTS:
            report(f"w={w}", [[r for r, _ in rrf_fuse([sem, kw], weights=(1, w))[:TOP]] for _, _, sem, kw in runs])
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
