"""Learn the entity CRF's word clusters from unlabelled public text (no labels read, no download).

Usage::

    python tools/build_word_clusters.py /path/to/shared/datasets --out FOLDER
        [--dim 64] [--fine 256] [--coarse 32] [--min-count 3] [--max-words 30000]

Reads the unlabelled texts of the shared folder: the Hacker News and Reddit titles, the SemEval
tweet texts (their sentiment labels are ignored) and the Spanish news tweets. Each text is cut by
the CRF's own tokenizer (:func:`corpuskit.enrich.crf.tokenize`) and lower-cased, a hashtag's ``#``
dropped; links, handles and tokens without a letter are skipped. The ``--max-words`` most frequent
words seen at least ``--min-count`` times (ties by the word) get a vector: the positive pointwise
mutual information of their co-occurrences within two tokens, reduced by a truncated SVD to
``--dim`` dimensions (seeded) and scaled to unit length. k-means (seeded, ``n_init=1``) then groups
the vectors twice, into ``--fine`` and into ``--coarse`` clusters. The output,
``word_clusters.tsv``, holds ``word TAB fine TAB coarse`` lines sorted by word, and the CRF reads
each token's two cluster ids as features (:class:`corpuskit.enrich.crf.Featurizer`).

Same inputs, same file: every step is seeded and sorted.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from corpuskit.enrich.crf import CLUSTERS_FILE, tokenize

WINDOW = 2
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")  # the SemEval files write "\u2019" as text


def unlabelled_texts(folder: Path):
    """The texts of the shared folder's unlabelled corpora (labels are never read)."""
    csv.field_size_limit(10_000_000)
    for name in ("hacker_news_2015_2016.csv", "reddit_2019_science_technology.csv"):
        path = folder / name
        if path.exists():
            with path.open(encoding="utf-8", newline="") as f:
                for row in csv.DictReader(f):
                    yield row.get("title") or ""
    for path in sorted((folder / "semeval_sentiment").glob("twitter-*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) >= 3:
                yield _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), parts[2])
    for path in sorted((folder / "nonenglish" / "nonen_es_newstweets").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line).get("text") or ""


def words_of(text: str) -> list[str | None]:
    """Lower-case words of a text; None where a token is skipped (it still separates words)."""
    out = []
    for _, _, tok in tokenize(text):
        if tok[0] == "@" or tok.lower().startswith(("http", "www.")) or not any(c.isalpha() for c in tok):
            out.append(None)
        else:
            out.append(tok.lstrip("#").lower())
    return out


def cluster_words(texts, dim=64, fine=256, coarse=32, min_count=3, max_words=30_000, seed=0):
    """``{word: (fine id, coarse id)}`` learned from ``texts`` (see the module docstring)."""
    from scipy import sparse
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD

    docs = [words_of(t) for t in texts]
    counts = Counter(w for d in docs for w in d if w)
    vocab = sorted((w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w))[:max_words]
    index = {w: i for i, w in enumerate(vocab)}
    pairs = Counter()
    for d in docs:
        ids = [index.get(w) if w else None for w in d]
        for i, a in enumerate(ids):
            if a is None:
                continue
            for j in range(i + 1, min(len(ids), i + 1 + WINDOW)):
                b = ids[j]
                if b is not None:
                    pairs[(a, b)] += 1
                    pairs[(b, a)] += 1
    keys = sorted(pairs)
    rows = np.array([k[0] for k in keys]), np.array([k[1] for k in keys])
    values = np.array([pairs[k] for k in keys], dtype=float)
    n = len(vocab)
    matrix = sparse.csr_matrix((values, rows), shape=(n, n))
    total = values.sum()
    row = np.asarray(matrix.sum(axis=1)).ravel()
    col = np.asarray(matrix.sum(axis=0)).ravel() ** 0.75  # context smoothing (Levy et al. 2015)
    col_share = col / col.sum()
    coo = matrix.tocoo()
    pmi = np.log((coo.data / total) / ((row[coo.row] / total) * col_share[coo.col]))
    keep = pmi > 0
    ppmi = sparse.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=(n, n))
    vectors = TruncatedSVD(n_components=dim, algorithm="randomized", n_iter=7, random_state=seed).fit_transform(ppmi)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms > 0, norms, 1.0)
    fine_ids = KMeans(n_clusters=fine, n_init=1, random_state=seed).fit_predict(vectors)
    coarse_ids = KMeans(n_clusters=coarse, n_init=1, random_state=seed).fit_predict(vectors)
    return {w: (int(fine_ids[i]), int(coarse_ids[i])) for i, w in enumerate(vocab)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="the shared datasets folder")
    parser.add_argument("--out", required=True, help="a folder outside the package: the inputs' terms allow research and testing only")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--fine", type=int, default=256)
    parser.add_argument("--coarse", type=int, default=32)
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--max-words", type=int, default=30_000)
    args = parser.parse_args(argv)
    texts = list(unlabelled_texts(Path(args.data)))
    print(f"{len(texts)} unlabelled texts")
    clusters = cluster_words(texts, args.dim, args.fine, args.coarse, args.min_count, args.max_words)
    out = Path(args.out) / CLUSTERS_FILE
    out.write_text("".join(f"{w}\t{f}\t{c}\n" for w, (f, c) in sorted(clusters.items())), encoding="utf-8")
    print(f"wrote {out}: {len(clusters)} words, {out.stat().st_size / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
