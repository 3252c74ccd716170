"""Class-based TF-IDF: the words that set one cluster apart from the others of its topic.

For cluster ``c`` and term ``t``: ``tf(t, c) * log(1 + A / f(t))`` where
``tf(t, c)`` is the frequency of ``t`` in the cluster's concatenated texts
divided by the cluster's word count, ``f(t)`` the frequency of ``t`` over
every cluster, and ``A`` the average word count per cluster (the BERTopic
formula).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9\-]{2,}\b"


def class_tfidf_terms(texts: list[str], labels: np.ndarray, top_n: int = 8,
                      max_features: int = 20000) -> dict[int, list[str]]:
    """Top ``top_n`` terms per label (labels < 0, noise, are ignored), ties broken alphabetically."""
    labels = np.asarray(labels)
    keep = labels >= 0
    classes = sorted(set(labels[keep].tolist()))
    if not classes:
        return {}
    vectorizer = CountVectorizer(stop_words="english", token_pattern=TOKEN_PATTERN, lowercase=True,
                                 max_features=max_features, min_df=1)
    try:
        counts = vectorizer.fit_transform([t for t, k in zip(texts, keep) if k])
    except ValueError:  # no usable words at all
        return {c: [] for c in classes}
    kept_labels = labels[keep]
    index = {c: i for i, c in enumerate(classes)}
    rows = np.array([index[c] for c in kept_labels])
    membership = sparse.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))),
                                   shape=(len(classes), len(rows)))
    per_class = np.asarray((membership @ counts).todense(), dtype=float)
    words = per_class.sum(axis=1, keepdims=True)
    tf = per_class / np.maximum(words, 1)
    avg = words.mean()
    freq = per_class.sum(axis=0)
    idf = np.log(1 + avg / np.maximum(freq, 1))
    scores = tf * idf
    vocab = np.array(vectorizer.get_feature_names_out())
    out = {}
    for c, i in index.items():
        row = scores[i]
        nonzero = np.flatnonzero(row > 0)
        order = sorted(nonzero, key=lambda j: (-row[j], vocab[j]))[:top_n]
        out[c] = [str(vocab[j]) for j in order]
    return out
