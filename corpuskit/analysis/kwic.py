"""Keyword in context: every place a subcorpus's records say a term, with the words around it.

The text searched is the record's text as every stage reads it: title and content
(:func:`corpuskit.enrich.base.record_text`) through :func:`corpuskit.text.display_text` (HTML
entities unescaped, Unicode NFC, typographic quotes folded, whitespace collapsed). Matching
ignores case and diacritics in any script ("sahin" finds "Şahin", "vacunacion" finds
"vacunación"): both the text and the term are compared letter by letter after Unicode
decomposition without combining marks and case folding, while the concordance shows the text as
written.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

import numpy as np
import pandas as pd

from corpuskit.enrich.base import record_text
from corpuskit.errors import ValidationError
from corpuskit.query.subsets import ID_CHUNK, as_ids, iter_texts
from corpuskit.text import display_text
from corpuskit.text.folding import fold_char as _fold_char
from corpuskit.text.unicode import CJK_CHARS, CJK_RUN

#: The columns of :func:`kwic`, in order.
KWIC_COLUMNS = ("recordId", "left", "match", "right", "publishedAt", "source")
MAX_WINDOW = 100
_NOT_AFTER_WORD = rf"(?<![^\W{CJK_CHARS}])"
_NOT_BEFORE_WORD = rf"(?![^\W{CJK_CHARS}])"
_WORD_CHARS = rf"[^\W{CJK_CHARS}]*"
_TERM_WORD = re.compile(r"[^\W_](?:[\w'\-]*[^\W_])?|[#@][^\W_]\w*", re.UNICODE)


def fold(text: str) -> str:
    """``text`` without diacritics and case, ß as ss, full-width forms plain: what :func:`kwic` compares
    (:func:`corpuskit.text.folding.search_fold`, character by character)."""
    return "".join(_fold_char(ch) for ch in text)


def _folded_with_offsets(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the index of the character it came from."""
    parts, where = [], []
    for i, ch in enumerate(text):
        f = _fold_char(ch) if not ch.isascii() else ch.lower()
        parts.append(f)
        where.extend([i] * len(f))
    return "".join(parts), where


def term_pattern(term: str) -> re.Pattern:
    """The regular expression :func:`kwic` looks for: the words of ``term`` in order, separated by
    anything that is not a letter or digit, whole words only (a Chinese or Japanese edge of the term may
    sit inside a clause: ``太夫`` is found in ``コウメ太夫です``); a final ``*`` makes the last word a
    prefix (``vacc*``)."""
    if not isinstance(term, str) or not term.strip():
        raise ValidationError("term must be a word, a phrase or a prefix such as vacc*")
    text = display_text(term).strip()
    prefix = text.endswith("*")
    if prefix:
        text = text[:-1].rstrip()
    if "*" in text:
        raise ValidationError(f"term {term!r}: '*' may only end the term (a prefix such as vacc*)")
    words = _TERM_WORD.findall(fold(text))
    if not words:
        raise ValidationError(f"term {term!r} has no letters or digits to look for")
    body = r"[\W_]+".join(re.escape(w) for w in words)
    tail = _WORD_CHARS if prefix else ""
    # Chinese and Japanese have no spaces between words: a term's CJK edge needs no word boundary, and
    # a CJK character is no word character next to a Latin edge (AKB48ライブ)
    head = "" if CJK_RUN.match(words[0][0]) else _NOT_AFTER_WORD
    end = "" if not prefix and CJK_RUN.match(words[-1][-1]) else _NOT_BEFORE_WORD
    return re.compile(head + body + tail + end)


def _context(text: str, start: int, end: int, window: int) -> tuple[str, str]:
    left = text[:start].split()
    right = text[end:].split()
    return " ".join(left[-window:]) if window else "", " ".join(right[:window]) if window else ""


def _oldest_first(conn, ids: np.ndarray, chunk: int = 200):
    """The :func:`iter_texts` rows of ``ids`` in chunks, by ``published_at`` then id (the concordance's
    order), the order read from the ``published_at`` of every id first."""
    stamped = []
    for first in range(0, len(ids), ID_CHUNK):
        batch = json.dumps(ids[first:first + ID_CHUNK].tolist())
        stamped += [tuple(r) for r in conn.execute(
            "SELECT published_at, id FROM records WHERE id IN (SELECT value FROM json_each(?))", (batch,))]
    stamped.sort()
    for start in range(0, len(stamped), chunk):
        part = [rid for _, rid in stamped[start:start + chunk]]
        rows = conn.execute("SELECT id, title, content_text, published_at, source FROM records WHERE id IN "
                            "(SELECT value FROM json_each(?)) ORDER BY published_at, id", (json.dumps(part),)).fetchall()
        yield [tuple(r) for r in rows]


def kwic(corpus, ids, term: str, window: int = 8, limit: int | None = None) -> pd.DataFrame:
    """A keyword-in-context concordance of ``term`` in the records ``ids``.

    One row per occurrence with :data:`KWIC_COLUMNS`: ``recordId``, ``left`` (up to ``window``
    words before), ``match`` (the text as written), ``right`` (up to ``window`` words after),
    ``publishedAt`` and ``source``. ``term`` is a word, a phrase (its words in order, across
    spaces and punctuation) or a prefix (``vacc*``); case and diacritics are ignored. Rows are
    sorted by ``publishedAt``, then record id, then position in the text; ``limit`` keeps the
    first rows of that order.
    """
    pattern = term_pattern(term)
    if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window <= MAX_WINDOW:
        raise ValidationError(f"window must be a whole number of words from 0 to {MAX_WINDOW}, not {window!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValidationError(f"limit must be a positive integer, not {limit!r}")
    ids = as_ids(ids)
    rows: list[tuple] = []
    # with a limit, the records are read oldest first and the reading stops once the limit is reached:
    # every later record's lines sort after those
    for chunk in (_oldest_first(corpus.conn, ids) if limit is not None else iter_texts(corpus.conn, ids)):
        for rid, title, content, published, source in chunk:
            text = display_text(record_text(title, content))
            folded, where = _folded_with_offsets(text)
            for m in pattern.finditer(folded):
                start, end = where[m.start()], where[m.end() - 1] + 1
                left, right = _context(text, start, end, window)
                rows.append((published, rid, start, left, text[start:end], right, source))
        if limit is not None and len(rows) >= limit:
            break
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    if limit is not None:
        rows = rows[:limit]
    return pd.DataFrame([(r[1], r[3], r[4], r[5], r[0], r[6]) for r in rows], columns=list(KWIC_COLUMNS)) \
        if rows else pd.DataFrame({c: pd.Series(dtype="int64" if c == "recordId" else object) for c in KWIC_COLUMNS})
