"""The deterministic demo corpus: synthetic posts with planted, known events.

:func:`generate_demo` makes the records and the ground truth (pure: no I/O,
the same arguments give the same output in any process).
:func:`store_demo` stores them in a corpus, with the beat definitions and
the ground truth; :func:`corpuskit.demo.build_demo` does that, then runs every stage.

The corpus covers ``days`` days ending on :data:`END_DAY`. Each beat (see
``datasets/demo/beats.json``) has a steady daily volume (multinomial noise, a
mild weekend dip), a steady mix of positive, neutral and negative posts, and
its own vocabulary and sub-themes. After :data:`BASELINE_DAYS` quiet days the
generator plants volume spikes, sentiment shifts, novel entities and
divergences between two sources, and lists them in the ground truth. Each
record's ``metadata["demo"]`` labels its beat, the entities written in it and
the planted sentiment, for evaluating the later stages.
"""
from __future__ import annotations

import bisect
import itertools
import json
import math
import random
import re
from functools import lru_cache
from datetime import date, timedelta
from pathlib import Path
from time import perf_counter
from typing import Iterator

import numpy as np

from corpuskit.errors import ValidationError
from corpuskit.ingest import demo_vocab as V
from corpuskit.query.values import SENTIMENT_LABELS

END_DAY = date(2026, 10, 31)
_EPOCH = date(1970, 1, 1)
BASELINE_DAYS = 21
OFFBEAT_SHARE = 0.05
WEEKEND_FACTOR = 0.9
GROUND_TRUTH_VERSION = 1
SENTIMENTS = SENTIMENT_LABELS

# Planted events: (kind, position in the post-baseline window from 0 to 1, beat slot, settings).
# Beat slots index a seeded permutation of the beats; slots 0 and 1 carry two events each, placed
# at opposite ends of the window so they never overlap.
_PLAN = (
    ("volume_spike", 0.02, 0, {"multipliers": (4.0, 3.0)}),
    ("sentiment_shift", 0.12, 1, {"direction": "negative", "length": 5}),
    ("novelty", 0.25, 2, {"length": 5}),
    ("divergence", 0.37, 3, {"length": 5}),
    ("volume_spike", 0.50, 4, {"multipliers": (5.0,)}),
    ("sentiment_shift", 0.62, 5, {"direction": "positive", "length": 5}),
    ("novelty", 0.75, 6, {"length": 5}),
    ("divergence", 0.86, 0, {"length": 5}),
    ("volume_spike", 0.95, 1, {"multipliers": (3.5, 3.0)}),
)
#: The kinds of event the demo plants, in plan order: one per shipped signal kind, the kind its detector
#: should find (the demo names them itself: planting is the demo's, finding them the detectors').
EVENT_KINDS = tuple(dict.fromkeys(kind for kind, *_ in _PLAN))
SHIFT_MIX = {"negative": (0.03, 0.07, 0.90), "positive": (0.92, 0.06, 0.02)}
DIVERGENCE_MIX = {"positive": (0.88, 0.08, 0.04), "negative": (0.04, 0.08, 0.88)}
# Share of a beat's records that are about the event's featured entity.
FOCUS_SHARE = {"sentiment_shift": 0.5, "divergence": 0.5, "novelty": 0.55}
NOVELTY_TAIL_SHARE = 0.12  # after its window a novel entity keeps turning up in this share

_HOURS = tuple(range(24))
_HOUR_CUM = list(itertools.accumulate([2, 1.5, 1, 1, 1, 1.5, 2, 3, 4, 5, 5, 5, 5, 5.5, 6, 6, 6, 5.5,
                                       5, 4.5, 4, 3.5, 3, 2.5]))
_CAPTURE_DELAY = {"reddit": (60, 3600), "twitter": (30, 900), "bluesky": (30, 900),
                  "news": (600, 7200), "hackernews": (120, 1800), "youtube": (1800, 14400),
                  "arxiv": (3600, 43200)}
_SLOT = re.compile(r"\{(\w+)\}")
_ENTITY_SLOTS = ("org", "person", "product", "place", "concept")
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_B32_SORT = "234567abcdefghijklmnopqrstuvwxyz"
_YT = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"


# -- the event plan ----------------------------------------------------------------------------
def _day_range(days: int) -> list[date]:
    return [END_DAY - timedelta(days=days - 1 - i) for i in range(days)]


def check_demo_params(seed, records, days) -> None:
    """Raise :class:`ValidationError` unless the demo's seed, record count and days are ints in range."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValidationError(f"demo seed must be an int, not {seed!r}")
    if seed < 0:
        raise ValidationError(f"demo seed must be >= 0, not {seed}")
    if isinstance(records, bool) or not isinstance(records, (int, np.integer)) or records < 100:
        raise ValidationError(f"demo records must be an int >= 100, not {records!r}")
    if isinstance(days, bool) or not isinstance(days, (int, np.integer)) or days < 28:
        raise ValidationError(
            f"demo days must be an int >= 28 (events need a {BASELINE_DAYS}-day baseline), not {days!r}"
        )
    if days > 3650:
        raise ValidationError(f"demo days must be <= 3650, not {days}")


def plan_events(seed: int, days: int) -> list[dict]:
    """The planted events of a demo corpus (the ``events`` list of its ground truth).

    Pure function of ``seed`` and ``days``; events fall after the first
    :data:`BASELINE_DAYS` days and never overlap on one beat.
    """
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 101]))
    beats = [V.BEAT_NAMES[i] for i in rng.permutation(len(V.BEAT_NAMES))]
    dates = _day_range(days)
    window = days - BASELINE_DAYS
    novel = list(V.NOVEL_ENTITIES)
    events = []
    for kind, position, slot, settings in _PLAN:
        beat = beats[slot]
        length = len(settings["multipliers"]) if kind == "volume_spike" else settings["length"]
        start = BASELINE_DAYS + int(round(position * (window - length)))
        themes = sorted(V.THEMES[beat])
        theme = themes[int(rng.integers(len(themes)))]
        event = {"kind": kind, "beat": beat, "theme": theme,
                 "startIndex": start, "endIndex": start + length - 1}
        pool = [(n, "org") for n in V.ENTITIES[beat]["org"]] + \
               [(n, "product") for n in V.ENTITIES[beat]["product"]]
        if kind == "novelty":
            name, etype = novel.pop(0)
        else:
            name, etype = pool[int(rng.integers(len(pool)))]
        event["entity"] = {"name": name, "type": etype}
        event["sources"] = list(V.SOURCES)
        if kind == "volume_spike":
            event["multipliers"] = list(settings["multipliers"])
        elif kind == "sentiment_shift":
            event["direction"] = settings["direction"]
            event["mix"] = dict(zip(SENTIMENTS, SHIFT_MIX[settings["direction"]]))
        elif kind == "divergence":
            shares = V.SOURCE_SHARES[beat]
            top = sorted((s for s in V.SOURCES if s != "arxiv"), key=lambda s: (-shares[s], s))[:2]
            if rng.random() < 0.5:
                top.reverse()
            event["positiveSource"], event["negativeSource"] = top
            event["sources"] = top
        events.append(event)
    events.sort(key=lambda e: (e["startIndex"], e["beat"]))
    for number, event in enumerate(events, start=1):
        event["id"] = f"E{number}"
        event["days"] = [dates[i].isoformat() for i in range(event["startIndex"], event["endIndex"] + 1)]
        event["start"], event["end"] = event["days"][0], event["days"][-1]
        event["description"] = _describe(event)
    for beat in V.BEAT_NAMES:
        spans = sorted((e["startIndex"], e["endIndex"]) for e in events if e["beat"] == beat)
        for (_, end), (start, _) in zip(spans, spans[1:]):
            if start <= end:  # the plan above rules this out; a guard against editing it wrongly
                raise AssertionError(f"planted events overlap on beat {beat}")
    return events


def _describe(event: dict) -> str:
    name = event["entity"]["name"]
    span = event["start"] if event["start"] == event["end"] else f"{event['start']} to {event['end']}"
    if event["kind"] == "volume_spike":
        mult = "/".join(f"{m:g}x" for m in event["multipliers"])
        return f"Volume spike on {event['beat']} ({mult} the normal daily volume), {span}, about {name}."
    if event["kind"] == "sentiment_shift":
        return f"Sentiment on {event['beat']} turns {event['direction']}, {span}, around {name}."
    if event["kind"] == "novelty":
        return f"New {event['entity']['type']} {name} appears on {event['beat']} on {event['start']} and becomes prominent."
    return (f"On {event['beat']}, {event['positiveSource']} turns positive while "
            f"{event['negativeSource']} turns negative, {span}, about {name}.")


def _public_event(event: dict) -> dict:
    out = {k: v for k, v in event.items() if k not in ("startIndex", "endIndex")}
    return dict(sorted(out.items()))


# -- text ------------------------------------------------------------------------------------
class _Writer:
    """Fills templates for one record, remembering which entities it wrote."""

    def __init__(self, rng, beat, theme, source, featured=None):
        self.rng = rng
        self.beat = beat
        self.theme = theme
        self.source = source
        self.featured = featured
        self.entities: dict[str, str] = {}
        self.used_objects: list[str] = []

    def pick(self, items):
        return items[self.rng.randrange(len(items))]

    def _entity(self, etype: str) -> str:
        common = etype == "place" and self.rng.random() < 0.2
        pool, cum = _entity_weights(self.beat, self.theme, etype, common)
        for _ in range(4):  # prefer an entity the record has not named yet
            name = pool[bisect.bisect_right(cum, self.rng.random() * cum[-1])]
            if name not in self.entities:
                break
        return name

    def _surface(self, name: str, possessive: bool) -> str:
        if possessive:
            return name + "'s"
        if self.source in ("twitter", "bluesky") and " " not in name and self.rng.random() < 0.3:
            return "@" + name
        return name

    def _object(self) -> str:
        phrases = V.THEMES[self.beat][self.theme]
        fresh = [p for p in phrases if p not in self.used_objects] or phrases
        phrase = self.pick(fresh)
        self.used_objects.append(phrase)
        return phrase

    def fill(self, template: str) -> str:
        def slot(match):
            key = match.group(1)
            base, possessive = (key[:-4], True) if key.endswith("_pos") else (key, False)
            if base == "featured":
                name, etype = self.featured
            elif base in _ENTITY_SLOTS:
                etype = base
                name = self._entity(etype)
            elif base in ("obj", "obj2"):
                return self._object()
            elif base == "kw":
                return self.pick(next(b for b in V.BEATS if b["name"] == self.beat)["keywords"])
            elif base == "org_verb":
                return self.pick(V.ORG_VERBS)
            elif base == "person_verb":
                return self.pick(V.PERSON_VERBS)
            elif base == "product_verb":
                return self.pick(V.PRODUCT_VERBS)
            else:
                raise KeyError(key)
            self.entities.setdefault(name, etype)
            return self._surface(name, possessive)

        text = _SLOT.sub(slot, template)
        if text[:1].islower() and not template.startswith(("{org", "{person", "{product", "{place",
                                                            "{concept", "{featured")):
            text = text[0].upper() + text[1:]
        return text

    def labels(self, title: str, text: str) -> list[list[str]]:
        full = f"{title} {text}"
        found = [(full.find(name), name, etype) for name, etype in self.entities.items()]
        return [[name, etype] for pos, name, etype in sorted(found) if pos >= 0]


def _sentiment_sentences(rng, sentiment: str, count: int, paper: bool = False) -> list[str]:
    if paper:
        bank = {"positive": V.PAPER_POSITIVE, "negative": V.PAPER_NEGATIVE, "neutral": V.PAPER_NEUTRAL}
    else:
        bank = {"positive": V.POSITIVE_SENTENCES, "negative": V.NEGATIVE_SENTENCES,
                "neutral": V.NEUTRAL_SENTENCES}
    pool = bank[sentiment]
    return rng.sample(pool, min(count, len(pool)))


def _compose(rng, source: str, beat, theme, sentiment: str, focus) -> tuple[dict, dict]:
    """Title, text and content type of one record, plus its demo labels."""
    if beat is None:
        return _compose_offbeat(rng, source, sentiment)
    featured = (focus["entity"]["name"], focus["entity"]["type"]) if focus else None
    w = _Writer(rng, beat, theme, source, featured)
    n_sent = 1 if sentiment == "neutral" else rng.randint(1, 2)
    event_line = [w.fill(w.pick(V.EVENT_SENTENCES[focus["kind"]]))] if focus else []
    content_type = "post"
    title = ""
    if source == "arxiv":
        content_type = "paper"
        title = w.fill(w.pick(V.PAPER_TITLE_TEMPLATES))
        picks = rng.sample(range(len(V.PAPER_SENTENCES)), 3)
        body = [w.fill(V.PAPER_SENTENCES[i]) for i in sorted(picks)]
        body = body[:1] + event_line + body[1:] + _sentiment_sentences(rng, sentiment, 1, paper=True)
        if sentiment != "neutral":
            body += _sentiment_sentences(rng, "neutral", 1, paper=True)
    elif source in ("twitter", "bluesky"):
        body = event_line or [w.fill(w.pick(V.FACT_TEMPLATES))]
        body += _sentiment_sentences(rng, sentiment, 1)
        if rng.random() < 0.5:
            body.append(w.pick(V.HASHTAGS[beat]))
    elif source == "youtube":
        content_type = "video"
        title = w.fill(w.pick(V.YOUTUBE_TITLES))
        body = event_line + [w.fill(w.pick(V.FACT_TEMPLATES))]
        body += _sentiment_sentences(rng, sentiment, n_sent) + [w.pick(V.YOUTUBE_LINES)]
    elif source == "news":
        content_type = "article"
        title = w.fill(w.pick(V.TITLE_TEMPLATES))
        body = [w.fill(w.pick(V.NEWS_LEADS))] + event_line
        body += [w.fill(t) for t in _distinct(rng, V.FACT_TEMPLATES, 2)]
        body += _sentiment_sentences(rng, sentiment, n_sent)
        if sentiment != "neutral":
            body += _sentiment_sentences(rng, "neutral", 1)
    else:  # reddit and hackernews: a post/story with a title, or a comment without one
        is_comment = rng.random() < (0.25 if source == "reddit" else 0.3)
        if is_comment:
            content_type = "comment"
            body = event_line or [w.fill(w.pick(V.FACT_TEMPLATES))]
            body += _sentiment_sentences(rng, sentiment, n_sent)
        else:
            content_type = "post" if source == "reddit" else "story"
            title = w.fill(w.pick(V.TITLE_TEMPLATES))
            body = event_line + [w.fill(t) for t in _distinct(rng, V.FACT_TEMPLATES, 2)]
            body += _sentiment_sentences(rng, sentiment, n_sent)
            if source == "reddit" and rng.random() < 0.5:
                body.append(w.pick(V.REDDIT_QUESTIONS))
    if title and sentiment != "neutral" and rng.random() < 0.3:
        tails = V.POSITIVE_TITLE_TAILS if sentiment == "positive" else V.NEGATIVE_TITLE_TAILS
        title = f"{title}, {w.pick(tails)}"
    text = " ".join(body)
    return ({"title": title, "contentText": text, "contentType": content_type},
            {"entities": w.labels(title, text)})


def _compose_offbeat(rng, source: str, sentiment: str) -> tuple[dict, dict]:
    places = []

    def fill(template):
        if "{place}" in template:
            place = rng.choice(V.COMMON_PLACES)
            places.append(place)
            return template.replace("{place}", place)
        return template

    lines = [fill(t) for t in _distinct(rng, V.OFFBEAT_SENTENCES, 2)]
    if sentiment != "neutral":
        lines += _sentiment_sentences(rng, sentiment, 1)
    text = " ".join(lines)
    content_type = {"youtube": "video", "news": "article", "hackernews": "story"}.get(source, "post")
    titles = V.OFFBEAT_TITLES.get(source)
    title = rng.choice(titles) if titles else ""
    labels = [[p, "place"] for p in dict.fromkeys(places)]
    return {"title": title, "contentText": text, "contentType": content_type}, {"entities": labels}


def _distinct(rng, items, count):
    return rng.sample(items, count)


@lru_cache(maxsize=None)
def _entity_weights(beat: str, theme: str, etype: str, common: bool) -> tuple[tuple, list]:
    """Entities of one type for a beat and sub-theme, with cumulative pick weights.

    Weights are stable over time (a Zipf-like fall-off), and entities whose
    index matches the sub-theme's index are favoured, so sub-themes have
    their own recurring names.
    """
    pool = tuple(V.COMMON_PLACES if common else V.ENTITIES[beat][etype])
    themes = sorted(V.THEMES[beat])
    t_index = themes.index(theme)
    cum, total = [], 0.0
    for i in range(len(pool)):
        total += (3.0 if i % len(themes) == t_index else 1.0) / (1 + 0.3 * i)
        cum.append(total)
    return pool, cum


# -- ids, authors, urls, engagement ---------------------------------------------------------------
def _b36(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _B36[r] + out
        if n == 0:
            return out


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:60].rstrip("-") or "post"


def _authors(rng) -> dict:
    out = {}
    words, firsts, lasts = V.HANDLE_WORDS, V.FIRST_NAMES, V.LAST_NAMES
    for source in V.SOURCES:
        names = []
        for i in range(240):
            a, b = words[rng.randrange(len(words))], words[rng.randrange(len(words))]
            f, l_ = firsts[rng.randrange(len(firsts))], lasts[rng.randrange(len(lasts))]
            if source == "reddit":
                names.append(f"{a}_{b}{rng.randrange(10, 999)}")
            elif source == "hackernews":
                names.append(f"{a}{b}{i}")
            elif source == "bluesky":
                names.append(f"{f.lower()}{l_.lower()}{i}.bsky.social")
            elif source == "twitter":
                names.append(f"{f.lower()}_{b}{i}")
            elif source == "news":
                names.append(f"{f} {l_}")
            elif source == "youtube":
                names.append(V.YOUTUBE_CHANNELS[i % len(V.YOUTUBE_CHANNELS)])
            else:
                names.append(f"{f} {l_}")
        cum, total = [], 0.0
        for i in range(len(names)):
            total += 1.0 / (i + 1) ** 0.8
            cum.append(total)
        out[source] = (names, cum)
    return out


def _finish(rng, rec: dict, seq: dict, authors: dict, ts: int) -> None:
    """Give a record its source id, url, author, capture time and source metadata."""
    source = rec["source"]
    names, weights = authors[source]
    author = rng.choices(names, cum_weights=weights)[0]
    focus_boost = 3.0 if rec["metadata"]["demo"]["event"] else 1.0
    lo, hi = _CAPTURE_DELAY[source]
    rec["capturedAt"] = _iso(ts + rng.randrange(lo, hi))
    ymd = rec["publishedAt"][:10].replace("-", "/")
    meta = rec["metadata"]
    slug = _slug(rec["title"] or rec["contentText"][:60])
    seq[source] = seq.get(source, 0) + 1
    n = seq[source]
    if source == "reddit":
        seq["reddit_id"] = seq.get("reddit_id", 1_700_000_000) + rng.randrange(5, 60)
        rid = _b36(seq["reddit_id"])
        sub = rec["subreddit"]
        score = int(math.exp(rng.gauss(2.8, 1.2)) * focus_boost)
        if rec["contentType"] == "comment":
            rec["sourceId"] = f"t1_{rid}"
            rec["url"] = f"https://www.reddit.com/r/{sub}/comments/{_b36(seq['reddit_id'] - 7)}/comment/{rid}/"
            meta.update({"score": score, "is_comment": True})
        else:
            rec["sourceId"] = f"t3_{rid}"
            rec["url"] = f"https://www.reddit.com/r/{sub}/comments/{rid}/{slug}/"
            meta.update({"score": score, "num_comments": int(score * rng.uniform(0.05, 0.5)),
                         "upvote_ratio": round(rng.uniform(0.70, 0.99), 2)})
        rec["author"] = author
    elif source == "hackernews":
        seq["hn_id"] = seq.get("hn_id", 45_100_000) + rng.randrange(20, 400)
        rec["sourceId"] = str(seq["hn_id"])
        rec["url"] = f"https://news.ycombinator.com/item?id={seq['hn_id']}"
        score = int(math.exp(rng.gauss(2.5, 1.3)) * focus_boost) + 1
        meta.update({"score": score, "type": "comment" if rec["contentType"] == "comment" else "story"})
        if rec["contentType"] != "comment":
            meta["num_comments"] = int(score * rng.uniform(0.1, 0.8))
        rec["author"] = author
    elif source == "twitter":
        ms = ts * 1000
        tid = ((ms - 1288834974657) << 22) | (n % 4096)
        rec["sourceId"] = str(tid)
        handle = author
        rec["url"] = f"https://twitter.com/{handle}/status/{tid}"
        meta.update(_likes_meta(rng, 2.0, 1.4, focus_boost, "retweet_count", handle))
        rec["author"] = handle
    elif source == "bluesky":
        micros = ts * 1_000_000 + n % 1_000_000
        value = (micros << 10) | (n % 1024)
        rkey = "".join(_B32_SORT[(value >> (5 * i)) & 31] for i in reversed(range(13)))
        did = _did(author)
        rec["sourceId"] = f"at://{did}/app.bsky.feed.post/{rkey}"
        rec["url"] = f"https://bsky.app/profile/{author}/post/{rkey}"
        meta.update(_likes_meta(rng, 1.8, 1.3, focus_boost, "repost_count", author))
        rec["author"] = author
    elif source == "news":
        outlet, domain = V.NEWS_OUTLETS[rng.randrange(len(V.NEWS_OUTLETS))]
        rec["sourceId"] = f"{domain}/{ymd}/{slug}-{n}"
        rec["url"] = f"https://{domain}/{ymd}/{slug}-{n}"
        meta.update({"outlet": outlet, "section": V.NEWS_SECTIONS[meta["demo"]["beat"]],
                     "word_count": len(rec["contentText"].split())})
        rec["author"] = author
    elif source == "youtube":
        vid = "".join(rng.choice(_YT) for _ in range(11))
        rec["sourceId"] = vid
        rec["url"] = f"https://www.youtube.com/watch?v={vid}"
        views = int(math.exp(rng.gauss(8.0, 1.5)) * focus_boost)
        meta.update({"views": views, "likes": int(views * rng.uniform(0.01, 0.06)),
                     "comment_count": int(views * rng.uniform(0.001, 0.01)),
                     "duration_seconds": rng.randrange(180, 1800), "channel": author})
        rec["author"] = author
    else:  # arxiv
        key = ymd[2:4] + ymd[5:7]
        seq[key] = seq.get(key, rng.randrange(100, 900)) + rng.randrange(1, 30)
        arxiv_id = f"{key}.{seq[key]:05d}"
        rec["sourceId"] = arxiv_id
        rec["url"] = f"https://arxiv.org/abs/{arxiv_id}"
        cats = V.ARXIV_CATEGORIES.get(meta["demo"]["beat"], ["cs.CY"])
        primary = cats[rng.randrange(len(cats))]
        co = [names[rng.randrange(len(names))] for _ in range(rng.randrange(1, 4))]
        authors_list = list(dict.fromkeys([author] + co))
        meta.update({"arxiv_id": arxiv_id, "primary_category": primary,
                     "categories": sorted(set([primary] + cats[:1])), "authors": authors_list})
        rec["author"] = ", ".join(authors_list)


def _likes_meta(rng, mu: float, sigma: float, focus_boost: float, share_key: str, handle: str) -> dict:
    """A social post's engagement: lognormal likes, shares (``share_key``) and replies in
    proportion, and the ``handle``."""
    likes = int(math.exp(rng.gauss(mu, sigma)) * focus_boost)
    return {"like_count": likes, share_key: int(likes * rng.uniform(0.05, 0.4)),
            "reply_count": int(likes * rng.uniform(0.02, 0.3)), "handle": handle}


def _iso(ts: int) -> str:
    day, second = divmod(ts, 86400)
    hour, rest = divmod(second, 3600)
    return f"{_day_text(day)}T{hour:02d}:{rest // 60:02d}:{rest % 60:02d}Z"


@lru_cache(maxsize=None)
def _day_text(day: int) -> str:
    return (_EPOCH + timedelta(days=day)).isoformat()


@lru_cache(maxsize=None)
def _did(handle: str) -> str:
    return "did:plc:" + "".join(_B32_SORT[_hash_int(handle, k) & 31] for k in range(24))


def _hash_int(text: str, salt: int) -> int:
    """A process-independent small hash of ``text`` (Python's ``hash`` is salted per process)."""
    value = 2166136261 ^ salt
    for ch in text.encode("utf-8"):
        value = ((value ^ ch) * 16777619) & 0xFFFFFFFF
    return value >> 3


# -- the generator ----------------------------------------------------------------------------------
def generate_demo(seed: int = 7, records: int = 20000, days: int = 60,
                  events: bool = True) -> tuple[list[dict], dict]:
    """Generate the demo corpus: ``(records, ground_truth)``.

    Pure and deterministic: the same arguments give identical output in any
    process. ``records`` is the exact number of records; ``events=False``
    plants nothing (a null corpus for measuring false alarms). Holds every
    record in memory: :func:`iter_demo_records` streams them instead.
    """
    return list(iter_demo_records(seed, records, days, events)), demo_ground_truth(seed, records, days, events)


def iter_demo_records(seed: int = 7, records: int = 20000, days: int = 60,
                      events: bool = True) -> Iterator[dict]:
    """The records of :func:`generate_demo`, in publication order, one day at a time.

    Memory stays at one day's records whatever the corpus size (a million records over a year is about
    2,700 records a day).
    """
    check_demo_params(seed, records, days)
    seed, records, days = int(seed), int(records), int(days)
    dates = _day_range(days)
    planned = plan_events(seed, days) if events else []
    count_rng = np.random.default_rng(np.random.SeedSequence([seed, 202]))
    rng = random.Random(seed * 1000 + 303)
    finish_rng = random.Random(seed * 1000 + 505)
    authors = _authors(random.Random(seed * 1000 + 404))
    seq: dict = {}

    beats = list(V.BEAT_NAMES) + [None]
    weekly = np.array([WEEKEND_FACTOR if d.weekday() >= 5 else 1.0 for d in dates])
    weights = np.zeros((len(beats), days))
    total_beat_weight = sum(V.BEAT_WEIGHTS.values())
    for b, beat in enumerate(beats):
        share = OFFBEAT_SHARE if beat is None else (1 - OFFBEAT_SHARE) * V.BEAT_WEIGHTS[beat] / total_beat_weight
        weights[b] = share * weekly / weekly.sum()
    for event in planned:
        if event["kind"] == "volume_spike":
            b = beats.index(event["beat"])
            for offset, mult in enumerate(event["multipliers"]):
                weights[b, event["startIndex"] + offset] *= mult
    counts = _daily_counts(count_rng, records, weights / weights.sum())

    for d, day in enumerate(dates):
        midnight = (day - _EPOCH).days * 86400
        out = []
        for b, beat in enumerate(beats):
            out.extend(_cell_records(rng, beat, d, midnight, int(counts[b, d]), planned))
        out.sort(key=lambda item: item[0])
        for ts, rec in out:
            _finish(finish_rng, rec, seq, authors, ts)
            yield rec


def _cell_records(rng, beat, d: int, midnight: int, n: int, planned: list) -> list[tuple[int, dict]]:
    """The ``n`` records of one (beat, day) cell as ``(timestamp, record)`` pairs."""
    active = [e for e in planned if e["beat"] == beat and e["startIndex"] <= d]
    shares = V.SOURCE_SHARES[beat]
    src_cum = list(itertools.accumulate(shares[s] for s in V.SOURCES))
    themes = sorted(V.THEMES[beat]) if beat else [None]
    cell_sources = rng.choices(V.SOURCES, cum_weights=src_cum, k=n)
    cell_sentiments = _stratified_sentiments(rng, [_mix(beat, source, d, active) for source in cell_sources])
    out = []
    for source, sentiment in zip(cell_sources, cell_sentiments):
        focus = None
        for e in active:
            in_window = d <= e["endIndex"]
            if e["kind"] == "novelty" and not in_window:
                if rng.random() < NOVELTY_TAIL_SHARE:
                    focus = e
                continue
            if not in_window:
                continue
            if e["kind"] == "volume_spike":
                mult = e["multipliers"][d - e["startIndex"]]
                share = (mult - 1) / mult
            else:
                share = FOCUS_SHARE[e["kind"]]
            if focus is None and rng.random() < share:
                focus = e
        theme = focus["theme"] if focus else themes[rng.randrange(len(themes))]
        fields, labels = _compose(rng, source, beat, theme, sentiment, focus)
        second = rng.choices(_HOURS, cum_weights=_HOUR_CUM)[0] * 3600 + rng.randrange(3600)
        subreddit = None
        if source == "reddit":
            subs = V.SUBREDDITS_OFFBEAT if beat is None else \
                next(x for x in V.BEATS if x["name"] == beat)["subreddits"]
            subreddit = subs[rng.randrange(len(subs))]
        rec = {
            "source": source, "sourceId": None, **fields, "url": "", "author": "",
            "publishedAt": _iso(midnight + second),
            "capturedAt": None, "subreddit": subreddit, "language": "en", "topic": None,
            "metadata": {"demo": {"beat": beat, "entities": labels["entities"],
                                  "sentiment": sentiment, "theme": theme,
                                  "event": focus["id"] if focus else None}},
        }
        out.append((midnight + second, rec))
    return out


def demo_ground_truth(seed: int = 7, records: int = 20000, days: int = 60, events: bool = True) -> dict:
    """The ground truth :func:`generate_demo` returns for these arguments, without the records.

    Cheap: the planted events depend only on ``seed`` and ``days``.
    """
    check_demo_params(seed, records, days)
    planned = plan_events(int(seed), int(days)) if events else []
    return _ground_truth(int(seed), int(records), int(days), events, planned)


def _ground_truth(seed: int, records: int, days: int, events: bool, planned: list) -> dict:
    dates = _day_range(days)
    return {
        "generator": "corpuskit.ingest.demo",
        "version": GROUND_TRUTH_VERSION,
        "seed": seed, "records": records, "days": days, "eventsPlanted": bool(events),
        "window": {"start": dates[0].isoformat(), "end": dates[-1].isoformat()},
        "baselineDays": BASELINE_DAYS,
        "beats": list(V.BEAT_NAMES),
        "sources": list(V.SOURCES),
        "events": [_public_event(e) for e in planned],
    }


def _daily_counts(rng, records: int, p: np.ndarray) -> np.ndarray:
    """Records per (beat, day) cell: multinomial noise, clipped to 2.5 sigma, exact total.

    Clipping keeps the quiet periods quiet: an unplanted 4-sigma day would
    be a true spike for any detector, yet no event in the ground truth.
    """
    expected = records * p.ravel()
    counts = rng.multinomial(records, p.ravel())
    spread = 2.5 * np.sqrt(expected)
    lo = np.floor(expected - spread).clip(min=0).astype(int)
    hi = np.ceil(expected + spread).astype(int)
    counts = counts.clip(lo, hi)
    while (diff := records - int(counts.sum())) != 0:
        room = hi - counts if diff > 0 else counts - lo
        weight = np.where(room > 0, expected, 0.0)
        cells = rng.choice(len(counts), size=min(abs(diff), int((room > 0).sum())), replace=False,
                           p=weight / weight.sum())
        counts[cells] += 1 if diff > 0 else -1
    return counts.reshape(p.shape)


def _mix(beat, source: str, d: int, active: list) -> tuple:
    """The (positive, neutral, negative) mix of a record of ``beat`` from ``source`` on day ``d``."""
    mix = V.BASE_MIX[beat]
    for e in active:
        if d > e["endIndex"]:
            continue
        if e["kind"] == "sentiment_shift":
            mix = SHIFT_MIX[e["direction"]]
        elif e["kind"] == "divergence" and source == e["positiveSource"]:
            mix = DIVERGENCE_MIX["positive"]
        elif e["kind"] == "divergence" and source == e["negativeSource"]:
            mix = DIVERGENCE_MIX["negative"]
    return mix


def _stratified_sentiments(rng, mixes: list) -> list[str]:
    """One sentiment per record, each group of records sharing a mix getting that mix's shares.

    Stratified rather than independent draws: a day's mix matches the target up to
    rounding (the fractions are rounded at random), so quiet days stay steady and
    planted shifts show on every day even for a small corpus.
    """
    out: list = [None] * len(mixes)
    groups: dict = {}
    for i, mix in enumerate(mixes):
        groups.setdefault(mix, []).append(i)
    for mix, members in sorted(groups.items()):
        n = len(members)
        total = sum(mix)
        exact = [n * p / total for p in mix]
        counts = [int(x) for x in exact]
        fractions = [x - c for x, c in zip(exact, counts)]
        for _ in range(n - sum(counts)):
            k = rng.choices(range(3), weights=[f + 1e-9 for f in fractions])[0]
            counts[k] += 1
            fractions[k] = 0.0
        labels = [label for label, c in zip(SENTIMENTS, counts) for _ in range(c)]
        rng.shuffle(labels)
        for i, label in zip(members, labels):
            out[i] = label
    return out


def ground_truth_counts(truth: dict) -> dict:
    """Number of planted events of each kind in a ground-truth dict."""
    return {kind: sum(1 for e in truth["events"] if e["kind"] == kind) for kind in EVENT_KINDS}


# -- storing ----------------------------------------------------------------------------------------
def store_demo(corpus, seed: int = 7, records: int = 20000, days: int = 60, events: bool = True) -> dict:
    """Generate the demo corpus into ``corpus`` (which must hold no records); runs no stage.

    Stores the records (one transaction), the beat definitions (meta ``beats``),
    the ground truth (meta ``demo_ground_truth`` and, for a file corpus,
    ``<db stem>.ground_truth.json`` beside it, see :func:`ground_truth_path`;
    the summary's ``groundTruthPath`` gives its absolute path) and freezes the
    corpus clock. Returns a JSON-ready summary whose ``stages`` is empty:
    :func:`corpuskit.demo.build_demo` runs the stages and fills it in.
    """
    from corpuskit.ingest.importers import add_records

    check_demo_params(seed, records, days)
    if corpus.count():
        raise ValidationError(
            f"{corpus.path} already holds {corpus.count()} records; build the demo into an empty corpus"
        )
    timings = {}
    truth = demo_ground_truth(seed, records, days, events)
    sources: dict = {}

    generating = [0.0]

    def counted(rows):
        while True:
            t = perf_counter()
            rec = next(rows, None)
            generating[0] += perf_counter() - t
            if rec is None:
                return
            sources[rec["source"]] = sources.get(rec["source"], 0) + 1
            yield rec

    t0 = perf_counter()
    with corpus.transaction():
        report = add_records(corpus, counted(iter_demo_records(seed, records, days, events)), stage="demo")
        corpus.set_meta("demo_ground_truth", truth)
        corpus.set_meta("beats", V.BEATS)
        corpus.set_meta("demo", {"seed": int(seed), "records": int(records), "days": int(days),
                                 "events": bool(events)})
        corpus.set_clock_mode("frozen")
    timings["generate"] = round(generating[0], 3)
    timings["insert"] = round(perf_counter() - t0 - generating[0], 3)
    truth_path = None
    if str(corpus.path) != ":memory:":
        truth_path = ground_truth_path(corpus.path)
        truth_path.write_text(ground_truth_json(truth), encoding="utf-8")
    return {
        "records": report.added,
        "duplicates": report.duplicates,
        "rejected": report.rejected,
        "sources": dict(sorted(sources.items())),
        "beats": list(V.BEAT_NAMES),
        "events": ground_truth_counts(truth),
        "eventsPlanted": len(truth["events"]),
        "window": truth["window"],
        "seed": int(seed),
        "stages": {},
        "timings": timings,
        "groundTruthPath": str(truth_path) if truth_path else None,
    }


def ground_truth_path(corpus_path) -> Path:
    """Where :func:`store_demo` writes the ground truth of the corpus at ``corpus_path``.

    Beside the corpus file, never in the working directory (unless the corpus
    is there): ``/data/demo.db`` gives ``/data/demo.ground_truth.json``. Absolute.
    """
    path = Path(corpus_path).resolve()
    return path.with_name(path.stem + ".ground_truth.json")


def ground_truth_json(truth: dict) -> str:
    """The ground truth as the text of the committed ``datasets/demo/ground_truth.json``."""
    return json.dumps(truth, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def beats_json() -> str:
    """The beat definitions as the text of the committed ``datasets/demo/beats.json``."""
    return json.dumps(V.BEATS, indent=2, ensure_ascii=False) + "\n"
