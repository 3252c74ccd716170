"""The unigram and bigram counts keyness compares: one record's terms, folded as search and KWIC
fold, added to a tally (:class:`TermCounts`). Keyness (:mod:`.keyterms`) counts selections with it
and the stored corpus-wide counts (:mod:`.term_counts`) are counted with it, so both agree."""
from __future__ import annotations

from collections import Counter

from corpuskit.enrich.base import record_text
from corpuskit.query.subsets import iter_texts
from corpuskit.text import term_phrases
from corpuskit.text.folding import search_fold
from corpuskit.text.markup import html_to_text


class TermCounts:
    """Unigram and bigram counts of a set of records, with their token totals."""

    def __init__(self):
        self.unigrams: Counter = Counter()
        self.bigrams: Counter = Counter()
        self.records = 0

    def add(self, title, content) -> None:
        """Count the terms of one record."""
        text = record_text(title, content)
        if "<" in text and ">" in text:
            text = html_to_text(text)
        for term in term_phrases(text, (1, 2)):
            # folded as search and KWIC fold: "Straße" and "strasse" are one term
            term = search_fold(term)
            (self.bigrams if " " in term else self.unigrams)[term] += 1
        self.records += 1

    @property
    def totals(self) -> tuple[int, int]:
        """(unigram tokens, bigram tokens)."""
        return sum(self.unigrams.values()), sum(self.bigrams.values())


def count_terms(conn, ids) -> TermCounts:
    """The term counts of the records ``ids``, read in chunks."""
    counts = TermCounts()
    for chunk in iter_texts(conn, ids):
        for _, title, content, _, _ in chunk:
            counts.add(title, content)
    return counts
