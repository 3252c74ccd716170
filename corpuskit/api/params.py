"""Query-parameter validation for both HTTP interfaces, in one place.

Every function reads ``bottle.request.query`` (or the ``query`` mapping given)
and either returns a clean Python value or stops the request with a 400 JSON
error naming the parameter. The rules, applied the same way everywhere:

- an integer above its maximum is clamped to the maximum; a non-integer, zero
  or negative one (below ``minimum``) is 400;
- an enum value outside its choices is 400;
- timestamps are ISO 8601 (``2026-01-05``, ``2026-01-05T10:00:00Z``, with or
  without zone; no zone means UTC); anything else is 400; a date-only upper
  bound covers its whole day;
- a ``from`` after ``to`` is 400;
- a value that is not valid UTF-8 or longer than its limit is 400;
- an empty value (``?limit=``) counts as absent; unknown parameter names are ignored.
"""
from __future__ import annotations

import re
from datetime import date, datetime, time, timezone

import bottle

from corpuskit.api.errors import abort_json
from corpuskit.clock import iso, utc
from corpuskit.query import MAX_QUERY_LENGTH, QuerySyntaxError, compile_query
from corpuskit.query import is_source_name

MAX_VALUE_LENGTH = 512
_INT_RE = re.compile(r"^[+-]?\d{1,18}$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|z|[+-]\d{2}:?\d{2})?$")


def _raw(name: str, query=None, max_len: int = MAX_VALUE_LENGTH):
    """The parameter's text (UTF-8 decoded), or None when absent or empty."""
    query = bottle.request.query if query is None else query
    value = query.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = value.encode("latin1").decode("utf-8")
        except UnicodeError:
            abort_json(400, f"parameter {name!r} is not valid UTF-8")
    if len(value) > max_len:
        abort_json(400, f"parameter {name!r} is longer than {max_len} characters")
    if "\x00" in value:
        abort_json(400, f"parameter {name!r} contains a NUL character")
    value = value.strip()
    return value or None


def int_param(name: str, default: int | None, minimum: int = 1, maximum: int | None = None,
              query=None) -> int | None:
    """An integer parameter; above ``maximum`` it is clamped, below ``minimum`` it is 400."""
    text = _raw(name, query, max_len=32)
    if text is None:
        return default
    if not _INT_RE.match(text):
        abort_json(400, f"parameter {name!r} must be an integer, not {text[:40]!r}")
    value = int(text)
    if value < minimum:
        abort_json(400, f"parameter {name!r} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        value = maximum
    return value


def enum_param(name: str, choices, default=None, query=None):
    """A parameter that must be one of ``choices`` (case-sensitive)."""
    text = _raw(name, query, max_len=64)
    if text is None:
        return default
    if text not in choices:
        abort_json(400, f"parameter {name!r} must be one of {', '.join(choices)}; got {text[:40]!r}")
    return text


def source_param(name: str, choices, exists, query=None):
    """A source filter: one of ``choices`` (the spec's source kinds), or a source the corpus holds.

    Source names are open (any lower-case slug can be imported); ``exists(value)`` says
    whether the corpus has a record of that source. Anything else is a 400 naming both rules.
    """
    text = _raw(name, query, max_len=64)
    if text is None or text in choices:
        return text
    if is_source_name(text) and exists(text):
        return text
    abort_json(400, f"parameter {name!r} must be one of {', '.join(choices)}, or a source the "
                    f"corpus holds; got {text[:40]!r}")


def string_param(name: str, max_len: int = 200, default=None, query=None):
    """A free-text parameter of at most ``max_len`` characters."""
    text = _raw(name, query, max_len=max_len)
    return default if text is None else text


def query_param(name: str = "q", query=None):
    """A query-language text compiled by :func:`corpuskit.query.compile_query`, or None; a
    malformed query answers 400 with the message naming the column."""
    text = _raw(name, query, max_len=MAX_QUERY_LENGTH)
    if text is None:
        return None
    try:
        return compile_query(text)
    except QuerySyntaxError as exc:
        abort_json(400, f"parameter {name!r}: {exc}")


def bool_param(name: str, default: bool | None = None, query=None):
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``)."""
    text = _raw(name, query, max_len=8)
    if text is None:
        return default
    lowered = text.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    abort_json(400, f"parameter {name!r} must be true or false, not {text!r}")


def parse_iso_timestamp(name: str, text: str, end_of_day: bool = False) -> datetime:
    """Parse strict ISO 8601 or answer 400; a bare date means its start (or end) of day."""
    if not _TS_RE.match(text):
        abort_json(400, f"parameter {name!r} must be an ISO 8601 timestamp, not {text[:40]!r}")
    try:
        if _DATE_RE.match(text):
            day = date.fromisoformat(text)
            return datetime.combine(day, time(23, 59, 59) if end_of_day else time(0, 0, 0),
                                    tzinfo=timezone.utc)
        candidate = text.replace("z", "Z").replace("Z", "+00:00")
        return utc(datetime.fromisoformat(candidate))
    except (ValueError, OverflowError):
        abort_json(400, f"parameter {name!r} is not a valid date or time: {text[:40]!r}")


def timestamp_param(name: str, end_of_day: bool = False, query=None) -> str | None:
    """An ISO 8601 parameter as a stored timestamp string ``YYYY-MM-DDTHH:MM:SSZ``, or None."""
    text = _raw(name, query, max_len=64)
    if text is None:
        return None
    return iso(parse_iso_timestamp(name, text, end_of_day=end_of_day))


def date_param(name: str, query=None) -> str | None:
    """A ``YYYY-MM-DD`` parameter, or None."""
    text = _raw(name, query, max_len=16)
    if text is None:
        return None
    if not _DATE_RE.match(text):
        abort_json(400, f"parameter {name!r} must be a date YYYY-MM-DD, not {text[:40]!r}")
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        abort_json(400, f"parameter {name!r} is not a valid date: {text!r}")


def time_range(from_name: str = "from", to_name: str = "to", query=None):
    """``(from, to)`` stored timestamps (each None when absent); both inclusive; from > to is 400."""
    start = timestamp_param(from_name, query=query)
    end = timestamp_param(to_name, end_of_day=True, query=query)
    if start is not None and end is not None and start > end:
        abort_json(400, f"parameter {from_name!r} ({start}) is after {to_name!r} ({end})")
    return start, end
