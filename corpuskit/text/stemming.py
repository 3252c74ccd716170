"""Snowball stemmers for queries (the ``snowballstemmer`` package, BSD-3-Clause): ``stem("Laschets", "de")``
is ``laschet``, ``stem("vacunas", "es")`` is ``vacun``.

A query compiled with ``stem=LANG`` (:func:`corpuskit.query.compile_query`, ``Corpus.query(q, stem="de")``)
matches each bare word by its stem as a prefix, so ``laschet`` finds "Laschets" and ``vacunas`` finds
"vacuna", "vacunación" and "vacunarse". A prefix also finds longer words that share the stem; phrases,
prefixes the researcher wrote (``vacc*``) and fields are matched as written.
"""
from __future__ import annotations

from functools import lru_cache

from corpuskit.errors import ValidationError
from corpuskit.text.folding import search_fold

#: ISO 639-1 code -> Snowball algorithm
LANGUAGES = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}


def check_language(language) -> str:
    """``language`` as a code with a stemmer, or a ValidationError naming the codes that have one."""
    code = str(language or "").lower().replace("_", "-").split("-")[0]
    if code not in LANGUAGES:
        raise ValidationError(f"no stemmer for the language {language!r}; stemmers exist for "
                              + ", ".join(sorted(LANGUAGES)))
    return code


@lru_cache(maxsize=40)
def _stemmer(code: str):
    import snowballstemmer

    return snowballstemmer.stemmer(LANGUAGES[code])


def stem(word: str, language: str) -> str:
    """The Snowball stem of ``word`` (folded first, :func:`~corpuskit.text.folding.search_fold`)."""
    return _stemmer(check_language(language)).stemWord(search_fold(word))
