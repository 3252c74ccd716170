"""Periods of a corpus's history that stories are written for (``narrate --period/--since/--until/--every``).

A :class:`Period` is a half-open span ``[start, end)`` of whole UTC seconds.
Its stories are written "as at the end of the period": the corpus clock is
taken to be ``end - 1 second`` (:attr:`Period.as_of`), only records published
in the span are evidence, and the stories are dated then.

Period names (:func:`parse_period`): ``2016`` (a year), ``2016-03`` (a month),
``2016-W09`` (an ISO week, Monday to Monday), ``2016-03-05`` (a day).
:func:`periods_for` turns the CLI/library arguments into a list of periods.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from corpuskit.clock import iso, parse_timestamp, utc
from corpuskit.errors import ValidationError

EVERY = ("day", "week", "month", "year")
MAX_PERIODS = 1000  # more periods than this in one call is almost surely a mistake (--every day over decades)


@dataclass(frozen=True)
class Period:
    """``[start, end)`` with its ``label`` (the name it was asked by, or ``<start>..<end>``)."""

    label: str
    start: datetime
    end: datetime

    @property
    def as_of(self) -> datetime:
        """The moment the period's stories are written at: its last whole second."""
        return self.end - timedelta(seconds=1)

    @property
    def days(self) -> int:
        """Whole days the period spans (at least 1); the windows of its stories."""
        return max(1, -(-int((self.end - self.start).total_seconds()) // 86400))

    def to_dict(self) -> dict:
        """``{label, start, end}`` (ISO timestamps; ``end`` exclusive)."""
        return {"label": self.label, "start": iso(self.start), "end": iso(self.end)}


def _month_after(dt: datetime) -> datetime:
    return dt.replace(year=dt.year + (dt.month == 12), month=dt.month % 12 + 1)


def parse_period(text: str) -> Period:
    """The period named by ``text`` (a year, month, ISO week or day); :class:`ValidationError` otherwise."""
    if not isinstance(text, str):
        raise ValidationError(f"period must be a string such as 2016-03, not {text!r}")
    value = text.strip()
    try:
        if re.fullmatch(r"\d{4}", value):
            start = datetime(int(value), 1, 1, tzinfo=timezone.utc)
            return Period(value, start, start.replace(year=start.year + 1))
        if re.fullmatch(r"\d{4}-\d{2}", value):
            start = datetime(int(value[:4]), int(value[5:]), 1, tzinfo=timezone.utc)
            return Period(value, start, _month_after(start))
        match = re.fullmatch(r"(\d{4})-W(\d{2})", value, flags=re.IGNORECASE)
        if match:
            start = datetime.fromisocalendar(int(match[1]), int(match[2]), 1).replace(tzinfo=timezone.utc)
            return Period(f"{match[1]}-W{match[2]}", start, start + timedelta(days=7))
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            start = datetime.fromisoformat(value).replace(tzinfo=timezone.utc)
            return Period(value, start, start + timedelta(days=1))
    except ValueError as exc:
        raise ValidationError(f"period {text!r} is not a real date: {exc}") from None
    raise ValidationError(f"period {text!r} not understood; use a year (2016), month (2016-03), "
                          f"ISO week (2016-W09) or day (2016-03-05)")


def _start_of(dt: datetime, every: str) -> datetime:
    day = dt.replace(hour=0, minute=0, second=0, microsecond=0)
    if every == "week":
        return day - timedelta(days=day.weekday())
    if every == "month":
        return day.replace(day=1)
    if every == "year":
        return day.replace(month=1, day=1)
    return day


def _label(start: datetime, every: str) -> str:
    if every == "week":
        year, week, _ = start.isocalendar()
        return f"{year}-W{week:02d}"
    return start.strftime({"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}[every])


def _step(start: datetime, every: str) -> datetime:
    if every == "month":
        return _month_after(start)
    if every == "year":
        return start.replace(year=start.year + 1)
    return start + timedelta(days=7 if every == "week" else 1)


def _moment(value, name: str) -> datetime:
    try:
        return utc(parse_timestamp(value))
    except Exception as exc:  # noqa: BLE001 - any unparseable value is the caller's error
        raise ValidationError(f"{name} {value!r} is not a date or time: {exc}") from None


def periods_for(period=None, since=None, until=None, every=None, first=None, last=None) -> list[Period]:
    """The periods asked for, oldest first.

    - ``period``: one named period (see :func:`parse_period`); not with the others.
    - ``since``/``until`` without ``every``: one period from ``since`` (default
      ``first``, the oldest record) to ``until`` (default ``last``, the corpus
      clock), ``until`` included to the second.
    - ``every`` (day, week, month, year): the calendar periods that overlap
      ``[since, until]`` (defaults as above), each whole (a story of March is
      about all of March; one past the corpus clock ends at the clock).

    ``first``/``last`` are datetimes; :class:`ValidationError` for bad or empty input.
    """
    if period is not None:
        if since is not None or until is not None or every is not None:
            raise ValidationError("give a period, or since/until/every, not both")
        return [parse_period(period)]
    if every is not None and every not in EVERY:
        raise ValidationError(f"every must be one of {', '.join(EVERY)}, not {every!r}")
    lo = _moment(since, "since") if since is not None else first
    hi = _moment(until, "until") + timedelta(seconds=1) if until is not None else (
        last + timedelta(seconds=1) if last is not None else None)
    if lo is None or hi is None:
        raise ValidationError("the corpus has no records: give since and until")
    if hi <= lo:
        raise ValidationError(f"until must be after since ({iso(lo)} .. {iso(hi)})")
    if every is None:
        return [Period(f"{iso(lo)}..{iso(hi - timedelta(seconds=1))}", lo, hi)]
    out, start = [], _start_of(lo, every)
    while start < hi:
        end = _step(start, every)
        if last is not None and end > last + timedelta(seconds=1):
            end = last + timedelta(seconds=1)  # the period still running at the corpus clock
            if end <= start:
                break
        out.append(Period(_label(start, every), start, end))
        if len(out) > MAX_PERIODS:
            raise ValidationError(f"more than {MAX_PERIODS} periods asked for; choose a longer every or a "
                                  f"shorter span")
        start = _step(start, every)
    return out
