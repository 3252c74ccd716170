"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Daily snapshots of topics and the series drawn
from them: trends, comparisons, week over week."""
from __future__ import annotations

import pandas as pd


class SeriesMethods:
    """Daily snapshots of topics and the series drawn from them: trends, comparisons, week over week."""

    def snapshots(self, topic: str | None = None, since=None, until=None, level: float = 0.95) -> pd.DataFrame:
        """One row per topic per UTC day, zero rows included, by topic then date.

        Columns: ``topic, date, totalRecords, volumeBySource`` (dict),
        ``sentimentPositive, sentimentNeutral, sentimentNegative,
        avgSentiment`` (float, NaN on a day without a scored record),
        ``platformCount, topEntities`` (list of ``{name, mentions, type}``),
        ``signalCount``, then the intervals at ``level``: ``totalRecords_low, totalRecords_high``
        (Poisson), ``topicShare`` (of the day's records) and ``positiveShare``,
        ``negativeShare`` (of its labelled records), each with ``_low, _high`` (Wilson),
        ``avgSentiment_low, avgSentiment_high`` (Student's t); see ``docs/uncertainty.md``.
        A record counts in every topic it is assigned to.
        Window: ``since``/``until`` days (``YYYY-MM-DD``, inclusive); with
        neither, the whole corpus up to the clock's day; with one, see
        :func:`corpuskit.analysis.snapshots.resolve_range`.
        """
        from corpuskit import frames

        return frames.snapshots(self, topic=topic, since=since, until=until, level=level)

    def trends(self, topic: str, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """Records per day of one topic: ``topic, day, count, count_low, count_high`` (an exact
        Poisson interval at ``level``) for the ``days`` days to the clock."""
        from corpuskit import frames

        return frames.trends(self, topic, days=days, level=level)

    def compare(self, topics, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """2 to 5 topics' snapshot rows (the :meth:`snapshots` columns, intervals included) over
        the last ``days`` days (at most 90), stacked: filter or pivot on ``topic``. The tests
        between the topics are :meth:`compare_tests`."""
        from corpuskit import frames

        return frames.compare(self, topics, days=days, level=level)

    def compare_tests(self, topics, days: int = 30, level: float = 0.95) -> pd.DataFrame:
        """Each pair of 2 to 5 topics over the last ``days`` days (at most 90), one row per measure.

        Columns: ``topic, referenceTopic, days, measure`` (``records, positiveShare,
        negativeShare, avgSentiment``), ``value, value_low, value_high, reference,
        reference_low, reference_high, change`` (records: rate ratio; else the difference),
        ``test, p_value`` (exact conditional binomial for counts, two-proportion z or
        Fisher's exact for shares, Welch's t for means). See :mod:`corpuskit.analysis.changes`.
        """
        from corpuskit import frames

        return frames.compare_tests(self, topics, days=days, level=level)

    def week_over_week(self, topic: str | None = None, since=None, until=None,
                       level: float = 0.95) -> pd.DataFrame:
        """Each topic's ISO weeks against the week before, one row per measure, with a test.

        Columns: ``topic, weekStart, days, referenceDays`` (days of each week inside the
        window), then the :meth:`compare_tests` columns from ``measure`` on; counts are
        compared as daily rates. Window as :meth:`snapshots` (default: the whole corpus).
        """
        from corpuskit import frames

        return frames.week_over_week(self, topic=topic, since=since, until=until, level=level)
