"""The shape of a name, shared by the extractor's typing and entity resolution: the folded key two
spellings of one name share, words written like names or surnames, and the first-name lists."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from corpuskit.query.name_keys import alias_key


@lru_cache(maxsize=65536)
def fold(name: str) -> str:
    """The key two spellings of one name share: accents dropped, lower case, letters and digits only.
    Remembered (entity resolution folds each name many times)."""
    text = unicodedata.normalize("NFKD", alias_key(name))
    return "".join(c for c in text if not unicodedata.combining(c) and c.isalnum())


def surname_like(word: str) -> bool:
    """A capital, a lower-case letter, then letters, each hyphenated part capitalised ("Page",
    "McConnell", "O'Brien", "Smith-Jones"; not "CI", "ISPs", "S" or "Gates-funded")."""
    parts = word.split("-")
    return len(word) > 1 and word[1].islower() and all(
        p[:1].isupper() and p.replace("'", "").replace("\u2019", "").isalpha() for p in parts)


def name_like(word: str) -> bool:
    """Written like a name: a capital, then lower-case letters (not "AI", "ED", "rose" or "DoorDash")."""
    return len(word) > 2 and word[:1].isupper() and word[1:].replace("-", "").isalpha() and (
        word[1:].islower() or "-" in word and all(p[:1].isupper() and p[1:].islower() for p in word.split("-")))


@lru_cache(maxsize=1)
def census_names() -> frozenset:
    """Folded first names of ``gazetteers/census_first_names.txt`` (every US Census 1990 first name
    but the demo vocabulary's words) and ``gazetteers/world_first_names.txt`` (the Latin-script first
    names of Faker's locales, MIT: "Uğur", "Katalin"), both built by ``python tools/build_gazetteers.py``.
    Read once per process (package data; the set cannot change)."""
    from importlib import resources

    folder = resources.files("corpuskit.enrich").joinpath("gazetteers")
    return frozenset(fold(n) for name in ("census_first_names.txt", "world_first_names.txt")
                     for n in folder.joinpath(name).read_text(encoding="utf-8").split())
