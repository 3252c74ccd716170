"""Benchmark: topic quality on the demo corpus and the two real corpora, beside TF-IDF + k-means.

Usage: ``python benchmarks/bench_topics.py [--records 6000] [--only demo,hn,reddit] [--show]
[--reuse] [--cache /tmp/corpuskit-bench-topics]``

For each corpus: import it (cached under ``--cache`` between runs), enrich it
with no beat file and no ``n_topics`` (topics discovered from the text; the
demo is also run with its own beat file), then print, for corpuskit's topics
and for plain TF-IDF + k-means with the same k: topic diversity (unique terms
among every topic's top 10), mean NPMI coherence of each topic's top 10 terms
(document co-occurrence over the corpus), mean topic assignments per record,
outlier share (records with no topic), debris top terms (URL parts, HTML
entities) and, where the records carry a subreddit or the demo's planted beat,
the NMI of the primary topic against it, and for discovery the grid of k behind the chosen number
of topics (sample NPMI and largest topic share per k) and the seconds spent fitting. Then how well secondary assignments
are supported by the text, by confidence band (the figure behind the stated
secondary threshold). ``--show`` also runs the clusters step and prints every
topic's label, size, terms and an example, and the 20 largest clusters.
Real files are skipped when ``../shared/datasets`` is absent.

``--lodo [--lodo-records 4000]``: instead, leave each labelled set out in turn (SearchSnippets,
Biomedical, the Reddit file's subreddits, the demo's planted beats), choose the topic settings on the
others with k = the gold classes, and print every set as left out, the worst, the mean, plain LSA
k-means on each set and the reference figures (:mod:`topic_lodo`), then the LSA k-means floor left
one set out at a time (the internal criterion chosen on the others, the floored pipeline's NMI);
``--floor-only`` prints the floor's table alone.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CORPUSKIT_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
FILES = {"hn": SHARED / "hacker_news_2015_2016.csv", "reddit": SHARED / "reddit_2019_science_technology.csv"}


def imported(name: str, cache: Path, records: int):
    """Path of a cached corpus holding the records only (built on first use)."""
    from corpuskit import open_corpus

    path = cache / f"{name}-{records if name.startswith('demo') else 'all'}.imported.db"
    if path.exists():
        return path
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    corpus = open_corpus(tmp)
    if name.startswith("demo"):
        from corpuskit.demo import build_demo

        build_demo(corpus, seed=7, records=records, days=60, run_stages=False, progress=False)
    else:
        corpus.import_file(FILES[name])
    corpus.close()
    tmp.rename(path)
    return path


def enriched(name: str, cache: Path, records: int, reuse: bool):
    """A fresh copy of the imported corpus, enriched (topics discovered unless the demo's beats)."""
    from corpuskit import open_corpus

    src = imported(name.removesuffix("-beats"), cache, records)
    path = cache / f"{name}.run.db"
    if reuse and path.exists():
        return open_corpus(path), None
    for p in cache.glob(f"{name}.run.db*"):
        p.unlink()
    shutil.copy(src, path)
    corpus = open_corpus(path)
    if name == "demo":  # the demo without its beat file: discovery
        corpus.set_meta("beats", None)
    t0 = time.perf_counter()
    summary = corpus.enrich(progress=False)
    return corpus, (time.perf_counter() - t0, summary["fitSeconds"])


def truth_labels(corpus, name):
    """Per enriched record (by id), the reference label for NMI, or None when there is none."""
    if name.startswith("demo"):
        rows = corpus.conn.execute("SELECT r.id, r.metadata FROM records r JOIN enrichment e "
                                   "ON e.record_id = r.id ORDER BY r.id").fetchall()
        return [str((json.loads(m).get("demo") or {}).get("beat")) for _, m in rows]
    rows = corpus.conn.execute("SELECT r.subreddit FROM records r JOIN enrichment e ON e.record_id = r.id "
                               "ORDER BY r.id").fetchall()
    subs = [r[0] for r in rows]
    return subs if any(subs) else None


def secondary_support(corpus, terms_by_id, texts_by_id, bands):
    """Per confidence band: secondary assignments, and the share whose record holds a term of the topic."""
    from corpuskit.enrich.topic_quality import document_terms

    rows = corpus.conn.execute("SELECT record_id, topic_id, confidence FROM topic_assignments "
                               "ORDER BY record_id, confidence DESC, topic_id").fetchall()
    seen, out = set(), {b: [0, 0] for b in bands}
    for rid, tid, conf in rows:
        if rid not in seen:
            seen.add(rid)  # the primary
            continue
        found = document_terms([texts_by_id[rid]], terms_by_id.get(tid, []))[0]
        for lo, hi in bands:
            if lo <= conf < hi:
                out[(lo, hi)][0] += 1
                out[(lo, hi)][1] += bool(found)
    return out


def confidence_table(corpus, bands):
    """Best and second-best topic confidence of every record (recomputed with the saved assigner), by band:
    ``{band: [best count, best held, second count, second held]}`` where *held* counts records holding
    one of that topic's top-10 terms (the figure behind ``min_confidence`` and ``secondary_confidence``)."""
    from corpuskit.analysis.clusters import read_vectors
    from corpuskit.enrich.base import record_text
    from corpuskit.enrich.topics import beats_from_rows
    from corpuskit.enrich.topic_quality import document_terms
    from corpuskit.enrich.topics import BeatAssigner

    conn = corpus.conn
    state = conn.execute("SELECT state, settings FROM models WHERE name = 'topics'").fetchone()
    names, centroids = BeatAssigner.centroids_from_state(bytes(state[0]))
    settings = json.loads(state[1])
    rows = {r["name"]: r for r in conn.execute("SELECT * FROM topics")}
    beats = beats_from_rows([rows[n] for n in names])
    assigner = BeatAssigner(min_confidence=settings["min_confidence"], weights=settings["weights"])
    assigner.fit(beats, [], [], None, centroids=centroids)
    recs = conn.execute("SELECT id, title, content_text, subreddit FROM records ORDER BY id").fetchall()
    ids, vectors = read_vectors(conn, [r[0] for r in recs], scan_all=True)
    by_id = {r[0]: r for r in recs}
    texts = [record_text(by_id[i][1], by_id[i][2]) for i in ids.tolist()]
    conf = assigner.confidence(texts, [by_id[i][3] for i in ids.tolist()], vectors)
    order = np.argsort(-conf, axis=1, kind="stable")
    out = {b: [0, 0, 0, 0] for b in bands}
    all_terms = sorted({t for b in beats for t in b.keywords[:10]})
    found = document_terms(texts, all_terms)
    for i in range(len(texts)):
        for rank in range(min(2, conf.shape[1])):
            b = order[i, rank]
            held = bool(found[i] & set(beats[b].keywords[:10]))
            for lo, hi in bands:
                if lo <= conf[i, b] < hi:
                    out[(lo, hi)][2 * rank] += 1
                    out[(lo, hi)][2 * rank + 1] += held
    return out, settings


def evaluate(name: str, corpus, seconds, show: bool):
    from sklearn.metrics import normalized_mutual_info_score as nmi

    from corpuskit.enrich.topic_quality import (corpus_topic_quality, is_debris, kmeans_baseline,
                                                lsa_baseline, npmi_coherence, topic_diversity)

    q = corpus_topic_quality(corpus)
    rows = corpus.conn.execute("SELECT r.id, r.title, r.content_text, e.topic_id FROM records r "
                               "JOIN enrichment e ON e.record_id = r.id ORDER BY r.id").fetchall()
    texts = [f"{r[1] or ''} {r[2] or ''}" for r in rows]
    primary = [r[3] if r[3] is not None else -1 for r in rows]
    truth = truth_labels(corpus, name)
    k = max(q["topics"], 2)
    t0 = time.perf_counter()
    km_labels, km_terms = kmeans_baseline(texts, k, seed=0)
    km_seconds = time.perf_counter() - t0
    km_coh = npmi_coherence(km_terms, texts)
    t0 = time.perf_counter()
    lsa_labels, lsa_terms = lsa_baseline(texts, k, seed=0)
    lsa_seconds = time.perf_counter() - t0
    lsa_coh = npmi_coherence(lsa_terms, texts)
    table = [
        ("topics (k)", q["topics"], k, k),
        ("diversity (top 10)", f"{q['diversity']:.3f}", f"{topic_diversity(km_terms):.3f}",
         f"{topic_diversity(lsa_terms):.3f}"),
        ("NPMI coherence (top 10)", f"{q['coherence']:.3f}", f"{np.mean(km_coh):.3f}", f"{np.mean(lsa_coh):.3f}"),
        ("assignments per record", f"{q['assignmentsPerRecord']:.2f}", "1.00", "1.00"),
        ("outlier share", f"{q['outlierShare']:.3f}", "0.000", "0.000"),
        ("debris top terms", len(q["debrisTerms"]), sum(is_debris(t) for ts in km_terms for t in ts),
         sum(is_debris(t) for ts in lsa_terms for t in ts)),
    ]
    if truth is not None:
        ours = nmi(truth, primary)
        table.append(("NMI primary vs " + ("planted beat" if name.startswith("demo") else "subreddit"),
                      f"{ours:.3f}", f"{nmi(truth, km_labels):.3f}", f"{nmi(truth, lsa_labels):.3f}"))
    if seconds is not None:
        table.append(("enrich seconds (whole stage)", f"{seconds[0]:.1f}", f"{km_seconds:.1f} (k-means)",
                      f"{lsa_seconds:.1f} (LSA+k-means)"))
        table.append(("  of which fitting embedder + topics", f"{seconds[1]:.1f}", "", ""))
    print(f"\n== {name}: {q['records']:,} records ==")
    discovery = corpus.get_meta("topics.discovery")
    if discovery and not name.endswith("-beats"):
        grid = ", ".join(f"{k}: {npmi:+.3f}/{share:.2f}" for k, npmi, share in discovery.get("grid") or [])
        print(f"discovery: k chosen from the grid [k: sample NPMI/largest topic share] {grid or '(none)'} "
              f"-> NMF topics {discovery['k']} | merged groups {discovery['merged']} | dissolved "
              f"{discovery['dissolved']} | topics kept {discovery['topics']}")
    width = max(len(r[0]) for r in table)
    print(f"{'':<{width}}  {'corpuskit':>12}  {'tfidf+kmeans':>14}  {'lsa100+kmeans':>18}")
    for label, a, b, c in table:
        print(f"{label:<{width}}  {str(a):>12}  {str(b):>14}  {str(c):>18}")
    if name == "demo-beats":
        from corpuskit.enrich.quality import demo_quality

        dq = demo_quality(corpus)
        print(f"demo primary-topic accuracy {dq['topicAccuracy']:.3f} (on-beat {dq['onBeatAccuracy']:.3f}, "
              f"off-beat left untopiced {dq['offBeatAccuracy']:.3f})")
    if q["debrisTerms"]:
        print("debris terms:", ", ".join(q["debrisTerms"][:20]))
    topic_rows = corpus.conn.execute("SELECT id, name, keywords FROM topics WHERE active = 1").fetchall()
    terms_by_id = {tid: json.loads(kw or "[]")[:10] for tid, _, kw in topic_rows}
    texts_by_id = {r[0]: t for r, t in zip(rows, texts)}
    bands = [(0.0, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (0.6, 1.01)]
    support = secondary_support(corpus, terms_by_id, texts_by_id, bands)
    print("stored secondary assignments by confidence: band, count, share whose record holds one of the "
          "topic's top-10 terms")
    for (lo, hi), (count, held) in support.items():
        if count:
            print(f"  [{lo:.1f}, {min(hi, 1.0):.1f})  {count:>6}  {held / count:.3f}")
    bands = [(x / 20, (x + 1) / 20 if x < 19 else 1.01) for x in range(20)]
    table, settings = confidence_table(corpus, bands)
    print(f"every record's best and second-best topic by confidence (assigner: min_confidence "
          f"{settings['min_confidence']}, secondary {settings.get('secondary_confidence')}): band, best n, "
          "best share holding a topic term, second n, second share")
    for (lo, hi), (n1, h1, n2, h2) in table.items():
        if n1 or n2:
            print(f"  [{lo:.2f}, {min(hi, 1.0):.2f})  {n1:>6}  {h1 / max(n1, 1):.3f}  {n2:>6}  {h2 / max(n2, 1):.3f}")
    if show:
        show_topics(corpus, texts_by_id)
        print("k-means baseline terms:")
        for t in km_terms:
            print("   ", ", ".join(t))


def show_topics(corpus, texts_by_id):
    conn = corpus.conn
    print("topics (label | size | top terms | example):")
    for tid, name, display, kw in conn.execute(
            "SELECT t.id, t.name, t.display_name, t.keywords FROM topics t WHERE active = 1 ORDER BY id"):
        size = conn.execute("SELECT count(*) FROM enrichment WHERE topic_id = ?", (tid,)).fetchone()[0]
        ex = conn.execute("SELECT record_id FROM topic_assignments WHERE topic_id = ? "
                          "ORDER BY confidence DESC, record_id LIMIT 1", (tid,)).fetchone()
        example = texts_by_id.get(ex[0], "")[:100] if ex else ""
        print(f"  {display} [{name}] | {size} | {', '.join(json.loads(kw)[:10])} | {example}")
    from corpuskit.analysis.clusters import latest_clusters

    corpus.analyse(progress=False, steps=["clusters"])
    print("20 largest clusters (topic | size | label | terms):")
    for c in latest_clusters(corpus, limit=20):
        print(f"  {c['topic']} | {c['recordCount']} | {c['summaryLabel'][:80]} | {', '.join(c['topTerms'][:6])}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=6000, help="demo corpus size")
    parser.add_argument("--only", default="demo-beats,demo,hn,reddit")
    parser.add_argument("--cache", default=os.environ.get("CORPUSKIT_BENCH_CACHE", "/tmp/corpuskit-bench-topics"))
    parser.add_argument("--reuse", action="store_true", help="reuse the enriched copies of a previous run")
    parser.add_argument("--show", action="store_true", help="print topics, examples and the 20 largest clusters")
    parser.add_argument("--lodo", action="store_true",
                        help="leave one labelled set out: choose the topic settings on the others, score the one left out")
    parser.add_argument("--floor-only", action="store_true",
                        help="with --lodo, only the LSA k-means floor's table (criteria, floored pipeline)")
    parser.add_argument("--lodo-records", type=int, default=4000,
                        help="records sampled (seeded) from each labelled set for --lodo")
    args = parser.parse_args(argv)
    if args.lodo:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from topic_lodo import run

        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)")
        run(SHARED, args.lodo_records, floor_only=args.floor_only)
        return 0
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)")
    for name in args.only.split(","):
        if name in FILES and not FILES[name].exists():
            print(f"\n== {name}: skipped, {FILES[name]} not present ==")
            continue
        corpus, seconds = enriched(name, cache, args.records, args.reuse)
        try:
            evaluate(name, corpus, seconds, args.show)
        finally:
            corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
