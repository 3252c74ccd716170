"""Plain-English headlines, ledes and framing sentences, built from the evidence's numbers.

Every prose field a story carries (``headline``, ``lede``, ``summary`` and the
framing paragraph of the body) is written here from words, never from field
names: the subject's name, what changed, by how much and since when. The
rules:

- numbers are rounded for reading: counts as integers with thousands
  separators, sentiment scores signed with two decimals (``+0.43``),
  multipliers with one decimal (``4.6x``; ``23x`` from 10 up), sigma with one;
- a topic is named by its display label, cleaned of list parts that are URL
  debris, handles or numbers (:func:`clean_label`); a headline names only its
  first part, the framing sentence the whole cleaned label;
- a source kind is named as people write it (``hackernews`` -> ``Hacker News``);
- a day is written ``22 November 2019``.

The wording rules live in :mod:`corpuskit.text.wording` (re-exported here), so that a signal
kind's own prose, declared by its detector (:mod:`corpuskit.analysis.signals.kinds`), follows
them too; :func:`signal_prose` asks the signal's kind for its headline and framing.

:func:`prose_debris` is the check every test and the benchmark run over these
fields: raw detail keys, snake_case, unrounded floats, topic slugs, URL parts
and HTML entities are debris.
"""
from __future__ import annotations

import re

from corpuskit.analysis.signals.detector import SignalWords
from corpuskit.analysis.signals.kinds import signal_kind
from corpuskit.text import display_text, term_tokens
from corpuskit.text.wording import (SOURCE_NAMES, URL_BITS, clean_label, fmt_count,  # noqa: F401 - re-exported
                                    fmt_days, fmt_multiplier, fmt_score, join_words, long_date,
                                    source_name, topic_name)

_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#\d{2,6}|#x[0-9a-fA-F]{2,6});")
_CAMEL_KEY = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")
_SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_LONG_FLOAT = re.compile(r"\d+\.\d{3,}")
_HANDLE_RUN = re.compile(r"^(?:@\w+[\s,:]*){2,}")
# camelCase words that are brand names, not keys: one lower-case letter before a capital (iPhone, eBay,
# uBlock, mRNA), or one of the few written with more
_BRAND_PREFIX = re.compile(r"[a-z][A-Z]")
_CAMEL_WORDS = frozenset({"youTube", "gitHub"})


def clean_terms(terms, limit: int = 3, exclude=()) -> list[str]:
    """Cluster or keyword terms fit for prose: informative, no URL parts, no repeats, at most ``limit``."""
    out, seen = [], {w.lower() for w in exclude}
    for term in terms or []:
        term = display_text(str(term)).strip()
        tokens = term_tokens(term)
        if not tokens or URL_BITS.search(term) or "_" in term:
            continue
        key = " ".join(tokens)
        if key in seen or any(t in seen for t in tokens):
            continue
        seen.add(key)
        seen.update(tokens)
        out.append(term)
        if len(out) >= limit:
            break
    return out


# -- signals ---------------------------------------------------------------------
def signal_subject(signal: dict, beat: dict | None, entity: dict | None, short: bool = True) -> str:
    """What a signal is about: its entity; the term of a term or phrase series (what it counted: the
    records writing "Alec Baldwin" are not its beat's posts); the source of a source series (Reddit's
    records, not those of the topic that led them); else its beat, else the term in its detail."""
    if entity is not None:
        return entity["name"]
    detail = signal.get("detail") or {}
    term = detail.get("entity") or detail.get("term")
    if (detail.get("series") == "term" or detail.get("subjectKind") == "phrase") and term and term_tokens(str(term)):
        return display_text(str(term))
    if detail.get("series") == "source" and signal.get("source"):
        return source_name(str(signal["source"]))
    name = topic_name(beat, short=short)
    if name:
        return name
    if term and term_tokens(str(term)):
        return display_text(str(term))
    return "the corpus"


def signal_prose(signal: dict, beat: dict | None = None, entity: dict | None = None) -> tuple[str, str]:
    """``(headline, framing sentence)`` for a signal, in plain English with rounded numbers.

    The framing sentence states the severity and sigma (e.g. ``high severity,
    5.2 sigma``) and the detection date. The words are the signal's kind's
    (:meth:`~corpuskit.analysis.signals.detector.Detector.prose`); without them
    (a kind that declares none, a detail without its figures), the detector's
    own headline, its figures dropped.
    """
    d = signal.get("detail") or {}
    kind = signal.get("kind")
    short = signal_subject(signal, beat, entity, short=True)
    full = signal_subject(signal, beat, entity, short=False)
    strength = f"{signal['severity']} severity, {float(signal['sigma_score']):.1f} sigma"
    words = signal_kind(kind).prose(SignalWords(signal, d, beat, entity, short, full,
                                                long_date(d.get("day") or signal.get("detected_at")),
                                                int(d.get("windowDays") or 0), strength))
    if words is not None:
        return words[0], _with_coordination(words[1], d)
    # a kind with no prose, or a detail without its figures: the detector's headline, its figures dropped
    own = re.sub(r"\s*\([^()]*\)\s*$", "", display_text(signal.get("headline") or "")).rstrip(". ")
    if not own or prose_debris(own):
        own = f"{short}: a {signal['severity']}-severity {str(kind).replace('_', ' ')}"
    framing = f"{own} ({strength}, detected on {long_date(signal.get('detected_at'))})."
    return own, _with_coordination(framing, d)


def _with_coordination(framing: str, detail: dict) -> str:
    """The framing, and when the signal's records are mostly one coordinated group's
    (``detail.coordination``, :mod:`corpuskit.analysis.signals.coordinated`), who posted them:
    the accounts as one group acting together, not as that many independent voices."""
    group = detail.get("coordination")
    if not isinstance(group, dict) or not group.get("accounts") or not group.get("records"):
        return framing
    records, accounts = int(group["records"]), int(group["accounts"])
    of = f" of the {fmt_count(int(group['evidence']))}" if group.get("evidence") else ""
    return (f"{framing} {fmt_count(records)}{of} posts it rests on were posted by {fmt_count(accounts)} "
            f"accounts acting together (coordinated group {int(group['group'])}).")


# -- beats and entities ---------------------------------------------------------
def _span(days, period: str | None, last: bool = True) -> str:
    """The stretch of time a story counts over: ``period`` (a past period's phrase, "in March 2016")
    when given, else ``in the last 30 days`` (``in 30 days`` without ``last``)."""
    if period:
        return period
    return f"in the last {fmt_days(days)}" if last else f"in {fmt_days(days)}"


def cluster_prose(beat: dict, cluster: dict, window_days: int, period: str | None = None) -> tuple[str, str]:
    """``(headline, framing)`` for a beat whose development is its fastest-growing cluster
    (``period``: the phrase of a past period the story is written for, see :func:`_span`)."""
    short, full = topic_name(beat, short=True), topic_name(beat)
    terms = clean_terms(cluster.get("top_terms"), 3, exclude=term_tokens(short))
    about = join_words(terms) or "one theme"
    recent, earlier = int(cluster.get("recent") or 0), int(cluster.get("earlier") or 0)
    half = max(1, window_days // 2)
    if earlier:
        change = f"up from {fmt_count(earlier)}" if recent > earlier else f"against {fmt_count(earlier)}"
        change_full = f"against {fmt_count(earlier)} in the {fmt_days(half)} before"
    else:
        change, change_full = "new this period", f"and none in the {fmt_days(half)} before"
    headline = f"{short}: talk of {about} grows to {fmt_count(recent)} posts {_span(half, period, False)}, {change}"
    if recent <= earlier:
        headline = f"{short}: {about} leads with {fmt_count(recent)} posts {_span(half, period, False)}"
    framing = (f"The fastest-growing group of posts on {full} is about {about}: {fmt_count(recent)} records "
               f"{_span(half, period)}, {change_full} ({fmt_count(cluster['record_count'])} in all).")
    return headline, framing


def beat_volume_prose(beat: dict, figures: dict) -> tuple[str, str]:
    """``(headline, framing)`` for a beat with neither an open signal nor a growing cluster: its volume against the window before
    (``figures["period"]``, when set, names the past period the story is written for)."""
    short, full = topic_name(beat, short=True), topic_name(beat)
    n, sources, days = figures.get("records", 0), figures.get("sources", 0), figures.get("windowDays", 0)
    period = figures.get("period")
    previous = figures.get("previousRecords")
    kinds = "one source" if sources == 1 else f"{fmt_count(sources)} sources"
    headline = f"{short}: {fmt_count(n)} posts {_span(days, period, False)}"
    framing = f"{full} drew {fmt_count(n)} records from {kinds} {_span(days, period)}"
    if previous is not None:
        if previous == 0:
            headline += ", none the period before"
        elif abs(n - previous) <= 0.1 * previous:
            headline += f", about as many as the {fmt_days(days)} before"
        else:
            change = round(100 * (n - previous) / previous)
            headline += f", {'up' if change > 0 else 'down'} {abs(change)}% from {fmt_count(previous)}"
        framing += f", against {fmt_count(previous)} in the {fmt_days(days)} before"
    return headline, framing + "."


def _trend_word(now: int, before: int) -> str:
    if before == 0:
        return "appear"
    ratio = now / before
    if ratio >= 2.8:
        return "triple" if ratio < 3.5 else "surge"
    if ratio >= 1.8:
        return "double"
    if ratio >= 1.15:
        return "rise"
    if ratio <= 0.55:
        return "halve" if ratio > 0.4 else "drop"
    if ratio <= 0.87:
        return "fall"
    return "hold steady"


def entity_prose(entity: dict, change: dict, period: str | None = None) -> tuple[str, str]:
    """``(headline, framing)`` for an entity narrative from what changed for it (``period``: the
    phrase of a past period the story is written for, see :func:`_span`).

    ``change``: ``mentions``, ``previousMentions``, ``windowDays``, ``records``,
    ``sentiment`` and ``previousSentiment`` (or None), ``with`` (co-occurring
    entity names, most first).
    """
    name = entity["name"]
    now, before = int(change.get("mentions") or 0), int(change.get("previousMentions") or 0)
    days = fmt_days(change.get("windowDays") or 0)
    span = _span(change.get("windowDays") or 0, period, False)
    word = _trend_word(now, before)
    if word == "appear":
        headline = f"{name}: {fmt_count(now)} mentions {span}, none in the {days} before"
    else:
        headline = f"{name} mentions {word}: {fmt_count(now)} {span}, from {fmt_count(before)}"
    s_now, s_before = change.get("sentiment"), change.get("previousSentiment")
    parts = [f"{name} was mentioned {fmt_count(now)} times in {fmt_count(change.get('records') or 0)} records "
             f"{_span(change.get('windowDays') or 0, period)}, against {fmt_count(before)} in the {days} before"]
    if s_now is not None:
        tone = f"the average sentiment of those records was {fmt_score(s_now)}"
        if s_before is not None:
            tone += f", from {fmt_score(s_before)}"
            shift = round(s_now - s_before, 2)
            if abs(shift) >= 0.1:
                headline += (f"; sentiment {'rises' if shift > 0 else 'falls'} to {fmt_score(s_now)} "
                             f"from {fmt_score(s_before)}")
        parts.append(tone)
    framing = "; ".join(parts) + "."
    others = [n for n in change.get("with") or [] if n and n != name][:3]
    if others:
        framing += f" It appeared most often with {join_words(others)}."
    return headline, framing


# -- the debris check -------------------------------------------------------------
def prose_debris(text: str, slugs=(), keys=()) -> list[str]:
    """What in ``text`` is not prose: a list of findings (empty when clean).

    Debris is: a raw detail key (any of ``keys`` that is not a plain lower-case
    word, or a camelCase word that is not a brand name: one lower-case letter first, as "uBlock",
    or one of a short list), a snake_case identifier, a float with three or
    more decimals, a topic slug (any of ``slugs`` that contains a hyphen), URL
    parts (``http``, ``www``, ``.com``...), an HTML entity, or a leading run of
    two or more @handles.
    """
    found = []
    text = str(text or "")
    keys = [k for k in keys if not (k.isalpha() and k.islower())]  # "before", "records" are words too
    for key in keys:
        if re.search(rf"\b{re.escape(key)}\b", text):
            found.append(f"detail key {key!r}")
    for word in _CAMEL_KEY.findall(text):
        if not _BRAND_PREFIX.match(word) and word not in _CAMEL_WORDS and word not in keys:
            found.append(f"camelCase {word!r}")
    found += [f"snake_case {w!r}" for w in _SNAKE.findall(text)]
    found += [f"unrounded {w!r}" for w in _LONG_FLOAT.findall(text)]
    for slug in slugs:
        if "-" in slug and re.search(rf"(?<![\w-]){re.escape(slug)}(?![\w-])", text):
            found.append(f"topic slug {slug!r}")
    found += [f"URL part {m.group(0)!r}" for m in URL_BITS.finditer(text)]
    found += [f"HTML entity {m.group(0)!r}" for m in _ENTITY.finditer(text)]
    if _HANDLE_RUN.match(text.strip()):
        found.append("leading @handle run")
    return found
