"""Choosing the sentences a story quotes: relevant, diverse, substantial, spread.

A *candidate* is one sentence of a cited record's **display text** (the record
text through :func:`corpuskit.text.display_text`: HTML entities unescaped,
typographic quotes folded, whitespace collapsed), trimmed of a leading run of
@handles (``@a @b Phew!`` -> ``Phew!``, also after ``RT``) and of a trailing
run of URLs, handles and hashtags. What is quoted is therefore a verbatim
substring of the record's display text: that is the traceability rule
(:func:`corpuskit.narrate.citations.trace_body`).

The rules, stated once:

- **Substance.** A candidate needs at least :data:`MIN_INFORMATIVE_WORDS`
  informative words (``term_tokens``: no stop words, handles, URL parts or
  numbers), at most :data:`MAX_WORDS` words, letters for at least half of its
  characters, and hashtags, handles and URLs for under half of its words (no
  hashtag-only lists). Shorter pieces are *fragments* and are never quoted.
- **Relevance.** ``0.4 * record centrality + 0.3 * sentence centrality + 0.3 *
  subject overlap``. Record centrality is the cosine of the record's stored
  embedding to the centroid of the story's records (TF-IDF when the corpus
  has no embeddings); sentence centrality the TF-IDF cosine of the sentence to
  the centroid of all candidates; subject overlap ``min(1, hits / 2)`` where
  hits are the subject's phrases (:func:`subject_terms`) the sentence contains.
  When at least two records offer an on-subject candidate (one that contains
  a subject term), only on-subject candidates are quoted.
- **Diversity.** Maximal marginal relevance: the next quote maximises
  ``LAMBDA * relevance - (1 - LAMBDA) * max similarity to the quotes chosen``,
  and a candidate that is a near duplicate of a chosen one
  (:func:`near_duplicate`) is never taken.
- **Spread.** While a candidate from an author (and a source kind) not yet
  quoted remains, it is preferred over one from an author already quoted;
  at most ``max_per_record`` quotes per record.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from corpuskit.narrate.sentences import split_sentences
from corpuskit.text import display_text, term_tokens

MIN_INFORMATIVE_WORDS = 4
MAX_WORDS = 60
NEAR_DUPLICATE_JACCARD = 0.5   # informative-word sets: |A & B| / |A | B|
NEAR_DUPLICATE_CONTAINMENT = 0.8  # |A & B| / min(|A|, |B|)
NEAR_DUPLICATE_COSINE = 0.6    # TF-IDF cosine, inside one story
LAMBDA = 0.7
_MAX_SENTENCES_PER_RECORD = 40

_LEAD_RUN = re.compile(r"^(?:(?:RT|rt|via|cc)\s*:?\s*)?(?:[@.]?@\w+[\s,:;.-]*)+")
_TAIL_RUN = re.compile(r"(?:[\s,;:|-]*(?:https?://\S+|www\.\S+|@\w+|#\w+))+[\s.!?]*$")
_MARKER = re.compile(r"\[\d+\]")
_LETTER = re.compile(r"[^\W\d_]")
_TAGGY = re.compile(r"^(?:#|@|https?://|www\.)")


def trim(sentence: str) -> str:
    """The sentence without a leading @handle run and a trailing run of URLs, handles and hashtags.

    The result is a substring of ``sentence``.
    """
    out = sentence.strip()
    lead = _LEAD_RUN.match(out)
    if lead and lead.end() < len(out):
        out = out[lead.end():]
    tail = _TAIL_RUN.search(out)
    if tail and tail.start() > 0:
        out = out[:tail.start()]
    return out.strip(" ,;:-|")


def is_fragment(sentence: str) -> bool:
    """Whether a sentence is too thin to quote (see *Substance* in the module docstring)."""
    words = sentence.split()
    if not words or len(words) > MAX_WORDS:
        return True
    if _MARKER.search(sentence) or re.search(r"https?://", sentence):
        return True
    if len(tokens_of(sentence)) < MIN_INFORMATIVE_WORDS:
        return True
    if sum(bool(_TAGGY.match(w)) for w in words) * 2 >= len(words):
        return True
    return len(_LETTER.findall(sentence)) < 0.5 * len(sentence)


def record_sentences(text: str) -> list[str]:
    """The quotable sentences of a record text: display-normalised, trimmed, no fragments, in order."""
    return list(_record_sentences(str(text or "")))


def tokens_of(sentence: str) -> tuple:
    """``term_tokens`` of a sentence, memoised (a record's sentences are read by several stories)."""
    return _tokens(sentence)


@lru_cache(maxsize=65536)
def _tokens(sentence: str) -> tuple:
    return tuple(term_tokens(sentence))


@lru_cache(maxsize=16384)
def _record_sentences(text: str) -> tuple:
    out = []
    for sentence in split_sentences(display_text(text))[:_MAX_SENTENCES_PER_RECORD]:
        sentence = trim(sentence)
        if sentence and not is_fragment(sentence):
            out.append(sentence)
    return tuple(out)


def near_duplicate(a_tokens, b_tokens) -> bool:
    """Two quotes are near duplicates when their informative-word sets overlap by Jaccard >= 0.5 or containment >= 0.8."""
    a, b = set(a_tokens), set(b_tokens)
    if not a or not b:
        return a == b
    common = len(a & b)
    return common >= NEAR_DUPLICATE_JACCARD * len(a | b) or common >= NEAR_DUPLICATE_CONTAINMENT * min(len(a), len(b))


def subject_terms(entity: dict | None = None, beat: dict | None = None, signal: dict | None = None,
                  cluster: dict | None = None, keywords: int = 3) -> set[str]:
    """The phrases a story is about, each as lower-case informative tokens joined by a space.

    An entity narrative (or a signal on an entity) is about the entity: its
    name and aliases. Otherwise: the signal's term (a novelty), the parts of
    the beat's label and its first ``keywords`` keywords, and the first three
    top terms of the cluster the story is built around. A sentence mentions
    the subject when one of these phrases occurs in its tokens
    (:func:`mentions_subject`).
    """
    phrases = []
    if entity is not None:
        phrases += [entity["name"]] + list(entity.get("aliases") or [])
    else:
        detail = (signal or {}).get("detail") or {}
        phrases += [str(v) for v in (detail.get("entity"), detail.get("term")) if v]
        if beat is not None:
            phrases += (beat.get("display_name") or "").split(",")
            phrases += [str(k) for k in (beat.get("keywords") or [])[:keywords]]
        if cluster is not None:
            phrases += [str(t) for t in (cluster.get("top_terms") or [])[:3]]
    out = set()
    for phrase in phrases:
        tokens = term_tokens(phrase)
        if tokens:
            out.add(" ".join(tokens))
    return out


def subject_hits(sentence_tokens, phrases) -> int:
    """How many of the subject's phrases occur (as consecutive tokens) in a sentence's tokens."""
    flat = f" {' '.join(sentence_tokens)} "
    return sum(f" {p} " in flat for p in phrases)


def mentions_subject(sentence_tokens, phrases) -> bool:
    """Whether a sentence (its ``term_tokens``) names the subject (one of its phrases)."""
    return subject_hits(sentence_tokens, phrases) > 0


@dataclass
class Candidate:
    """One quotable sentence: ``ordinal`` is the record's 1-based index in the evidence."""

    ordinal: int
    position: int
    text: str
    tokens: tuple
    author: str
    source: str
    relevance: float = 0.0
    on_subject: bool = False
    from_title: bool = False


def candidates(records) -> list[Candidate]:
    """Every quotable sentence of ``records`` (EvidenceRecord objects), in record then sentence order."""
    out = []
    for ordinal, rec in enumerate(records, 1):
        title = " ".join(tokens_of(getattr(rec, "title", "") or ""))
        for pos, sentence in enumerate(record_sentences(rec.text)):
            tokens = tokens_of(sentence)
            out.append(Candidate(ordinal, pos, sentence, tokens, (rec.author or "").lower(), rec.source,
                                 from_title=in_title(tokens, title)))
    return out


def in_title(tokens: tuple, title: str) -> bool:
    """Whether a sentence (its ``tokens_of``) is the record's title or part of it (``title``: the title's
    tokens joined by spaces). Reddit and Hacker News posts without a body store their title as the text."""
    return bool(tokens) and bool(title) and f" {' '.join(tokens)} " in f" {title} "


def _tfidf(texts):
    try:
        matrix = TfidfVectorizer(analyzer=tokens_of, sublinear_tf=True).fit_transform(texts)
        return matrix.toarray()
    except ValueError:
        return np.zeros((len(texts), 1))


def _unit_rows(m):
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


def score(cands: list[Candidate], record_centrality, terms) -> np.ndarray:
    """Set each candidate's ``relevance`` and ``on_subject`` (rule in the module docstring); returns the TF-IDF rows."""
    matrix = _unit_rows(_tfidf([c.text for c in cands]))
    centroid = matrix.mean(axis=0)
    norm = np.linalg.norm(centroid)
    central = matrix @ (centroid / norm) if norm > 0 else np.zeros(len(cands))
    for i, c in enumerate(cands):
        hits = subject_hits(c.tokens, terms)
        c.on_subject = hits > 0
        rec = float(record_centrality[c.ordinal - 1]) if len(record_centrality) >= c.ordinal else 0.0
        c.relevance = round(0.4 * rec + 0.3 * float(central[i]) + 0.3 * min(1.0, hits / 2), 9)
    return matrix


def select(cands: list[Candidate], matrix, n: int, max_per_record: int = 1, min_records: int = 2,
           newest: int | None = None):
    """Indices of the quotes to use, most relevant first (rules in the module docstring).

    On-subject candidates are used when at least ``min_records`` records offer
    one; when they yield fewer than ``min_records`` quotes, the others fill up
    to that number (a story quotes at least two records when it can). When
    ``newest`` (the ordinal of the newest record) offers an on-subject
    candidate, its most relevant one is taken first: a story speaks from its
    latest evidence.
    """
    on = [i for i, c in enumerate(cands) if c.on_subject]
    everyone = list(range(len(cands)))
    chosen, state = [], {"per_record": {}, "authors": set(), "sources": set()}
    latest = [i for i in on if cands[i].ordinal == newest]
    if latest and n > 0:
        _fill(cands, matrix, latest, chosen, state, 1, max_per_record)
    if len({cands[i].ordinal for i in on}) >= min_records:
        _fill(cands, matrix, on, chosen, state, n, max_per_record)
    if len(chosen) < min_records:
        _fill(cands, matrix, everyone, chosen, state, min_records if chosen else n, max_per_record)
    return sorted(chosen, key=lambda i: (-cands[i].relevance, cands[i].ordinal, cands[i].position))


def _fill(cands, matrix, pool, chosen, state, n, max_per_record):
    per_record, authors, sources = state["per_record"], state["authors"], state["sources"]
    while len(chosen) < n:
        best, best_key = None, None
        for i in pool:
            c = cands[i]
            if i in chosen or per_record.get(c.ordinal, 0) >= max_per_record:
                continue
            sims = [float(matrix[i] @ matrix[j]) for j in chosen]
            if any(s >= NEAR_DUPLICATE_COSINE for s in sims):
                continue
            if any(near_duplicate(c.tokens, cands[j].tokens) or c.text == cands[j].text for j in chosen):
                continue
            mmr = LAMBDA * c.relevance - (1 - LAMBDA) * (max(sims) if sims else 0.0)
            new_author = not c.author or c.author in ("[deleted]", "[removed]") or c.author not in authors
            key = (new_author, c.source not in sources, round(mmr, 9), -c.ordinal, -c.position)
            if best_key is None or key > best_key:
                best, best_key = i, key
        if best is None:
            break
        chosen.append(best)
        c = cands[best]
        per_record[c.ordinal] = per_record.get(c.ordinal, 0) + 1
        if c.author:
            authors.add(c.author)
        sources.add(c.source)
