"""Citation markers, traceability checks and the external links of cited records.

Body format written by the extractive writer: paragraphs separated by a blank
line; a quoted sentence is followed by its marker ``[n]`` (``n`` is
``story_citations.ordinal``); framing paragraphs carry no marker and are
listed in ``metadata.framing``.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from corpuskit.narrate.attribution import quoted_text
from corpuskit.narrate.sentences import squash
from corpuskit.text import display_text

MARKER = re.compile(r"\[(\d+)\]")
_LINK = re.compile(r"https?://[^\s<>\"'\])]+")


def renumber(body: str, n_records: int) -> tuple[str, list[int]]:
    """Renumber markers in order of first appearance.

    Returns the new body and ``order``: ``order[k]`` is the writer's index
    (1-based) of the record that becomes ordinal ``k + 1``. Records the body
    never cites are dropped, unless the body cites fewer than two: then the
    uncited ones follow in their original order so a story always has at
    least two citations.
    """
    order: list[int] = []
    for m in MARKER.finditer(body):
        n = int(m.group(1))
        if n not in order:
            order.append(n)
    if len(order) < 2:
        order += [n for n in range(1, n_records + 1) if n not in order]
    new_of = {old: new for new, old in enumerate(order, 1)}
    return MARKER.sub(lambda m: f"[{new_of[int(m.group(1))]}]", body), order


def trace_body(body: str, texts: dict[int, str], framing: list[str]) -> list[str]:
    """Problems found tracing ``body`` to its sources (an empty list means fully traced).

    Every paragraph is either a framing sentence (listed in ``framing``) or a
    run of ``sentence [n]`` units (a sentence may be attributed, ``A Reddit post said: “...”``: then
    its quoted words, see :func:`corpuskit.narrate.attribution.quoted_text`) where each occurs verbatim *after
    display normalisation* in ``texts[n]``, the text of the record cited as
    ``n``: the sentence is a substring of ``display_text(texts[n])`` (HTML
    entities unescaped, typographic quotes folded, zero-width characters
    dropped, whitespace collapsed; see :func:`corpuskit.text.display_text`).
    The stored record text is never changed; a reader who applies
    ``display_text`` to it finds every quote.
    """
    problems = []
    framing = {squash(f) for f in framing}
    squashed = {n: display_text(t) for n, t in texts.items()}
    for paragraph in (p for p in body.split("\n\n") if p.strip()):
        if squash(paragraph) in framing:
            continue
        parts = MARKER.split(paragraph)
        if squash(parts[-1]):
            problems.append(f"unmarked text {squash(parts[-1])!r}")
        for sentence, n in zip(parts[0::2], parts[1::2]):
            sentence, n = squash(quoted_text(squash(sentence))), int(n)
            if n not in squashed:
                problems.append(f"marker [{n}] cites no record")
            elif not sentence or sentence not in squashed[n]:
                problems.append(f"sentence {sentence!r} not found in record [{n}]")
    return problems


def strip_markers(body: str) -> str:
    """The body without markers (for word counts and display)."""
    return squash(MARKER.sub("", body))


def _short(text: str, limit: int = 80) -> str:
    flat = squash(text)
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _clean_url(url: str) -> str:
    return url.rstrip(".,;:!?")


def external_citations(records) -> list[dict]:
    """``[{url, title}]``: each cited record's ``url`` and the http(s) links in its text.

    In citation order, deduplicated. A record's own url is titled with the
    record's title (else its text cut to about 80 characters at a word boundary); a link found in
    the text is titled ``"<host> (linked from a <source> record)"``.
    """
    seen, out = set(), []
    for rec in records:
        first = [(rec.url, rec.title or _short(rec.text))] if rec.url.startswith(("http://", "https://")) else []
        found = [(_clean_url(u), None) for u in _LINK.findall(f"{rec.title} {rec.text}")]
        for url, title in first + found:
            key = url.rstrip("/")
            if not url or key in seen:
                continue
            seen.add(key)
            if title is None:
                title = f"{urlsplit(url).netloc} (linked from a {rec.source} record)"
            out.append({"url": url, "title": title})
    return out
