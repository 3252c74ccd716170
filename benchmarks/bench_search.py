"""Search speed at scale: ours (filtered, exact) vs a numpy scan vs a plain vec0 KNN.

Usage: python benchmarks/bench_search.py [--records 100000] [--queries 200] [--db PATH]

Builds (once, cached at --db) a demo corpus of --records records and enriches
it, so ``record_vectors`` holds that many 512-d vectors. Then, from one run,
prints p50/p99 in ms of:
  - ours: ``corpus.search(q, source=S, limit=10)`` end to end (query embedding,
    filtered exact ranking, result rows), and its ranking step alone;
  - numpy: a brute-force ``matrix @ q`` + ``argpartition`` over all vectors;
  - vec0: ``SELECT ... WHERE embedding MATCH ? AND k = 10`` (no filter);
and the ratios, plus recall@10 of ours against an exact filtered scan.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from corpuskit import open_corpus
from corpuskit.search import rank, search_index


def pct(values, q):
    return float(np.percentile(np.asarray(values) * 1000, q))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--db", default=None, help="corpus file (built when missing)")
    args = parser.parse_args(argv)
    path = Path(args.db or f"/tmp/corpuskit-bench-search-{args.records}.db")
    corpus = open_corpus(path)
    if corpus.count() == 0:
        from corpuskit.demo import build_demo

        t0 = time.perf_counter()
        build_demo(corpus, seed=11, records=args.records, days=90, run_stages=False, progress=True)
        corpus.enrich(progress=True)
        print(f"built {path} in {time.perf_counter() - t0:.0f} s")
    conn = corpus.conn
    n = conn.execute("SELECT count(*) FROM record_vectors").fetchone()[0]
    print(f"{n} vectors of 512 floats in record_vectors; load average {os.getloadavg()[0]:.2f}")

    t0 = time.perf_counter()
    index = search_index(corpus)
    print(f"search cache built in {(time.perf_counter() - t0) * 1000:.0f} ms (once per enrichment change)")
    rng = np.random.default_rng(0)
    all_ids = [r[0] for r in conn.execute("SELECT id FROM records ORDER BY id")]
    picked = sorted(int(i) for i in rng.choice(len(all_ids), size=min(args.queries, len(all_ids)), replace=False))
    titles = [conn.execute("SELECT content_text FROM records WHERE id = ?", (all_ids[i],)).fetchone()[0]
              for i in picked]
    queries = [" ".join(t.split()[:8]) for t in titles]
    sources = sorted(index.spans)
    plan = [(q, sources[i % len(sources)]) for i, q in enumerate(queries)]
    qvecs = [index.embedder.transform([q])[0] for q, _ in plan]

    ours, ranking, embed = [], [], []
    for (q, source), qv in zip(plan, qvecs):
        t0 = time.perf_counter()
        corpus.search(q, source=source, limit=10)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rank(index, qv, source=source, limit=10)
        ranking.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        index.embedder.transform([q])
        embed.append(time.perf_counter() - t0)

    by_id = np.argsort(index.ids)
    matrix = np.ascontiguousarray(index.matrix[by_id])  # plain id order, as a naive copy would be
    scan = []
    for qv in qvecs:
        t0 = time.perf_counter()
        scores = matrix @ qv
        top = np.argpartition(-scores, 10)[:10]
        top[np.argsort(-scores[top])]
        scan.append(time.perf_counter() - t0)

    knn = []
    for qv in qvecs[: min(len(qvecs), 50)]:
        blob = qv.astype(np.float32).tobytes()
        t0 = time.perf_counter()
        conn.execute("SELECT record_id, distance FROM record_vectors WHERE embedding MATCH ? AND k = 10",
                     (blob,)).fetchall()
        knn.append(time.perf_counter() - t0)

    recalls = []
    for (q, source), qv in zip(plan, qvecs):
        ids, _, _ = rank(index, qv, source=source, limit=10)
        start, end = index.spans[source]
        scores = index.matrix[start:end] @ qv
        exact = index.ids[start:end][np.argsort(-scores, kind="stable")[:10]]
        exact_scores = np.sort(scores)[::-1][:10]
        # ties at the 10th score may be broken either way: count a hit by score, not id
        got = np.sort(index.matrix[np.isin(index.ids, ids)] @ qv)[::-1]
        recalls.append(np.mean(np.isclose(got[: len(exact_scores)], exact_scores, atol=1e-6))
                       if len(exact) else 1.0)

    rows = [("ours: corpus.search(source=S, limit=10), end to end", ours),
            ("ours: filtered exact ranking only", ranking),
            ("ours: query embedding only", embed),
            ("numpy brute-force scan, all vectors, top 10", scan),
            ("vec0 KNN (MATCH, k = 10), all vectors", knn)]
    for label, values in rows:
        print(f"{label:55s} p50 {pct(values, 50):8.2f} ms   p99 {pct(values, 99):8.2f} ms   (n={len(values)})")
    p50 = pct(ours, 50)
    print(f"ratios (p50): numpy scan / ours = {pct(scan, 50) / p50:.2f}x, vec0 KNN / ours = "
          f"{pct(knn, 50) / p50:.1f}x")
    print(f"recall@10 of ours vs an exact filtered scan: {np.mean(recalls):.4f}")
    print(f"sources: {', '.join(f'{s} {e - b}' for s, (b, e) in sorted(index.spans.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
