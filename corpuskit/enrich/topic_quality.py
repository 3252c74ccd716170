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

_WORDS = re.compile(r"[^\W_]+")  # letters and digits of any script (ASCII text reads as before)
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


#: dimensions of the LSA baseline (TF-IDF -> truncated SVD -> unit length -> k-means)
LSA_DIMENSIONS = 100


def lsa_baseline(texts, k: int, seed: int = 0, top_n: int = 10, dimensions: int = LSA_DIMENSIONS):
    """TF-IDF -> ``dimensions``-d LSA (truncated SVD, rows scaled to unit length) -> k-means with ``k``
    clusters, the classical short-text clustering pipeline: ``(labels, term lists)``, each
    cluster's terms the heaviest of its centroid mapped back to the TF-IDF space."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    tv = TfidfVectorizer(stop_words="english", min_df=2, max_df=0.5, max_features=20000, sublinear_tf=True)
    matrix = tv.fit_transform(texts)
    dims = max(1, min(dimensions, matrix.shape[1] - 1, matrix.shape[0] - 1))
    svd = TruncatedSVD(n_components=dims, random_state=seed)
    reduced = normalize(svd.fit_transform(matrix))
    km = KMeans(n_clusters=k, n_init=3, random_state=seed).fit(reduced)
    vocab = tv.get_feature_names_out()
    back = km.cluster_centers_ @ svd.components_
    terms = [[str(vocab[j]) for j in np.argsort(-row)[:top_n]] for row in back]
    return km.labels_, terms


def _primary_rows(corpus):
    return corpus.conn.execute("SELECT r.id, r.title, r.content_text, r.subreddit, e.topic_id FROM records r "
                               "JOIN enrichment e ON e.record_id = r.id ORDER BY r.id").fetchall()


def topic_overview(corpus, examples: int = 2):
    """The active topics as a DataFrame, largest first, then one ``(outliers)`` row.

    Columns: ``topic`` (name), ``label`` (display name), ``records`` (primary),
    ``share``, ``terms`` (top 10, comma-separated) and ``examples`` (the titles of
    the ``examples`` most confident records, `` | ``-separated).
    """
    import pandas as pd

    conn = corpus.conn
    n = conn.execute("SELECT count(*) FROM enrichment").fetchone()[0]
    rows = []
    for tid, name, display, kw in conn.execute(
            "SELECT id, name, display_name, keywords FROM topics WHERE active = 1 ORDER BY id"):
        size = conn.execute("SELECT count(*) FROM enrichment WHERE topic_id = ?", (tid,)).fetchone()[0]
        titles = [(t or c or "")[:90] for t, c in conn.execute(
            "SELECT r.title, r.content_text FROM topic_assignments a JOIN records r ON r.id = a.record_id "
            "JOIN enrichment e ON e.record_id = a.record_id AND e.topic_id = a.topic_id "
            "WHERE a.topic_id = ? ORDER BY a.confidence DESC, a.record_id LIMIT ?", (tid, examples))]
        rows.append((name, display, size, size / n if n else 0.0, ", ".join(json.loads(kw or "[]")[:10]),
                     " | ".join(titles)))
    rows.sort(key=lambda r: (-r[2], r[0]))
    outliers = conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NULL").fetchone()[0]
    titles = [(t or c or "")[:90] for t, c in conn.execute(
        "SELECT r.title, r.content_text FROM records r JOIN enrichment e ON e.record_id = r.id "
        "WHERE e.topic_id IS NULL ORDER BY r.id LIMIT ?", (examples,))]
    rows.append(("(outliers)", "Fits no topic", outliers, outliers / n if n else 0.0, "", " | ".join(titles)))
    return pd.DataFrame(rows, columns=["topic", "label", "records", "share", "terms", "examples"])


def quality_table(corpus, seed: int = 0, top_n: int = 10):
    """corpuskit's topics beside plain TF-IDF + k-means with the same k, as a DataFrame.

    Rows: topics, diversity, NPMI coherence, assignments per record, outlier share,
    debris top terms and, when the records carry subreddits, the NMI of the primary
    topic against the subreddit. Columns ``corpuskit``, ``tfidf+kmeans`` and ``lsa+kmeans``
    (:func:`lsa_baseline`: TF-IDF -> 100-d LSA -> k-means at the same k).
    """
    import pandas as pd
    from sklearn.metrics import normalized_mutual_info_score

    q = corpus_topic_quality(corpus, top_n=top_n)
    rows = _primary_rows(corpus)
    texts = [f"{r[1] or ''} {r[2] or ''}" for r in rows]
    k = max(q["topics"], 2)
    km_labels, km_terms = kmeans_baseline(texts, k, seed=seed, top_n=top_n)
    lsa_labels, lsa_terms = lsa_baseline(texts, k, seed=seed, top_n=top_n)
    table = {
        "topics": (q["topics"], k, k),
        "diversity": (q["diversity"], topic_diversity(km_terms, top_n), topic_diversity(lsa_terms, top_n)),
        "NPMI coherence": (q["coherence"], float(np.mean(npmi_coherence(km_terms, texts, top_n))),
                           float(np.mean(npmi_coherence(lsa_terms, texts, top_n)))),
        "assignments per record": (q["assignmentsPerRecord"], 1.0, 1.0),
        "outlier share": (q["outlierShare"], 0.0, 0.0),
        "debris top terms": (len(q["debrisTerms"]), sum(is_debris(t) for ts in km_terms for t in ts),
                             sum(is_debris(t) for ts in lsa_terms for t in ts)),
    }
    subs = [r[3] or "" for r in rows]
    if any(subs):
        primary = [r[4] if r[4] is not None else -1 for r in rows]
        table["NMI primary vs subreddit"] = (normalized_mutual_info_score(subs, primary),
                                            normalized_mutual_info_score(subs, km_labels),
                                            normalized_mutual_info_score(subs, lsa_labels))
    return pd.DataFrame.from_dict(table, orient="index",
                                  columns=["corpuskit", "tfidf+kmeans", "lsa+kmeans"]).round(3)
