"""The ``credibilityScore`` of a cited source, in [0, 1].

``credibility = 0.5 * prior(source kind) + 0.3 * author activity + 0.2 * engagement``

- *prior*: a fixed score per source kind (:data:`SOURCE_PRIORS`): edited or
  reviewed channels (arxiv, news) above link aggregators, above social posts.
- *author activity*: ``min(1, log(1 + n) / log(1 + 50))`` where ``n`` is the
  author's record count in the corpus; 0 for an empty or deleted author. An
  author with 50 records scores 1.
- *engagement*: ``min(1, log(1 + e) / log(1 + 1000))`` where ``e`` is the sum
  of the record's numeric engagement fields in its metadata
  (:data:`ENGAGEMENT_KEYS`, views counted at 1/100); 0 when there are none.

It is a transparent heuristic for ranking and display, not a fact check.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar

SOURCE_PRIORS = {
    "arxiv": 0.85, "news": 0.75, "google_news": 0.7, "huggingface": 0.7, "gdelt": 0.65,
    "hackernews": 0.6, "exa": 0.6, "webset": 0.6, "reddit": 0.5, "youtube": 0.45,
    "bluesky": 0.45, "twitter": 0.4,
}
DEFAULT_PRIOR = 0.5
ENGAGEMENT_KEYS = ("score", "points", "num_points", "num_comments", "comments", "likes", "like_count",
                   "likeCount", "upvotes", "ups", "reposts", "repostCount", "retweets", "retweet_count",
                   "replies", "reply_count", "replyCount", "citations")
VIEW_KEYS = ("views", "view_count", "viewCount")
WEIGHTS = (0.5, 0.3, 0.2)


def _number(value) -> float:
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)) and math.isfinite(value):
        return max(0.0, float(value))
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return 0.0
        return max(0.0, number) if math.isfinite(number) else 0.0
    return 0.0


def engagement(metadata: dict) -> float:
    """The engagement component in [0, 1] from a record's metadata."""
    total = sum(_number(metadata.get(k)) for k in ENGAGEMENT_KEYS)
    total += sum(_number(metadata.get(k)) for k in VIEW_KEYS) / 100.0
    return min(1.0, math.log1p(total) / math.log1p(1000))


def author_activity(count: int) -> float:
    """The author component in [0, 1] from the author's record count."""
    return min(1.0, math.log1p(max(0, count)) / math.log1p(50))


def credibility(source: str, author_count: int, metadata: dict) -> float:
    """The credibility score of one record, rounded to 4 decimals."""
    prior = SOURCE_PRIORS.get(source, DEFAULT_PRIOR)
    w_prior, w_author, w_engage = WEIGHTS
    score = w_prior * prior + w_author * author_activity(author_count) + w_engage * engagement(metadata or {})
    return round(min(1.0, max(0.0, score)), 4)


_AUTHOR_COUNTS: ContextVar[dict | None] = ContextVar("narrate_author_counts", default=None)


@contextmanager
def author_count_cache():
    """Within this block :func:`credibility_scores` takes every author's record count from one pass over
    ``records``, made on first use, instead of a query per call (``author`` has no index: each of those
    queries reads the whole table). The narrate stage opens it for one run: it writes no records."""
    token = _AUTHOR_COUNTS.set({})
    try:
        yield
    finally:
        _AUTHOR_COUNTS.reset(token)


def credibility_scores(conn, records, until: str | None = None) -> dict[int, float]:
    """``{record id: credibilityScore}`` for :class:`EvidenceRecord` objects.

    ``until`` (a stored timestamp): count each author's records published up to then only
    (a period's story knows nothing of later posts)."""
    authors = sorted({r.author for r in records if r.author and r.author not in ("[deleted]", "[removed]")})
    counts = {}
    cache = _AUTHOR_COUNTS.get()
    bound, args = ("", []) if until is None else (" AND published_at <= ?", [until])
    if authors and cache is not None:
        if ("counts", until) not in cache:
            cache[("counts", until)] = dict(conn.execute(
                f"SELECT author, count(*) FROM records WHERE author IS NOT NULL{bound} GROUP BY author",
                args).fetchall())
        counts = {a: cache[("counts", until)].get(a, 0) for a in authors}
    elif authors:
        marks = ",".join("?" for _ in authors)
        counts = dict(conn.execute(
            f"SELECT author, count(*) FROM records WHERE author IN ({marks}){bound} GROUP BY author",
            authors + args).fetchall())
    return {r.id: credibility(r.source, counts.get(r.author, 0), r.metadata) for r in records}
