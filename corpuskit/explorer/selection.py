"""What the explorer selects, as plain values: the filters, the query they compose and a period's bounds.

No widget and no corpus here: :class:`Filters` turns the chosen sources, languages and topics into a
clause of the query language (``source:(hackernews) AND lang:(en)``), so a selection is always one
:meth:`corpuskit.Corpus.query` call that the "code" view can print and a reader can re-run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from corpuskit.errors import ValidationError

#: Period codes of the attention chart (those of :meth:`corpuskit.subcorpus.Subcorpus.over_time`).
FREQUENCIES = {"D": "day", "W": "week", "M": "month"}
PANDAS_FREQ = {"D": "D", "W": "W-SUN", "M": "M"}
_BARE = re.compile(r"[\w.-]+")


def quoted(value: str) -> str:
    """``value`` as one term of the query language: bare when it is a plain word, else in quotes."""
    value = str(value)
    if _BARE.fullmatch(value) and value.upper() not in ("AND", "OR", "NOT", "TO"):
        return value
    return '"' + value.replace('"', " ") + '"'


@dataclass(frozen=True)
class Filters:
    """The record filters of the explorer: publication bounds (ISO timestamps or None) and the sources,
    languages and topics kept (empty: all)."""

    since: str | None = None
    until: str | None = None
    sources: tuple = ()
    languages: tuple = ()
    topics: tuple = ()

    def clause(self) -> str:
        """The sources, languages and topics as a query-language clause ('' when none is chosen)."""
        parts = []
        for field, values in (("source", self.sources), ("lang", self.languages), ("topic", self.topics)):
            if values:
                parts.append(f"{field}:(" + " OR ".join(quoted(v) for v in sorted(values)) + ")")
        return " AND ".join(parts)


def compose(q: str, filters: Filters) -> str:
    """The query ``q`` restricted by the filters' clause: ``(q) AND source:(...)`` ('' for no query)."""
    q = (q or "").strip()
    if not q:
        return ""
    clause = filters.clause()
    return f"({q}) AND {clause}" if clause else q


def period_bounds(start, freq: str, since: str | None = None, until: str | None = None) -> tuple[str, str]:
    """The first and last second (ISO, UTC) of the period of ``freq`` starting at ``start``, cut to
    ``since``/``until`` when they fall inside it (the bounds are inclusive, as ``Corpus.query`` reads them)."""
    if freq not in PANDAS_FREQ:
        raise ValidationError(f"freq must be one of {', '.join(FREQUENCIES)}, not {freq!r}")
    period = pd.Timestamp(start).tz_localize(None).to_period(PANDAS_FREQ[freq])
    first = period.start_time.strftime("%Y-%m-%dT%H:%M:%SZ")
    last = period.end_time.strftime("%Y-%m-%dT%H:%M:%SZ")
    if since is not None and since > first:
        first = since
    if until is not None and until < last:
        last = until
    return first, last


def period_label(start, freq: str) -> str:
    """A period as a reader names it: ``2016-03-07`` (day), ``week of 2016-02-22``, ``2016-03`` (month)."""
    stamp = pd.Timestamp(start)
    if freq == "M":
        return stamp.strftime("%Y-%m")
    return ("week of " if freq == "W" else "") + stamp.strftime("%Y-%m-%d")
