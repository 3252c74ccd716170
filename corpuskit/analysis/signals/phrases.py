"""Phrases new in a burst: a word or two-word phrase nobody wrote for weeks, then many authors at once.

A *phrase* is a lower-case single word or two-word phrase of :func:`corpuskit.text.term_phrases`
("adolescents", "variant", "adolescent trial"), counted once per record, without the stop words of
the record's language ("es", "que" in a Spanish record). Left out: known entity
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
* calibrated on the corpus's own null: the records' days are shuffled within consecutive blocks of
  :data:`PHRASE_NULL_BLOCK` days (8 weeks; a seeded permutation of the block's day column over its
  records, for each of :data:`NULL_SEEDS`), which keeps the vocabulary, each day's volume and each
  phrase's total in each block but destroys every burst: a week's burst is spread over eight weeks.
  Under the null hypothesis (no burst: a phrase's uses are exchangeable among the days of its
  block) a block shuffle is as much a draw from the null as a whole-corpus shuffle; it also keeps
  the slow drift of a phrase's use from one season to the next, which is not a burst either, and
  it lets the null be walked a block at a time (:func:`build_index`). ``k`` is the smallest threshold
  at or above the floor at which the null raises at most one phrase episode per
  :data:`NULL_DAYS_PER_EPISODE` days (mean over the seeds). Phrases the null raises are false by
  construction, so the threshold is as low as the corpus's own vocabulary allows.

**Keyness.** A burst must also be key against the phrase's background rate: the authors of the
burst against the phrase's rate over the :data:`PHRASE_BACKGROUND` days before ``s`` (13 weeks, or
the corpus days before ``s`` when fewer; floored at one use over those days), a one-sided Poisson
tail at ``OPEN_SIGMA`` (``detail.keynessSigma``). A bounded background is what lets a resumed run
read only the days its spans need.

**Score.** The signal's score is ``OPEN_SIGMA`` times the authors over ``k`` (``detail.score`` is
``"thresholdMultiple"``): at ``k`` a phrase opens low, at 1.5 ``k`` medium, at 2 ``k`` high; on the
null, episodes at ``k`` are already at most one per 30 days.
"""
from __future__ import annotations

import json
import math
from array import array
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np

from corpuskit.analysis.signals.naming import weak_term
from corpuskit.stats.thresholds import OPEN_SIGMA
from corpuskit.text import term_phrases
from corpuskit.text.stopwords import languages_with

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
#: The null shuffles the records' days within consecutive blocks of this many days (8 weeks); the
#: phrase index is built a block at a time.
PHRASE_NULL_BLOCK = 56
#: Days before a fresh start whose uses are a phrase's keyness background (13 weeks).
PHRASE_BACKGROUND = 91
#: Records read at a time.
_BATCH = 5000


@dataclass
class PhraseIndex:
    """The phrases' records: what the phrase test reads.

    ``days`` are the corpus days (``YYYY-MM-DD``, every day from the first record's);
    per record (position ``i``): ``record_ids[i]``, day index ``rec_day[i]``, author number
    ``rec_author[i]``, topic id ``rec_topic[i]`` (-1: none); per entry ``phrases[j]``: ``postings[j]``,
    its record positions (in arrival order); the entity mentions as ``(mention_pos, mention_entity)``.
    :func:`read_index` holds every phrase's records over the corpus (one entry per phrase);
    :func:`build_index` streams and keeps one entry per span that reached the floor, with
    ``uses_before`` (its keyness background), the nulls' span strengths (``null``) and
    ``median``, or a stored ``calibration``.
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
    median: float | None = None             # median records a day, when the records are not all held
    uses_before: np.ndarray | None = None   # per entry: its phrase's uses in the background days before it
    null: list | None = None                # per null seed: the strengths of its fresh spans (>= MIN_AUTHORS)
    calibration: dict | None = None         # a stored threshold (a resumed run)
    peak_postings: int = 0                  # most postings held at once while building
    background: int = PHRASE_BACKGROUND     # keyness background days
    pairs: frozenset = frozenset()          # the two-word excluded names: their words alone are not counted

    def covering(self, phrase: str) -> list[str]:
        """The two-word names whose records do not count as writing the one-word ``phrase`` (a record
        writing "lionel messi" is that name's, not the word "messi"'s), sorted. Only a name the current
        vocabulary forms as a phrase can cover its words ("en bucha" cannot where "en" is a stop word)."""
        return sorted(n for n in self.pairs if " " not in phrase and phrase in n.split()
                      and n in term_phrases(n, (2, 2)))

    def median_day(self) -> float:
        """Median records a day (days without records count as zero)."""
        if self.median is not None:
            return self.median
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


def _pairs(exclude) -> frozenset:
    """The two-word phrases of ``exclude`` (a record writing one is not counted for its words alone)."""
    return frozenset(p for p in exclude if p.count(" ") == 1)


def _corpus_days(conn, through_day: str):
    """``(days, per_day)``: every day from the first enriched record's through ``through_day`` and
    the enriched records per day (zeros included); ``([], [])`` when there are none."""
    rows = conn.execute("SELECT r.day, count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
                        "WHERE r.day <= ? GROUP BY r.day ORDER BY r.day", (through_day,)).fetchall()
    if not rows:
        return [], np.zeros(0, np.int64)
    start = date.fromisoformat(rows[0][0])
    days = [(start + timedelta(days=i)).isoformat()
            for i in range((date.fromisoformat(through_day) - start).days + 1)]
    d_index = {d: i for i, d in enumerate(days)}
    per_day = np.zeros(len(days), np.int64)
    for day, n in rows:
        per_day[d_index[day]] = n
    return days, per_day


def _record_phrases(title, text, exclude, names, weak: dict, formats=(), language=None) -> list[str]:
    """The words and two-word phrases of one record the phrase test reads (see :func:`build_index`),
    without the stop words of the record's ``language`` nor of the languages in effect;
    ``names``: the one-word names of ``exclude``; ``weak``: a cache of :func:`weak_term`."""
    body = text or ""
    if title and not body.startswith(title):
        body = f"{title} {body}"
    found = set(term_phrases(body, (1, 2), languages_with((language,) if language else ())))
    covered = {w for p in found if " " in p and p in exclude for w in p.split()}
    out = []
    for p in found - covered:
        if p in exclude or (" " in p and names.intersection(p.split())):
            continue
        if p not in weak:
            weak[p] = weak_term(p, formats=formats)
        if not weak[p]:
            out.append(p)
    return out


def _read(conn, days, lo: int, hi: int, exclude, authors: dict, formats=()):
    """The enriched records of days ``lo..hi-1`` (indexes into ``days``) in arrival order, each as
    ``(record_id, day_index, author_number, topic_id, phrases)`` (:func:`_record_phrases`);
    ``authors`` numbers the authors (grown in place; a record without an author is its own author)."""
    if lo >= hi:
        return
    d_index = {d: i for i, d in enumerate(days[lo:hi], lo)}
    names = {p for p in exclude if " " not in p}
    weak: dict = {}
    cursor = conn.execute(
        "SELECT r.id, r.day, r.author, r.title, r.content_text, e.topic_id, r.language FROM records r "
        "JOIN enrichment e ON e.record_id = r.id WHERE r.day >= ? AND r.day <= ? ORDER BY r.published_at, r.id",
        (days[lo], days[hi - 1]))
    while rows := cursor.fetchmany(_BATCH):
        for rid, day, author, title, text, topic, language in rows:
            key = author if author else ("", rid)
            yield (rid, d_index[day], authors.setdefault(key, len(authors)), -1 if topic is None else topic,
                   _record_phrases(title, text, exclude, names, weak, formats, language))


def _phrase_of(conn, record_id: int, number: int, exclude, formats) -> str:
    """The phrase of a record whose :func:`hash` is ``number`` (the streamed index numbers phrases
    by their hash and keeps no strings)."""
    title, text, language = conn.execute("SELECT title, content_text, language FROM records WHERE id = ?",
                                         (record_id,)).fetchone()
    names = {p for p in exclude if " " not in p}
    return next(p for p in _record_phrases(title, text, exclude, names, {}, formats, language)
                if hash(p) == number)


def read_index(conn, through_day: str, exclude=frozenset(), formats=(), min_authors: int = MIN_AUTHORS
               ) -> PhraseIndex:
    """The whole corpus's :class:`PhraseIndex` up to ``through_day``, held in memory: every phrase's
    records. For benchmarks and tests (it grows with the corpus); the corpus stages use
    :func:`build_index`, which streams. Same phrases as :func:`build_index`; phrases written by fewer
    than ``min_authors`` distinct authors in all are dropped (they can never fire)."""
    days, per_day = _corpus_days(conn, through_day)
    ids, rec_day, rec_author, rec_topic, by_phrase = [], [], [], [], {}
    for pos, (rid, day, author, topic, kept) in enumerate(_read(conn, days, 0, len(days), exclude, {}, formats)):
        ids.append(rid)
        rec_day.append(day)
        rec_author.append(author)
        rec_topic.append(topic)
        for phrase in kept:
            by_phrase.setdefault(phrase, []).append(pos)
    rec_author_arr = np.asarray(rec_author, dtype=np.int64)
    phrases, postings = [], []
    for phrase in sorted(by_phrase):
        pos = by_phrase[phrase]
        if len(pos) < min_authors or len(set(rec_author_arr[pos].tolist())) < min_authors:
            continue
        phrases.append(phrase)
        postings.append(np.asarray(pos, dtype=np.int64))
    index = PhraseIndex(days, np.asarray(ids, dtype=np.int64), np.asarray(rec_day, dtype=np.int64),
                        rec_author_arr, phrases, postings, np.asarray(rec_topic, dtype=np.int64),
                        pairs=_pairs(exclude))
    _attach_mentions(conn, index)
    return index


def _attach_mentions(conn, index: PhraseIndex) -> None:
    """Set the index's entity mentions (``mention_pos``, ``mention_entity``) for its records."""
    ids = index.record_ids
    order = np.argsort(ids, kind="stable")
    m_pos, m_ent = [], []
    for lo in range(0, len(ids), 900):
        chunk = [int(x) for x in ids[order[lo:lo + 900]]]
        rows = conn.execute(f"SELECT record_id, entity_id FROM mentions WHERE record_id IN "
                            f"({','.join('?' * len(chunk))})", chunk).fetchall()
        if rows:
            rid = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            m_pos.append(order[np.searchsorted(ids[order], rid)])
            m_ent.append(np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)))
    m_pos_arr = np.concatenate(m_pos) if m_pos else np.zeros(0, np.int64)
    m_ent_arr = np.concatenate(m_ent) if m_ent else np.zeros(0, np.int64)
    by_pos = np.lexsort((m_ent_arr, m_pos_arr))
    index.mention_pos, index.mention_entity = m_pos_arr[by_pos], m_ent_arr[by_pos]


class _Walk:
    """The phrase test's state over one day assignment (the corpus's own days, or a null's), walked
    a day at a time. Held: the phrases used in the last ``window`` days with their last day (sorted
    hashes), the postings of the phrases whose fresh span is open (at most ``span`` days), and, for
    the corpus's own days, each of the last ``background`` days' phrase counts: the window's
    vocabulary, never the corpus's."""

    def __init__(self, window: int, span: int, background: int, keep_from: int, least: int, real: bool):
        self.window, self.span, self.background, self.keep_from = window, span, background, keep_from
        self.least, self.real = least, real
        self.last_h = np.zeros(0, np.int64)      # phrases used in the last `window` days, sorted
        self.last_d = np.zeros(0, np.int64)      # their last day
        self.open_h = np.zeros(0, np.int64)      # phrases with an open fresh span, sorted
        self.open_s = np.zeros(0, np.int64)      # its start
        self.held: list = []                     # per day: postings of open phrases (dict of arrays)
        self.counts: list = []                   # per day (real): (day, phrases, records) of the last days
        self.strengths: list = []                # null: strengths of the closed spans (>= least)
        self.found: list = []                    # real: (hash, start, postings, uses before) of spans >= least

    def size(self) -> int:
        """Entries held: the window's phrases, open postings and background counts."""
        return (len(self.last_h) + len(self.open_h) + sum(len(p["h"]) for p in self.held)
                + sum(len(c[1]) for c in self.counts))

    def day(self, t: int, post: dict) -> None:
        """Walk day ``t`` with its postings ``post`` (arrays ``h`` phrase hash, ``a`` author; for the
        corpus's own days also ``q`` arrival number, ``id`` record id, ``d`` day, ``topic``), in
        arrival order."""
        u, n = np.unique(post["h"], return_counts=True)
        at = np.searchsorted(self.last_h, u)
        seen = at < len(self.last_h)
        seen[seen] = self.last_h[at[seen]] == u[seen]
        if t >= self.window and t >= self.keep_from:
            fresh = u[~seen]
            if len(fresh):
                order = np.argsort(np.concatenate([self.open_h, fresh]), kind="stable")
                self.open_h = np.concatenate([self.open_h, fresh])[order]
                self.open_s = np.concatenate([self.open_s, np.full(len(fresh), t)])[order]
        if len(self.open_h):
            mine = np.isin(post["h"], self.open_h)
            self.held.append({k: v[mine] for k, v in post.items()} | {"day": t})
        if self.real:
            self.counts.append((t, u, n))
        # the phrases used in the window, with their last day
        old = ~np.isin(self.last_h, u, assume_unique=True) & (self.last_d > t - self.window)
        h = np.concatenate([self.last_h[old], u])
        d = np.concatenate([self.last_d[old], np.full(len(u), t)])
        order = np.argsort(h, kind="stable")
        self.last_h, self.last_d = h[order], d[order]
        self.close(t - self.span + 1)

    def close(self, start: int) -> None:
        """Close the spans started on ``start`` or before: measure them, drop what no span needs."""
        done = self.open_s <= start
        if done.any() and self.held:
            dh, ds = self.open_h[done], self.open_s[done]            # sorted by phrase
            held = {k: np.concatenate([p[k] for p in self.held]) for k in self.held[0] if k != "day"}
            sel = np.isin(held["h"], dh)
            held = {k: v[sel] for k, v in held.items()}
            span_of = np.searchsorted(dh, held["h"])
            width = int(held["a"].max()) + 1 if len(held["a"]) else 1
            pairs = np.unique(span_of * width + held["a"].astype(np.int64))
            strength = np.bincount(pairs // width, minlength=len(dh))
            for i in np.flatnonzero(strength >= self.least):
                if not self.real:
                    self.strengths.append(int(strength[i]))
                    continue
                h, s = int(dh[i]), int(ds[i])
                before = 0
                for d, u, n in self.counts:
                    j = np.searchsorted(u, h)
                    if s - self.background <= d < s and j < len(u) and u[j] == h:
                        before += int(n[j])
                self.found.append((h, s, {k: v[span_of == i] for k, v in held.items()}, before))
        if done.any():
            self.open_h, self.open_s = self.open_h[~done], self.open_s[~done]
        # held postings: only the days an open span reaches
        first = int(self.open_s.min()) if len(self.open_s) else start + self.span
        self.held = [p for p in self.held if p["day"] >= first]
        if self.real:
            self.counts = [c for c in self.counts if c[0] >= start + 1 - self.background]


def build_index(conn, through_day: str, exclude=frozenset(), formats=(), min_authors: int = MIN_AUTHORS,
                floor_share: float = PHRASE_FLOOR_SHARE, since: str | None = None, calibration=None,
                seeds=NULL_SEEDS, window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN,
                block: int = PHRASE_NULL_BLOCK, background: int = PHRASE_BACKGROUND) -> PhraseIndex:
    """The :class:`PhraseIndex` the phrase test reads, streamed with bounded memory.

    The enriched records up to ``through_day`` are read once, ``block`` days at a time in day
    order, and walked a day at a time on the corpus's own days and, for each of ``seeds``, on a null
    whose records' days are shuffled within the block (:func:`null_block_days`). Each walk holds only
    the window's state (:class:`_Walk`): the phrases used in the last ``window`` days with their
    last day, the postings of the phrases whose fresh span is open, and (the corpus's own walk) each
    of the last ``background`` days' phrase counts, the keyness background. Phrases are held as
    their :func:`hash` (64 bits: the chance that two of a million phrases collide, and are merged,
    is about 3 in 10^8); a kept span's phrase string is read back from one of its
    records. Besides the block being read (its postings: phrase and record), nothing grows with
    the corpus: the state is the window's vocabulary, not the corpus's (``peak_postings``).

    Kept: the null spans' strengths (at least :data:`MIN_AUTHORS` authors), and the spans of the
    corpus's own days of at least the floor (``floor_share`` of the median day's records;
    :func:`floor_count`) with their records and background uses, one entry of
    ``phrases``/``postings`` per span (ordered by phrase, then start). :func:`calibrate` and
    :func:`bursts` read them, and raise what they raise on :func:`read_index` (tested).

    ``exclude``: lower-case phrases left out (known names, tested terms); so are two-word phrases
    holding a one-word name ("siri recordings": the name's own series tests it) and, in a record
    that writes a two-word name, its words alone ("hong" in "Hong Kong"); ``formats``: the corpus's
    title formats (with weak words, :func:`weak_term`: they name nothing, never read).

    ``since`` (a resumed run): only spans starting from ``span - 1`` days before ``since`` are
    wanted, so reading starts ``max(window, background)`` days before those; no null is walked and
    ``calibration`` (the :func:`calibrate` result of a full run, required) is the threshold.
    """
    if since is not None and calibration is None:
        raise ValueError("build_index(since=...) needs the calibration of a full run")
    if block < span or background < 0:
        raise ValueError(f"block must be at least span ({span}) days and background >= 0, got {block}, {background}")
    days, per_day = _corpus_days(conn, through_day)
    n_days = len(days)
    median = float(np.median(per_day)) if n_days else 0.0
    floor = max(MIN_AUTHORS, min_authors, math.ceil(floor_share * median - 1e-9))
    keep_from = 0
    if since is not None and n_days:
        keep_from = max(0, (date.fromisoformat(since) - date.fromisoformat(days[0])).days - span + 1)
    reach = max(window, background)
    read_from = max(0, keep_from - reach)
    seeds = () if since is not None else tuple(seeds)
    authors: dict = {}
    real = _Walk(window, span, background, keep_from, floor, True)
    nulls = [_Walk(window, span, background, keep_from, MIN_AUTHORS, False) for _ in seeds]
    found: list = []                                       # (phrase, start, record ids, uses before)
    out_records: dict = {}                                 # record id -> (day, author, topic)
    peak = seq = 0

    def collect():
        for r_h, s, posts, before in real.found:
            order = np.argsort(posts["q"], kind="stable")           # arrival order
            ids = posts["id"][order].tolist()
            found.append((_phrase_of(conn, ids[0], r_h, exclude, formats), s, ids, before))
            for rid, d, a, tp in zip(ids, posts["d"][order].tolist(), posts["a"][order].tolist(),
                                     posts["topic"][order].tolist()):
                out_records[rid] = (d, a, tp)
        real.found = []

    b0 = (read_from // block) * block
    while b0 < n_days:
        b1 = min(b0 + block, n_days)
        lo = max(b0, read_from)
        b_id, b_day, b_author, b_topic = array("q"), array("q"), array("q"), array("q")
        seq0 = seq
        ph, pos = array("q"), array("q")                   # postings: phrase hash, record in block
        for i, (rid, day, author, topic, kept) in enumerate(_read(conn, days, lo, b1, exclude, authors, formats)):
            b_id.append(rid)
            b_day.append(day)
            b_author.append(author)
            b_topic.append(topic)
            ph.extend(map(hash, kept))
            pos.extend([i] * len(kept))
        seq += len(b_id)
        rec_day, rec_author = np.asarray(b_day, np.int64), np.asarray(b_author, np.int64)
        rec_id, rec_topic = np.asarray(b_id, np.int64), np.asarray(b_topic, np.int64)
        ph_arr, pos_arr = np.asarray(ph, np.int64), np.asarray(pos, np.int64)
        del ph, pos
        # the corpus's own days: records arrive in day order, so do their postings
        cut = np.searchsorted(rec_day[pos_arr], np.arange(lo, b1 + 1))
        for t in range(lo, b1):
            at = slice(cut[t - lo], cut[t - lo + 1])
            rows = pos_arr[at]
            real.day(t, {"h": ph_arr[at], "a": rec_author[rows], "q": rows + seq0, "id": rec_id[rows],
                         "d": rec_day[rows], "topic": rec_topic[rows]})
            peak = max(peak, real.size() + sum(w.size() for w in nulls))
        collect()
        for seed, walk in zip(seeds, nulls):
            null = null_block_days(rec_day, seed, b0 // block)[pos_arr]
            order = np.argsort(null, kind="stable")
            cut = np.searchsorted(null[order], np.arange(lo, b1 + 1))
            for t in range(lo, b1):
                at = order[cut[t - lo]:cut[t - lo + 1]]
                walk.day(t, {"h": ph_arr[at], "a": rec_author[pos_arr[at]]})
                peak = max(peak, real.size() + sum(w.size() for w in nulls))
        b0 = b1
    for walk in [real] + nulls:
        walk.close(n_days)
    collect()
    found.sort(key=lambda f: (f[0], f[1]))
    ids = np.asarray(sorted(out_records), np.int64)
    where = {int(r): i for i, r in enumerate(ids)}
    info = np.asarray([out_records[int(r)] for r in ids], np.int64).reshape(-1, 3)
    index = PhraseIndex(days, ids, info[:, 0], info[:, 1], [f[0] for f in found],
                        [np.asarray([where[r] for r in f[2]], np.int64) for f in found], info[:, 2],
                        median=median, uses_before=np.asarray([f[3] for f in found], np.int64),
                        null=[np.asarray(w.strengths, np.int64) for w in nulls] if since is None else None,
                        calibration=calibration, peak_postings=peak, background=background,
                        pairs=_pairs(exclude))
    _attach_mentions(conn, index)
    return index


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


def null_block_days(rec_day, seed: int, block_no: int) -> np.ndarray:
    """One block's records' days (``rec_day``, in arrival order) shuffled over its records, seeded
    by ``(seed, block_no)``."""
    return np.random.default_rng([seed, block_no]).permutation(rec_day)


def null_days(index: PhraseIndex, seed: int, block: int = PHRASE_NULL_BLOCK) -> np.ndarray:
    """The records' days shuffled within consecutive blocks of ``block`` corpus days (seeded): same
    vocabulary, same day volumes and the same phrase totals in each block, no bursts. The same null
    :func:`build_index` streams."""
    out = np.asarray(index.rec_day).copy()
    blocks = out // block
    for b in np.unique(blocks):
        at = np.flatnonzero(blocks == b)
        out[at] = null_block_days(index.rec_day[at], seed, int(b))
    return out


def floor_count(index: PhraseIndex, floor_share: float = PHRASE_FLOOR_SHARE) -> int:
    """The floor of ``k``: ``floor_share`` of the median day's records, at least :data:`MIN_AUTHORS`."""
    return max(MIN_AUTHORS, math.ceil(floor_share * index.median_day() - 1e-9))


def calibrate(index: PhraseIndex, floor_share: float = PHRASE_FLOOR_SHARE, seeds=NULL_SEEDS,
              window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN) -> dict:
    """The corpus's threshold ``k`` (see the module docstring):
    ``{"threshold", "floor", "nullEpisodes", "allowed", "days"}`` (``nullEpisodes``: the mean
    episodes of the nulls at ``threshold``). A streamed index (:func:`build_index`) brings its nulls'
    strengths; one with a stored calibration (a resumed run) returns it."""
    if index.calibration is not None:
        return dict(index.calibration)
    floor = floor_count(index, floor_share)
    n_days = len(index.days)
    allowed = n_days / NULL_DAYS_PER_EPISODE
    nulls = (index.null if index.null is not None
             else [strengths(index, null_days(index, s), window, span) for s in seeds])
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
            if index.uses_before is not None:
                before = int(index.uses_before[j])
            else:
                before = int(np.count_nonzero((d >= s - index.background) & (d < s)))
            sigma = keyness_sigma(by_day[fire], before, min(s, index.background), fire - s + 1)
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


def phrase_window(records: int, authors: int, first: str, last: str, covering=()) -> str:
    """A phrase burst's count in words, saying the window it covers and what it leaves out:
    ``"11 records from 11 authors on 2021-01-16"`` (one day), ``"33 records from 30 authors in the 7
    days 2021-08-15 to 2021-08-21"``; with ``covering`` (the names whose records are not counted for
    the word, :meth:`PhraseIndex.covering`) ``"... on 2021-01-16, not counting records writing
    'lionel messi'"``, so a plain count of the word is not mistaken for it."""
    n = (date.fromisoformat(last) - date.fromisoformat(first)).days + 1
    where = f"on {last}" if n == 1 else f"in the {n} days {first} to {last}"
    left_out = ""
    if covering:
        left_out = ", not counting records writing " + " or ".join(f"'{c}'" for c in covering)
    return f"{records} records from {authors} authors {where}{left_out}"


def names_an_event(row: dict) -> bool:
    """False for a phrase signal whose records share no key term besides the phrase: the burst namer
    (:func:`~corpuskit.analysis.signals.naming.burst_terms`, against the baseline before the fresh
    start) finds none, so the phrase gathered by chance in unrelated posts ("feedback" in six
    unrelated Hacker News threads) and names no event. ``row``: a
    :func:`~corpuskit.analysis.signals.lifecycle.signal_row` row; other
    signals pass."""
    detail = json.loads(row["detail"])
    return detail.get("subjectKind") != "phrase" or bool(detail.get("terms"))


def phrase_tracks(series, index: PhraseIndex, window: int = PHRASE_WINDOW, span: int = PHRASE_SPAN,
                  floor_share: float = PHRASE_FLOOR_SHARE, *, kind: str):
    """``(tracks, calibration)``: one :class:`~corpuskit.analysis.signals.track.Track` per phrase that
    bursts (subject ``phrase:<slug>``), over the days of ``series`` (see the module docstring); the
    tracks are of ``kind`` (the calling detector's: novelty)."""
    from corpuskit.analysis.signals.terms import term_slug

    cal = calibrate(index, floor_share, window=window, span=span)
    k = cal["threshold"]
    found = one_per_event(index, bursts(index, k, window, span), span)
    by_phrase: dict = {}
    for b in found:
        by_phrase.setdefault(index.phrases[b.phrase], []).append(b)
    t_index = {t: i for i, t in enumerate(series.topics)}
    n_days = len(series.days)
    tracks = []
    for phrase, group in sorted(by_phrase.items()):
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
        held = positions(b, d)
        records = len(held)
        today = index_day.get(series.days[d], b.start)
        last = max(b.start, min(today, b.start + span - 1))          # the window: start .. d, within the span
        per_day = np.bincount([int(index.rec_day[p]) - b.start for p in held], minlength=last - b.start + 1)
        busiest = int(per_day.argmax())          # ties: the earliest day
        t = topic_row(d)
        topic = series.topic_names[series.topics[t]] if t >= 0 else None
        where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
        detail = {"subjectKind": "phrase", "phrase": phrase, "term": phrase, "entity": None,
                  "entityId": None, "entityType": None, "mentions": records, "records": records,
                  "authors": authors, "baselineMentions": 0, "windowDays": window, "spanDays": span,
                  "scale": "week", "weekStart": index.days[b.start], "threshold": cal["threshold"],
                  "thresholdFloor": cal["floor"], "nullEpisodes": cal["nullEpisodes"],
                  "score": "thresholdMultiple", "keynessSigma": b.keyness_sigma, "topic": topic,
                  "day": series.days[d], "lastDay": index.days[last],
                  "dayRecords": int(per_day[today - b.start]) if today == last else 0,
                  "busiestDay": index.days[b.start + busiest], "busiestRecords": int(per_day[busiest]),
                  "notCounting": index.covering(phrase)}
        counted = phrase_window(records, authors, index.days[b.start], index.days[last], detail["notCounting"])
        headline = f"New phrase{where}: '{phrase}' ({counted}, from none in the {window} days before)"
        return detail, headline

    def threshold_count(d):
        b = at.get(d, (None,))[0]
        return b.crossing if b is not None and series.days[d] == index.days[b.fire] else None

    return Track(kind=kind, subject=f"phrase:{slug}", sigma=sigma, topic_row=topic_row, describe=describe,
                 threshold_count=threshold_count, evidence={"record_ids": record_ids, "phrase": phrase})
