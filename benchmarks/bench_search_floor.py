"""Search relevance: the distribution of cosine scores, and what a relevance floor counts.

``totalMatched`` counts the records whose cosine with the query reaches
``corpuskit.search.RELEVANCE_FLOOR``. This prints the measurements the floor was chosen from,
for an enriched corpus:

- how many records score above each candidate floor for ordinary queries and for nonsense
  queries (word salads from a vocabulary unrelated to the corpus, which should match nothing);
- on the demo corpus (every record carries its generating theme), the precision and recall of
  "score >= floor" against the query's theme;
- on a real corpus (no labels), the share of records above the floor that contain a query word.

    PYTHONPATH=$PWD python benchmarks/bench_search_floor.py DB [DB ...]

Each DB must be enriched (``corpuskit enrich --db DB``); the demo is recognised by its labels.
"""
from __future__ import annotations

import json
import re
import sys

import numpy as np

FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)
DEMO_QUERIES = {  # query -> the demo theme it asks for
    "vaccine schedule and booster shots": "vaccines", "interest rates and the central bank": "rates",
    "rocket launch delayed": "launches", "gene therapy approval": "gene",
    "ransomware attack on hospitals": "ransomware", "housing market prices": "housing",
    "offshore wind farm": "offshore-wind", "battery storage for the grid": "storage",
    "new phone release": "phones", "open weights language model": "open-weights",
    "crypto exchange bitcoin": "crypto", "space telescope images": "telescopes",
}
REAL_QUERIES = ("rust programming language", "bitcoin price crash", "self driving cars",
                "apple iphone release", "startup funding round", "python web framework",
                "climate change study", "facebook privacy", "mars mission nasa", "vaccine research",
                "machine learning model", "encryption and the fbi")
NONSENSE = ("ukulele marmalade cathedral", "gondola pumpernickel rhubarb", "harpsichord walrus tapestry",
            "porcupine saxophone lagoon", "trombone quiche meadow", "kazoo flamingo parchment")


def scores_for(index, query: str) -> np.ndarray:
    vector = index.embedder.transform([query])[0].astype(np.float32)
    return index.matrix @ vector if vector.any() else np.zeros(len(index.ids), np.float32)


def demo_labels(conn, ids: np.ndarray) -> np.ndarray | None:
    themes = {}
    for rid, meta in conn.execute("SELECT id, metadata FROM records"):
        demo = json.loads(meta).get("demo")
        if not isinstance(demo, dict):
            return None
        themes[rid] = demo.get("theme")
    return np.array([themes.get(int(i)) for i in ids], dtype=object)


def report(path: str) -> None:
    from corpuskit import open_corpus
    from corpuskit.search import RELEVANCE_FLOOR, search_index

    corpus = open_corpus(path)
    index = search_index(corpus)
    n = len(index.ids)
    labels = demo_labels(corpus.conn, index.ids)
    queries = list(DEMO_QUERIES) if labels is not None else list(REAL_QUERIES)
    print(f"\n{path}: {n:,} records with vectors ({'demo, labelled' if labels is not None else 'real, unlabelled'})"
          f"; floor in use {RELEVANCE_FLOOR}")
    real = np.array([scores_for(index, q) for q in queries])
    null = np.array([scores_for(index, q) for q in NONSENSE])
    print("score percentiles, ordinary queries: "
          + ", ".join(f"p{p} {np.percentile(real, p):.3f}" for p in (50, 90, 99, 99.9)))
    print("score percentiles, nonsense queries: "
          + ", ".join(f"p{p} {np.percentile(null, p):.3f}" for p in (50, 90, 99, 99.9))
          + f", max {null.max():.3f}")
    texts = None
    if labels is None:
        rows = dict(corpus.conn.execute("SELECT id, lower(title || ' ' || content_text) FROM records"))
        texts = [rows[int(i)] for i in index.ids]
    header = "floor  matched/query  nonsense/query"
    header += "  precision  recall" if labels is not None else "  has-a-query-word"
    print(header)
    for floor in FLOORS:
        above = real > floor if floor == 0 else real >= floor
        line = f"{floor:5.2f}  {above.sum(axis=1).mean():13,.0f}  " \
               f"{(null > floor if floor == 0 else null >= floor).sum(axis=1).mean():14,.1f}"
        if labels is not None:
            precision, recall = [], []
            for k, query in enumerate(queries):
                relevant = labels == DEMO_QUERIES[query]
                hits = above[k]
                precision.append((hits & relevant).sum() / max(hits.sum(), 1))
                recall.append((hits & relevant).sum() / max(relevant.sum(), 1))
            line += f"  {np.mean(precision):9.2f}  {np.mean(recall):6.2f}"
        else:
            shares = []
            for k, query in enumerate(queries):
                words = [w for w in re.findall(r"[a-z]+", query) if len(w) > 3 or w in ("fbi", "nasa")]
                hits = np.flatnonzero(above[k])
                if len(hits):
                    shares.append(np.mean([any(w in texts[i] for w in words) for i in hits]))
            line += f"  {np.mean(shares) if shares else float('nan'):16.2f}"
        print(line)
    corpus.close()


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)


if __name__ == "__main__":
    main()
