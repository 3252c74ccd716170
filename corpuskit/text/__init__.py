"""Text normalisation shared by every stage that reads text; the stored record text is never changed.

``display_text`` for prose, quotes and entities; ``analysis_text`` for models and vocabularies;
``term_tokens`` / ``term_phrases`` / ``term_runs`` / ``term_analyzer`` for topic, cluster and keyword terms;
``segment_hashtag`` and ``find_hashtags`` / ``find_handles`` / ``find_urls`` for social-media markup.
"""
from corpuskit.text.hashtags import HashtagSegmenter, segment_hashtag
from corpuskit.text.normalise import analysis_text, display_text
from corpuskit.text.patterns import find_handles, find_hashtags, find_urls

# The term functions load scikit-learn's stop-word list (seconds of import time); they are loaded on
# first use, so the paths that only normalise text (the full-text index on import) do not pay for it.
_TERMS = ("STOP_WORDS", "term_analyzer", "term_phrases", "term_runs", "term_tokens")


def __getattr__(name):
    if name in _TERMS:
        from corpuskit.text import terms

        return getattr(terms, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HashtagSegmenter", "STOP_WORDS", "analysis_text", "display_text", "find_handles", "find_hashtags",
    "find_urls", "segment_hashtag", "term_analyzer", "term_phrases", "term_runs", "term_tokens",
]
