"""Sentiment: VADER compound in [-1, 1], labels at ±0.05, empty and emoji-heavy input."""
import time

import pytest

from corpuskit.enrich.base import SentimentScorer, sentiment_label
from corpuskit.enrich.sentiment import VaderScorer


@pytest.mark.parametrize("score,label", [(0.05, "positive"), (0.0499, "neutral"), (-0.0499, "neutral"),
                                         (-0.05, "negative"), (1.0, "positive"), (-1.0, "negative")])
def test_label_cut(score, label):
    assert sentiment_label(score) == label


def test_polarity_and_range():
    scorer = VaderScorer()
    good = scorer.score("This launch is wonderful, I love it!")
    bad = scorer.score("This is a terrible, awful failure and I hate it.")
    assert 0.5 < good <= 1.0
    assert -1.0 <= bad < -0.5
    assert sentiment_label(scorer.score("The meeting is on Tuesday.")) == "neutral"


@pytest.mark.parametrize("text", ["", "   ", None, "\n\t"])
def test_empty_text_is_neutral(text):
    assert VaderScorer().score(text) == 0.0


def test_emoji_heavy_text_stays_fast():
    scorer = VaderScorer()
    scorer.score("warm up")
    text = "so good 😀🔥💯🚀😍👍 " * 400  # 5,600 characters, 2,400 emoji
    t0 = time.perf_counter()
    value = scorer.score(text)
    assert time.perf_counter() - t0 < 0.5
    assert value > 0.5


def test_length_cap_applies():
    scorer = VaderScorer(max_chars=20)
    # the negative words sit beyond the cap, so only the neutral head is scored
    assert scorer.score("The report is out. " + "awful terrible horrible " * 20) == 0.0


def test_score_many_and_memo():
    scorer = VaderScorer()
    texts = ["great news", "great news", "", "sad day"]
    scores = scorer.score_many(texts)
    assert scores.shape == (4,)
    assert scores[0] == scores[1] > 0 and scores[2] == 0.0 and scores[3] < 0


def test_base_class_contract():
    class Constant(SentimentScorer):
        def score(self, text):
            return 0.3

    assert list(Constant().score_many(["a", "b"])) == [0.3, 0.3]
    with pytest.raises(NotImplementedError):
        SentimentScorer().score("x")


def test_scores_the_normalised_text_with_emoji_kept():
    from corpuskit.enrich.sentiment import VaderScorer

    scorer = VaderScorer()
    plain = scorer.score("I love this & it works")
    assert scorer.score("I love this &amp; it works https://t.co/abc @someone") == plain
    assert scorer.score("I love this &amp;amp; it works") == plain
    assert scorer.score("#LoveThis") == scorer.score("Love This")  # hashtags read as their words
    assert scorer.score("\U0001F600") > 0  # emoji are kept for sentiment
    assert scorer.score("https://t.co/abc") == 0.0
