"""Full-text matching on the ``records_fts`` index: safe FTS5 strings and BM25 ranking."""
from __future__ import annotations

import re

from corpuskit.store.fulltext import TABLE
from corpuskit.text.folding import search_fold
from corpuskit.text.unicode import cjk_pairs, ends_in_lone_cjk

#: A condition on ``records r``: the record matches the bound FTS5 expression.
MATCH_CONDITION = f"r.id IN (SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ?)"
_WORD = re.compile(r"\w+")


def quoted(text: str) -> str:
    """``text`` as one FTS5 string (a phrase of its tokens): folded as the index is
    (:func:`~corpuskit.text.folding.search_fold`: ``straße`` is ``strasse``; a Chinese or Japanese run
    as its character pairs, :func:`~corpuskit.text.unicode.cjk_pairs`), double quotes doubled."""
    return '"' + cjk_pairs(search_fold(text)).strip().replace('"', '""') + '"'


def term(text: str, prefix: bool = False) -> str:
    """:func:`quoted` ``text``, as a prefix when ``prefix`` or when it ends in a lone Chinese or Japanese
    character (``笑`` finds ``お笑い``: the index stores that character only at the start of its pairs)."""
    return quoted(text) + (" *" if prefix or ends_in_lone_cjk(search_fold(text)) else "")


def match_only(compiled) -> str | None:
    """The FTS5 expression when the compiled query (a :class:`~corpuskit.query.CompiledQuery`) is
    one full-text match and nothing else (``vaccine``, ``"offshore wind"``, ``a OR b``), else None:
    then the index alone answers which records match, without reading ``records``."""
    if compiled is not None and compiled.sql == MATCH_CONDITION and len(compiled.args) == 1:
        return compiled.args[0]
    return None


def has_token(text: str) -> bool:
    """True when the tokenizer finds at least one letter or digit in ``text``."""
    return _WORD.search(text) is not None


def bm25_ranking(conn, text: str, limit: int, where=None) -> list[tuple[int, float]]:
    """Record ids matching any word of ``text``, best BM25 first: ``[(record id, score), ...]``.

    ``text`` is plain user words (no query syntax): each word is one quoted FTS5 term and the terms
    are OR-ed. The score is FTS5's ``bm25()`` negated, so higher is better (equal scores: lower id
    first). ``where`` (a :class:`corpuskit.query.Where` over ``records r LEFT JOIN enrichment e``)
    restricts the candidates. At most ``limit`` pairs; an empty list when ``text`` has no word.
    """
    words = _WORD.findall(text or "")
    if not words or limit <= 0:
        return []
    match = " OR ".join(term(w) for w in dict.fromkeys(words))
    sql = f"SELECT rowid, -bm25({TABLE}) AS score FROM {TABLE} WHERE {TABLE} MATCH ?"
    args: list = [match]
    if where:
        sql += (" AND rowid IN (SELECT r.id FROM records r LEFT JOIN enrichment e ON e.record_id = r.id"
                + where.sql() + ")")
        args.extend(where.args)
    sql += " ORDER BY score DESC, rowid LIMIT ?"
    args.append(int(limit))
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, args)]
