"""Day windows measured from the corpus clock, and the argument checks they share.

Every "last N days" in the analysis aggregates is a run of whole UTC days
ending on the corpus clock's day (``corpus.now()``), oldest first.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from corpuskit.clock import iso, parse_timestamp, utc
from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.query import topic_by_name

MAX_DAYS = 3660  # ten years: the library's own bound; the HTTP layer applies the specs' maxima


def check_int(value, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an int within ``[low, high]``, else :class:`ValidationError`."""
    if isinstance(value, bool):
        raise ValidationError(f"{name} must be an integer, not {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must be an integer, not {value!r}") from None
    if isinstance(value, float) and value != number:
        raise ValidationError(f"{name} must be an integer, not {value!r}")
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValidationError(f"{name} must be {bound}, not {number}")
    return number


def check_days(days, high: int = MAX_DAYS) -> int:
    """A window length in days: an integer from 1 to ``high``."""
    return check_int(days, "days", 1, high)


def clock_day(corpus) -> date:
    """The UTC calendar day of the corpus clock."""
    return utc(corpus.now()).date()


def day_range(first: date, last: date) -> list[str]:
    """Every day from ``first`` to ``last`` inclusive as ``YYYY-MM-DD`` strings."""
    n = (last - first).days + 1
    return [(first + timedelta(days=i)).isoformat() for i in range(max(n, 0))]


def window_days(corpus, days: int) -> list[str]:
    """The ``days`` UTC days ending on the corpus clock's day, oldest first."""
    last = clock_day(corpus)
    return day_range(last - timedelta(days=days - 1), last)


def parse_day(value, name: str) -> date:
    """A ``YYYY-MM-DD`` string (or date/datetime) as a date, else :class:`ValidationError`."""
    if isinstance(value, datetime):
        return utc(value).date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValidationError(f"{name} must be a date YYYY-MM-DD, not {value!r}") from None


def parse_since(value, default: datetime) -> str:
    """A lower time bound as a stored timestamp string; ``default`` when ``value`` is None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return iso(default)
    return iso(parse_timestamp(value))


def day_end(day: str) -> datetime:
    """The last second of a UTC day."""
    d = date.fromisoformat(day)
    return datetime(d.year, d.month, d.day, 23, 59, 59, tzinfo=timezone.utc)


def topic_id_by_name(corpus, name: str) -> tuple[int, str]:
    """``(id, name)`` of the topic called ``name``; :class:`~corpuskit.query.TopicNotFound` (a
    :class:`NotFoundError`) when there is none."""
    if name is None or not str(name).strip():
        raise ValidationError("topic is required")
    row = topic_by_name(corpus.conn, name)
    return row["id"], row["name"]


def topic_by_id(corpus, topic_id) -> tuple[int, str]:
    """``(id, display name)`` of a topic given its integer id; :class:`NotFoundError` if unknown."""
    try:
        key = int(topic_id)
    except (TypeError, ValueError):
        raise NotFoundError(f"Topic not found: {topic_id!r}") from None
    row = corpus.conn.execute("SELECT id, display_name FROM topics WHERE id = ?", (key,)).fetchone()
    if row is None:
        raise NotFoundError(f"Topic not found: {topic_id!r}")
    return row[0], row[1]
