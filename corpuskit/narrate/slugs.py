"""Story slugs: how they are made, and how any slug ever used resolves to the canonical one.

Slug rule: version 1 of a story gets its *base slug* (from the story's subject,
see :func:`base_slug`); version ``n > 1`` gets ``<base>-v<n>``. The lead story
takes its base from each version's own headline (``lead-<headline>``), since a
new lead signal makes a new version of the one lead story. Every slug ever
written goes into ``story_slugs`` (slug -> story_key), so an older version's
slug, or a non-canonical spelling of any slug (upper case, spaces, stray
punctuation), resolves to the current version's canonical slug and the HTTP
layer can answer 301. The alias ``lead`` always resolves to the current lead story.
"""
from __future__ import annotations

import re
import unicodedata

from corpuskit.errors import NotFoundError

MAX_SLUG_WORDS = 10
MAX_SLUG_CHARS = 80


def slugify(text: str, max_words: int = MAX_SLUG_WORDS, max_chars: int = MAX_SLUG_CHARS) -> str:
    """Lower-case ASCII words joined by ``-`` (accents folded, punctuation dropped)."""
    folded = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", folded.lower())[:max_words]
    slug = "-".join(words)
    if len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0] or slug[:max_chars]
    return slug


def normalise_slug(slug: str) -> str:
    """The form a typed or mangled slug is looked up under (see :func:`slugify`)."""
    return slugify(slug, max_words=10_000, max_chars=10_000)


def version_slug(base: str, version: int) -> str:
    """``base`` for version 1, ``base-v<n>`` after."""
    return base if version <= 1 else f"{base}-v{version}"


def unique_base(conn, base: str, story_key: str) -> str:
    """``base``, or ``base-2``, ``base-3``... when another story already holds it.

    A base is taken when any slug of another story_key equals it or one of its
    versioned forms could collide (``<base>-v<n>``).
    """
    base = base or "story"
    candidate, n = base, 1
    while True:
        row = conn.execute(
            "SELECT story_key FROM story_slugs WHERE (slug = ? OR slug LIKE ? ESCAPE '\\') "
            "AND story_key != ? LIMIT 1",
            (candidate, _like_escape(candidate) + "-v%", story_key),
        ).fetchone()
        if row is None:
            return candidate
        n += 1
        candidate = f"{base}-{n}"


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def register_slug(conn, slug: str, story_key: str) -> None:
    """Remember that ``slug`` names ``story_key`` (idempotent)."""
    conn.execute("INSERT OR IGNORE INTO story_slugs(slug, story_key) VALUES (?, ?)", (slug, story_key))


def resolve_story_slug(conn, slug: str) -> tuple[int, str, bool]:
    """Resolve any slug ever used to ``(current story id, canonical slug, is_canonical)``.

    ``is_canonical`` is True only when ``slug`` is exactly the current
    version's slug; otherwise the caller should redirect (301) to the
    canonical slug. Raises :class:`NotFoundError` when no story ever had it.
    """
    if not isinstance(slug, str) or not slug.strip():
        raise NotFoundError("Story not found")
    row = conn.execute("SELECT story_key FROM story_slugs WHERE slug = ?", (slug,)).fetchone()
    if row is None:
        normal = normalise_slug(slug)
        row = conn.execute("SELECT story_key FROM story_slugs WHERE slug = ?", (normal,)).fetchone()
    if row is None:
        raise NotFoundError("Story not found")
    current = conn.execute(
        "SELECT id, slug FROM stories WHERE story_key = ? AND is_current = 1", (row[0],)
    ).fetchone()
    if current is None:
        raise NotFoundError("Story not found")
    return current[0], current[1], current[1] == slug
