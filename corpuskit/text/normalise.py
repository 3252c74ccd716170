"""The one text normaliser: what every stage that reads a record's text reads.

Two forms, never stored (the record keeps its original text):

- :func:`display_text`, for prose, quotes and entity extraction: HTML entities unescaped (double-escaped too),
  Unicode NFC, typographic apostrophes and quotes folded to ASCII, invisible characters removed, whitespace
  collapsed. URLs, @handles and #hashtags stay.
- :func:`analysis_text`, for the embedder, topics, cluster terms and sentiment: the display text without
  URLs and @handles, with each #hashtag replaced by its words, without emoji (unless asked), without a
  title's short bracketed tag ("[pdf]", "[video]", "[deleted]") and with runs of punctuation cut to one.
"""
from __future__ import annotations

import html
import re
import unicodedata

from corpuskit.text.hashtags import HashtagSegmenter, segment_hashtag
from corpuskit.text.patterns import EMOJI, HANDLE, HASHTAG, URL, URL_HINT

_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u02bc": "'", "\uff07": "'",
    "\u00b4": "'", "\u0060": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    "\uff02": '"',
    "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2009": " ", "\u200a": " ", "\u3000": " ",
    "\u2028": " ", "\u2029": " ",
    "\u200b": " ", "\u200c": None, "\u2060": None, "\ufeff": None, "\u00ad": None,
})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SPACE = re.compile(r"\s+")
_PUNCT_RUN = re.compile(r"([!?.,;:\-*~=_|/\\])\1+")
_MIXED_RUN = re.compile(r"[!?]{2,}")
_LEADING_RT = re.compile(r"^(?:RT|rt)\b:?\s*")
_LEADING_DEBRIS = re.compile(r"^[\s:;,.\-|]+")
# Link aggregators tag titles with a short bracketed label ("[pdf]", "[video]", "[OC]", "[deleted]"):
# metadata about the post, not its words.
_BRACKET_TAG = re.compile(r"\[[^\[\]]{1,24}\]")


def display_text(text) -> str:
    """``text`` as a person should read it: entities unescaped, NFC, ASCII quotes, one space between words."""
    if text is None:
        return ""
    text = str(text)
    for _ in range(3):  # "&amp;amp;" was escaped twice on its way here
        if "&" not in text:
            break
        unescaped = html.unescape(text)
        if unescaped == text:
            break
        text = unescaped
    text = unicodedata.normalize("NFC", text).translate(_FOLD)
    text = _CONTROL.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def _hashtag_words(match: re.Match, segmenter: HashtagSegmenter | None) -> str:
    return " " + " ".join(segment_hashtag(match.group(1), segmenter)) + " "


def analysis_text(text, *, emoji: bool = False, segmenter: HashtagSegmenter | None = None) -> str:
    """The words of ``text`` for models and vocabularies: no URLs or @handles, #hashtags as their words.

    ``emoji=True`` keeps emoji (sentiment reads them); ``segmenter`` may carry a corpus's own vocabulary.
    """
    return _analysis(text, emoji, segmenter, " ")


def _analysis(text, emoji: bool, segmenter: HashtagSegmenter | None, gap: str) -> str:
    """analysis_text, with ``gap`` where something was removed (terms pass a phrase boundary)."""
    text = display_text(text)
    if URL_HINT.search(text):
        text = URL.sub(gap, text)
    if text.startswith(("RT", "rt")):
        text = _LEADING_RT.sub("", text)
    if "@" in text:
        text = _LEADING_DEBRIS.sub("", HANDLE.sub(gap, text))
    if "[" in text:
        text = _BRACKET_TAG.sub(gap, text)
    if "#" in text:
        text = HASHTAG.sub(lambda m: gap + _hashtag_words(m, segmenter) + gap, text)
    if not emoji and not text.isascii():
        text = EMOJI.sub(gap, text)
    if "!!" in text or "??" in text or "!?" in text or "?!" in text:
        text = _MIXED_RUN.sub(lambda m: m.group(0)[0], text)
    text = _PUNCT_RUN.sub(r"\1", text)
    return _SPACE.sub(" ", text).strip()
