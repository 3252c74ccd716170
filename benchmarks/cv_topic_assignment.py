"""Choose the discovered-topic assigner's settings by cross-validation on unlabelled criteria only.

Usage: ``python benchmarks/cv_topic_assignment.py [--cache /tmp/corpuskit-bench-topics] [--only demo,hn,reddit]
[--nmi]``

Reads the enriched copies ``bench_topics.py`` leaves in ``--cache`` (run that first). For each corpus it
re-runs topic discovery with seeds 0, 1 and 2 (the stored run is seed 0) and, for every assigner
setting of the grid (cut-off ``min_confidence``, keyword weight ``w_kw`` with the similarity weight
``1 - w_kw``, and ``keep``: whether a record keeps the topic discovery put it in), prints

- **coverage**: the share of records given a topic;
- **held-out NPMI**: records split in two seeded folds; each topic's top-10 c-TF-IDF terms are taken from
  its records in one fold and scored by NPMI over the texts of the other (both ways, mean over topics),
  with its standard error;
- **stability**: the mean pairwise NMI between the primary topics the three seeds give.

The rule (no labels): among the settings whose held-out NPMI is within one standard error of the best
(the one-standard-error rule of cross-validation) and whose stability is within one standard error of
the best, the one with the highest coverage; for one default on every corpus, the setting eligible on
each with the highest mean coverage (printed last). ``--nmi`` then prints the NMI of the chosen setting (and of
the current one) against the corpus's labels (subreddit, the demo's planted beat), measured once.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CUTS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
KEYWORD_WEIGHTS = (0.0, 0.15, 0.3, 0.5)
SEEDS = (0, 1, 2)


def load(path: Path):
    """Texts, subreddits, vectors and reference labels of an enriched corpus, in id order."""
    from corpuskit import open_corpus
    from corpuskit.analysis.clusters import read_vectors
    from corpuskit.enrich.base import record_text

    corpus = open_corpus(path)
    conn = corpus.conn
    rows = conn.execute("SELECT r.id, r.title, r.content_text, r.subreddit, r.metadata FROM records r "
                        "JOIN enrichment e ON e.record_id = r.id ORDER BY r.id").fetchall()
    ids, vectors = read_vectors(conn, [r[0] for r in rows], scan_all=True)
    by_id = {r[0]: r for r in rows}
    rows = [by_id[i] for i in ids.tolist()]
    texts = [record_text(r[1], r[2]) for r in rows]
    subs = [r[3] for r in rows]
    if any(subs):
        truth = subs
    else:
        truth = [str((json.loads(r[4] or "{}").get("demo") or {}).get("beat")) for r in rows]
    corpus.close()
    return texts, subs, np.asarray(vectors, dtype=np.float32), truth


def primaries(conf, labels, cut, keep):
    best = conf.argmax(axis=1)
    out = np.where(conf.max(axis=1) >= cut, best, -1)
    if keep:
        out = np.where(labels >= 0, labels, out)
    return out


def held_out_npmi(texts, primary, folds, exclude):
    """Per topic and direction, the NPMI over one fold of the terms its records in the other fold give."""
    from corpuskit.enrich.topic_quality import npmi_coherence
    from corpuskit.enrich.topic_terms import class_tfidf_terms

    scores = []
    for a, b in ((0, 1), (1, 0)):
        in_a = np.flatnonzero(folds == a)
        terms = class_tfidf_terms([texts[i] for i in in_a], primary[in_a], top_n=10, exclude=exclude)
        lists = [t for _, t in sorted(terms.items()) if len(t) >= 2]
        scores.extend(npmi_coherence(lists, [texts[i] for i in np.flatnonzero(folds == b)]))
    return float(np.mean(scores)), float(np.std(scores, ddof=1) / np.sqrt(len(scores)))


def run(name, path, show_nmi):
    from sklearn.metrics import normalized_mutual_info_score as nmi

    from corpuskit.enrich.topic_terms import format_prefixes
    from corpuskit.enrich.topics import DISCOVERED_ASSIGNMENT, BeatAssigner, discover_beats

    texts, subs, vectors, truth = load(path)
    n = len(texts)
    exclude = {w for f in format_prefixes(texts) for w in f.split()}
    folds = np.random.default_rng(0).permutation(np.arange(n) % 2)
    per_seed = []
    for seed in SEEDS:
        beats, centroids, labels = discover_beats(texts, vectors, seed=seed)
        assigner = BeatAssigner(**DISCOVERED_ASSIGNMENT).fit(beats, [], [], None, centroids=centroids)
        kw, sub = assigner.evidence(texts, subs)
        sim = np.clip(vectors @ assigner.centroids_.T / assigner.similarity_full, 0.0, 1.0)
        per_seed.append((kw, sim, labels, len(beats)))
        print(f"{name}: seed {seed}: {len(beats)} topics, discovery leaves {np.mean(labels < 0):.3f} unplaced",
              flush=True)
    table = []
    for cut, w_kw, keep in itertools.product(CUTS, KEYWORD_WEIGHTS, (False, True)):
        prims = [primaries(w_kw * kw + (1 - w_kw) * sim, labels, cut, keep) for kw, sim, labels, _ in per_seed]
        coverage = float(np.mean(prims[0] >= 0))
        npmi, se = held_out_npmi(texts, prims[0], folds, exclude)
        pairs = [nmi(prims[i], prims[j]) for i, j in itertools.combinations(range(len(prims)), 2)]
        table.append({"cut": cut, "w_kw": w_kw, "keep": keep, "coverage": coverage, "npmi": npmi, "se": se,
                      "stability": float(np.mean(pairs)), "stability_se": float(np.std(pairs) / np.sqrt(len(pairs))),
                      "primary": prims[0]})
    best_npmi = max(table, key=lambda r: r["npmi"])
    best_stab = max(table, key=lambda r: r["stability"])
    eligible = [r for r in table if r["npmi"] >= best_npmi["npmi"] - best_npmi["se"]
                and r["stability"] >= best_stab["stability"] - max(best_stab["stability_se"], 0.005)]
    chosen = max(eligible, key=lambda r: (r["coverage"], r["npmi"]))
    print(f"{name}: {n} records | best held-out NPMI {best_npmi['npmi']:.3f} (se {best_npmi['se']:.3f}) | "
          f"best stability {best_stab['stability']:.3f}")
    print(f"{'cut':>5} {'w_kw':>5} {'keep':>5} {'coverage':>9} {'NPMI':>7} {'se':>6} {'stability':>9}  eligible")
    for r in table:
        print(f"{r['cut']:>5} {r['w_kw']:>5} {str(r['keep']):>5} {r['coverage']:>9.3f} {r['npmi']:>7.3f} "
              f"{r['se']:>6.3f} {r['stability']:>9.3f}  {'*' if r in eligible else ''}"
              f"{' <- chosen' if r is chosen else ''}")
    if show_nmi:
        current = next(r for r in table if r["cut"] == DISCOVERED_ASSIGNMENT["min_confidence"]
                       and r["w_kw"] == DISCOVERED_ASSIGNMENT["weights"][0] and not r["keep"])
        for label, r in (("current", current), ("chosen", chosen)):
            print(f"{name}: NMI of the {label} setting (cut {r['cut']}, w_kw {r['w_kw']}, keep {r['keep']}): "
                  f"{nmi(truth, r['primary']):.3f}")
    return chosen, [(r["cut"], r["w_kw"], r["keep"], r["coverage"]) for r in eligible]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default="/tmp/corpuskit-bench-topics")
    parser.add_argument("--only", default="demo,hn,reddit")
    parser.add_argument("--nmi", action="store_true", help="measure the chosen setting's NMI once")
    args = parser.parse_args(argv)
    eligible = []
    for name in args.only.split(","):
        path = Path(args.cache) / f"{name}.run.db"
        if not path.exists():
            print(f"{name}: {path} missing (run benchmarks/bench_topics.py --cache {args.cache} first)")
            continue
        eligible.append(run(name, path, args.nmi)[1])
    if eligible:  # one default for every corpus: eligible on each, the highest mean coverage
        common = set.intersection(*[{r[:3] for r in rows} for rows in eligible])
        cover = {key: np.mean([r[3] for rows in eligible for r in rows if r[:3] == key]) for key in common}
        for key in sorted(common, key=lambda k: (-cover[k], k)):
            print(f"eligible on every corpus: cut {key[0]}, w_kw {key[1]}, keep {key[2]}: mean coverage "
                  f"{cover[key]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
