"""Changes with a test: week over week for each topic, and topic against topic over a window.

Both answer one row per measure, in the same columns:

* ``measure``: ``records`` (a count), ``positiveShare`` and ``negativeShare`` (labelled
  records with that label over the labelled records), ``avgSentiment`` (mean score);
* ``value, value_low, value_high`` and ``reference, reference_low, reference_high``: the
  figure and its interval (:mod:`corpuskit.analysis.uncertainty`) for the period or topic
  and for what it is compared with (the week before; the other topic);
* ``change``: for ``records`` the ratio of the daily rates (``value / days`` over
  ``reference / referenceDays``; NaN when the reference is 0), for shares and means the
  difference ``value - reference``;
* ``test`` and ``p_value``: the two-sided test of "no change" from
  :mod:`corpuskit.stats.comparisons`: the exact conditional binomial test of two Poisson
  counts (with the days as exposures), the two-proportion z test (Fisher's exact test
  when an expected cell is under 5), Welch's t test of two means.

A record counts in every topic it is assigned to; p-values are not corrected for the
number of rows tested.
"""
from __future__ import annotations

from datetime import date, timedelta
from itertools import combinations

import pandas as pd

from corpuskit.analysis.uncertainty import DEFAULT_LEVEL, score_sd, topic_day_moments
from corpuskit.stats.comparisons import two_proportion_test, two_rate_test, welch_test
from corpuskit.stats.intervals import mean_interval_from_moments, poisson_interval, wilson_interval

MEASURES = ("records", "positiveShare", "negativeShare", "avgSentiment")
CHANGE_COLUMNS = ["measure", "value", "value_low", "value_high", "reference", "reference_low",
                  "reference_high", "change", "test", "p_value"]
WEEKLY_COLUMNS = ["topic", "weekStart", "days", "referenceDays"] + CHANGE_COLUMNS
COMPARE_COLUMNS = ["topic", "referenceTopic", "days"] + CHANGE_COLUMNS
_FLOATS = ["value", "value_low", "value_high", "reference", "reference_low", "reference_high", "change",
           "p_value"]
_SUMS = ["records", "scored", "scoreSum", "scoreSquares", "labelled", "positive", "negative"]


def _figure(measure: str, agg: pd.Series, level: float) -> tuple[float, float, float]:
    if measure == "records":
        low, high = poisson_interval(agg["records"], level)
        return float(agg["records"]), low, high
    if measure == "avgSentiment":
        n = agg["scored"]
        mean = agg["scoreSum"] / n if n else float("nan")
        low, high = mean_interval_from_moments(n, mean, float(score_sd(n, agg["scoreSum"], agg["scoreSquares"])),
                                               level)
        return mean, low, high
    k = agg["positive" if measure == "positiveShare" else "negative"]
    n = agg["labelled"]
    low, high = wilson_interval(k, n, level)
    return (k / n if n else float("nan")), low, high


def _test(measure: str, a: pd.Series, b: pd.Series, days_a: int, days_b: int) -> tuple[float, float, str]:
    """``(change, p_value, test)`` of ``a`` against the reference ``b``."""
    if measure == "records":
        p, test = two_rate_test(a["records"], b["records"], days_a, days_b)
        rate_b = b["records"] / days_b
        return ((a["records"] / days_a) / rate_b if rate_b else float("nan")), p, test
    if measure == "avgSentiment":
        sd_a = float(score_sd(a["scored"], a["scoreSum"], a["scoreSquares"]))
        sd_b = float(score_sd(b["scored"], b["scoreSum"], b["scoreSquares"]))
        mean_a = a["scoreSum"] / a["scored"] if a["scored"] else float("nan")
        mean_b = b["scoreSum"] / b["scored"] if b["scored"] else float("nan")
        p, test = welch_test(a["scored"], mean_a, sd_a, b["scored"], mean_b, sd_b)
        return mean_a - mean_b, p, test
    col = "positive" if measure == "positiveShare" else "negative"
    p, test = two_proportion_test(a[col], a["labelled"], b[col], b["labelled"])
    share_a = a[col] / a["labelled"] if a["labelled"] else float("nan")
    share_b = b[col] / b["labelled"] if b["labelled"] else float("nan")
    return share_a - share_b, p, test


def change_rows(a: pd.Series, b: pd.Series, days_a: int, days_b: int, level: float = DEFAULT_LEVEL) -> list[dict]:
    """One row per measure (:data:`CHANGE_COLUMNS`) comparing the summed moments ``a`` (over
    ``days_a`` days) with the reference ``b`` (over ``days_b`` days)."""
    rows = []
    for measure in MEASURES:
        value, value_low, value_high = _figure(measure, a, level)
        ref, ref_low, ref_high = _figure(measure, b, level)
        change, p, test = _test(measure, a, b, days_a, days_b)
        rows.append({"measure": measure, "value": value, "value_low": value_low, "value_high": value_high,
                     "reference": ref, "reference_low": ref_low, "reference_high": ref_high,
                     "change": change, "test": test, "p_value": p})
    return rows


def _frame(rows: list[dict], columns: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=columns)
    for col in _FLOATS:
        frame[col] = frame[col].astype(float)
    return frame


def week_over_week(conn, topics: list[tuple[int, str]], first: date, last: date,
                   level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Each topic's ISO weeks (Monday ``weekStart``) from ``first`` to ``last``, each against the
    week before: :data:`WEEKLY_COLUMNS`, by topic, week and measure.

    ``days`` counts the week's days inside the window (the first and last weeks may be partial);
    the record counts are compared as rates over those days. The first week has no reference
    and is left out.
    """
    moments = topic_day_moments(conn, first.isoformat(), last.isoformat())
    start = first - timedelta(days=first.weekday())
    weeks = [start + timedelta(weeks=i) for i in range((last - start).days // 7 + 1)]
    span = {w: (min(w + timedelta(days=6), last) - max(w, first)).days + 1 for w in weeks}
    if not moments.empty:
        days = pd.to_datetime(moments["day"])
        moments["week"] = (days - pd.to_timedelta(days.dt.day_of_week, unit="D")).dt.date
    empty = pd.Series(0.0, index=_SUMS)
    rows = []
    for tid, name in topics:
        mine = moments[moments["topicId"] == tid] if not moments.empty else moments
        sums = mine.groupby("week")[_SUMS].sum() if len(mine) else pd.DataFrame(columns=_SUMS)
        for before, week in zip(weeks, weeks[1:]):
            a = sums.loc[week] if week in sums.index else empty
            b = sums.loc[before] if before in sums.index else empty
            for row in change_rows(a, b, span[week], span[before], level):
                rows.append({"topic": name, "weekStart": week.isoformat(), "days": span[week],
                             "referenceDays": span[before], **row})
    frame = _frame(rows, WEEKLY_COLUMNS)
    frame["weekStart"] = pd.to_datetime(frame["weekStart"], utc=True)
    return frame


def topic_pairs(conn, topics: list[tuple[int, str]], first: str, last: str,
                level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Every pair of ``topics`` (in the order given: each topic against each later one, the
    later one the reference) over the days ``first`` to ``last``: :data:`COMPARE_COLUMNS`."""
    moments = topic_day_moments(conn, first, last)
    days = (date.fromisoformat(last) - date.fromisoformat(first)).days + 1
    sums = moments.groupby("topicId")[_SUMS].sum() if len(moments) else pd.DataFrame(columns=_SUMS)
    empty = pd.Series(0.0, index=_SUMS)
    rows = []
    for (ta, na), (tb, nb) in combinations(topics, 2):
        a = sums.loc[ta] if ta in sums.index else empty
        b = sums.loc[tb] if tb in sums.index else empty
        rows += [{"topic": na, "referenceTopic": nb, "days": days, **row}
                 for row in change_rows(a, b, days, days, level)]
    return _frame(rows, COMPARE_COLUMNS)


def observation_test(detail) -> tuple[str | None, float]:
    """``(test, p_value)`` for an observation whose detail holds counts, else ``(None, NaN)``.

    A ``trend`` (``weeks`` of counts): its last week against its first, exact conditional
    binomial. A volume ``divergence`` (each topic's ``previous`` and ``recent`` 7-day counts): the
    same test per topic, and the larger p-value, since the observation needs both moves
    (an intersection-union test). Other observations (anomalies against a median, sentiment
    means without their spread, milestones) carry no test here: NaN.
    """
    if not isinstance(detail, dict):
        return None, float("nan")
    if detail.get("metric") == "weeklyVolume" and len(detail.get("weeks") or []) >= 2:
        p, test = two_rate_test(detail["weeks"][-1]["count"], detail["weeks"][0]["count"])
        return test, p
    if detail.get("metric") == "volume" and isinstance(detail.get("change"), dict) and detail["change"]:
        ps = [two_rate_test(c["recent"], c["previous"]) for c in detail["change"].values()]
        return ps[0][1], max(p for p, _ in ps)
    return None, float("nan")
