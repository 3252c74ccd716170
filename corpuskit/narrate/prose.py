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

:func:`prose_debris` is the check every test and the benchmark run over these
fields: raw detail keys, snake_case, unrounded floats, topic slugs, URL parts
and HTML entities are debris.
"""
from __future__ import annotations

import re

from corpuskit.text import display_text, term_tokens
from corpuskit.text.terms import MISCELLANEOUS

SOURCE_NAMES = {
    "hackernews": "Hacker News", "reddit": "Reddit", "bluesky": "Bluesky", "youtube": "YouTube",
    "arxiv": "arXiv", "twitter": "Twitter", "news": "news sites", "google_news": "Google News",
    "gdelt": "GDELT", "huggingface": "Hugging Face", "exa": "Exa", "webset": "Websets",
    "mastodon": "Mastodon",
}
_URL_BITS = re.compile(r"https?://|\bhttps?\b|\bwww\b|\.(?:com|org|net|io)\b|\bt\.co\b", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#\d{2,6}|#x[0-9a-fA-F]{2,6});")
_CAMEL_KEY = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")
_SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_LONG_FLOAT = re.compile(r"\d+\.\d{3,}")
_HANDLE_RUN = re.compile(r"^(?:@\w+[\s,:]*){2,}")
# camelCase words that are brand names, not keys: one lower-case letter before a capital (iPhone, eBay,
# uBlock, mRNA), or one of the few written with more
_BRAND_PREFIX = re.compile(r"[a-z][A-Z]")
_CAMEL_WORDS = frozenset({"youTube", "gitHub"})


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
        if not part or _URL_BITS.search(part) or part.startswith("@") or not term_tokens(part):
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


def clean_terms(terms, limit: int = 3, exclude=()) -> list[str]:
    """Cluster or keyword terms fit for prose: informative, no URL parts, no repeats, at most ``limit``."""
    out, seen = [], {w.lower() for w in exclude}
    for term in terms or []:
        term = display_text(str(term)).strip()
        tokens = term_tokens(term)
        if not tokens or _URL_BITS.search(term) or "_" in term:
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


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def _date(iso_text: str) -> str:
    """``2019-11-22...`` -> ``22 November 2019`` (the text unchanged when it is not a date)."""
    match = re.match(r"(\d{4})-(\d{2})-(\d{2})", str(iso_text or ""))
    if not match or not 1 <= int(match.group(2)) <= 12:
        return str(iso_text or "")[:10]
    return f"{int(match.group(3))} {_MONTHS[int(match.group(2)) - 1]} {match.group(1)}"


# -- signals ---------------------------------------------------------------------
def signal_subject(signal: dict, beat: dict | None, entity: dict | None, short: bool = True) -> str:
    """What a signal is about: its entity, else its beat, else the term in its detail."""
    if entity is not None:
        return entity["name"]
    name = topic_name(beat, short=short)
    if name:
        return name
    detail = signal.get("detail") or {}
    term = detail.get("entity") or detail.get("term")
    if term and term_tokens(str(term)):
        return display_text(str(term))
    return "the corpus"


def signal_prose(signal: dict, beat: dict | None = None, entity: dict | None = None) -> tuple[str, str]:
    """``(headline, framing sentence)`` for a signal, in plain English with rounded numbers.

    The framing sentence states the severity and sigma (e.g. ``high severity,
    5.2 sigma``) and the detection date.
    """
    d = signal.get("detail") or {}
    kind = signal.get("kind")
    short = signal_subject(signal, beat, entity, short=True)
    full = signal_subject(signal, beat, entity, short=False)
    day = _date(d.get("day") or signal.get("detected_at"))
    window = int(d.get("windowDays") or 0)
    strength = f"{signal['severity']} severity, {float(signal['sigma_score']):.1f} sigma"
    if kind == "volume_spike" and "current" in d:
        current, base = int(d["current"]), float(d.get("baseline") or 0)
        mult = fmt_multiplier(d.get("multiplier") or current / max(base, 1.0))
        # Against a baseline under one a day a multiplier says little ("8x fewer than one"): say "usually none".
        quiet = base < 1
        if d.get("hour"):
            hour = str(d["hour"])[11:16]
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)}"
            headline = f"{short}: {fmt_count(current)} posts in one hour, {versus}"
            framing = (f"In the hour from {hour} UTC on {day}, {fmt_count(current)} records on {full} appeared, "
                       f"{'where that hour usually has fewer than one' if quiet else versus + ' for that hour'}"
                       f" ({strength}).")
        elif d.get("scale") == "week":   # a seven-day count: said as one, never as a day's
            first = _date(d.get("weekStart") or d.get("day"))
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)} a week"
            headline = f"{short}: {fmt_count(current)} posts in 7 days, {versus}"
            usual = ("against fewer than one a week on average before" if quiet
                     else f"{mult} the average of {fmt_count(base)} a week before")
            framing = (f"In the 7 days from {first} to {day}, {fmt_count(current)} records on {full} appeared, "
                       f"{usual} ({strength}).")
        else:
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)}"
            headline = f"{short}: {fmt_count(current)} posts in a day, {versus}"
            usual = (f"against fewer than one a day on average over the previous {fmt_days(window)}" if quiet
                     else f"{mult} the average of {fmt_count(base)} a day over the previous {fmt_days(window)}")
            framing = f"On {day}, {fmt_count(current)} records on {full} appeared in one day, {usual} ({strength})."
        return headline, framing
    if kind == "sentiment_shift" and "after" in d:
        before, after = float(d["before"]), float(d["after"])
        rose = after >= before
        days = int(d.get("afterDays") or 1)
        headline = (f"Sentiment on {short} {'rises' if rose else 'falls'}: {fmt_score(after)}, "
                    f"{'up' if rose else 'down'} from {fmt_score(before)} over {fmt_days(days)}")
        n = d.get("records")
        of = f" of {fmt_count(n)} records" if n else ""
        framing = (f"Over the {fmt_days(days)} to {day}, the average sentiment{of} on {full} "
                   f"{'rose' if rose else 'fell'} to {fmt_score(after)}, from {fmt_score(before)} in the "
                   f"{fmt_days(window)} before ({strength}).")
        return headline, framing
    if kind == "novelty":
        name = entity["name"] if entity is not None else display_text(str(d.get("entity") or d.get("term") or ""))
        where = topic_name(beat, short=True)
        mentions, base = int(d.get("mentions") or 0), int(d.get("baselineMentions") or 0)
        was = "none" if base == 0 else fmt_count(base)
        headline = (f"{name} emerges{' in posts on ' + where if where else ''}: {fmt_count(mentions)} mentions, "
                    f"against {was} in the previous {fmt_days(window)}")
        framing = (f"On {day}, {name} was mentioned {fmt_count(mentions)} times"
                   f"{' in posts on ' + topic_name(beat) if where else ''}, against {was} in the previous "
                   f"{fmt_days(window)} ({strength}).")
        return headline, framing
    if kind == "divergence" and "sourceA" in d:
        a, b = source_name(d["sourceA"]), source_name(d["sourceB"])
        fa, fb, ba = float(d.get("afterA") or 0), float(d.get("afterB") or 0), d.get("beforeA")
        points = float(d.get("divergencePoints") or 0)
        headline = f"{a} and {b} split on {short}: {fmt_score(fa)} against {fmt_score(fb)}"
        moved = f" from {fmt_score(ba)}" if ba is not None else ""
        framing = (f"By {day}, sentiment on {full} on {a} had moved to {fmt_score(fa)}{moved}, while on {b} "
                   f"it stood at {fmt_score(fb)}: the gap between them shifted by {points:.0f} points on a "
                   f"scale of 200 ({strength}).")
        return headline, framing
    # a detail without the numbers above (a custom detector): the detector's headline, its figures dropped
    own = re.sub(r"\s*\([^()]*\)\s*$", "", display_text(signal.get("headline") or "")).rstrip(". ")
    if not own or prose_debris(own):
        own = f"{short}: a {signal['severity']}-severity {str(kind).replace('_', ' ')}"
    framing = f"{own} ({strength}, detected on {_date(signal.get('detected_at'))})."
    return own, framing


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
    found += [f"URL part {m.group(0)!r}" for m in _URL_BITS.finditer(text)]
    found += [f"HTML entity {m.group(0)!r}" for m in _ENTITY.finditer(text)]
    if _HANDLE_RUN.match(text.strip()):
        found.append("leading @handle run")
    return found
