"""Splitting record text into sentences the extractive writer may quote verbatim."""
from __future__ import annotations

import re
from functools import lru_cache

_WS = re.compile(r"\s+")
# A sentence ends at . ! or ? (optionally followed by closing quotes/brackets) before
# whitespace and a letter (of any script), digit or opening quote (social posts often start a
# sentence in lower case: "mRNA ...", "iPhone ..."), or at the full-width 。！？ of Chinese and
# Japanese, which need no space after them.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(]|[^\W_])"
                       r"|(?<=[\u3002\uff01\uff1f])[\u300d\u300f\uff09]*\s*(?=[^\s\u300d\u300f\uff09])")
_MARKER = re.compile(r"\[\d+\]")
_URL = re.compile(r"https?://\S+")
_LETTER = re.compile(r"[^\W\d_]")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "mr.", "mrs.", "ms.", "dr.", "prof.", "inc.", "st.",
                  "jr.", "sr.", "u.s.", "u.k.", "etc.", "fig.", "no.", "approx.", "mt.", "ft.", "gov.",
                  "sen.", "rep.", "gen.", "sgt.", "capt.", "lt.", "col.", "corp.", "ltd.", "jan.", "feb.",
                  "aug.", "sept.", "oct.", "nov.", "dec.")


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space and strip."""
    return _WS.sub(" ", str(text or "")).strip()


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (whitespace collapsed), in order (see :func:`_split`)."""
    return list(_split(str(text or "")))


@lru_cache(maxsize=65536)
def _split(text: str) -> tuple[str, ...]:
    """Sentences of ``text`` (whitespace collapsed), in order.

    Boundaries after common abbreviations (``e.g.``, ``Dr.``) are not split.
    Every returned sentence occurs verbatim in ``squash(text)``.
    """
    flat = squash(text)
    if not flat:
        return ()
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(flat):
        head = flat[start:match.start()].lower()
        if head.endswith(_ABBREVIATIONS) or re.search(r"\b[a-z]\.$", head):
            continue
        end = match.end()
        piece = flat[start:end].strip()
        if piece:
            pieces.append(piece)
        start = end
    tail = flat[start:].strip()
    if tail:
        pieces.append(tail)
    return tuple(pieces)


def quotable(sentence: str, min_words: int = 5, max_words: int = 60) -> bool:
    """Whether a sentence can stand in a story: a sane length, no bare URLs, no ``[n]`` markers."""
    words = sentence.split()
    if not (min_words <= len(words) <= max_words):
        return False
    if _MARKER.search(sentence) or _URL.search(sentence):
        return False
    return len(_LETTER.findall(sentence)) >= 0.5 * len(sentence)


#: The longest title :func:`record_title` makes from a record's text (characters).
TITLE_FROM_TEXT_CHARS = 120


def record_title(title, text, limit: int = TITLE_FROM_TEXT_CHARS) -> str:
    """A record's title for a list: its own title when it has one, else the first sentence of its
    text (as a person reads it, :func:`corpuskit.text.display_text`), at most ``limit`` characters: a
    longer sentence is cut at the last word that fits and ends with an ellipsis. ``""`` for a record
    with neither."""
    from corpuskit.text import display_text

    if title:
        return title
    sentences = split_sentences(display_text(text))
    if not sentences:
        return ""
    first = sentences[0]
    if len(first) <= limit:
        return first
    head = first[:limit - 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > limit // 2 else head).rstrip(" ,;:-") + "\u2026"
