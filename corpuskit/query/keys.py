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
_SLUG_DROP = re.compile(r"[^a-z0-9]+")

MAX_SLUG_WORDS = 10
MAX_SLUG_CHARS = 80


def alias_key(text: str) -> str:
    """Normalised alias: lower case, no leading ``@`` or ``#``, no possessive, no spacing or
    punctuation (letters of any script kept: ``Şahin`` -> ``şahin``)."""
    text = POSSESSIVE.sub("", text.strip().lstrip("@#"))
    return _KEY_DROP.sub("", text.lower())


def entity_slug(name: str) -> str:
    """URL slug of an entity's canonical name: ``Sam Altman`` -> ``sam-altman``, ``AT&T`` ->
    ``at-and-t``, ``Uğur Şahin`` -> ``ugur-sahin`` (accents dropped)."""
    text = unicodedata.normalize("NFKD", name.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("&", " and ").replace("++", " plus plus ").replace("#", " sharp ")
    slug = _SLUG_DROP.sub("-", text).strip("-")
    return slug or "entity"


def story_slug(text: str, max_words: int = MAX_SLUG_WORDS, max_chars: int = MAX_SLUG_CHARS) -> str:
    """Lower-case ASCII words joined by ``-`` (accents folded, punctuation dropped)."""
    folded = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", folded.lower())[:max_words]
    slug = "-".join(words)
    if len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0] or slug[:max_chars]
    return slug


def normalise_story_slug(slug: str) -> str:
    """The form a typed or mangled story slug is looked up under (see :func:`story_slug`)."""
    return story_slug(slug, max_words=10_000, max_chars=10_000)
