"""The one text normaliser: a table of real-looking cases, and the guarantees every stage relies on."""
from __future__ import annotations

import pickle

import pytest
from sklearn.feature_extraction.text import CountVectorizer

from corpuskit.text import (
    STOP_WORDS, HashtagSegmenter, analysis_text, display_text, find_handles, find_hashtags, find_urls,
    segment_hashtag, term_analyzer, term_phrases, term_tokens,
)

DISPLAY_CASES = [
    ("Pfizer &amp; BioNTech", "Pfizer & BioNTech"),
    ("AT&amp;amp;T outage", "AT&T outage"),                      # escaped twice on the way
    ("&quot;Safe&quot; &#39;enough&#39; &gt; 90%", "\"Safe\" 'enough' > 90%"),
    ("Khamenei\u2019s ban", "Khamenei's ban"),                    # curly apostrophe folded
    ("\u201cQuoted\u201d \u00abguillemets\u00bb", '"Quoted" "guillemets"'),
    ("Kariko\u0301 and Karikó", "Karikó and Karikó"),            # NFC: combining accent composed
    ("zero\u200bwidth\u00a0space\ufeff", "zero width space"),
    ("  line\n\nbreaks\tand   tabs ", "line breaks and tabs"),
    ("Uğur Şahin", "Uğur Şahin"),
    (None, ""),
    ("https://t.co/x @someone #tag", "https://t.co/x @someone #tag"),  # markup kept for display
]


@pytest.mark.parametrize("raw, expected", DISPLAY_CASES)
def test_display_text(raw, expected):
    assert display_text(raw) == expected


ANALYSIS_CASES = [
    ("RT @BioNTech_Group: Uğur Şahin &amp; Karikó #PfizerBioNTech https://t.co/AbC123",
     "Uğur Şahin & Karikó Pfizer BioNTech"),
    ("@a @b @c Phew!", "Phew!"),
    ("#covidvaccine side effects?!?!", "covid vaccine side effects?"),
    ("Got it 💉😷👍🏽 so sore!!!", "Got it so sore!"),
    ("read more at bbc.co.uk/news/x and www.example.com", "read more at and"),
    ("Show HN: github.com/foo/bar is out", "Show HN: is out"),
    ("mail me@example.com", "mail me@example.com"),               # an e-mail is not a handle
    ("ASP.NET and Node.js", "ASP.NET and Node.js"),                # not bare domains
    ("A history of Unix [pdf]", "A history of Unix"),              # an aggregator's tag
    ("[deleted] Gene therapy works [OC]", "Gene therapy works"),
]


@pytest.mark.parametrize("raw, expected", ANALYSIS_CASES)
def test_analysis_text(raw, expected):
    assert analysis_text(raw) == expected


def test_analysis_text_keeps_emoji_for_sentiment():
    assert "😷" in analysis_text("masks 😷 https://x.io", emoji=True)
    assert "x.io" not in analysis_text("masks 😷 https://x.io", emoji=True)


HASHTAG_CASES = [
    ("#PfizerBioNTech", ["Pfizer", "BioNTech"]),
    ("#covidvaccine", ["covid", "vaccine"]),
    ("#COVID19", ["COVID19"]),
    ("#StayHomeSaveLives", ["Stay", "Home", "Save", "Lives"]),
    ("#blacklivesmatter", ["black", "lives", "matter"]),
    ("#NHSvaccine", ["NHS", "vaccine"]),
    ("#ThankYouNHS", ["Thank", "You", "NHS"]),
    ("#Election2020", ["Election", "2020"]),
    ("#side_effects", ["side", "effects"]),
    ("#UğurŞahin", ["Uğur", "Şahin"]),
    ("#KarikoRocks", ["Kariko", "Rocks"]),                       # unknown name stays whole
    ("#YouTube", ["YouTube"]),                                    # a known inner-capital name stays whole
    ("#BLM", ["BLM"]),
    ("#AskHN", ["Ask", "HN"]),
    ("climatechange", ["climate", "change"]),
]


@pytest.mark.parametrize("tag, words", HASHTAG_CASES)
def test_segment_hashtag(tag, words):
    assert segment_hashtag(tag) == words


def test_segmenter_learns_a_corpus_word():
    # without the corpus word: nova vax jab (wordninja's list) or whole (wordfreq's, which lists novavax rare)
    assert segment_hashtag("#novavaxjab", language="en") in (["nova", "vax", "jab"], ["novavaxjab"])
    assert HashtagSegmenter(extra_words={"novavax"}).split("#novavaxjab", "en") == ["novavax", "jab"]


def test_find_markup():
    text = "RT @BioNTech_Group @alice.bsky.social: #PfizerBioNTech #1 https://t.co/Ab1. e-mail me@x.com t.co/z9"
    assert find_handles(text) == ["BioNTech_Group", "alice.bsky.social"]
    assert find_hashtags(text) == ["PfizerBioNTech"]
    assert find_urls(text) == ["https://t.co/Ab1", "t.co/z9"]


DEBRIS = {"http", "https", "www", "com", "amp", "quot", "gt", "co", "don", "isn", "aren", "didn", "rt", "ll", "ve"}


@pytest.mark.parametrize("raw", [
    "RT @user: Don't miss this &amp; that https://t.co/abc www.site.com/x",
    "I didn't think it isn't what they're saying... aren't we?",
    "&quot;vaccines&quot; &gt; &lt; http://example.org/a?b=c",
    "@handle1 @handle2 @handle3 Phew!",
])
def test_no_debris_reaches_terms(raw):
    terms = set(term_tokens(raw)) | {w for p in term_phrases(raw) for w in p.split()}
    assert not terms & DEBRIS
    assert not any(t.startswith(("@", "#", "http")) for t in terms)


def test_terms_keep_whole_words_and_names():
    assert term_tokens("Uğur Şahin’s self-driving COVID-19 plan") == ["uğur", "şahin", "self-driving", "covid-19",
                                                                      "plan"]
    assert term_tokens("") == [] and term_tokens(None) == []
    assert "covid vaccine" in term_phrases("#covidvaccine")


def test_phrases_never_cross_a_removed_word():
    phrases = term_phrases("vaccine of the year https://t.co/x rollout, delays")
    assert "vaccine year" not in phrases           # a stop word stood between them
    assert "year rollout" not in phrases           # a URL stood between them
    assert "rollout delays" not in phrases         # a comma stood between them


def test_term_analyzer_in_a_vectorizer_and_pickled():
    docs = ["#covidvaccine side effects &amp; sore arm", "sore arm after the covid vaccine https://t.co/x"]
    analyzer = pickle.loads(pickle.dumps(term_analyzer((1, 2))))
    vocab = CountVectorizer(analyzer=analyzer).fit(docs).vocabulary_
    assert {"covid vaccine", "sore arm", "side effects"} <= set(vocab)
    assert not set(vocab) & DEBRIS
    with pytest.raises(ValueError, match="ngram_range"):
        term_analyzer((2, 1))


def test_stop_words_cover_the_usual_suspects():
    assert {"the", "https", "amp", "don", "rt", "etc", "eg"} <= STOP_WORDS
    assert not {"vaccine", "side", "fire", "system", "computer", "net", "bit"} & STOP_WORDS
    assert "net neutrality" in term_phrases("FCC repeals net neutrality rules")
