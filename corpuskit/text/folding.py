"""The one folding that search, KWIC and keyness share: ``Straße`` = ``strasse``, ``Şahin`` = ``sahin``,
``ＢＢ弾`` = ``bb弾``.

:func:`search_fold` is Unicode NFKC (full-width and compatibility forms to their plain letters, ligatures
split), then case folding (``ß`` -> ``ss``, ``ẞ`` -> ``ss``, final sigma), then the combining marks of
Latin, Greek and Cyrillic letters removed. The full-text index folds each record's text with it before
FTS5's ``unicode61 remove_diacritics 2`` tokenizer reads it, the query compiler folds every word and
phrase with it, KWIC compares folded text and keyness counts folded terms, so a query, a concordance
and a keyness table agree on which words are the same.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def search_fold(text: str) -> str:
    """``text`` NFKC-normalised, case-folded and without diacritics (ASCII: lower case)."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).casefold()
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFD", text)))


@lru_cache(maxsize=4096)
def fold_char(ch: str) -> str:
    """:func:`search_fold` of one character (what it becomes: none, one or more characters)."""
    return search_fold(ch)
