"""Stop words of every language, from stopwords-iso (the ``stopwordsiso`` package, MIT, 58 languages).

Topic terms, labels, cluster terms and keyness read one vocabulary (:mod:`corpuskit.text.terms`). Its
English stop words are always removed; the stop words of the corpus's other languages are removed too
while :func:`vocabulary_languages` is in effect (the enrich, analyse and narrate stages set it to the
languages that hold at least :data:`MIN_LANGUAGE_SHARE` of the corpus's records). So a mixed corpus has one
shared vocabulary without the function words of any of its languages: a Spanish corpus never labels a
topic "de, la", and an English corpus keeps "die" and "will", which are German function words.

stopwords-iso's lists are broad: besides function words they hold some frequent adverbs and nouns
("hoy", "trabajo", "Menschen"), which then name no topic.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

#: a language holding at least this share of the records has its stop words removed
MIN_LANGUAGE_SHARE = 0.02
_CURRENT: ContextVar[tuple[str, ...]] = ContextVar("corpuskit_vocabulary_languages", default=())


def _code(language) -> str:
    return str(language or "").lower().replace("_", "-").split("-")[0]


@lru_cache(maxsize=1)
def available_languages() -> frozenset[str]:
    """The language codes with a stop-word list."""
    import stopwordsiso

    return frozenset(stopwordsiso.langs())


@lru_cache(maxsize=64)
def stop_words(languages: tuple[str, ...]) -> frozenset[str]:
    """The lower-case stop words of ``languages`` (ISO 639-1 codes; codes with no list add nothing)."""
    import stopwordsiso

    words: set[str] = set()
    for code in sorted({_code(lang) for lang in languages} & available_languages()):
        words.update(w.lower() for w in stopwordsiso.stopwords(code))
    return frozenset(words)


def current_languages() -> tuple[str, ...]:
    """The languages whose stop words the vocabulary removes now, besides English."""
    return _CURRENT.get()


def language_codes(languages) -> tuple[str, ...]:
    """The sorted ISO 639-1 codes of ``languages`` (``es-MX`` -> ``es``) besides English and undetermined."""
    return tuple(sorted({_code(lang) for lang in languages or ()} - {"", "en", "und"}))


def languages_with(languages) -> tuple[str, ...]:
    """The languages in effect (:func:`current_languages`) and ``languages`` (say those of the records
    a term is read from), as :func:`language_codes`: whose stop words those terms leave out."""
    return language_codes(set(current_languages()) | set(languages or ()))


@contextmanager
def vocabulary_languages(languages):
    """Within the block, remove the stop words of ``languages`` (English's always are) from terms."""
    codes = language_codes(languages)
    token = _CURRENT.set(codes)
    try:
        yield codes
    finally:
        _CURRENT.reset(token)


def corpus_languages(counts, min_share: float = MIN_LANGUAGE_SHARE) -> tuple[str, ...]:
    """The languages of ``counts`` (``{code: records}``) that hold at least ``min_share`` of the records."""
    total = sum(counts.values())
    return tuple(sorted(lang for lang, n in counts.items()
                        if lang and total and n / total >= min_share and _code(lang) not in ("und", "")))
