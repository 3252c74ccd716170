"""Unicode-aware tokens: diacritic folding for matching keys, and CJK runs cut into character pairs.

:func:`fold` makes the key a word is matched by (``Şahin`` and ``Sahin`` -> ``sahin``,
``vacunación`` -> ``vacunacion``, ``Ελλάδα`` -> ``ελλαδα``): NFKD, the combining diacritics of
Latin, Greek and Cyrillic letters dropped, NFC, case-folded. Other combining marks stay (Japanese
voicing marks, Indic vowel signs), so a kana or Devanagari word keeps its meaning. The stored and
displayed text keeps its original form.

Chinese and Japanese are written without spaces, so a ``\\w`` run there is a whole clause.
:func:`word_tokens` cuts such a run into overlapping character pairs (``東京都`` -> ``東京``,
``京都``), the scheme of Lucene's CJK analyzer; a single character stays itself. Hangul is written
with spaces and stays in words.
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["cjk_pairs", "fold", "split_cjk", "word_tokens"]

# combining diacritics used by Latin, Greek and Cyrillic (and their extensions and half marks)
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
# Han ideographs (with extension A and compatibility), hiragana, katakana (with phonetic extensions)
CJK_CHARS = _CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
CJK_RUN = re.compile(f"[{_CJK}]+")
# a word: a letter then letters, digits, + or #, or digits then letters ("5g", "3d"); the embedder's
# former ASCII pattern with "letter" and "digit" widened to every script, so ASCII text tokenises as before
_WORD = re.compile(r"\b[^\W\d_](?:[^\W_]|[+#])*\b|\b\d+[^\W\d_]+[^\W_]*\b")


def fold(text: str) -> str:
    """``text`` case-folded with the diacritics of Latin, Greek and Cyrillic letters removed."""
    if text.isascii():
        return text.lower()
    text = _DIACRITICS.sub("", unicodedata.normalize("NFKD", text))
    return unicodedata.normalize("NFC", text).casefold()


def split_cjk(word: str) -> list[str]:
    """``word`` with each run of CJK characters cut into overlapping pairs; other parts whole."""
    if word.isascii() or not CJK_RUN.search(word):
        return [word]
    out: list[str] = []
    pos = 0
    for match in CJK_RUN.finditer(word):
        if match.start() > pos:
            out.append(word[pos:match.start()])
        run = match.group(0)
        out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
        pos = match.end()
    if pos < len(word):
        out.append(word[pos:])
    return out


def cjk_pairs(text: str, tail: bool = False) -> str:
    """``text`` with each CJK run replaced by its overlapping character pairs, space-separated and set
    apart from the letters around it (``AKB48ライブ`` -> ``AKB48 ライ イブ``), the tokens the full-text
    index stores and a query looks for. ``tail`` adds the run's last character alone after its pairs
    (the index does: then every character of a run starts a token, so a one-character query ``夫*``
    finds ``太夫``); a one-character run is itself."""
    if text.isascii() or not CJK_RUN.search(text):
        return text

    def spaced(match: re.Match) -> str:
        run = match.group(0)
        pairs = [run[i:i + 2] for i in range(len(run) - 1)] + ([run[-1]] if tail or len(run) == 1 else [])
        return " " + " ".join(pairs) + " "

    return CJK_RUN.sub(spaced, text)


def ends_in_lone_cjk(text: str) -> bool:
    """Whether ``text``'s last CJK run is one character at its very end (``お 笑``): a query for it must
    be a prefix of the index's pairs."""
    text = text.rstrip()
    runs = CJK_RUN.findall(text)
    return bool(runs) and len(runs[-1]) == 1 and text.endswith(runs[-1])


def word_tokens(text: str) -> list[str]:
    """The folded words of ``text`` in any script, CJK runs as character pairs (a picklable
    ``tokenizer=`` for scikit-learn vectorizers)."""
    folded = fold(text or "")
    words = _WORD.findall(folded)
    if folded.isascii():
        return words
    return [part for word in words for part in split_cjk(word)]
