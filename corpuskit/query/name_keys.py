"""How names become keys and slugs: the one spelling rule each lookup and each writer uses.

Enrichment writes entity slugs and alias keys with these functions, the story
writer writes story slugs with them, and :mod:`corpuskit.query.lookups` reads
them back through the same rules, so a key written is a key found.
"""
from __future__ import annotations

import re
import unicodedata

POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_KEY_DROP = re.compile(r"[^\w+#]|_")
# anything but a letter or digit of any script (on lower-case ASCII: anything but a-z and 0-9)
_SLUG_DROP = re.compile(r"[\W_]+")
_SLUG_WORD = re.compile(r"[^\W_]+")

MAX_SLUG_WORDS = 10
MAX_SLUG_CHARS = 80


def alias_key(text: str) -> str:
    """Normalised alias: lower case, no leading ``@`` or ``#``, no possessive, no spacing or
    punctuation (letters of any script kept: ``Şahin`` -> ``şahin``)."""
    text = POSSESSIVE.sub("", text.strip().lstrip("@#"))
    return _KEY_DROP.sub("", text.lower())


def entity_slug(name: str) -> str:
    """URL slug of an entity's canonical name: ``Sam Altman`` -> ``sam-altman``, ``AT&T`` ->
    ``at-and-t``, ``Uğur Şahin`` -> ``ugur-sahin`` (accents dropped); letters of other scripts are
    kept (``Владимир Путин`` -> ``владимир-путин``), so two names in Cyrillic never share a slug."""
    text = unicodedata.normalize("NFKD", name.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    if not text.isascii():  # Latin letters with no ASCII form (ø, ł) separate, as they always did
        text = "".join("-" if not c.isascii() and _latin(c) else c for c in text)
    text = text.replace("&", " and ").replace("++", " plus plus ").replace("#", " sharp ")
    slug = _SLUG_DROP.sub("-", text).strip("-")
    return slug or "entity"


def story_slug(text: str, max_words: int = MAX_SLUG_WORDS, max_chars: int = MAX_SLUG_CHARS) -> str:
    """Lower-case words joined by ``-`` (accents folded, punctuation dropped); ASCII for Latin
    text, letters of other scripts kept (a Greek or Russian headline keeps a slug)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", str(text)) if not unicodedata.combining(c))
    if not folded.isascii():  # Latin letters with no ASCII form (ø, ł) are dropped, as before
        folded = "".join(c for c in folded if c.isascii() or not _latin(c))
    words = _SLUG_WORD.findall(folded.lower())[:max_words]
    slug = "-".join(words)
    if len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0] or slug[:max_chars]
    return slug


def _latin(char: str) -> bool:
    return "LATIN" in unicodedata.name(char, "")


def normalise_story_slug(slug: str) -> str:
    """The form a typed or mangled story slug is looked up under (see :func:`story_slug`)."""
    return story_slug(slug, max_words=10_000, max_chars=10_000)
