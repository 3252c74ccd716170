"""Shares (one per record and item it carries) and the co-shares of two accounts within a window.

A *share* is a record carrying an item (see :mod:`corpuskit.networks.items`). Two accounts
*co-share* an item when each posted it and the two posts are at most ``window`` seconds apart;
the count of a pair is the number of distinct items they co-shared. The counts work on integer
arrays (work grows with the co-shares, not with the pairs of accounts), so the cost of a run is
mostly reading the records and building their keys.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.networks.items import MIN_HASHTAGS, text_keys, url_keys
from corpuskit.networks.selection import select

#: What ``coordination(by=...)`` compares.
BY = ("text", "url", "hashtag_set")
_EXTRA = {
    "text": ("r.title", "r.content_text"),
    "url": ("r.url", "r.title", "r.content_text"),
    "hashtag_set": ("(SELECT group_concat(tag, ' ') FROM (SELECT tag FROM record_hashtags "
                    "WHERE record_id = r.id ORDER BY tag))",),
}


@dataclass
class Shares:
    """The selected records of accounts that share a repeated item, and their shares.

    Records: ``record_id``, ``author`` (codes into ``authors``), ``time`` (unix seconds).
    Shares: ``item`` (codes into ``items``) and ``row`` (an index into the records arrays).
    Only items posted by at least two accounts are kept, and only the records of the accounts
    that posted them (all their selected records: the null shuffles times among them).
    """

    record_id: np.ndarray
    author: np.ndarray
    time: np.ndarray
    authors: list
    item: np.ndarray
    row: np.ndarray
    items: list


def _keys(by: str, columns: list) -> tuple[np.ndarray, list]:
    """``(rows, keys)``: one share per record and item, from the records' ``_EXTRA[by]`` columns."""
    if by == "text":
        per_record = [[] if key is None else [key] for key in text_keys(columns[0], columns[1])]
    elif by == "url":
        per_record = [url_keys(*values) for values in zip(*columns)]
    else:
        sets = ((t or "").split() for t in columns[0])
        per_record = [[" ".join(tags)] if len(tags) >= MIN_HASHTAGS else [] for tags in sets]
    rows = np.repeat(np.arange(len(per_record), dtype=np.int64), [len(k) for k in per_record])
    return rows, [key for record in per_record for key in record]


def read_shares(conn, rfilter, by: str) -> Shares:
    """Read the selection once and keep what the co-share counts need.

    The records are read unordered and put in order (time, then id) here: SQLite's ordered
    scan of a large table through its time index costs more than the sort.
    """
    if by not in BY:
        raise ValidationError(f"by must be one of {', '.join(BY)}, not {by!r}")
    columns = list(zip(*select(conn, rfilter, _EXTRA[by], lean=True, ordered=False).fetchall()))
    if not columns:
        columns = [()] * (3 + len(_EXTRA[by]))
    ids, times = np.asarray(columns[0], np.int64), unix_seconds(columns[2])
    order = np.lexsort((ids, times))
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    author_codes, authors = pd.factorize(pd.Series(columns[1], dtype=object), sort=True)
    ids, times, author_codes = ids[order], times[order], author_codes[order]
    rows, keys = _keys(by, columns[3:])
    rows = position[rows]
    by_row = np.argsort(rows, kind="stable")            # shares in record order, as the records are
    rows, keys = rows[by_row], pd.Series(keys, dtype=object).iloc[by_row].reset_index(drop=True)
    frame = pd.DataFrame({"key": keys, "author": author_codes[rows] if len(rows) else rows}).drop_duplicates()
    repeated = frame.groupby("key")["author"].nunique()
    keep = keys.isin(repeated.index[repeated >= 2]).to_numpy()
    rows, keys = rows[keep], keys[keep]
    kept_authors = np.isin(author_codes, np.unique(author_codes[rows]))
    new_index = np.cumsum(kept_authors) - 1
    item_codes, items = pd.factorize(keys, sort=True)
    return Shares(record_id=ids[kept_authors], author=author_codes[kept_authors],
                  time=times[kept_authors], authors=list(authors), item=item_codes.astype(np.int64),
                  row=new_index[rows], items=list(items))


def unix_seconds(stamps) -> np.ndarray:
    """Stored ISO timestamps as whole unix seconds (int64), whatever unit pandas parses them to."""
    if not len(stamps):
        return np.zeros(0, np.int64)
    parsed = pd.to_datetime(pd.Series(stamps, dtype=object), utc=True, format="ISO8601")
    return ((parsed - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy(np.int64)


def estimate_window(shares: Shares, q: float = 0.1, p: float = 0.5) -> int:
    """The co-share window (seconds) as CooRnet's ``estimate_coord_interval`` does.

    For every item posted more than once, the time from its first share until its first share
    ranked past ``p`` of its shares (rank / shares > p, the second at least); the window is the
    ``q`` quantile of those times (linear interpolation, as R's default), rounded down, at least
    one second. :class:`ValidationError` when no item is posted twice.
    """
    if not len(shares.item):
        raise ValidationError("no item is posted by two accounts in this selection: nothing to estimate "
                              "a coordination window from (give window= in seconds)")
    order = np.lexsort((shares.time[shares.row], shares.item))
    item, time = shares.item[order], shares.time[shares.row][order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    counts = np.diff(np.r_[starts, len(item)])
    reach = np.minimum(counts - 1, np.floor(p * counts).astype(np.int64))
    ok = counts >= 2
    gaps = time[starts[ok] + reach[ok]] - time[starts[ok]]
    return max(1, int(math.floor(float(np.quantile(gaps, q)))))


def co_shares(shares: Shares, window: int, times: np.ndarray | None = None):
    """``(pair, item, share_a, share_b)`` for every two shares of one item by two accounts within
    ``window`` seconds; ``pair`` is ``a * n_authors + b`` with author codes ``a < b``.

    ``times`` replaces the records' times (a null draw). Each (pair, item) may appear more than once.
    """
    time = (shares.time if times is None else times)[shares.row]
    author = shares.author[shares.row]
    order = np.lexsort((author, time, shares.item))
    item, time, author = shares.item[order], time[order], author[order]
    n = len(item)
    out_pair, out_item, out_a, out_b = [], [], [], []
    active = np.arange(n - 1, dtype=np.int64)
    lag = 1
    while len(active):
        j = active + lag
        inside = j < n
        active, j = active[inside], j[inside]
        near = (item[j] == item[active]) & (time[j] - time[active] <= window)
        active, j = active[near], j[near]
        other = author[active] != author[j]
        a, b = author[active][other], author[j][other]
        out_pair.append(np.minimum(a, b) * len(shares.authors) + np.maximum(a, b))
        out_item.append(item[active][other])
        out_a.append(order[active][other])
        out_b.append(order[j][other])
        lag += 1
    if not out_pair:
        return (np.zeros(0, np.int64),) * 4
    return tuple(np.concatenate(x).astype(np.int64) for x in (out_pair, out_item, out_a, out_b))


def pair_counts(pair: np.ndarray, item: np.ndarray, n_items: int):
    """``(pairs, counts)``: each pair once (ascending) and the number of distinct items it co-shared."""
    if not len(pair):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    unique = np.unique(pair * max(n_items, 1) + item)
    pairs, counts = np.unique(unique // max(n_items, 1), return_counts=True)
    return pairs, counts.astype(np.int64)


def shuffled_times(shares: Shares, rng: np.random.Generator) -> np.ndarray:
    """The records' times permuted within each author's own records (the null's one draw)."""
    by_author = np.lexsort((shares.time, shares.author))
    shuffled = np.lexsort((rng.random(len(shares.time)), shares.author))
    out = np.empty_like(shares.time)
    out[shuffled] = shares.time[by_author]
    return out
