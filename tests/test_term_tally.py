"""The term tally (:class:`TermCounts`) counts exactly what the term-by-term count does: every term of
``term_phrases(text, (1, 2))`` folded by ``search_fold`` and counted as a bigram when the folded term
holds a space. The reference count is kept here; the tally folds each word once and pairs folded words,
so the two are compared on the demo records and on real English and Spanish texts."""
from __future__ import annotations

import csv
import itertools
import json
from collections import Counter

import pytest

from corpuskit import open_corpus
from corpuskit.analysis.term_tally import TermCounts
from corpuskit.enrich.base import record_text
from corpuskit.text import term_phrases
from corpuskit.text.folding import search_fold
from corpuskit.text.markup import html_to_text
from corpuskit.text.stopwords import vocabulary_languages
from tests.conftest import REDDIT_CSV, SHARED_DATASETS, need_shared

SPANISH_TWEETS = SHARED_DATASETS / "nonenglish" / "nonen_es_newstweets" / "test.jsonl"


def reference_tally(records) -> tuple[Counter, Counter, int]:
    """The straightforward count: each phrase folded as a whole, one term at a time."""
    unigrams, bigrams, n = Counter(), Counter(), 0
    for title, content in records:
        text = record_text(title, content)
        if "<" in text and ">" in text:
            text = html_to_text(text)
        for term in term_phrases(text, (1, 2)):
            term = search_fold(term)
            (bigrams if " " in term else unigrams)[term] += 1
        n += 1
    return unigrams, bigrams, n


def assert_same_tally(records) -> TermCounts:
    records = list(records)
    fast = TermCounts()
    for title, content in records:
        fast.add(title, content)
    unigrams, bigrams, n = reference_tally(records)
    assert fast.records == n
    assert fast.unigrams == unigrams
    assert fast.bigrams == bigrams
    assert fast.totals == (sum(unigrams.values()), sum(bigrams.values()))
    return fast


@pytest.fixture(scope="module")
def demo_records():
    from corpuskit.demo import build_demo

    c = open_corpus(":memory:")
    build_demo(c, seed=7, records=4000, days=30, run_stages=False, progress=False)
    rows = c.conn.execute("SELECT title, content_text FROM records ORDER BY id").fetchall()
    c.close()
    return rows


def test_tally_equals_the_reference_on_demo_records(demo_records):
    fast = assert_same_tally(demo_records)
    assert len(fast.unigrams) > 500 and len(fast.bigrams) > 500


def test_tally_equals_the_reference_on_real_reddit_titles():
    with open(need_shared(REDDIT_CSV), newline="", encoding="utf-8") as f:
        rows = [(row["title"], None) for row in itertools.islice(csv.DictReader(f), 3000)]
    assert_same_tally(rows)


@pytest.mark.parametrize("languages", [(), ("es",)])
def test_tally_equals_the_reference_on_real_spanish_tweets(languages):
    with open(need_shared(SPANISH_TWEETS), encoding="utf-8") as f:
        rows = [(None, json.loads(line)["text"]) for line in f]
    assert sum(not text.isascii() for _, text in rows) > 1000      # accented words to fold
    with vocabulary_languages(languages):
        fast = assert_same_tally(rows)
    assert len(fast.unigrams) > 5000


def test_tally_equals_the_reference_on_folding_edge_cases():
    # title and text, markup, full-width and ligature forms, ß, final sigma, Turkish dotted I, combining
    # marks, a compatibility form whose fold holds a space (U+FC5E), Chinese pairs, a title equal to its text
    texts = [("Straße news", "<p>Die STRASSE und die <b>Straße</b> heute</p>"),
             ("ＢＢ弾 ﬁnancial ﬂows", "ΣΟΦΙΑ ΟΔΟΣ σοφία οδός"),
             (None, "İstanbul ŞAHİN şahin Cafe\u0301 café naïve résumé"),
             (None, "bad \ufc5e word \ufc5e\ufc5e and \ufc5e"),
             ("中文分词测试 机器学习", None),
             ("Same text", "Same text"),
             ("", ""), (None, None)]
    fast = assert_same_tally(texts)
    spaced = search_fold("\ufc5e\ufc5e")          # one word whose fold holds spaces: a bigram
    assert " " in spaced and fast.bigrams[spaced] == 1 and spaced not in fast.unigrams
    assert fast.unigrams["strasse"] == 3 and fast.unigrams["sahin"] == 2
