"""Timestamps and the corpus clock.

All stored timestamps are UTC ISO 8601 strings ``YYYY-MM-DDTHH:MM:SSZ``.
:func:`parse_timestamp` accepts what real exports contain:

- ISO 8601 with or without a zone (``Z``, ``+02:00``; no zone means UTC), date only too;
- RFC 2822 (``Wed, 10 Oct 2018 20:19:24 +0000``, ``GMT``; e-mail and RSS dates);
- Twitter API v1.1's ``created_at`` (``Wed Oct 10 20:19:24 +0000 2018``);
- unix epoch numbers, as numbers or numeric strings: a magnitude of 10^11 or more is
  milliseconds, below it seconds (10^11 seconds is the year 5138, 10^11 milliseconds
  March 1973, so no date between 1973 and 5138 is ambiguous);
- slash dates ``A/B/YYYY`` (or ``/YY``) with an optional ``H:MM[:SS]``: month first unless
  ``dayfirst=True``. An import decides the order for a whole file (see
  :mod:`corpuskit.ingest.dates`), so no date is read in an order it did not choose;
- with ``date_format`` (a ``strptime`` format), a string is read by that format only.
"""
from __future__ import annotations

import re
from datetime import date, datetime, timezone
from email.utils import parsedate_to_datetime
from functools import lru_cache

from corpuskit.errors import ValidationError

#: ``A/B/YYYY [H:MM[:SS]]``: groups first field, second field, year, hour, minute, second.
SLASH_DATE = re.compile(
    r"^([0-9]{1,2})/([0-9]{1,2})/([0-9]{4}|[0-9]{2}),?(?:[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?)?$")
_TWITTER = "%a %b %d %H:%M:%S %z %Y"
#: epoch numbers at or above this magnitude are milliseconds, below it seconds
EPOCH_MS_FROM = 1e11
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
# the stored form itself: ASCII digits only (``\d`` would also match other scripts' digits)
_STORED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z")


def utc(dt: datetime) -> datetime:
    """``dt`` as an aware UTC datetime (naive input is taken to be UTC)."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def iso(dt: datetime) -> str:
    """Format as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC."""
    return utc(dt).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_iso(text: str) -> datetime:
    """Parse a stored timestamp back into an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def parse_timestamp(value, *, date_format: str | None = None, dayfirst: bool | None = None) -> datetime:
    """Parse one timestamp value into an aware UTC datetime.

    ``date_format`` (``strptime``) reads a string by that format only;
    ``dayfirst=True`` reads a slash date as day/month (default month/day).
    Raises :class:`ValidationError` with a reason when it cannot.
    """
    if value is None:
        raise ValidationError("missing timestamp")
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if hasattr(value, "to_pydatetime"):  # pandas Timestamp
        return utc(value.to_pydatetime())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _from_epoch(float(value))
    text = str(value).strip()
    if not text:
        raise ValidationError("missing timestamp")
    if date_format is not None:
        try:
            return utc(datetime.strptime(text, date_format))
        except ValueError:
            raise ValidationError(f"date {text!r} does not match the date format "
                                  f"{date_format!r}") from None
    if _NUMBER.match(text):
        return _from_epoch(float(text))
    match = SLASH_DATE.match(text)
    if match:
        return slash_date(match, dayfirst=bool(dayfirst))
    try:
        candidate = text.replace("Z", "+00:00").replace("z", "+00:00")
        if candidate.endswith((" UTC", " GMT")):   # twint's "2021-09-25 05:38:48 UTC"
            candidate = candidate[:-4] + "+00:00"
        if " " in candidate and "T" not in candidate:
            candidate = candidate.replace(" ", "T", 1)
        return utc(datetime.fromisoformat(candidate))
    except ValueError:
        pass
    try:
        return utc(datetime.strptime(text, _TWITTER))
    except ValueError:
        pass
    if "," in text or text[:1].isdigit():
        try:   # RFC 2822, with or without the weekday
            return utc(parsedate_to_datetime(text))
        except (TypeError, ValueError, IndexError):
            pass
    for fmt in ("%Y%m%dT%H%M%SZ", "%Y%m%d%H%M%S"):
        try:
            return utc(datetime.strptime(text, fmt))
        except ValueError:
            continue
    raise ValidationError(f"unparseable date {text!r}")


def slash_date(match: re.Match, dayfirst: bool = False) -> datetime:
    """The datetime of a :data:`SLASH_DATE` match, read day-first or month-first."""
    return datetime(*_slash_fields(match, dayfirst), tzinfo=timezone.utc)


def slash_iso(match: re.Match, dayfirst: bool = False) -> str:
    """:func:`slash_date` as a stored timestamp (formatted directly: an import reads many).

    The day is checked and formatted once per distinct day (:func:`_slash_day`); the time's
    fields, which the pattern gives as digits, are checked as text.
    """
    first, second, year, hour, minute, sec = match.groups()
    day = _slash_day(first, second, year, dayfirst)
    hour = hour.zfill(2) if hour else "00"
    minute, sec = minute or "00", sec or "00"
    if day is None or hour > "23" or minute > "59" or sec > "59":
        # not a real time: _slash_fields raises the error that names it
        year, month, day, hour, minute, sec = _slash_fields(match, dayfirst)
        return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{sec:02d}Z"
    return f"{day}T{hour}:{minute}:{sec}Z"


@lru_cache(maxsize=8192)
def _slash_day(first: str, second: str, year: str, dayfirst: bool) -> str | None:
    """``YYYY-MM-DD`` of a slash date's day (its fields as matched), or None when it is no real day."""
    month, day = (second, first) if dayfirst else (first, second)
    year = int(year) if len(year) == 4 else 2000 + int(year) if int(year) < 70 else 1900 + int(year)
    try:
        datetime(year, int(month), int(day))
    except ValueError:
        return None
    return f"{year:04d}-{int(month):02d}-{int(day):02d}"


def _slash_fields(match: re.Match, dayfirst: bool) -> tuple:
    """``(year, month, day, hour, minute, second)`` of a slash date, checked to be a real time."""
    first, second, year, hour, minute, second_ = match.groups()
    month, day = (second, first) if dayfirst else (first, second)
    year = int(year) if len(year) == 4 else 2000 + int(year) if int(year) < 70 else 1900 + int(year)
    fields = (year, int(month), int(day), int(hour or 0), int(minute or 0), int(second_ or 0))
    try:
        datetime(*fields)
    except ValueError as exc:
        order = "day/month/year" if dayfirst else "month/day/year"
        raise ValidationError(f"unparseable date {match.string!r} (read as {order}): {exc}") from exc
    return fields


def _from_epoch(seconds: float) -> datetime:
    if abs(seconds) >= EPOCH_MS_FROM:  # milliseconds
        seconds /= 1000.0
    if not (0 <= seconds < 32503680000):  # 1970 .. 3000
        raise ValidationError(f"timestamp {seconds!r} out of range")
    return datetime.fromtimestamp(int(seconds), tz=timezone.utc)


def to_iso(value) -> str:
    """Parse ``value`` (any accepted form) and format it as a stored timestamp."""
    if type(value) is str and len(value) == 20 and _STORED.fullmatch(value) and _stored_day(value[:10]):
        return value   # already stored form (the common case on import): same answer, no parsing
    return iso(parse_timestamp(value))


@lru_cache(maxsize=4096)
def _stored_day(day: str) -> bool:
    """Whether ``DAYT00:00:00Z`` parses and formats back to itself (a real date, written as stored)."""
    text = day + "T00:00:00Z"
    try:
        return iso(parse_timestamp(text)) == text
    except ValidationError:
        return False


def day_start(dt: datetime) -> datetime:
    """Midnight UTC of ``dt``'s day."""
    dt = utc(dt)
    return datetime(dt.year, dt.month, dt.day, tzinfo=timezone.utc)


def wall_clock() -> datetime:
    """The real current time, second resolution, UTC."""
    return datetime.now(timezone.utc).replace(microsecond=0)
