"""Topic quality figures: diversity, NPMI coherence, assignments, outliers, debris.

The measures BERTopic and the topic-model literature report, computed the
same way for corpuskit's topics and for any other list of term lists (the
benchmark scores a TF-IDF + k-means baseline with them):

- **diversity**: unique terms among the top ``top_n`` terms of all topics,
  divided by ``top_n * n_topics`` (1.0: no topic repeats another's terms);
- **NPMI coherence** of a topic: the mean, over pairs of its top ``top_n``
  terms, of ``log(p(a, b) / (p(a) p(b))) / -log p(a, b)`` where ``p`` counts
  the documents containing the term (document co-occurrence); a pair that
  never co-occurs scores -1. A term is found in a document as a run of its
  words in the document's lowercase word sequence (HTML entities decoded),
  so terms from any tokeniser are scored alike;
- **debris**: top terms that are URL parts or HTML entities.
"""
from __future__ import annotations

import html
import json
import math
import re

import numpy as np

_WORDS = re.compile(r"[a-z0-9]+")
#: words that only ever come from URLs or markup
DEBRIS_WORDS = frozenset("""http https www com html htm php amp quot apos nbsp gt lt utm href""".split())


def _words(text: str) -> list[str]:
    return _WORDS.findall(html.unescape(html.unescape(text or "")).lower())


def is_debris(term: str) -> bool:
    """True when a term holds a URL part or an HTML entity word (``https``, ``amp``, ``www``...)."""
    words = _words(term)
    return not words or any(w in DEBRIS_WORDS for w in words)


def topic_diversity(topics, top_n: int = 10) -> float:
    """Share of unique terms among the top ``top_n`` terms of all topics (BERTopic's measure)."""
    lists = [list(t)[:top_n] for t in topics if t]
    total = sum(len(t) for t in lists)
    return len({term for t in lists for term in t}) / total if total else 0.0


def document_terms(texts, terms) -> list[set]:
    """For each text, the subset of ``terms`` it contains (as word runs, see the module docstring)."""
    keys = {}
    for term in terms:
        words = tuple(_words(term))
        if words:
            keys.setdefault(words, []).append(term)
    lengths = sorted({len(k) for k in keys})
    out = []
    for text in texts:
        words = _words(text)
        found = set()
        for n in lengths:
            for i in range(len(words) - n + 1):
                hit = keys.get(tuple(words[i:i + n]))
                if hit:
                    found.update(hit)
        out.append(found)
    return out


def npmi_coherence(topics, texts, top_n: int = 10, doc_terms=None) -> list[float]:
    """NPMI coherence of each topic's top ``top_n`` terms over ``texts`` (document co-occurrence)."""
    lists = [list(t)[:top_n] for t in topics]
    vocab = sorted({term for t in lists for term in t})
    if doc_terms is None:
        doc_terms = document_terms(texts, vocab)
    n = len(doc_terms)
    index = {t: i for i, t in enumerate(vocab)}
    occ = np.zeros((n, len(vocab)), dtype=np.float32)
    for d, found in enumerate(doc_terms):
        for term in found:
            j = index.get(term)
            if j is not None:
                occ[d, j] = 1.0
    single = occ.sum(axis=0)
    joint = occ.T @ occ
    scores = []
    for t in lists:
        pairs = []
        for a in range(len(t)):
            for b in range(a + 1, len(t)):
                i, j = index[t[a]], index[t[b]]
                both = joint[i, j]
                if both == 0 or n == 0:
                    pairs.append(-1.0)
                    continue
                p_ij, p_i, p_j = both / n, single[i] / n, single[j] / n
                if p_ij >= 1.0:
                    pairs.append(1.0)
                    continue
                pairs.append(math.log(p_ij / (p_i * p_j)) / -math.log(p_ij))
        scores.append(float(np.mean(pairs)) if pairs else 0.0)
    return scores


def corpus_topic_quality(corpus, top_n: int = 10) -> dict:
    """Quality figures of the corpus's active topics, from the stored topics and assignments.

    Returns ``{topics, diversity, coherence, coherencePerTopic, assignmentsPerRecord,
    outlierShare, records, debrisTerms, terms}``: ``terms`` maps each topic name to the
    terms scored (its stored keywords), ``outlierShare`` is the share of enriched
    records without a primary topic.
    """
    conn = corpus.conn
    topics = conn.execute("SELECT id, name, keywords FROM topics WHERE active = 1 ORDER BY id").fetchall()
    terms = {name: json.loads(kw or "[]")[:top_n] for _, name, kw in topics}
    texts = [f"{t or ''} {c or ''}" for t, c in conn.execute(
        "SELECT r.title, r.content_text FROM records r JOIN enrichment e ON e.record_id = r.id ORDER BY r.id")]
    n = len(texts)
    assigned = conn.execute("SELECT count(*) FROM topic_assignments").fetchone()[0]
    outliers = conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NULL").fetchone()[0]
    per_topic = npmi_coherence(list(terms.values()), texts, top_n=top_n) if terms else []
    return {
        "topics": len(terms), "diversity": topic_diversity(terms.values(), top_n),
        "coherence": float(np.mean(per_topic)) if per_topic else 0.0,
        "coherencePerTopic": dict(zip(terms, per_topic)),
        "assignmentsPerRecord": assigned / n if n else 0.0,
        "outlierShare": outliers / n if n else 0.0, "records": n,
        "debrisTerms": sorted({t for ts in terms.values() for t in ts if is_debris(t)}),
        "terms": terms,
    }


def kmeans_baseline(texts, k: int, seed: int = 0, top_n: int = 10):
    """Plain TF-IDF (English stop words) + k-means: ``(labels, term lists)``, terms by centroid weight."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    tv = TfidfVectorizer(stop_words="english", min_df=2, max_df=0.5, max_features=20000)
    matrix = tv.fit_transform(texts)
    km = KMeans(n_clusters=k, n_init=3, random_state=seed).fit(matrix)
    vocab = tv.get_feature_names_out()
    terms = [[str(vocab[j]) for j in np.argsort(-row)[:top_n]] for row in km.cluster_centers_]
    return km.labels_, terms
