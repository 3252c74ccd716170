"""Interval columns for the DataFrames that report counts, shares and means, and the daily
per-topic moments they need.

The helpers append ``<name>_low`` and ``<name>_high`` (and, for a share, the share
itself) at the end of a frame, from :mod:`corpuskit.stats.intervals`:

* :func:`add_count_interval`: exact Poisson (Garwood) interval of a count;
* :func:`add_share`: a share ``k / n`` with its Wilson interval (NaN where ``n == 0``);
* :func:`add_mean_interval`: Student's t interval of a mean given ``n`` and a standard deviation.

:func:`topic_day_moments` reads, per topic and UTC day, the record count, the
scored records' count, sum and sum of squares of sentiment scores, and the
labelled, positive and negative records: what a mean's t interval and the tests of
:mod:`corpuskit.analysis.changes` need. A record counts in every topic it is
assigned to (the snapshots' rule).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.stats.intervals import mean_interval_from_moments, poisson_interval, wilson_interval

DEFAULT_LEVEL = 0.95

MOMENT_COLUMNS = ["topicId", "day", "records", "scored", "scoreSum", "scoreSquares", "labelled",
                  "positive", "negative"]

_MOMENTS_SQL = (
    "SELECT ta.topic_id, r.day, count(*), count(e.sentiment_score), total(e.sentiment_score), "
    "total(e.sentiment_score * e.sentiment_score), count(e.sentiment_label), "
    "total(e.sentiment_label = 'positive'), total(e.sentiment_label = 'negative') "
    "FROM records r INDEXED BY records_day CROSS JOIN topic_assignments ta ON ta.record_id = r.id "
    "LEFT JOIN enrichment e ON e.record_id = r.id "
    "WHERE r.day BETWEEN ? AND ? GROUP BY ta.topic_id, r.day ORDER BY ta.topic_id, r.day")


def add_count_interval(frame: pd.DataFrame, column: str, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Append ``<column>_low, <column>_high``: the exact Poisson interval of each count."""
    counts = frame[column].to_numpy(dtype=float)
    low, high = poisson_interval(counts, level) if len(counts) else (counts, counts)
    frame[f"{column}_low"] = np.atleast_1d(low)
    frame[f"{column}_high"] = np.atleast_1d(high)
    return frame


def add_share(frame: pd.DataFrame, name: str, successes, total, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Append ``<name>, <name>_low, <name>_high``: ``successes / total`` and its Wilson interval
    (NaN where ``total`` is 0)."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(total, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        frame[name] = np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
    low, high = wilson_interval(k, n, level) if len(k) else (k, k)
    frame[f"{name}_low"] = np.atleast_1d(low)
    frame[f"{name}_high"] = np.atleast_1d(high)
    return frame


def add_mean_interval(frame: pd.DataFrame, column: str, n, sd, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Append ``<column>_low, <column>_high``: Student's t interval of each mean over ``n`` values
    with standard deviation ``sd`` (NaN where ``n < 2``)."""
    mean = frame[column].to_numpy(dtype=float)
    low, high = mean_interval_from_moments(n, mean, sd, level) if len(mean) else (mean, mean)
    frame[f"{column}_low"] = np.atleast_1d(low)
    frame[f"{column}_high"] = np.atleast_1d(high)
    return frame


def score_sd(n, total, squares):
    """Sample standard deviation (``ddof=1``) from a count, sum and sum of squares; NaN where ``n < 2``."""
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (np.asarray(squares, dtype=float) - np.asarray(total, dtype=float) ** 2 / n) / (n - 1)
    return np.where(n >= 2, np.sqrt(np.maximum(var, 0.0)), np.nan)


def topic_day_moments(conn, first: str, last: str) -> pd.DataFrame:
    """Per topic and day from ``first`` to ``last`` (ISO days, inclusive), days with records only:
    the :data:`MOMENT_COLUMNS`, by topic then day."""
    rows = conn.execute(_MOMENTS_SQL, (first, last)).fetchall()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=MOMENT_COLUMNS)
    for col in ("records", "scored", "labelled", "positive", "negative"):
        frame[col] = frame[col].astype(int)
    return frame


def day_totals(conn, first: str, last: str) -> dict:
    """Distinct records per UTC day from ``first`` to ``last``: the denominator of a topic's share."""
    return dict(conn.execute("SELECT day, count(*) FROM records INDEXED BY records_day "
                             "WHERE day BETWEEN ? AND ? GROUP BY day", (first, last)).fetchall())


#: The columns :func:`snapshot_intervals` appends to a snapshots (or compare) frame, in order.
SNAPSHOT_INTERVAL_COLUMNS = [
    "totalRecords_low", "totalRecords_high", "topicShare", "topicShare_low", "topicShare_high",
    "positiveShare", "positiveShare_low", "positiveShare_high", "negativeShare", "negativeShare_low",
    "negativeShare_high", "avgSentiment_low", "avgSentiment_high"]


def snapshot_intervals(conn, frame: pd.DataFrame, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Append :data:`SNAPSHOT_INTERVAL_COLUMNS` to snapshot rows (``topic, date, totalRecords,
    sentimentPositive, sentimentNeutral, sentimentNegative, avgSentiment``).

    ``totalRecords`` gets a Poisson interval; ``topicShare`` is the topic's records over the
    day's distinct records, ``positiveShare``/``negativeShare`` the labels over the day's
    labelled records, each with a Wilson interval; ``avgSentiment`` gets a t interval from the
    day's scored records' standard deviation.
    """
    frame = frame.copy()
    if frame.empty:
        for col in SNAPSHOT_INTERVAL_COLUMNS:
            frame[col] = pd.Series(dtype=float)
        return frame
    days = pd.to_datetime(frame["date"], utc=True).dt.strftime("%Y-%m-%d")
    first, last = days.min(), days.max()
    names = dict(conn.execute("SELECT name, id FROM topics").fetchall())
    moments = topic_day_moments(conn, first, last).set_index(["topicId", "day"])
    keys = pd.MultiIndex.from_arrays([frame["topic"].map(names), days])
    found = moments.reindex(keys)
    totals = day_totals(conn, first, last)
    add_count_interval(frame, "totalRecords", level)
    topic_records = found["records"].fillna(0).to_numpy()
    add_share(frame, "topicShare", topic_records, days.map(totals).fillna(0).to_numpy(), level)
    labelled = frame[["sentimentPositive", "sentimentNeutral", "sentimentNegative"]].sum(axis=1).to_numpy()
    add_share(frame, "positiveShare", frame["sentimentPositive"].to_numpy(), labelled, level)
    add_share(frame, "negativeShare", frame["sentimentNegative"].to_numpy(), labelled, level)
    n = found["scored"].fillna(0).to_numpy()
    sd = score_sd(n, found["scoreSum"].fillna(0).to_numpy(), found["scoreSquares"].fillna(0).to_numpy())
    return add_mean_interval(frame, "avgSentiment", n, sd, level)
