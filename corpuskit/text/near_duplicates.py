"""Near-duplicate texts: copy-paste campaigns and floods of one post with small edits.

Two texts are near duplicates when the sets of their word shingles (``SHINGLE``
consecutive terms of :func:`corpuskit.text.term_tokens`, with digits taken out of
every word so "exceeds199" and "exceeds 200" read alike) overlap by Jaccard at
least ``JACCARD`` and they share ``MIN_SHARED`` shingles (or have the same ones). Candidate pairs come from MinHash with locality-sensitive
banding (seeded, so the groups are the same on every run) and are then checked
exactly; groups are the connected components of the checked pairs. A text with
one term is a near duplicate only of texts with the same term.

:func:`near_duplicate_groups` gives each text its group's representative (the
group's first text); :func:`representatives` the indices of the texts kept when
each group counts once. Topic discovery fits and chooses terms on those, so
forty copies of one post weigh as one post (:func:`corpuskit.enrich.topics.discover_beats`).
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from corpuskit.text.terms import term_tokens

#: words per shingle
SHINGLE = 2
#: the least Jaccard overlap of two texts' shingle sets for them to be near duplicates
JACCARD = 0.6
#: ... and share at least this many shingles: two short titles sharing a format and a word
#: ("Ask HN: should I learn Swift?", "Ask HN: where to learn modern C?") are not one post; shorter texts
#: are near duplicates only when their shingle sets are equal
MIN_SHARED = 3
#: MinHash bands x rows per band (a pair at Jaccard 0.6 shares a band with probability 0.98)
BANDS, ROWS = 16, 3
_DIGITS = re.compile(r"\d+")


def _shingles(text: str) -> frozenset:
    words = [w for w in (_DIGITS.sub("", t) for t in term_tokens(text)) if len(w) > 1]
    if len(words) < SHINGLE:
        return frozenset(["\x00" + " ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def _hash(s: str) -> int:
    # stable across runs (Python's hash() of a str is salted per process)
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")


def near_duplicate_groups(texts, seed: int = 0) -> np.ndarray:
    """Per text, the index of its group's first text (itself when it has no near duplicate).

    A text without terms is its own group. See the module docstring for the rule.
    """
    texts = [t or "" for t in texts]
    n = len(texts)
    parent = np.arange(n)
    if n < 2:
        return parent
    sets = [_shingles(t) for t in texts]
    rng = np.random.default_rng(seed)
    # hash functions (a * h + b) mod 2**64 with odd a: uint64 arithmetic wraps
    a = rng.integers(0, 2**63, BANDS * ROWS, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 2**63, BANDS * ROWS, dtype=np.uint64)
    buckets: dict = {}
    rows = [i for i, shingles in enumerate(sets) if shingles]
    if rows:
        known: dict = {}  # shingle -> its hash: a corpus repeats its shingles
        hashes = np.fromiter((known[x] if x in known else known.setdefault(x, _hash(x))
                              for i in rows for x in sets[i]), dtype=np.uint64)  # a minimum needs no order
        starts = np.cumsum([0] + [len(sets[i]) for i in rows[:-1]])
        with np.errstate(over="ignore"):
            sigs = np.stack([np.minimum.reduceat(ai * hashes + bi, starts) for ai, bi in zip(a, b)], axis=1)
        # each band's key is the bytes of its ROWS signature values, cut from one buffer
        raw, width = np.ascontiguousarray(sigs).tobytes(), ROWS * sigs.itemsize
        for r, i in enumerate(rows):
            at = r * BANDS * width
            for band in range(BANDS):
                buckets.setdefault((band, raw[at + band * width:at + (band + 1) * width]), []).append(i)

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    checked = set()
    for members in buckets.values():
        if len(members) < 2:
            continue
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                i, j = members[x], members[y]
                if (i, j) in checked or root(i) == root(j):
                    continue
                checked.add((i, j))
                si, sj = sets[i], sets[j]
                common = len(si & sj)
                if si == sj or (common >= MIN_SHARED and common >= JACCARD * len(si | sj)):
                    ri, rj = root(i), root(j)
                    parent[max(ri, rj)] = min(ri, rj)
    return np.array([root(i) for i in range(n)], dtype=np.int64)


def representatives(texts, seed: int = 0) -> np.ndarray:
    """Indices (ascending) of the texts kept when each group of near duplicates counts once: its first text."""
    groups = near_duplicate_groups(texts, seed=seed)
    return np.flatnonzero(groups == np.arange(len(groups)))
