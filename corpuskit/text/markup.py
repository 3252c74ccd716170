"""Plain text out of the small HTML fragments APIs and dumps put in text fields."""
from __future__ import annotations

import html
import re

_BREAKS = re.compile(r"<\s*(?:br\s*/?|/p|p)\s*>", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")
_SPACES = re.compile(r"[ \t\r\f\v]+")
_LINES = re.compile(r"\n\s*\n+")


def html_to_text(fragment) -> str:
    """Strip tags, turn ``<p>``/``<br>`` into line breaks, unescape entities."""
    if not fragment:
        return ""
    text = _BREAKS.sub("\n", str(fragment))
    text = html.unescape(_TAGS.sub("", text))
    text = _SPACES.sub(" ", text)
    lines = [line.strip() for line in text.split("\n")]
    return _LINES.sub("\n\n", "\n".join(lines)).strip()
