"""Benchmark: cluster 50,000 records (synthetic embeddings) and report time and quality.

Usage: ``python benchmarks/bench_clusters.py [--records 50000] [--topics 8]``

Builds a corpus of ``records`` records over ``topics`` topics, each topic made
of 6-12 sub-themes: a record's 512-d embedding is its sub-theme's direction
plus noise, L2-normalised, and its text is drawn from the sub-theme's words.
Prints the time of :func:`corpuskit.analysis.clusters.cluster_corpus` (the
issue's floor: 60 s), the time of an unchanged rerun (incremental: carried,
not re-fitted), the share of records clustered, the mean silhouette, and the
adjusted Rand index of the clusters against the planted sub-themes.
"""
from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def build(corpus, records: int, topics: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    conn = corpus.conn
    truth = {}
    per_topic = np.full(topics, records // topics)
    per_topic[: records % topics] += 1
    rid = 0
    with corpus.transaction():
        for t in range(topics):
            conn.execute("INSERT INTO topics(id, name, display_name, created_at) VALUES (?,?,?,?)",
                         (t + 1, f"topic-{t}", f"Topic {t}", "2025-01-01T00:00:00Z"))
            n_sub = int(rng.integers(6, 13))
            centres = rng.normal(size=(n_sub, 512)).astype(np.float32)
            centres /= np.linalg.norm(centres, axis=1, keepdims=True)
            vocab = [[f"t{t}s{s}w{w}" for w in range(30)] for s in range(n_sub)]
            subs = rng.integers(n_sub, size=per_topic[t])
            noise = rng.normal(0, 0.045, size=(per_topic[t], 512)).astype(np.float32)
            vecs = centres[subs] + noise
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            rows, enr, vrows = [], [], []
            for i in range(per_topic[t]):
                rid += 1
                s = int(subs[i])
                words = " ".join(rng.choice(vocab[s], size=10)) + " shared common words"
                ts = f"2025-01-{1 + rid % 28:02d}T12:00:00Z"
                rows.append((rid, "news", f"b{rid}", hashlib.sha1(str(rid).encode()).hexdigest(),
                             words.split()[0], words, ts, ts))
                enr.append((rid, 0.0, "neutral", t + 1, "enrich-1"))
                vrows.append((rid, vecs[i].tobytes()))
                truth[rid] = (t, s)
            conn.executemany("INSERT INTO records(id, source, source_id, content_hash, title, content_text, "
                             "published_at, captured_at) VALUES (?,?,?,?,?,?,?,?)", rows)
            conn.executemany("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                             "run_id) VALUES (?,?,?,?,?)", enr)
            conn.executemany("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)", vrows)
    return truth


def _cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50000)
    parser.add_argument("--topics", type=int, default=8)
    args = parser.parse_args(argv)
    from sklearn.metrics import adjusted_rand_score

    from corpuskit import open_corpus
    from corpuskit.analysis.clusters import cluster_corpus, latest_clusters

    with tempfile.TemporaryDirectory() as tmp:
        corpus = open_corpus(Path(tmp) / "bench.db")
        t0 = time.perf_counter()
        truth = build(corpus, args.records, args.topics)
        built = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), _cpu()
        summary = cluster_corpus(corpus, "analyse-1", seed=0)
        elapsed, cpu = time.perf_counter() - t0, _cpu() - c0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        t0 = time.perf_counter()
        again = cluster_corpus(corpus, "analyse-2", seed=0)
        rerun = time.perf_counter() - t0
        clusters = latest_clusters(corpus, limit=10_000)
        label = dict(corpus.conn.execute(
            "SELECT m.record_id, c.id FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id "
            "WHERE c.run_id = 'analyse-2'").fetchall())
        ids = sorted(truth)
        ari = adjusted_rand_score([hash(truth[i]) for i in ids], [label.get(i, -i) for i in ids])
        sil = float(np.mean([c["metadata"]["silhouetteScore"] for c in clusters]))
        corpus.close()
    rows = [("records", f"{args.records:,}"), ("topics", args.topics), ("build corpus (s)", f"{built:.1f}"),
            ("cluster_corpus (s)", f"{elapsed:.1f}"), ("cluster_corpus CPU (s)", f"{cpu:.1f}"),
            ("peak RSS, whole run (MiB)", f"{peak:.0f}"), ("floor (s)", "60"),
            ("unchanged rerun (s)", f"{rerun:.2f}"), ("rerun carried topics", again["carried"]),
            ("clusters", summary["clusters"]), ("records clustered", f"{summary['clustered'] / summary['records']:.1%}"),
            ("mean silhouette", f"{sil:.3f}"), ("ARI vs planted sub-themes", f"{ari:.3f}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0 if elapsed <= 60 else 1


if __name__ == "__main__":
    sys.exit(main())
