"""The unigram and bigram counts keyness compares: one record's terms, folded as search and KWIC
fold, added to a tally (:class:`TermCounts`). Keyness (:mod:`.keyterms`) counts selections with it
and the stored corpus-wide counts (:mod:`.term_counts`) are counted with it, so both agree.

A record's terms are :func:`corpuskit.text.term_phrases` ``(1, 2)`` of its text (markup removed),
each folded by :func:`~corpuskit.text.folding.search_fold` and counted as a bigram when the folded
term holds a space. The tally makes the same terms from the term runs directly: each distinct word
is folded once per tally and a bigram is its two folded words joined by a space, which is the fold
of the joined pair (the fold works character by character, and a space neither composes nor
reorders with its neighbours). ``tests/test_term_tally.py`` keeps the term-by-term count and
checks the two agree on the demo corpus and real texts.
"""
from __future__ import annotations

from collections import Counter

from corpuskit.enrich.base import record_text
from corpuskit.query.subsets import as_ids, iter_texts
from corpuskit.text.folding import search_fold
from corpuskit.text.markup import html_to_text
from corpuskit.text.stopwords import current_languages
from corpuskit.text.terms import term_runs


class TermCounts:
    """Unigram and bigram counts of a set of records, with their token totals."""

    def __init__(self):
        self.unigrams: Counter = Counter()
        self.bigrams: Counter = Counter()
        self.records = 0
        self._folded: dict[str, str] = {}
        # a word whose fold holds a space (a compatibility form such as U+FC5E) counts as a bigram
        self._spaced = False

    def _fold(self, word: str) -> str:
        folded = self._folded[word] = search_fold(word)
        if " " in folded:
            self._spaced = True
        return folded

    def add(self, title, content) -> None:
        """Count the terms of one record."""
        text = record_text(title, content)
        if "<" in text and ">" in text:
            text = html_to_text(text)
        folded, fold = self._folded, self._fold
        words: list[str] = []
        pairs: list[str] = []
        for run in term_runs(text, current_languages()):
            run = [folded[w] if w in folded else fold(w) for w in run]
            words += run
            if len(run) > 1:
                pairs += [f"{a} {b}" for a, b in zip(run, run[1:])]
        if self._spaced and any(" " in w for w in words):
            pairs += [w for w in words if " " in w]
            words = [w for w in words if " " not in w]
        self.unigrams.update(words)
        self.bigrams.update(pairs)
        self.records += 1

    @property
    def totals(self) -> tuple[int, int]:
        """(unigram tokens, bigram tokens)."""
        return sum(self.unigrams.values()), sum(self.bigrams.values())


def count_terms(conn, ids, progress=None) -> TermCounts:
    """The term counts of the records ``ids``, read in chunks. ``progress``, when given, is called
    after each chunk with the records counted so far and the ids given."""
    counts = TermCounts()
    ids = as_ids(ids)
    for chunk in iter_texts(conn, ids):
        for _, title, content, _, _ in chunk:
            counts.add(title, content)
        if progress is not None:
            progress(counts.records, len(ids))
    return counts
