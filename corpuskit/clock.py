"""Timestamps and the corpus clock.

All stored timestamps are UTC ISO 8601 strings ``YYYY-MM-DDTHH:MM:SSZ``.
:func:`parse_timestamp` accepts what real exports contain: unix seconds (or
milliseconds), ISO 8601 with or without a zone (no zone means UTC), and
``M/D/YYYY H:MM``.
"""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache

from corpuskit.errors import ValidationError

_MDY = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$")
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


def parse_timestamp(value) -> datetime:
    """Parse one timestamp value into an aware UTC datetime.

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
    if _NUMBER.match(text):
        return _from_epoch(float(text))
    match = _MDY.match(text)
    if match:
        month, day, year, hour, minute, second = match.groups()
        try:
            return datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                            int(second or 0), tzinfo=timezone.utc)
        except ValueError as exc:
            raise ValidationError(f"unparseable date {text!r}: {exc}") from exc
    try:
        candidate = text.replace("Z", "+00:00").replace("z", "+00:00")
        if " " in candidate and "T" not in candidate:
            candidate = candidate.replace(" ", "T", 1)
        return utc(datetime.fromisoformat(candidate))
    except ValueError:
        pass
    for fmt in ("%a, %d %b %Y %H:%M:%S %z", "%a, %d %b %Y %H:%M:%S %Z", "%Y%m%dT%H%M%SZ", "%Y%m%d%H%M%S"):
        try:
            return utc(datetime.strptime(text, fmt))
        except ValueError:
            continue
    raise ValidationError(f"unparseable date {text!r}")


def _from_epoch(seconds: float) -> datetime:
    if seconds > 1e11:  # milliseconds
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


def days_back(now: datetime, days: int) -> datetime:
    """The instant ``days`` days before ``now``."""
    return utc(now) - timedelta(days=days)


def wall_clock() -> datetime:
    """The real current time, second resolution, UTC."""
    return datetime.now(timezone.utc).replace(microsecond=0)
