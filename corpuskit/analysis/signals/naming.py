"""Name the burst: the terms a signal's records use more than the series' baseline (keyness).

A signal says *that* a series moved; its records say *what about*. For every signal the records
behind it (the series' records on its day, or the hour of an hourly burst, or the after window of a
sentiment shift: the records :func:`~corpuskit.analysis.signals.quality.signal_texts` reads) are
compared with the same series' records in the ``windowDays`` before (at most
:data:`BASELINE_SAMPLE`, the latest first). When the series' baseline holds fewer than
:data:`MIN_BASELINE_RECORDS` records (a new name, a thin topic) the baseline is every record of
the corpus in those days instead, so a term is still judged against what people were writing.

Each record counts a term once (document frequency: one long post or a copied message does not
make a word key on its own): single words and two-word phrases of :func:`corpuskit.text.term_phrases`,
without the stop words of the burst records' languages and of the languages in effect
(:func:`corpuskit.text.stopwords.languages_with`), so a Spanish burst is never named "es, la, que".
The test is G² with Benjamini-Hochberg over every term tested (:mod:`corpuskit.stats.keyness`).
A term names the burst when

* it is relatively more frequent in the burst (direction ``a``),
* it is in at least :data:`MIN_SHARE` of the burst's records and in at least
  :data:`MIN_RECORDS` of them,
* its adjusted p-value is below :data:`MAX_P`,
* it holds no word of the signal's own subject (the topic label, entity name or term the headline
  already says),
* it names something, by the topic labels' own tests (:func:`weak_term`): not a weak word or light
  verb ("time", "wants", :func:`corpuskit.text.terms.label_word`), not a word common in general
  English ("following", :func:`corpuskit.text.terms.generic_word`) unless the burst's texts write it
  as a name (:func:`corpuskit.enrich.topic_terms.name_terms`: "Google", "China"), and not the
  corpus's title format or a phrase of it and common words ("ask hn", "apply hn": the formats of
  :func:`corpuskit.analysis.clusters.corpus_formats`).

The first :data:`MAX_TERMS` by G² are kept, a single word dropped when a kept phrase holds it (and a
phrase dropped when its words are both kept already). ``detail.terms`` lists them with their
counts; the headline ends with them (``"Volume on COVID-19 vaccine up 11.7x (13 vs 1.1/day):
adolescents, trial, ages"``).
"""
from __future__ import annotations

import math
import re
from collections import Counter

from corpuskit.analysis.signals.evidence import _series_filter
from corpuskit.analysis.signals.series import shift_day
from corpuskit.enrich.topic_terms import name_terms
from corpuskit.stats.keyness import benjamini_hochberg, keyness_table
from corpuskit.text import term_phrases
from corpuskit.text.stopwords import languages_with
from corpuskit.text.terms import generic_word, label_word

#: Baseline records read at most (the latest first).
BASELINE_SAMPLE = 2000
#: Below this many baseline records of the series, the baseline is the whole corpus in the window.
MIN_BASELINE_RECORDS = 30
#: Share of the burst's records a naming term must appear in.
MIN_SHARE = 0.2
#: Fewest burst records a naming term must appear in.
MIN_RECORDS = 2
#: Largest Benjamini-Hochberg adjusted p-value of a naming term.
MAX_P = 0.05
#: Terms named at most.
MAX_TERMS = 3

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def document_counts(texts, languages=None) -> Counter:
    """How many of ``texts`` hold each term (single words and two-word phrases), each text once;
    ``languages``: whose stop words are left out besides English's (default: those in effect)."""
    counts: Counter = Counter()
    for text in texts:
        counts.update(set(term_phrases(text, (1, 2), languages)))
    return counts


def subject_words(*names) -> set[str]:
    """Lower-case words of the names a headline already says (label, entity, term)."""
    out: set[str] = set()
    for name in names:
        out |= {w.lower() for w in _WORD.findall(name or "")}
    return out


def weak_term(term: str, names=frozenset(), formats=()) -> bool:
    """True when ``term`` names nothing (see the module docstring): a weak word or clause, a common
    word that is not among ``names``, or a title format (``formats``) alone or with common words."""
    if not label_word(term):
        return True
    format_words = {w for f in formats for w in f.split()}
    words = term.split()
    if term in formats or (format_words.intersection(words)
                           and all(w in format_words or generic_word(w) for w in words)):
        return True
    return generic_word(term) and term not in names


def burst_terms(burst_texts, baseline_texts, exclude=frozenset(), max_terms: int = MAX_TERMS,
                formats=(), languages=()) -> list[dict]:
    """The terms naming a burst: ``[{"term", "records", "baselineRecords", "G2"}]``, most key first.

    ``burst_texts`` are the burst's record texts, ``baseline_texts`` the baseline's;
    ``exclude`` the words of the subject, ``formats`` the corpus's title formats, ``languages`` the
    languages of the burst's records, whose stop words name nothing (see the module docstring for
    the rule). Empty when either side is empty or no term passes.
    """
    burst_texts, baseline_texts = list(burst_texts), list(baseline_texts)
    n_a, n_b = len(burst_texts), len(baseline_texts)
    if n_a == 0 or n_b == 0:
        return []
    languages = languages_with(languages)
    ca, cb = document_counts(burst_texts, languages), document_counts(baseline_texts, languages)
    need = max(MIN_RECORDS, math.ceil(MIN_SHARE * n_a))
    terms = sorted(t for t, c in ca.items() if c >= need and not set(t.split()) & set(exclude))
    if not terms:
        return []
    # the totals are records (each record a trial for each term): document-frequency keyness
    table = keyness_table(terms, [ca[t] for t in terms], [min(cb[t], n_b) for t in terms], n_a, n_b)
    # adjust over every term the burst holds at the threshold, not only the kept ones
    table["p_adjusted"] = benjamini_hochberg(table["p"].to_numpy())
    table = table[(table["direction"] == "a") & (table["p_adjusted"] < MAX_P)]
    candidates = list(table["term"])
    names = name_terms(candidates, burst_texts)
    chosen: list[str] = []
    for term in candidates:
        if weak_term(term, names, formats):
            continue
        words = set(term.split())
        if any(term in c.split() for c in chosen if " " in c):
            continue                                    # a word of a kept phrase
        if " " in term and words <= set(chosen):
            continue                                    # a phrase whose words are kept already
        if " " in term:
            chosen = [c for c in chosen if c not in words]
        chosen.append(term)
        if len(chosen) >= max_terms:
            break
    rows = table.set_index("term")
    return [{"term": t, "records": int(ca[t]), "baselineRecords": int(min(cb[t], n_b)),
             "G2": round(float(rows.loc[t, "G2"]), 2)} for t in chosen]


def baseline_texts(conn, evidence: dict, first_day: str, window: int) -> list[str]:
    """Texts of the series' records in the ``window`` days before ``first_day`` (the corpus's when
    the series has fewer than :data:`MIN_BASELINE_RECORDS` there), latest first."""
    lo, hi = shift_day(first_day, -window), shift_day(first_day, -1)
    joins, where, args = _series_filter(evidence)
    rows = conn.execute(
        f"SELECT r.title, r.content_text FROM records r {joins} WHERE {where} AND r.day BETWEEN ? AND ? "
        "ORDER BY r.published_at DESC, r.id DESC LIMIT ?", (*args, lo, hi, BASELINE_SAMPLE)).fetchall()
    if len(rows) < MIN_BASELINE_RECORDS:
        rows = conn.execute(
            "SELECT r.title, r.content_text FROM records r JOIN enrichment e ON e.record_id = r.id "
            "WHERE r.day BETWEEN ? AND ? ORDER BY r.published_at DESC, r.id DESC LIMIT ?",
            (lo, hi, BASELINE_SAMPLE)).fetchall()
    return [f"{r[0] or ''} {r[1] or ''}" for r in rows]


def terms_suffix(terms: list[dict]) -> str:
    """What a headline ends with: ``": a, b, c"`` (empty without terms)."""
    return ": " + ", ".join(t["term"] for t in terms) if terms else ""
