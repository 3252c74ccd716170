"""What a story's evidence is distinctively about: the key terms a headline names.

The records a story is drawn from (a signal's evidence, a beat's or an entity's records in the
window) are compared with the same subject's records *before* the window (the baseline) by
keyness (:func:`corpuskit.stats.keyness.keyness_table`, over document frequencies: in how many
records a term occurs). Terms are the informative words of each record
(:func:`corpuskit.text.term_tokens`) and their adjacent pairs. A term is key when it occurs in
at least :data:`MIN_RECORDS` records and in at least a tenth of the evidence, is more frequent in the
evidence (``direction == "a"``), has a Log Ratio of at least :data:`MIN_LOG_RATIO` (twice as
frequent) and a Benjamini-Hochberg adjusted p below :data:`MAX_P`. Words of the story's subject
(its beat, entity or signal, already in the headline) are not key terms. A pair is preferred to
its words; at most ``n`` terms, most key (G²) first, each in its commonest spelling in the evidence.
"""
from __future__ import annotations

import re

from corpuskit.stats.keyness import keyness_table
from corpuskit.text import term_tokens

MIN_RECORDS = 3
MIN_LOG_RATIO = 1.0
MAX_P = 0.01


def _terms(text: str) -> set[str]:
    words = [w for w in term_tokens(text) if w.isalpha() and len(w) > 2]
    return set(words) | {f"{a} {b}" for a, b in zip(words, words[1:]) if a != b}


def distinctive_terms(evidence_texts, baseline_texts, exclude=(), n: int = 2) -> list[str]:
    """The key terms of ``evidence_texts`` against ``baseline_texts`` (see the module docstring)."""
    evidence = [_terms(t) for t in evidence_texts]
    baseline = [_terms(t) for t in baseline_texts]
    if len(evidence) < MIN_RECORDS or not baseline:
        return []
    blocked = {w for phrase in exclude for w in term_tokens(str(phrase))} | {str(p).lower() for p in exclude}
    freq_a, freq_b = {}, {}
    for doc in evidence:
        for t in doc:
            freq_a[t] = freq_a.get(t, 0) + 1
    for doc in baseline:
        for t in doc:
            if t in freq_a:
                freq_b[t] = freq_b.get(t, 0) + 1
    floor = max(MIN_RECORDS, -(-len(evidence) // 10))
    terms = sorted(t for t, f in freq_a.items() if f >= floor and not (set(t.split()) & blocked))
    if not terms:
        return []
    table = keyness_table(terms, [freq_a[t] for t in terms], [freq_b.get(t, 0) for t in terms],
                          len(evidence), len(baseline))
    key = table[(table["direction"] == "a") & (table["log_ratio"] >= MIN_LOG_RATIO) & (table["p_adjusted"] < MAX_P)]
    ranked = list(key["term"])
    chosen: list[str] = []
    for term in ranked:
        if len(chosen) >= n:
            break
        words = set(term.split())
        if any(words & set(c.split()) for c in chosen):
            continue
        pair = next((p for p in ranked[:10] if " " in p and term in p.split() and not any(
            set(p.split()) & set(c.split()) for c in chosen)), None) if " " not in term else None
        chosen.append(pair if pair is not None and freq_a[pair] * 2 >= freq_a[term] else term)
    return [_surface(t, evidence_texts) for t in chosen]


def _surface(term: str, texts) -> str:
    """The commonest spelling of ``term`` in ``texts`` (``elena varga`` -> ``Elena Varga``), else ``term``."""
    pattern = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in term.split()) + r"(?!\w)", re.IGNORECASE)
    counts = {}
    for text in texts:
        for m in pattern.finditer(text or ""):
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    return min(counts, key=lambda k: (-counts[k], k)) if counts else term
