"""Story slugs: how they are made, and how any slug ever used resolves to the canonical one.

Slug rule: version 1 of a story gets its *base slug* (from the story's subject,
see :func:`base_slug`); version ``n > 1`` gets ``<base>-v<n>``. The lead story
takes its base from each version's own headline (``lead-<headline>``), since a
new lead signal makes a new version of the one lead story. Every slug ever
written goes into ``story_slugs`` (slug -> story_key), so an older version's
slug, or a non-canonical spelling of any slug (upper case, spaces, stray
punctuation), resolves to the current version's canonical slug and the HTTP
layer can answer 301 (:func:`corpuskit.query.resolve_story_slug` reads them). The alias ``lead``
always resolves to the current lead story.
"""
from __future__ import annotations


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
