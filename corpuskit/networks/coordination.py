"""Coordinated groups: accounts that post the same thing within a short window, again and again.

The method (docs/api.md, "Coordination"):

1. **Items.** Each selected record carries items: its normalised text, its URLs or its hashtag
   set (``by``; see :mod:`corpuskit.networks.items`). Only items posted by two accounts or more
   count.
2. **Window.** Two posts of one item by two accounts *co-share* it when they are at most
   ``window`` seconds apart. Without ``window``, it is estimated as CooRnet does
   (:func:`~corpuskit.networks.shares.estimate_window`: the 0.1 quantile, over repeated items, of
   the time from an item's first share to its median share).
3. **Candidate links.** A pair of accounts is a candidate when it co-shared at least
   ``min_repeats`` distinct items.
4. **Null.** ``n_null`` draws (seeded by ``seed``) permute the posting times among each
   account's own records, keeping what each account posted and when it is active, and breaking
   only the alignment between accounts. A pair's expected count under the null is
   ``(sum of its null counts + 1) / (n_null + 1)`` (one pseudo-draw of 1, so a pair never seen in
   the null is not given an expected count of zero); its p-value is the Poisson upper tail of
   its observed count at that mean. Busy accounts that post the same things all day co-share
   often under the null too, so they do not stand out.
5. **Correction.** Benjamini–Hochberg at false discovery rate ``alpha`` over every pair that
   co-shared at least once (the pairs below ``min_repeats`` count as tested and not rejected).
6. **Groups.** The connected components of the significant links, numbered 1, 2, ... by size
   (descending), then by their first account's name.

The result has one row per (group, author): ``records`` (the author's posts that co-share with
another member), ``shared`` (the distinct items among them), ``first``/``last`` (their times)
and ``evidence`` (a list of ``{"item", "records"}``, the author's record ids per item, the
earliest item first). ``DataFrame.attrs`` holds the window, whether it was estimated, the counts
of candidate and significant pairs, the number of pairs tested and the settings.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import pdtrc

from corpuskit.errors import ValidationError
from corpuskit.networks.selection import record_filter
from corpuskit.query import RecordFilter
from corpuskit.networks.shares import (BY, co_shares, estimate_window as _estimate, pair_counts,
                                       read_shares, shuffled_times)

COLUMNS = ["group", "author", "records", "shared", "first", "last", "evidence"]


def _check(window, min_repeats, n_null, alpha, seed):
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, float)) or window < 0):
        raise ValidationError(f"window must be a number of seconds >= 0 or None, not {window!r}")
    for name, value, low in (("min_repeats", min_repeats, 1), ("n_null", n_null, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValidationError(f"{name} must be a whole number >= {low}, not {value!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, float) or not 0 < alpha < 1:
        raise ValidationError(f"alpha must be a number between 0 and 1, not {alpha!r}")


def estimate_window(conn, by: str = "text", since=None, until=None, query=None,
                    q: float = 0.1, p: float = 0.5) -> int:
    """The co-share window (seconds) of a selection, estimated as in step 2 of the module docstring."""
    return _estimate(read_shares(conn, record_filter(since, until, query), by), q=q, p=p)


def coordination(conn, window=None, min_repeats: int = 2, by: str = "text", since=None, until=None,
                 query=None, n_null: int = 20, alpha: float = 0.05, seed: int = 0,
                 rfilter: RecordFilter | None = None) -> pd.DataFrame:
    """Coordinated groups of the selected records (see the module docstring); ``rfilter``, a whole
    :class:`~corpuskit.query.RecordFilter` (the export's), replaces ``since``, ``until`` and ``query``."""
    _check(window, min_repeats, n_null, alpha, seed)
    shares = read_shares(conn, record_filter(since, until, query) if rfilter is None else rfilter, by)
    estimated = window is None
    if estimated:
        window = _estimate(shares) if len(shares.item) else 0
    window = int(window)
    pair, item, share_a, share_b = co_shares(shares, window)
    pairs, counts = pair_counts(pair, item, len(shares.items))
    candidates = pairs[counts >= min_repeats]
    observed = counts[counts >= min_repeats]
    null_sum = np.zeros(len(candidates), np.int64)
    rng = np.random.default_rng(seed)
    for _ in range(n_null if len(candidates) else 0):
        npairs, ncounts = pair_counts(*co_shares(shares, window, shuffled_times(shares, rng))[:2],
                                      len(shares.items))
        where = np.searchsorted(npairs, candidates)
        hit = where < len(npairs)
        hit[hit] = npairs[where[hit]] == candidates[hit]
        null_sum[hit] += ncounts[where[hit]]
    expected = (null_sum + 1) / (n_null + 1)
    pvalues = pdtrc(observed - 1, expected)          # the Poisson upper tail P(X >= observed)
    significant = candidates[_benjamini_hochberg(pvalues, len(pairs), alpha)]
    out = _groups(shares, significant, pair, item, share_a, share_b)
    out.attrs.update(window=window, window_estimated=estimated, by=by, min_repeats=min_repeats,
                     n_null=n_null, alpha=alpha, seed=seed, pairs_tested=int(len(pairs)),
                     candidate_pairs=int(len(candidates)), significant_pairs=int(len(significant)),
                     correction="Benjamini-Hochberg over every pair that co-shared at least once")
    return out


def _benjamini_hochberg(pvalues: np.ndarray, tested: int, alpha: float) -> np.ndarray:
    """A mask of the rejected hypotheses among ``pvalues``, out of ``tested`` (the rest not rejected)."""
    if not len(pvalues):
        return np.zeros(0, bool)
    order = np.argsort(pvalues, kind="stable")
    limits = alpha * np.arange(1, len(pvalues) + 1) / max(tested, len(pvalues))
    passed = np.flatnonzero(pvalues[order] <= limits)
    mask = np.zeros(len(pvalues), bool)
    if len(passed):
        mask[order[: passed[-1] + 1]] = True
    return mask


def _groups(shares, significant, pair, item, share_a, share_b) -> pd.DataFrame:
    n = len(shares.authors)
    if not len(significant):
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            COLUMNS, ("int64", "object", "int64", "int64", "object", "object", "object"))})
    a, b = significant // n, significant % n
    members = np.unique(np.r_[a, b])
    local = {m: i for i, m in enumerate(members)}
    graph = coo_matrix((np.ones(len(a)), ([local[x] for x in a], [local[x] for x in b])),
                       shape=(len(members), len(members)))
    _, label = connected_components(graph, directed=False)
    component = dict(zip(members, label))
    order = sorted(set(label), key=lambda g: (-int((label == g).sum()),
                                              min(shares.authors[m] for m in members[label == g])))
    number = {g: i + 1 for i, g in enumerate(order)}
    group_of = {m: number[component[m]] for m in members}
    # the co-shares of significant pairs, within a group, are the evidence
    linked = np.isin(pair, significant)
    rows = []
    for side in (share_a[linked], share_b[linked]):
        rows.append(pd.DataFrame({"share": side, "item": item[linked]}))
    ev = pd.concat(rows).drop_duplicates()
    record_row = shares.row[ev["share"].to_numpy()]
    ev = ev.assign(author=shares.author[record_row], record=shares.record_id[record_row],
                   time=shares.time[record_row])
    ev["group"] = ev["author"].map(group_of)
    return _rows(ev.dropna(subset=["group"]), shares)


def _rows(ev: pd.DataFrame, shares) -> pd.DataFrame:
    item_start = ev.groupby("item")["time"].min()
    out = []
    for (group, author), part in ev.groupby(["group", "author"], sort=False):
        part = part.assign(start=part["item"].map(item_start)).sort_values(["start", "item", "record"])
        evidence = [{"item": shares.items[i], "records": sorted(int(r) for r in p["record"].unique())}
                    for i, p in part.groupby("item", sort=False)]
        out.append({"group": int(group), "author": shares.authors[author],
                    "records": int(part["record"].nunique()), "shared": int(part["item"].nunique()),
                    "first": _iso(part["time"].min()), "last": _iso(part["time"].max()),
                    "evidence": evidence})
    frame = pd.DataFrame(out, columns=COLUMNS)
    return frame.sort_values(["group", "author"], kind="mergesort").reset_index(drop=True)


def _iso(seconds) -> str:
    return pd.Timestamp(int(seconds), unit="s", tz="UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
