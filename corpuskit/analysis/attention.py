"""Attention over time: how many records of a subcorpus each period holds, and their share of all.

This is what Media Cloud calls attention: the subcorpus count per period beside the count of
every record of that period, and the share one is of the other. Each count carries the exact
Poisson (Garwood) 95% interval and each share the Wilson 95% interval, both from
:mod:`corpuskit.stats.intervals`.
"""
from __future__ import annotations

from datetime import timezone

import numpy as np
import pandas as pd

from corpuskit.clock import iso, parse_timestamp
from corpuskit.errors import ValidationError
from corpuskit.query.record_filter import bound_timestamp
from corpuskit.query.subsets import as_ids, daily_counts, published_span
from corpuskit.stats.intervals import poisson_interval, wilson_interval

#: Period codes accepted by :func:`over_time`: days, weeks (Monday to Sunday), calendar months.
FREQUENCIES = {"D": "D", "W": "W-SUN", "M": "M"}
#: The columns of :func:`over_time` (``normalise=False`` leaves out the last four).
ATTENTION_COLUMNS = ("period", "count", "count_low", "count_high", "total", "share", "share_low", "share_high")


def over_time(corpus, ids, freq: str = "D", normalise: bool = True, since=None, until=None) -> pd.DataFrame:
    """Records of the subcorpus ``ids`` per period, with 95% intervals: a DataFrame, oldest first.

    Columns :data:`ATTENTION_COLUMNS`: ``period`` (the period's first day, UTC), ``count`` and its
    Poisson interval ``count_low``/``count_high``; with ``normalise`` also ``total`` (every record
    published in the period), ``share = count / total`` and its Wilson interval
    ``share_low``/``share_high`` (NaN where the period holds no record at all).

    ``freq`` is ``"D"``, ``"W"`` (weeks Monday to Sunday) or ``"M"`` (calendar months). The range
    runs from ``since`` (default: the start of the period of the subcorpus's first record, else of
    the corpus's) to ``until`` (default: the corpus clock, ``corpus.now()``); every period in it
    is a row, zeros included. ``total`` counts only records inside the range, so a period cut by
    ``since`` or ``until`` compares like with like.
    """
    if freq not in FREQUENCIES:
        raise ValidationError(f"freq must be one of {', '.join(FREQUENCIES)}, not {freq!r}")
    ids = as_ids(ids)
    conn = corpus.conn
    start, end = (None if b is None else parse_timestamp(b)
                  for b in (bound_timestamp(since, "since"), bound_timestamp(until, "until")))
    if end is None:
        end = corpus.now()
    if start is None:
        first = published_span(conn, ids)[0] if len(ids) else None
        first = first or published_span(conn)[0]
        if first is None:  # an empty corpus
            return _empty(normalise)
        first_period = pd.Period(pd.Timestamp(first[:10]), freq=FREQUENCIES[freq])
        start = first_period.start_time.to_pydatetime().replace(tzinfo=timezone.utc)
    if start > end:
        raise ValidationError(f"since ({iso(start)}) is after until ({iso(end)})")
    s, e = iso(start), iso(end)
    return attention_frame(corpus, daily_counts(conn, ids, s, e) if len(ids) else {}, freq, s, e, normalise)


def attention_frame(corpus, mine: dict, freq: str, since: str, until: str, normalise: bool = True) -> pd.DataFrame:
    """The frame of :func:`over_time` from the subcorpus's records per day already counted: ``mine``
    is ``{YYYY-MM-DD: records}`` published from ``since`` to ``until`` (stored ISO bounds, the range)."""
    if freq not in FREQUENCIES:
        raise ValidationError(f"freq must be one of {', '.join(FREQUENCIES)}, not {freq!r}")
    start, end = parse_timestamp(since), parse_timestamp(until)
    periods = pd.period_range(pd.Timestamp(start.date()), pd.Timestamp(end.date()), freq=FREQUENCIES[freq])
    count = _per_period(mine, periods)
    frame = pd.DataFrame({"period": periods.start_time.tz_localize("UTC"), "count": count})
    frame["count_low"], frame["count_high"] = (np.atleast_1d(v) for v in poisson_interval(count))
    if normalise:
        total = _per_period(daily_counts(corpus.conn, None, since, until), periods)
        frame["total"] = total
        with np.errstate(invalid="ignore", divide="ignore"):
            frame["share"] = np.where(total > 0, count / np.maximum(total, 1), np.nan)
        frame["share_low"], frame["share_high"] = (np.atleast_1d(v) for v in wilson_interval(count, total))
    return frame


def _per_period(days: dict, periods: pd.PeriodIndex) -> np.ndarray:
    out = np.zeros(len(periods), dtype=np.int64)
    if not days:
        return out
    day_periods = pd.PeriodIndex(pd.to_datetime(list(days)), freq=periods.freq)
    where = periods.get_indexer(day_periods)
    np.add.at(out, where[where >= 0], np.fromiter(days.values(), dtype=np.int64)[where >= 0])
    return out


def _empty(normalise: bool) -> pd.DataFrame:
    cols = ATTENTION_COLUMNS if normalise else ATTENTION_COLUMNS[:4]
    frame = pd.DataFrame({c: pd.Series(dtype=float) for c in cols})
    frame["period"] = pd.Series(dtype="datetime64[ns, UTC]")
    frame["count"] = pd.Series(dtype="int64")
    return frame
