"""The LSA k-means floor under topic discovery: two partitions of a corpus into k topics, judged without labels.

Discovery (:func:`corpuskit.enrich.topics.discover_beats`) divides the records into ``k`` topics by NMF.
Plain LSA k-means (k-means over the first :data:`FLOOR_DIMENSIONS` components of the records' TF-IDF +
SVD embeddings, :func:`~corpuskit.enrich.topics.kmeans_classes`) is the classical short-text baseline,
and a floor: when it divides the corpus better, discovery uses its partition. A corpus has no gold
labels, so "better" is decided by internal criteria computed on the records alone (:data:`CRITERIA`:
silhouette, cohesion and separation, on the whole embedding and on its LSA components), as
:data:`FLOOR_CRITERION` says: by default the majority of them (``vote``), a tie keeping NMF. Each criterion is computed on a seeded sample of at most
:data:`CRITERION_SAMPLE` records, in float64 over unit-length rows, and rounded to
:data:`CRITERION_DECIMALS` places before the two partitions are compared (a tie keeps NMF), so the
choice is the same under every BLAS kernel.
"""
from __future__ import annotations

import numpy as np

from corpuskit.numerics import as64, rounded, unit_rows

#: embedding components LSA k-means reads (the TF-IDF + SVD embedder's largest first), as
#: :data:`corpuskit.enrich.topic_quality.LSA_DIMENSIONS`
FLOOR_DIMENSIONS = 100
#: records a criterion is computed on at most (a seeded sample): silhouette is quadratic in them
CRITERION_SAMPLE = 2000
CRITERION_DECIMALS = 4


def _sample(n: int, seed: int) -> np.ndarray:
    if n <= CRITERION_SAMPLE:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, CRITERION_SAMPLE, replace=False))


def _rows(vectors, labels, seed, dimensions=None):
    labels = np.asarray(labels)
    keep = np.flatnonzero(labels >= 0)
    keep = keep[_sample(len(keep), seed)]
    data = as64(vectors)[keep]
    if dimensions:
        data = data[:, :dimensions]
    return rounded(unit_rows(data)), labels[keep]


def _silhouette(vectors, labels, seed, dimensions=None) -> float:
    """Mean silhouette (cosine distance) of the sampled records: how much nearer each is to its own topic
    than to the next; -1 when fewer than two topics hold records."""
    data, labels = _rows(vectors, labels, seed, dimensions)
    classes = np.unique(labels)
    if len(classes) < 2 or len(classes) >= len(labels):
        return -1.0
    sims = data @ data.T
    distance = np.clip(1.0 - sims, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    member = labels[:, None] == classes[None, :]
    sums = distance @ member.astype(np.float64)
    counts = member.sum(axis=0).astype(np.float64)
    own = member.argmax(axis=1)
    own_count = counts[own]
    a = np.where(own_count > 1, sums[np.arange(len(labels)), own] / np.maximum(own_count - 1, 1), 0.0)
    other = sums / counts
    other[np.arange(len(labels)), own] = np.inf
    b = other.min(axis=1)
    s = np.where(own_count > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def _cohesion(vectors, labels, seed, dimensions=None) -> float:
    """Mean cosine of each sampled record to its topic's centroid (the sampled members' mean)."""
    data, labels = _rows(vectors, labels, seed, dimensions)
    if not len(labels):
        return 0.0
    total = 0.0
    for c in np.unique(labels):
        rows = data[labels == c]
        centre = unit_rows(rows.mean(axis=0))
        total += float((rows * centre).sum())
    return total / len(labels)


def _separation(vectors, labels, seed, dimensions=None) -> float:
    """Cohesion less the mean cosine of each sampled record to the nearest other topic's centroid."""
    data, labels = _rows(vectors, labels, seed, dimensions)
    classes = np.unique(labels)
    if len(classes) < 2:
        return -1.0
    centres = unit_rows(np.vstack([data[labels == c].mean(axis=0) for c in classes]))
    sims = data @ centres.T
    own = np.searchsorted(classes, labels)
    mine = sims[np.arange(len(labels)), own]
    sims[np.arange(len(labels)), own] = -np.inf
    return float((mine - sims.max(axis=1)).mean())


#: internal criteria (higher is better) a partition of the records can be judged by, each
#: ``f(vectors, labels, seed) -> float``
CRITERIA = {
    "silhouette": lambda v, lab, seed: _silhouette(v, lab, seed),
    "silhouette-lsa": lambda v, lab, seed: _silhouette(v, lab, seed, FLOOR_DIMENSIONS),
    "cohesion": lambda v, lab, seed: _cohesion(v, lab, seed),
    "cohesion-lsa": lambda v, lab, seed: _cohesion(v, lab, seed, FLOOR_DIMENSIONS),
    "separation": lambda v, lab, seed: _separation(v, lab, seed),
    "separation-lsa": lambda v, lab, seed: _separation(v, lab, seed, FLOOR_DIMENSIONS),
}
#: the criteria the floor can decide by, in the order a tie between them is broken: ``vote``, the
#: majority of :data:`CRITERIA` (a partition's score is how many of them prefer it), then each alone
DECIDERS = ("vote", *CRITERIA)
#: the criterion the floor decides by (chosen by leaving one labelled set out:
#: ``benchmarks/bench_topics.py --lodo``)
FLOOR_CRITERION = "vote"


def compare(vectors, first, second, seed: int = 0) -> dict:
    """``{decider: [first's score, second's]}`` for every one of :data:`DECIDERS`: each criterion of the
    two partitions ``first`` and ``second`` of the records embedded as ``vectors`` (rounded, see
    :func:`criterion_score`), and ``vote``: how many criteria score each higher."""
    out = {c: [criterion_score(c, vectors, first, seed), criterion_score(c, vectors, second, seed)] for c in CRITERIA}
    out["vote"] = [sum(a > b for a, b in out.values()), sum(b > a for a, b in out.values())]
    return {c: out[c] for c in DECIDERS}


def criterion_score(name: str, vectors, labels, seed: int = 0) -> float:
    """Criterion ``name`` (:data:`CRITERIA`) of the partition ``labels`` (-1: no topic, left out) of the
    records embedded as ``vectors``, rounded to :data:`CRITERION_DECIMALS` places."""
    return round(float(CRITERIA[name](vectors, labels, seed)), CRITERION_DECIMALS)
