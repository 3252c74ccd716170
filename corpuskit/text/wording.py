"""How corpuskit writes a number, a day, a source and a topic for a reader.

The rules every prose field follows (headlines, ledes, framing sentences; see
:mod:`corpuskit.narrate.prose`, and the signal kinds' own prose in
:mod:`corpuskit.analysis.signals`): counts as integers with thousands separators,
sentiment scores signed with two decimals (``+0.43``), multipliers with one
decimal (``4.6x``; ``23x`` from 10 up); a topic is named by its display label,
cleaned of list parts that are URL debris, handles or numbers
(:func:`clean_label`); a source kind as people write it (``hackernews`` ->
``Hacker News``); a day as ``22 November 2019``. They are here, below the
stages, because both the narrate stage and the detectors write with them.
"""
from __future__ import annotations

import re

from corpuskit.text.normalise import display_text
from corpuskit.text.terms import MISCELLANEOUS, term_tokens

SOURCE_NAMES = {
    "hackernews": "Hacker News", "reddit": "Reddit", "bluesky": "Bluesky", "youtube": "YouTube",
    "arxiv": "arXiv", "twitter": "Twitter", "news": "news sites", "google_news": "Google News",
    "gdelt": "GDELT", "huggingface": "Hugging Face", "exa": "Exa", "webset": "Websets",
    "mastodon": "Mastodon",
}
URL_BITS = re.compile(r"https?://|\bhttps?\b|\bwww\b|\.(?:com|org|net|io)\b|\bt\.co\b", re.IGNORECASE)


def fmt_count(n) -> str:
    """An integer count with thousands separators."""
    return f"{int(round(float(n))):,}"


def fmt_score(x) -> str:
    """A sentiment score, signed, two decimals: ``+0.43``, ``-0.12``, ``0.00``."""
    x = round(float(x), 2)
    return "0.00" if x == 0 else f"{x:+.2f}"


def fmt_multiplier(m) -> str:
    """``4.6x``, or ``23x`` from 10 up."""
    m = float(m)
    return f"{m:.0f}x" if m >= 10 else f"{m:.1f}x"


def fmt_days(n) -> str:
    """``a day``, ``21 days``."""
    n = int(n)
    return "a day" if n == 1 else f"{n} days"


def source_name(source: str) -> str:
    """How a reader names a source kind."""
    return SOURCE_NAMES.get(source, str(source or "").replace("_", " "))


def clean_label(label: str, parts: int = 3) -> list[str]:
    """The usable parts of a topic label (comma-separated), in order, at most ``parts``.

    A part is dropped when it is URL debris, a handle, a number, or repeats an
    earlier part; what remains is display-normalised.
    """
    out, seen = [], set()
    for part in display_text(label).split(","):
        part = part.strip().strip("#").strip()
        if not part or URL_BITS.search(part) or part.startswith("@") or not term_tokens(part):
            continue
        if part.lower() in seen:
            continue
        seen.add(part.lower())
        out.append(part)
    return out[:parts]


def join_words(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = [w for w in words if w]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def topic_name(beat: dict | None, short: bool = False) -> str:
    """A beat's name for prose: its cleaned label (the first part when ``short``).

    A discovered label reads ``"Head: second, third"``: its short name is the head
    and its full name ``"Head (second, third)"``, so a headline never nests colons
    ("Google: Chrome: 7 posts") and a sentence never runs the head into its terms. A catch-all
    topic ("Miscellaneous: data, science") keeps its terms even when short: its head names nothing.
    """
    if beat is None:
        return ""
    label = beat.get("display_name") or ""
    head, sep, rest = label.partition(": ")
    if sep and clean_label(head, 1):
        head = clean_label(head, 1)[0]
        terms = [p for p in clean_label(rest) if p.lower() != head.lower()]
        if (short and head != MISCELLANEOUS) or not terms:
            return head
        return f"{head} ({', '.join(terms)})"
    parts = clean_label(label) or clean_label((beat.get("name") or "").replace("-", " "))
    if not parts:
        return ""
    return parts[0] if short else join_words(parts)


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def long_date(iso_text: str) -> str:
    """``2019-11-22...`` -> ``22 November 2019`` (the text unchanged when it is not a date)."""
    match = re.match(r"(\d{4})-(\d{2})-(\d{2})", str(iso_text or ""))
    if not match or not 1 <= int(match.group(2)) <= 12:
        return str(iso_text or "")[:10]
    return f"{int(match.group(3))} {_MONTHS[int(match.group(2)) - 1]} {match.group(1)}"
