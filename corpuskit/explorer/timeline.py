"""The publication second of each record of a selection, read once and held in memory.

The explorer asks the same selection many questions: its records per day for the chart, how many fall
in a clicked period, which ids those are, and which page of them is newest. Each asked of the
database would look up every selected record again (tens of thousands of lookups at 1M records); a
:class:`Timeline` takes the selection's seconds from every record's, held in memory
(:mod:`corpuskit.explorer.record_times`), and answers each question by counting, slicing or sorting
its arrays. Its answers are those of the SQL they replace (``published_at`` compared as stored text,
ties by id): it is built only when every selected record's timestamp has the stored form
``YYYY-MM-DDTHH:MM:SSZ``, whose text order is its time order.
"""
from __future__ import annotations

import numpy as np


class Timeline:
    """``ids`` (ascending) and ``seconds``, the Unix second each was published, aligned."""

    def __init__(self, ids: np.ndarray, seconds: np.ndarray):
        self.ids, self.seconds = ids, seconds

    @classmethod
    def of(cls, ids: np.ndarray, times) -> "Timeline | None":
        """The timeline of ``ids`` (ascending, int64) with their seconds from ``times`` (the explorer's
        :class:`~corpuskit.explorer.record_times.RecordTimes`); None when one of them has no stored
        second (the callers then ask the database)."""
        seconds = times.seconds_of(ids)
        return None if seconds is None else cls(ids, seconds)

    def within(self, since: str | None, until: str | None) -> np.ndarray:
        """Whether each record was published from ``since`` to ``until`` (stored ISO bounds, inclusive;
        None for open): a boolean mask over :attr:`ids`."""
        keep = np.ones(len(self.ids), dtype=bool)
        if since is not None:
            keep &= self.seconds >= _second(since)
        if until is not None:
            keep &= self.seconds <= _second(until)
        return keep

    def daily(self, since: str | None = None, until: str | None = None) -> dict:
        """``{YYYY-MM-DD: records}`` published from ``since`` to ``until``, as
        :func:`corpuskit.query.subsets.daily_counts` gives it for these ids."""
        days = self.seconds[self.within(since, until)] // 86400
        values, counts = np.unique(days, return_counts=True)
        labels = np.datetime_as_string(values.astype("datetime64[D]"))
        return dict(zip(labels.tolist(), counts.tolist()))

    def newest_first(self, keep: np.ndarray | None = None, limit: int = 20, offset: int = 0) -> np.ndarray:
        """The ids of one page of the records (all, or those ``keep`` marks), newest first, ties by id
        descending: the order of ``Subcorpus.records``."""
        ids, seconds = (self.ids, self.seconds) if keep is None else (self.ids[keep], self.seconds[keep])
        order = np.lexsort((ids, seconds))[::-1]
        return ids[order[offset:offset + limit]]


def _second(bound: str) -> int:
    """A stored ISO bound (whole seconds, as ``bound_timestamp`` writes it) as a Unix second."""
    return int(np.datetime64(bound[:19], "s").astype(np.int64))
