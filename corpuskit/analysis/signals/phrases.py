"""Phrases new in a burst: a word or two-word phrase nobody wrote for weeks, then many authors at once.

A *phrase* is a lower-case single word or two-word phrase of :func:`corpuskit.text.term_phrases`
("adolescents", "variant", "adolescent trial"), counted once per record. Left out: known entity
names and aliases and the proper-noun terms novelty tests already (they are tested as names), and
phrases that name nothing by the signal namer's own test
(:func:`~corpuskit.analysis.signals.naming.weak_term`: weak and common words, title formats).

**The test.** A phrase *starts fresh* on day ``s`` when no record wrote it in the ``window`` days
before (21) and the corpus has at least ``window`` days before ``s``. Its burst is what follows in
the ``span`` days from ``s`` (7): the phrase fires on the first day ``t`` of the span on which the
number of **distinct authors** writing it from ``s`` through ``t`` reaches the corpus's threshold
``k`` (a record without an author counts as its own author). Counting authors rather than records
means one or two accounts posting a phrase many times never reach ``k``: a campaign is not a burst.
The test reads only days up to ``t``, so the replay raises it on its day.

**The threshold, by construction.** ``k`` is not a fixed number carried from one corpus to another:

* a floor relative to the corpus: at least ``floor_share`` of the median day's records (and never
  fewer than :data:`MIN_AUTHORS`);
* calibrated on the corpus's own null: the records' days are shuffled (a seeded permutation of the
  day column over the records, for each of :data:`NULL_SEEDS`), which keeps the vocabulary, each
  phrase's total and each day's volume but destroys every burst. ``k`` is the smallest threshold
  at or above the floor at which the null raises at most one phrase episode per
  :data:`NULL_DAYS_PER_EPISODE` days (mean over the seeds). Phrases the null raises are false by
  construction, so the threshold is as low as the corpus's own vocabulary allows.

**Keyness.** A burst must also be key against the phrase's background rate: the authors of the
burst against the phrase's rate over every corpus day before ``s`` (floored at one use over those
days), a one-sided Poisson tail at ``OPEN_SIGMA`` (``detail.keynessSigma``).

**Score.** The signal's score is ``OPEN_SIGMA`` times the authors over ``k`` (``detail.score`` is
``"thresholdMultiple"``): at ``k`` a phrase opens low, at 1.5 ``k`` medium, at 2 ``k`` high; on the
null, episodes at ``k`` are already at most one per 30 days.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np

from corpuskit.analysis.signals.naming import weak_term
from corpuskit.stats.thresholds import OPEN_SIGMA
from corpuskit.text import term_phrases

#: Days without a use before a phrase can start fresh.
PHRASE_WINDOW = 21
#: Days a burst may gather its authors in, from its fresh start.
PHRASE_SPAN = 7
#: Fewest distinct authors of a phrase burst, whatever the corpus.
MIN_AUTHORS = 3
#: The floor: this share of the median day's records (chosen by leave-one-file-out,
#: ``benchmarks/bench_signals_phrases.py``).
PHRASE_FLOOR_SHARE = 0.1
#: The null may raise at most one phrase episode per this many corpus days.
NULL_DAYS_PER_EPISODE = 30
#: Seeds of the day-shuffled nulls the threshold is calibrated on.
NULL_SEEDS = (0, 1, 2)
#: A burst in which this share of the records mention one known entity is that entity's.
MAX_NAMED_SHARE = 0.5
#: Records read at a time.
_BATCH = 5000


@dataclass
class PhraseIndex:
    """Every phrase's records over a corpus: what the phrase test reads.

    ``days`` are the corpus days (``YYYY-MM-DD``, every day from the first record's);
    per record (position ``i``): ``record_ids[i]``, day index ``rec_day[i]``, author number
    ``rec_author[i]``, topic id ``rec_topic[i]`` (-1: none); per phrase ``phrases[j]``: ``postings[j]``,
    its record positions (in arrival order); the entity mentions as ``(mention_pos, mention_entity)``.
    """

    days: list
    record_ids: np.ndarray
    rec_day: np.ndarray
    rec_author: np.ndarray
    phrases: list = field(default_factory=list)
    postings: list = field(default_factory=list)
    rec_topic: np.ndarray | None = None     # topic id per record (-1: none)
    mention_pos: np.ndarray | None = None   # record positions of the entity mentions, sorted
    mention_entity: np.ndarray | None = None  # their entity ids

    def median_day(self) -> float:
        """Median records a day (days without records count as zero)."""
        if not len(self.days):
            return 0.0
        return float(np.median(np.bincount(self.rec_day, minlength=len(self.days))))


@dataclass
class Burst:
    """A phrase that fired: fresh ``start`` and ``fire`` day indexes, the record positions (in the
    index) from the
    start through the fire day (``records``) and through the span's end (``span_records``), the
    distinct authors per day of the span (cumulative), and its keyness sigma."""

    phrase: int
    start: int
    fire: int
    records: list
    span_records: list
    authors_by_day: dict
    keyness_sigma: float
    crossing: int          # 1-based rank, among the fire day's records, of the record that reached k


def excluded_phrases(conn, terms=()) -> set[str]:
    """Lower-case phrases the phrase test leaves to the name tests: known entity names and aliases,
    and ``terms`` (the proper-noun terms novelty tests)."""
    out = {r[0].lower() for r in conn.execute("SELECT name FROM entities")}
    out |= {r[0].lower() for r in conn.execute("SELECT alias_key FROM entity_aliases")}
    return out | {t.lower() for t in terms}


def build_index(conn, through_day: str, exclude=frozenset(), formats=(), min_authors: int = MIN_AUTHORS
                ) -> PhraseIndex:
    """The :class:`PhraseIndex` of the enriched records up to ``through_day``.

    ``exclude``: lower-case phrases left out (known names, tested terms); so are two-word phrases
    holding a one-word name ("siri recordings": the name's own series tests it) and, in a record
    that writes a two-word name, its words alone ("hong" in "Hong Kong"); ``formats``: the corpus's
    title formats. Phrases written by fewer than ``min_authors`` distinct authors in all are dropped
    (they can never fire).
    """
    first = conn.execute("SELECT min(r.day) FROM records r JOIN enrichment e ON e.record_id = r.id "
                         "WHERE r.day <= ?", (through_day,)).fetchone()[0]
    if first is None:
        return PhraseIndex([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    start = date.fromisoformat(first)
    days = [(start + timedelta(days=i)).isoformat()
            for i in range((date.fromisoformat(through_day) - start).days + 1)]
    d_index = {d: i for i, d in enumerate(days)}
    ids, rec_day, rec_author, rec_topic, authors = [], [], [], [], {}
    by_phrase: dict = {}
    cursor = conn.execute(
        "SELECT r.id, r.day, r.author, r.title, r.content_text, e.topic_id FROM records r "
        "JOIN enrichment e ON e.record_id = r.id WHERE r.day <= ? ORDER BY r.published_at, r.id",
        (through_day,))
    while rows := cursor.fetchmany(_BATCH):
        for rid, day, author, title, text, topic in rows:
            pos = len(ids)
            ids.append(rid)
            rec_topic.append(-1 if topic is None else topic)
            rec_day.append(d_index[day])
            key = author if author else ("", rid)          # no author: the record is its own author
            rec_author.append(authors.setdefault(key, len(authors)))
            body = text or ""
            if title and not body.startswith(title):
                body = f"{title} {body}"
            found = set(term_phrases(body, (1, 2)))
            covered = {w for p in found if " " in p and p in exclude for w in p.split()}
            for phrase in found - covered:
                by_phrase.setdefault(phrase, []).append(pos)
    rec_author_arr = np.asarray(rec_author, dtype=np.int64)
    names = {p for p in exclude if " " not in p}
    phrases, postings = [], []
    for phrase in sorted(by_phrase):
        pos = by_phrase[phrase]
        if len(pos) < min_authors or phrase in exclude or (" " in phrase and names.intersection(phrase.split())):
            continue
        if len(set(rec_author_arr[pos].tolist())) < min_authors or weak_term(phrase, formats=formats):
            continue
        phrases.append(phrase)
        postings.append(np.asarray(pos, dtype=np.int64))
    ids_arr = np.asarray(ids, dtype=np.int64)
    order = np.argsort(ids_arr, kind="stable")
    m_pos, m_ent = [], []
    cursor = conn.execute("SELECT m.record_id, m.entity_id FROM mentions m JOIN records r ON r.id = m.record_id "
                          "WHERE r.day <= ?", (through_day,))
    while rows := cursor.fetchmany(_BATCH):
        rid = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        at = np.searchsorted(ids_arr[order], rid).clip(0, max(len(ids_arr) - 1, 0))
        found = ids_arr[order][at] == rid if len(ids_arr) else np.zeros(len(rid), bool)
        m_pos.append(order[at[found]])
        m_ent.append(np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))[found])
    m_pos_arr = np.concatenate(m_pos) if m_pos else np.zeros(0, np.int64)
    m_ent_arr = np.concatenate(m_ent) if m_ent else np.zeros(0, np.int64)
    by_pos = np.argsort(m_pos_arr, kind="stable")
    return PhraseIndex(days, ids_arr, np.asarray(rec_day, dtype=np.int64), rec_author_arr, phrases, postings,
                       np.asarray(rec_topic, dtype=np.int64), m_pos_arr[by_pos], m_ent_arr[by_pos])


def _fresh_spans(day_of, window: int, span: int):
    """``(start, positions)`` per fresh start of one phrase: ``day_of`` its records' days (sorted
    with them); ``positions`` index the records of the span, in order."""
    out, i, n = [], 0, len(day_of)
    last_use = None
    while i < n:
        s = int(day_of[i])
        fresh = s >= window and (last_use is None or s - last_use > window)
        j = i
        while j < n and day_of[j] < s + span:
            j += 1
        if fresh:
            out.append((s, range(i, j)))
            last_use = int(day_of[j - 1])
            i = j
        else:
            last_use = s
            i += 1
            while i < n and day_of[i] == s:
                i += 1
    return out


def strengths(index: PhraseIndex, rec_day=None, window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN
              ) -> np.ndarray:
    """The distinct authors of every fresh span of every phrase (``rec_day``: the records' days, by
    default the index's own; a shuffled copy gives the null). An episode at threshold ``k`` is a
    span of strength ``>= k``."""
    rec_day = index.rec_day if rec_day is None else rec_day
    out = []
    for pos in index.postings:
        d = rec_day[pos]
        order = np.argsort(d, kind="stable")
        pos, d = pos[order], d[order]
        for _, rows in _fresh_spans(d, window, span):
            out.append(len(set(index.rec_author[pos[rows.start:rows.stop]].tolist())))
    return np.asarray(out, dtype=np.int64)


def null_days(index: PhraseIndex, seed: int) -> np.ndarray:
    """The records' days shuffled over the records (seeded): same vocabulary and day volumes, no bursts."""
    return np.random.default_rng(seed).permutation(index.rec_day)


def floor_count(index: PhraseIndex, floor_share: float = PHRASE_FLOOR_SHARE) -> int:
    """The floor of ``k``: ``floor_share`` of the median day's records, at least :data:`MIN_AUTHORS`."""
    return max(MIN_AUTHORS, math.ceil(floor_share * index.median_day() - 1e-9))


def calibrate(index: PhraseIndex, floor_share: float = PHRASE_FLOOR_SHARE, seeds=NULL_SEEDS,
              window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN) -> dict:
    """The corpus's threshold ``k`` (see the module docstring):
    ``{"threshold", "floor", "nullEpisodes", "allowed", "days"}`` (``nullEpisodes``: the mean
    episodes of the nulls at ``threshold``)."""
    floor = floor_count(index, floor_share)
    n_days = len(index.days)
    allowed = n_days / NULL_DAYS_PER_EPISODE
    nulls = [strengths(index, null_days(index, s), window, span) for s in seeds]
    k = floor
    while True:
        mean = float(np.mean([np.count_nonzero(x >= k) for x in nulls])) if nulls else 0.0
        if mean <= allowed:
            break
        k += 1
    return {"threshold": int(k), "floor": int(floor), "nullEpisodes": round(mean, 2),
            "allowed": round(allowed, 2), "days": n_days}


def keyness_sigma(authors: int, uses_before: int, days_before: int, days: int) -> float:
    """One-sided Poisson sigma of ``authors`` in ``days`` against the phrase's earlier rate
    (``uses_before`` over ``days_before``, floored at one use over them)."""
    from scipy.stats import norm, poisson

    rate = max(uses_before, 1) / max(days_before, 1)
    p = float(poisson.sf(authors - 1, rate * days))
    return float(min(norm.isf(max(p, 1e-300)), 37.0))


def bursts(index: PhraseIndex, k: int, window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN) -> list[Burst]:
    """Every phrase burst at threshold ``k`` (distinct authors), keyness-gated, in phrase order."""
    out = []
    for j, pos in enumerate(index.postings):
        d = index.rec_day[pos]          # postings are in arrival order, hence by day
        for s, rows in _fresh_spans(d, window, span):
            seen: set = set()
            by_day: dict = {}
            fire = crossing = None
            for r in rows:
                seen.add(int(index.rec_author[pos[r]]))
                by_day[int(d[r])] = len(seen)
                if fire is None and len(seen) >= k:
                    fire = int(d[r])
                    crossing = sum(1 for q in rows if d[q] == fire and q <= r)
            if fire is None:
                continue
            before = int(np.count_nonzero(d < s))
            sigma = keyness_sigma(by_day[fire], before, s, fire - s + 1)
            if sigma < OPEN_SIGMA:
                continue
            recs = [int(pos[r]) for r in rows if d[r] <= fire]
            span_recs = [int(pos[r]) for r in rows]
            out.append(Burst(j, s, fire, recs, span_recs, by_day, round(sigma, 2), crossing))
    return out


def named_share(index: PhraseIndex, positions) -> float:
    """The largest share of ``positions`` (records) that mention one same known entity."""
    if index.mention_pos is None or not len(positions) or not len(index.mention_pos):
        return 0.0
    counts: dict = {}
    for p in positions:
        lo, hi = np.searchsorted(index.mention_pos, [p, p + 1])
        for e in set(index.mention_entity[lo:hi].tolist()):
            counts[e] = counts.get(e, 0) + 1
    return max(counts.values(), default=0) / len(positions)


def one_per_event(index: PhraseIndex, found: list[Burst], span: int = PHRASE_SPAN) -> list[Burst]:
    """``found`` with one phrase per event. A burst in which at least :data:`MAX_NAMED_SHARE` of the
    records mention one same known entity is that entity's event, tested by its own series, and is
    left out. Of two bursts that fire within ``span`` days of each other
    and share at least half the records of the smaller one ("apple contractors" and "siri
    recordings"; "hole" and "black hole"), only the one with more authors is kept (then a two-word
    phrase before a word, then the earlier, then the phrase's order)."""
    def rank(b):
        return (-b.authors_by_day[b.fire], " " not in index.phrases[b.phrase], b.fire, b.phrase)

    kept: list[Burst] = []
    for b in sorted(found, key=rank):
        if named_share(index, b.records) >= MAX_NAMED_SHARE:
            continue
        mine = set(b.records)
        if any(abs(k.fire - b.fire) < span and 2 * len(mine & set(k.records)) >= min(len(mine), len(k.records))
               for k in kept):
            continue
        kept.append(b)
    return sorted(kept, key=lambda b: (b.phrase, b.start))


def phrase_tracks(series, index: PhraseIndex, window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN,
                  floor_share: float = PHRASE_FLOOR_SHARE, kind: str = "novelty"):
    """``(tracks, calibration)``: one :class:`~corpuskit.analysis.signals.track.Track` per phrase that
    bursts (subject ``phrase:<slug>``), over the days of ``series`` (see the module docstring)."""
    from corpuskit.analysis.signals.terms import term_slug

    cal = calibrate(index, floor_share, window=window, span=span)
    k = cal["threshold"]
    found = one_per_event(index, bursts(index, k, window, span), span)
    by_phrase: dict = {}
    for b in found:
        by_phrase.setdefault(b.phrase, []).append(b)
    t_index = {t: i for i, t in enumerate(series.topics)}
    n_days = len(series.days)
    tracks = []
    for j, group in sorted(by_phrase.items()):
        phrase = index.phrases[j]
        sigma = np.full(n_days, np.nan)
        at: dict = {}                     # series day -> (burst, authors so far)
        for b in group:
            authors = 0
            for day in range(b.start, b.start + span):
                authors = b.authors_by_day.get(day, authors)
                d = series.day_index.get(index.days[day]) if day < len(index.days) else None
                if d is None or day < b.fire:
                    continue
                sigma[d] = OPEN_SIGMA * authors / k
                at[d] = (b, authors)
        if not at:
            continue
        tracks.append(_track(series, index, phrase, at, cal, window, span, t_index, kind, sigma,
                             term_slug(phrase)))
    return tracks, cal


def _track(series, index, phrase, at, cal, window, span, t_index, kind, sigma, slug):
    from corpuskit.analysis.signals.track import Track

    record_ids = sorted({int(index.record_ids[p]) for b, _ in at.values() for p in b.span_records})

    def burst_at(d):
        if d in at:
            return at[d]
        earlier = [x for x in at if x <= d]
        return at[max(earlier)] if earlier else at[min(at)]

    index_day = {day: i for i, day in enumerate(index.days)}

    def positions(b, d):
        """The burst's record positions from its start through series day ``d``."""
        last = index_day.get(series.days[d], -1)
        return [p for p in b.span_records if index.rec_day[p] <= last]

    def topic_row(d):
        b, _ = burst_at(d)
        topics = [int(index.rec_topic[p]) for p in positions(b, d) if index.rec_topic[p] >= 0]
        if not topics:
            return -1
        counts = np.bincount([t_index[t] for t in topics if t in t_index], minlength=1)
        return int(counts.argmax()) if counts.max() > 0 else -1

    def describe(d):
        b, authors = burst_at(d)
        records = len(positions(b, d))
        t = topic_row(d)
        topic = series.topic_names[series.topics[t]] if t >= 0 else None
        where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
        detail = {"subjectKind": "phrase", "phrase": phrase, "term": phrase, "entity": None,
                  "entityId": None, "entityType": None, "mentions": records, "records": records,
                  "authors": authors, "baselineMentions": 0, "windowDays": window, "spanDays": span,
                  "scale": "week", "weekStart": index.days[b.start], "threshold": cal["threshold"],
                  "thresholdFloor": cal["floor"], "nullEpisodes": cal["nullEpisodes"],
                  "score": "thresholdMultiple", "keynessSigma": b.keyness_sigma, "topic": topic,
                  "day": series.days[d]}
        headline = (f"New phrase{where}: '{phrase}' ({records} records from {authors} authors, "
                    f"from none in {window} days)")
        return detail, headline

    def threshold_count(d):
        b = at.get(d, (None,))[0]
        return b.crossing if b is not None and series.days[d] == index.days[b.fire] else None

    return Track(kind=kind, subject=f"phrase:{slug}", sigma=sigma, topic_row=topic_row, describe=describe,
                 threshold_count=threshold_count, evidence={"record_ids": record_ids, "phrase": phrase})
