"""Sentiment scoring: VADER by default, on :func:`corpuskit.text.analysis_text` (emoji kept).

VADER 3.3.x slows down sharply on long or emoji-heavy text (each emoji is
expanded into its description words, and several checks are quadratic in the
word count), so every input is capped at ``max_chars`` characters and
``max_emoji`` emoji before scoring. Results are memoised per distinct
text, which pays off on corpora with reposts and templated posts.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from corpuskit.enrich.base import SentimentScorer, sentiment_label
from corpuskit.enrich.estimator import Interval
from corpuskit.text import analysis_text

__all__ = ["VaderScorer", "sentiment_label"]


class VaderScorer(SentimentScorer):
    """VADER compound score (in [-1, 1]) of the first ``max_chars`` characters.

    Parameters
    ----------
    max_chars : int
        Length cap applied before scoring (default 1,000).
    max_emoji : int
        Emoji beyond this many are dropped (VADER expands each into words).
    cache_size : int
        Distinct texts remembered (0 disables the memo).
    """

    model_name = "vader-3.3"
    #: VADER's lexicon and rules are English: other languages get a NULL score, not a wrong number
    languages = frozenset({"en"})
    _parameter_constraints = {"max_chars": [Interval(Integral, 1)], "max_emoji": [Interval(Integral, 0)],
                              "cache_size": [Interval(Integral, 0)]}

    def __init__(self, max_chars: int = 1000, max_emoji: int = 40, cache_size: int = 100_000):
        self.max_chars = max_chars
        self.max_emoji = max_emoji
        self.cache_size = cache_size

    def _analyzer(self):
        analyzer = getattr(self, "analyzer_", None)
        if analyzer is None:
            self._validate_params()
            from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

            analyzer = self.analyzer_ = SentimentIntensityAnalyzer()
            self.memo_ = {}
        return analyzer

    def score(self, text: str) -> float:
        """Compound score of :func:`corpuskit.text.analysis_text` with emoji kept (HTML entities
        unescaped, URLs and handles dropped, hashtags as words)."""
        raw = (text or "")[: 2 * self.max_chars]
        if not raw.strip():
            return 0.0
        analyzer = self._analyzer()
        memo = self.memo_
        found = memo.get(raw)
        if found is not None:
            return found
        text = analysis_text(raw, emoji=True)[: self.max_chars]
        if not text:
            return 0.0
        scored = text if text.isascii() else self._cap_emoji(text, analyzer.emojis)
        value = float(analyzer.polarity_scores(scored)["compound"])
        if len(memo) < self.cache_size:
            memo[raw] = value
        return value

    def _cap_emoji(self, text: str, emojis: dict) -> str:
        kept, out = 0, []
        for char in text:
            if char in emojis:
                kept += 1
                if kept > self.max_emoji:
                    continue
            out.append(char)
        return "".join(out)

    def score_many(self, texts) -> np.ndarray:
        return np.array([self.score(t) for t in texts], dtype=float)

    def __getstate__(self):
        # The analyzer reloads its lexicon in a worker; keep pickles small.
        return {"max_chars": self.max_chars, "max_emoji": self.max_emoji,
                "cache_size": self.cache_size}
